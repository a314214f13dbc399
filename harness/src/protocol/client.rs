//! The runner side: a backend that is another program (`--backend
//! exec:PATH ARGS`). Each case gets one request and one reply; a backend
//! process that hangs past the time limit, dies, or answers nonsense is
//! stopped, the case gets its verdict, and the next case starts a fresh
//! process. Parallel test threads each get a process of their own.

use super::codec::{decode, encode};
use super::convert::{output_of, request};
use super::wire::{BackendHello, BatchHeader, BatchType, HelloType, Reply, RunnerHello};
use super::{MAX_LINE, PROTOCOL_VERSION};
use crate::backend::{Backend, BackendError, Execution};
use crate::load::Case;
use ser_reference::Profile;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Lines of the backend's stderr kept for crash reports.
const STDERR_KEPT: usize = 20;

/// A program speaking the protocol.
pub struct ExecBackend {
    command: Vec<String>,
    profile: Option<Profile>,
    timeout: Option<Duration>,
    hello: BackendHello,
    idle: Mutex<Vec<Process>>,
}

impl ExecBackend {
    /// Starts the program once to learn its name, profile and capabilities.
    /// `profile` is passed on in the runner's hello.
    pub fn start(
        command: Vec<String>,
        profile: Option<Profile>,
        timeout: Option<Duration>,
    ) -> Result<ExecBackend, String> {
        if command.is_empty() {
            return Err("`exec:` needs a program: exec:PATH [ARGS]".into());
        }
        let (process, hello) = Process::start(&command, profile, timeout)?;
        if let Some(asked) = profile.filter(|p| *p != hello.profile) {
            return Err(format!(
                "`{}` (backend `{}`) implements profile {}, not {asked}: a verdict is about the profile the backend implements",
                command[0], hello.name, hello.profile
            ));
        }
        Ok(ExecBackend {
            command,
            profile,
            timeout,
            hello,
            idle: Mutex::new(vec![process]),
        })
    }

    fn program(&self) -> &str {
        &self.command[0]
    }

    fn take_process(&self) -> Result<Process, BackendError> {
        if let Some(p) = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            return Ok(p);
        }
        let (p, hello) = Process::start(&self.command, self.profile, self.timeout)
            .map_err(BackendError::Crashed)?;
        if hello != self.hello {
            return Err(BackendError::Failed(format!(
                "`{}` restarted with another hello: {} instead of {}",
                self.program(),
                encode(&hello),
                encode(&self.hello)
            )));
        }
        Ok(p)
    }
}

impl Backend for ExecBackend {
    fn name(&self) -> &str {
        &self.hello.name
    }

    fn profile(&self) -> Profile {
        self.hello.profile
    }

    fn capabilities(&self) -> Vec<String> {
        self.hello.capabilities.clone()
    }

    fn wave_sizes(&self) -> Vec<u32> {
        self.hello.wave_sizes.clone()
    }

    fn phase(&self) -> crate::claim::Phase {
        self.hello.phase
    }

    fn enforces_timeout(&self) -> bool {
        true
    }

    fn run(&self, case: &Case) -> Result<Execution, BackendError> {
        let mut p = self.take_process()?;
        if p.send(&encode(&request(case))).is_err() {
            return Err(BackendError::Crashed(p.exit_report()));
        }
        let line = match p.receive_nonblank(self.timeout) {
            Received::Line(l) => l,
            Received::Timeout(limit) => {
                p.kill();
                return Err(BackendError::Timeout(format!(
                    "no reply within {} s; the backend process was stopped and a new one serves the next case",
                    limit.as_secs_f64()
                )));
            }
            Received::Closed => return Err(BackendError::Crashed(p.exit_report())),
            Received::Unreadable(m) => {
                p.kill();
                return Err(BackendError::Failed(format!(
                    "{m}; the backend process was stopped"
                )));
            }
        };
        let reply: Reply = match decode("a reply", &line) {
            Ok(r) => r,
            Err(e) => {
                p.kill();
                return Err(BackendError::Failed(format!(
                    "the backend broke the protocol: {e}; the process was stopped"
                )));
            }
        };
        if reply.id() != case.id {
            p.kill();
            return Err(BackendError::Failed(format!(
                "the backend broke the protocol: a reply for `{}` to the request for `{}`; the process was stopped",
                reply.id(),
                case.id
            )));
        }
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(p);
        output_of(reply)
    }

    /// A `batch` header and the requests, then the replies in order, all
    /// within the per-case limit times the batch's size. Any trouble (a
    /// process that dies, hangs, or answers out of order) stops the process
    /// and gives no answers, so the runner judges each case on its own and
    /// the verdicts name the case at fault.
    fn run_batch(&self, cases: &[&Case]) -> Vec<Result<Execution, BackendError>> {
        if !self.hello.batch || cases.len() <= 1 {
            return cases.iter().map(|c| self.run(c)).collect();
        }
        let Ok(mut p) = self.take_process() else {
            return Vec::new();
        };
        let header = BatchHeader {
            kind: BatchType::Batch,
            count: cases.len() as u32,
        };
        let sent = std::iter::once(encode(&header))
            .chain(cases.iter().map(|c| encode(&request(c))))
            .try_for_each(|line| p.send(&line));
        if sent.is_err() {
            p.kill();
            return Vec::new();
        }
        let deadline = self
            .timeout
            .map(|t| Instant::now() + t * cases.len() as u32);
        let mut out = Vec::with_capacity(cases.len());
        for case in cases {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            let reply = match p.receive_nonblank(left) {
                Received::Line(l) => decode::<Reply>("a reply", &l).ok(),
                _ => None,
            };
            match reply {
                Some(r) if r.id() == case.id => out.push(output_of(r)),
                _ => {
                    p.kill();
                    return Vec::new();
                }
            }
        }
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(p);
        out
    }
}

