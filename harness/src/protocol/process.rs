//! One backend process: started in a process group of its own, read line
//! by line, and ended with everything it started.
//!
//! - The stream is checked as it arrives: a line must be UTF-8 text that
//!   opens a JSON object, without control bytes, within [`MAX_LINE`]
//!   bytes. The first byte that cannot be the protocol ends the reading at
//!   once (binary output without a newline never becomes a wait for the
//!   time limit).
//! - Waiting for a line also watches the process: one that exits is seen
//!   when it exits, even while a child it started still holds its stdout
//!   open, and the child goes with it (the whole group is ended).

use super::MAX_LINE;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Lines of the backend's stderr kept for crash reports.
const STDERR_KEPT: usize = 20;

/// How often a wait for a line looks at whether the process is alive.
const WATCH: Duration = Duration::from_millis(20);

/// What the reader saw on the backend's stdout.
#[derive(Debug)]
enum Event {
    Line(String),
    /// Output that cannot be the protocol: why, and what it began with.
    Broken(String),
}

/// What waiting for a line gave.
pub enum Received {
    Line(String),
    Timeout(Duration),
    /// Stdout closed, or the process exited: how it ended.
    Ended(String),
    /// The stream stopped being the protocol: why. The process is ended.
    Broken(String),
}

/// A running backend process.
pub struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Event>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The command line, as a message names it.
    pub command: String,
}

