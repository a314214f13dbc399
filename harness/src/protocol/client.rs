//! The runner side: a backend that is another program (`--backend
//! exec:PATH ARGS`). Each case gets one request and one reply, matched by
//! the case's id; a backend process that hangs past the time limit, dies,
//! answers for another case, answers twice or writes what is not the
//! protocol is ended with its process group, the case gets its verdict,
//! and the next case starts a fresh process. Parallel test threads each
//! get a process of their own.

use super::codec::{decode, encode};
use super::convert::{output_of, request};
use super::process::{command_line, Process, Received};
use super::wire::{BackendHello, BatchHeader, BatchType, HelloType, Reply, RunnerHello};
use super::PROTOCOL_VERSION;
use crate::backend::{Backend, BackendError, Execution};
use crate::load::Case;
use ser_reference::Profile;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long the runner listens after a reply for anything more the
/// backend writes before the next request: a second reply, or output that
/// is not the protocol, is then the fault of the case it followed. Output
/// later than this is found before the next request is sent, or in place
/// of its reply; that case is run again on a fresh process, and the run's
/// notices name what the backend wrote.
const SETTLE: Duration = Duration::from_millis(2);

/// A program speaking the protocol.
pub struct ExecBackend {
    command: Vec<String>,
    profile: Option<Profile>,
    timeout: Option<Duration>,
    hello: BackendHello,
    idle: Mutex<Vec<Served>>,
    /// What the backend did that no case's verdict could show (late
    /// output after a reply that had been judged).
    notices: Mutex<Vec<String>>,
}

/// A process and the id of the last case it answered.
struct Served {
    process: Process,
    last: Option<String>,
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
        let (process, hello) = start(&command, profile, timeout)?;
        let shown = command_line(&command);
        if let Some(asked) = profile.filter(|p| *p != hello.profile) {
            return Err(format!(
                "`{shown}` (backend `{}`) implements profile {}, not {asked}: a verdict is about the profile the backend implements",
                hello.name, hello.profile
            ));
        }
        crate::claim::check_stated(&hello.capabilities, &hello.wave_sizes).map_err(|e| {
            format!(
                "`{shown}` (backend `{}`) states a claim the suite cannot judge: {e}",
                hello.name
            )
        })?;
        Ok(ExecBackend {
            command,
            profile,
            timeout,
            hello,
            idle: Mutex::new(vec![Served {
                process,
                last: None,
            }]),
            notices: Mutex::new(Vec::new()),
        })
    }

    fn notice(&self, text: String) {
        self.notices
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(text);
    }

    /// An idle process with nothing unread, or a fresh one. A process that
    /// wrote something after its last reply had been judged is ended, and
    /// what it wrote becomes a notice.
    fn take_process(&self) -> Result<Served, BackendError> {
        loop {
            let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let Some(mut s) = idle else { break };
            match s.process.extra(Duration::ZERO) {
                None => return Ok(s),
                Some(what) => {
                    s.process.kill();
                    self.late(s.last.as_deref(), &what);
                }
            }
        }
        let (process, hello) =
            start(&self.command, self.profile, self.timeout).map_err(BackendError::Crashed)?;
        if hello != self.hello {
            return Err(BackendError::Failed(format!(
                "`{}` restarted with another hello: {} instead of {}",
                command_line(&self.command),
                encode(&hello),
                encode(&self.hello)
            )));
        }
        Ok(Served {
            process,
            last: None,
        })
    }

    /// Notes output that came after the reply for `last` had been judged.
    fn late(&self, last: Option<&str>, what: &str) {
        let after = last.map_or("its hello".to_string(), |id| {
            format!("its reply for `{id}`")
        });
        self.notice(format!(
            "after {after} had been judged, the backend wrote more ({}); the process was ended and the next case ran on a fresh one",
            excerpt(what)
        ));
    }

    fn give_back(&self, s: Served) {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(s);
    }

    /// One request and its reply on one process.
    fn exchange(&self, s: &mut Served, case: &Case) -> Result<Reply, Exchange> {
        if s.process.send(&encode(&request(case))).is_err() {
            return Err(Exchange::Fault(BackendError::Crashed(
                s.process.exit_report(),
            )));
        }
        let line = match s.process.receive(self.timeout) {
            Received::Line(l) => l,
            Received::Timeout(limit) => {
                s.process.kill();
                return Err(Exchange::Fault(BackendError::Timeout(format!(
                    "no reply within {} s; the backend process was ended and a new one serves the next case",
                    limit.as_secs_f64()
                ))));
            }
            Received::Ended(how) => return Err(Exchange::Fault(BackendError::Crashed(how))),
            Received::Broken(why) => {
                return Err(Exchange::Fault(BackendError::Failed(format!(
                    "the backend broke the protocol: {why}; the process was ended"
                ))))
            }
        };
        let reply: Reply = decode("a reply", &line).map_err(|e| {
            s.process.kill();
            Exchange::Fault(BackendError::Failed(format!(
                "the backend broke the protocol: {e}; the process was ended"
            )))
        })?;
        if reply.id() == case.id {
            return Ok(reply);
        }
        s.process.kill();
        if s.last.as_deref() == Some(reply.id()) {
            // A late second reply for the case before: not this case's.
            return Err(Exchange::Late(line));
        }
        Err(Exchange::Fault(BackendError::Failed(format!(
            "the backend broke the protocol: a reply for `{}` to the request for `{}`; the process was ended",
            reply.id(),
            case.id
        ))))
    }
}