enum Received {
    Line(String),
    Timeout(Duration),
    Closed,
    Unreadable(String),
}

/// One running backend process.
struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Result<String, String>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl Process {
    fn start(
        command: &[String],
        profile: Option<Profile>,
        timeout: Option<Duration>,
    ) -> Result<(Process, BackendHello), String> {
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", command[0]))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || read_lines(stdout, tx));
        let tail: Arc<Mutex<VecDeque<String>>> = Arc::default();
        let kept = tail.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut t = kept.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == STDERR_KEPT {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        let mut p = Process {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: tail,
        };
        let hello = RunnerHello {
            kind: HelloType::Hello,
            protocol: PROTOCOL_VERSION,
            runner: format!("ser-conformance {}", env!("CARGO_PKG_VERSION")),
            profile,
        };
        let what = |m: String| format!("`{}` did not start: {m}", command[0]);
        if p.send(&encode(&hello)).is_err() {
            return Err(what(p.exit_report()));
        }
        // The hello is held to the per-case limit like any reply.
        let line = match p.receive(timeout) {
            Received::Line(l) => l,
            Received::Timeout(t) => {
                return Err(what(format!("no hello within {} s", t.as_secs_f64())))
            }
            Received::Closed => return Err(what(p.exit_report())),
            Received::Unreadable(m) => return Err(what(m)),
        };
        let hello: BackendHello =
            decode("the backend's hello", &line).map_err(|e| what(e.to_string()))?;
        if hello.protocol != PROTOCOL_VERSION {
            return Err(what(format!(
                "it speaks protocol {}, this runner speaks {PROTOCOL_VERSION}",
                hello.protocol
            )));
        }
        Ok((p, hello))
    }

    fn send(&mut self, line: &str) -> std::io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("closed"))?;
        writeln!(stdin, "{line}")?;
        stdin.flush()
    }

    fn receive(&mut self, timeout: Option<Duration>) -> Received {
        let got = match timeout {
            Some(t) => self.lines.recv_timeout(t),
            None => self
                .lines
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected),
        };
        match got {
            Ok(Ok(line)) => Received::Line(line),
            Ok(Err(m)) => Received::Unreadable(m),
            Err(RecvTimeoutError::Timeout) => Received::Timeout(timeout.unwrap_or_default()),
            Err(RecvTimeoutError::Disconnected) => Received::Closed,
        }
    }

    /// The next line that is not blank (blank lines between messages are
    /// allowed).
    fn receive_nonblank(&mut self, timeout: Option<Duration>) -> Received {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            match self.receive(left) {
                Received::Line(l) if l.trim().is_empty() => continue,
                Received::Timeout(_) => return Received::Timeout(timeout.unwrap_or_default()),
                other => return other,
            }
        }
    }

    /// How the process ended, with the end of what it wrote to stderr.
    fn exit_report(&mut self) -> String {
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(2);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => break None,
            }
        };
        let how = match status {
            Some(s) => describe_status(s),
            None => {
                self.kill();
                "closed its stdout and was stopped".to_string()
            }
        };
        // Give the stderr reader a moment to catch the last lines.
        std::thread::sleep(Duration::from_millis(20));
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        if tail.is_empty() {
            format!("the backend process {how}")
        } else {
            let lines: Vec<&str> = tail.iter().map(String::as_str).collect();
            format!(
                "the backend process {how}; its stderr ended with:\n{}",
                lines.join("\n")
            )
        }
    }

    fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    /// Closes stdin so the backend can exit on its own; stops it if it
    /// does not within a moment.
    fn drop(&mut self) {
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

fn describe_status(s: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return format!("was killed by signal {sig}");
        }
    }
    match s.code() {
        Some(c) => format!("exited with status {c}"),
        None => "exited".to_string(),
    }
}

/// Reads the backend's stdout line by line, refusing lines over
/// [`MAX_LINE`] and lines that are not UTF-8.
fn read_lines(stdout: impl Read, tx: mpsc::Sender<Result<String, String>>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut buf = Vec::new();
        let read = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf);
        match read {
            Ok(0) | Err(_) => return,
            Ok(_) if buf.len() > MAX_LINE => {
                let _ = tx.send(Err(format!("a line longer than {MAX_LINE} bytes")));
                return;
            }
            Ok(_) => {
                let msg = String::from_utf8(buf).map_err(|_| "a line that is not UTF-8".into());
                if tx.send(msg).is_err() {
                    return;
                }
            }
        }
    }
}