/// `program arg ...` as people read it.
pub fn command_line(command: &[String]) -> String {
    command
        .iter()
        .map(|w| {
            if w.is_empty() || w.contains(char::is_whitespace) {
                format!("{w:?}")
            } else {
                w.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl Process {
    /// Starts `command` in a process group of its own.
    pub fn spawn(command: &[String]) -> Result<Process, String> {
        let shown = command_line(command);
        let mut cmd = Command::new(&command[0]);
        cmd.args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start `{shown}`: {e}"))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || read_stream(stdout, tx));
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
        Ok(Process {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: tail,
            command: shown,
        })
    }

    pub fn send(&mut self, line: &str) -> std::io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("closed"))?;
        writeln!(stdin, "{line}")?;
        stdin.flush()
    }

    /// The next line that is not blank, within `timeout`.
    pub fn receive(&mut self, timeout: Option<Duration>) -> Received {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if left == Some(Duration::ZERO) {
                return Received::Timeout(timeout.unwrap_or_default());
            }
            match self
                .lines
                .recv_timeout(left.map_or(WATCH, |l| l.min(WATCH)))
            {
                Ok(Event::Line(l)) if l.trim().is_empty() => continue,
                Ok(Event::Line(l)) => return Received::Line(l),
                Ok(Event::Broken(why)) => {
                    self.kill();
                    return Received::Broken(why);
                }
                Err(RecvTimeoutError::Disconnected) => return Received::Ended(self.exit_report()),
                Err(RecvTimeoutError::Timeout) => {
                    if let Ok(Some(status)) = self.child.try_wait() {
                        return self.exited(status);
                    }
                }
            }
        }
    }

    /// What the process wrote after its last reply, if it wrote anything
    /// within `settle`: a line, or output that is not the protocol.
    pub fn extra(&mut self, settle: Duration) -> Option<String> {
        let deadline = Instant::now() + settle;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Event::Line(l)) if l.trim().is_empty() => continue,
                Ok(Event::Line(l)) => return Some(l),
                Ok(Event::Broken(why)) => return Some(why),
                Err(_) => return None,
            }
        }
    }

    /// The process exited while a line was awaited: a last line it wrote
    /// before it exited still counts; otherwise how it ended. Whatever it
    /// left running (a child holding its stdout) is ended with it.
    fn exited(&mut self, status: ExitStatus) -> Received {
        match self.lines.recv_timeout(WATCH) {
            Ok(Event::Line(l)) if !l.trim().is_empty() => return Received::Line(l),
            Ok(Event::Broken(why)) => {
                self.kill();
                return Received::Broken(why);
            }
            _ => {}
        }
        self.kill_group();
        Received::Ended(self.report(&describe_status(status)))
    }

    /// How the process ended, with the end of what it wrote to stderr.
    pub fn exit_report(&mut self) -> String {
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
        self.kill_group();
        self.report(&how)
    }

    fn report(&self, how: &str) -> String {
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

    /// Ends the process and everything in its group.
    pub fn kill(&mut self) {
        self.stdin = None;
        self.kill_group();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn kill_group(&mut self) {
        #[cfg(unix)]
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: kill(2) with a negative pid signals the group the
            // backend leads (process_group(0) made it its leader); it
            // touches no memory of this process.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for Process {
    /// Closes stdin so the backend can exit on its own; ends it and its
    /// group if it does not within a moment.
    fn drop(&mut self) {
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                self.kill_group();
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

pub fn describe_status(s: ExitStatus) -> String {
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

/// Why a line so far cannot be a message, if it cannot: a byte other than
/// whitespace before its `{`, or a control byte (JSON text holds none
/// outside whitespace).
fn broken(line: &[u8], from: usize) -> Option<String> {
    let first = line.iter().position(|b| !b" \t\r\n".contains(b));
    if let Some(i) = first.filter(|&i| line[i] != b'{') {
        return Some(format!(
            "output that is not a protocol message (a line must be a JSON object; this one began {})",
            shown(&line[i..])
        ));
    }
    let control = line[from..]
        .iter()
        .position(|&b| b < 0x20 && !b"\t\r\n".contains(&b))?;
    Some(format!(
        "output that is not a protocol message (a control byte {:#04x} at byte {} of a line, which JSON text never holds)",
        line[from + control],
        from + control
    ))
}

/// The start of some output, escaped for a message.
fn shown(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(40)];
    format!("`{}`", head.escape_ascii())
}

/// Reads the backend's stdout line by line, checking each byte as it comes
/// ([`broken`]); stops at the first sign that the stream is not the
/// protocol, or at a line over [`MAX_LINE`] bytes.
fn read_stream(stdout: impl Read, tx: mpsc::Sender<Event>) {
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    let mut line: Vec<u8> = Vec::new();
    loop {
        let chunk = match reader.fill_buf() {
            Ok([]) | Err(_) => return,
            Ok(c) => c,
        };
        let (take, end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let from = line.len();
        line.extend_from_slice(&chunk[..take]);
        reader.consume(take);
        let problem = broken(&line, from).or_else(|| {
            (line.len() > MAX_LINE).then(|| format!("a line longer than {MAX_LINE} bytes"))
        });
        if let Some(why) = problem {
            let _ = tx.send(Event::Broken(why));
            return;
        }
        if end {
            let event = match String::from_utf8(std::mem::take(&mut line)) {
                Ok(l) => Event::Line(l),
                Err(e) => Event::Broken(format!(
                    "output that is not a protocol message (a line that is not UTF-8, at byte {})",
                    e.utf8_error().valid_up_to()
                )),
            };
            let stop = matches!(event, Event::Broken(_));
            if tx.send(event).is_err() || stop {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(bytes: &[u8]) -> Vec<Event> {
        let (tx, rx) = mpsc::channel();
        read_stream(bytes, tx);
        rx.into_iter().collect()
    }

    #[test]
    fn lines_that_open_objects_pass() {
        let got = events(b"{\"a\": 1}\n\n  {\"b\": \"\\u0007\"}\n");
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(matches!(&got[2], Event::Line(l) if l.trim_start().starts_with("{\"b\"")));
    }

    #[test]
    fn binary_output_is_broken_at_its_first_byte_without_a_newline() {
        let got = events(b"{\"a\": 1}\n\x00\x01\x02");
        assert!(matches!(&got[0], Event::Line(_)));
        let Event::Broken(why) = &got[1] else {
            panic!("{got:?}")
        };
        assert!(why.contains("must be a JSON object"), "{why}");
        let got = events(b"{\"a\": \"x\x07");
        assert!(
            matches!(&got[0], Event::Broken(w) if w.contains("control byte 0x07")),
            "{got:?}"
        );
        let got = events(b"{\"a\": \"\xff\"}\n");
        assert!(
            matches!(&got[0], Event::Broken(w) if w.contains("not UTF-8")),
            "{got:?}"
        );
    }

    #[test]
    fn command_lines_quote_words_with_spaces() {
        let c = ["python3".to_string(), "my backend.py".into(), "-v".into()];
        assert_eq!(command_line(&c), "python3 \"my backend.py\" -v");
    }
}