/// Why an exchange gave no reply for the case.
enum Exchange {
    /// The case's own fault.
    Fault(BackendError),
    /// The backend answered the case before it again: the case is run
    /// again on a fresh process.
    Late(String),
}

/// The start of what a backend wrote, for a notice.
fn excerpt(what: &str) -> String {
    let mut s: String = what.chars().take(80).collect();
    if what.chars().count() > 80 {
        s.push_str("...");
    }
    format!("`{}`", s.escape_debug())
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
        let mut s = self.take_process()?;
        let reply = match self.exchange(&mut s, case) {
            Ok(r) => r,
            Err(Exchange::Fault(e)) => return Err(e),
            Err(Exchange::Late(line)) => {
                self.late(s.last.as_deref(), &line);
                s = self.take_process()?;
                match self.exchange(&mut s, case) {
                    Ok(r) => r,
                    Err(Exchange::Fault(e)) => return Err(e),
                    Err(Exchange::Late(line)) => {
                        return Err(BackendError::Failed(format!(
                            "the backend broke the protocol: a fresh process answered the request for `{}` with {}",
                            case.id,
                            excerpt(&line)
                        )))
                    }
                }
            }
        };
        // Anything more right after the reply is this case's doing.
        if let Some(extra) = s.process.extra(SETTLE) {
            s.process.kill();
            return Err(BackendError::Failed(format!(
                "the backend broke the protocol: after its reply it wrote more ({}); a request gets one reply; the process was ended",
                excerpt(&extra)
            )));
        }
        s.last = Some(case.id.clone());
        self.give_back(s);
        output_of(reply)
    }

    fn notices(&self) -> Vec<String> {
        std::mem::take(&mut *self.notices.lock().unwrap_or_else(|e| e.into_inner()))
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
        let Ok(mut s) = self.take_process() else {
            return Vec::new();
        };
        let header = BatchHeader {
            kind: BatchType::Batch,
            count: cases.len() as u32,
        };
        let sent = std::iter::once(encode(&header))
            .chain(cases.iter().map(|c| encode(&request(c))))
            .try_for_each(|line| s.process.send(&line));
        if sent.is_err() {
            s.process.kill();
            return Vec::new();
        }
        let deadline = self
            .timeout
            .map(|t| Instant::now() + t * cases.len() as u32);
        let mut out = Vec::with_capacity(cases.len());
        for case in cases {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            let reply = match s.process.receive(left) {
                Received::Line(l) => decode::<Reply>("a reply", &l).ok(),
                _ => None,
            };
            match reply {
                Some(r) if r.id() == case.id => out.push(output_of(r)),
                _ => {
                    s.process.kill();
                    return Vec::new();
                }
            }
        }
        if s.process.extra(SETTLE).is_some() {
            s.process.kill();
            return Vec::new();
        }
        s.last = cases.last().map(|c| c.id.clone());
        self.give_back(s);
        out
    }
}

/// Starts the program and exchanges hellos; the hello is held to the
/// per-case limit like any reply. A message names the whole command line
/// (`python3 backend.py`, not `python3`).
fn start(
    command: &[String],
    profile: Option<Profile>,
    timeout: Option<Duration>,
) -> Result<(Process, BackendHello), String> {
    let mut p = Process::spawn(command)?;
    let what = |m: String| format!("`{}` did not start: {m}", command_line(command));
    let hello = RunnerHello {
        kind: HelloType::Hello,
        protocol: PROTOCOL_VERSION,
        runner: format!("ser-conformance {}", env!("CARGO_PKG_VERSION")),
        profile,
    };
    if p.send(&encode(&hello)).is_err() {
        return Err(what(p.exit_report()));
    }
    let line = match p.receive(timeout) {
        Received::Line(l) => l,
        Received::Timeout(t) => {
            p.kill();
            return Err(what(format!("no hello within {} s", t.as_secs_f64())));
        }
        Received::Ended(how) => return Err(what(how)),
        Received::Broken(why) => return Err(what(why)),
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
