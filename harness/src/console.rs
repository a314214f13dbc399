//! What the runner prints, and where.
//!
//! - Under `--format json` stdout carries JSON only: the report's records
//!   (see [`crate::report`]); words for people go to stderr.
//! - libtest-mimic unwraps every write to stdout, so a reader that goes
//!   away (`ser-conformance --list | head`, `... | head`) would panic the
//!   run. It writes into a pipe of the runner's instead; a thread forwards
//!   the pipe to stdout while stdout takes it, and drains it after, so the
//!   run goes on and its report is complete.

use libtest_mimic::{Arguments, ColorSetting, FormatSetting};
use std::io::{IsTerminal, Write};
use std::thread::JoinHandle;

/// Whether the run prints JSON on stdout.
pub fn json(args: &Arguments) -> bool {
    args.format == Some(FormatSetting::Json)
}

/// A line for people: on stdout, or on stderr when stdout carries JSON. A
/// closed stream is not an error; stdout that cannot take the line (a full
/// disk) is, reported at the end ([`stdout_failure`]).
pub fn say(json: bool, line: &str) {
    if json {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    } else {
        let mut out = std::io::stdout().lock();
        note_stdout(writeln!(out, "{line}").and_then(|()| out.flush()));
    }
}

/// The first failure to write stdout other than its reader going away.
static STDOUT_FAILED: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn note_stdout(result: std::io::Result<()>) {
    if let Err(e) = result {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            let _ = STDOUT_FAILED.set(format!("stdout: cannot write: {e}"));
        }
    }
}

/// Why stdout was not written whole, if it was not (its reader going away
/// is no failure: it has what it wanted).
pub fn stdout_failure() -> Option<String> {
    STDOUT_FAILED.get().cloned()
}

/// Where libtest-mimic's output goes for the length of a run.
pub struct LibtestOutput {
    #[cfg(unix)]
    writer: Option<std::io::PipeWriter>,
    thread: Option<JoinHandle<()>>,
}

impl LibtestOutput {
    /// Points `args` at a forwarding pipe (or, under `--format json`, at
    /// nothing: the runner prints its own JSON records).
    pub fn route(args: &mut Arguments) -> LibtestOutput {
        let none = LibtestOutput {
            #[cfg(unix)]
            writer: None,
            thread: None,
        };
        if args.logfile.is_some() {
            return none;
        }
        if json(args) {
            args.logfile = Some(NULL_DEVICE.to_string());
            return none;
        }
        #[cfg(unix)]
        if let Some(routed) = forward(args) {
            return routed;
        }
        none
    }

    /// Waits until everything libtest-mimic wrote has been forwarded.
    pub fn finish(mut self) {
        #[cfg(unix)]
        drop(self.writer.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(unix)]
const NULL_DEVICE: &str = "/dev/null";
#[cfg(not(unix))]
const NULL_DEVICE: &str = "NUL";

#[cfg(unix)]
fn forward(args: &mut Arguments) -> Option<LibtestOutput> {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    let (mut reader, writer) = std::io::pipe().ok()?;
    let dir = if cfg!(target_os = "linux") {
        "/proc/self/fd"
    } else {
        "/dev/fd"
    };
    let path = format!("{dir}/{}", writer.as_raw_fd());
    if !std::path::Path::new(&path).exists() {
        return None;
    }
    // With a logfile libtest-mimic colours only when told to.
    if args.color.is_none() && std::io::stdout().is_terminal() {
        args.color = Some(ColorSetting::Always);
    }
    args.logfile = Some(path);
    let thread = std::thread::Builder::new()
        .name("libtest output".into())
        .spawn(move || {
            let mut buf = [0u8; 8192];
            let mut open = true;
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if open {
                    let mut stdout = std::io::stdout().lock();
                    let written = stdout.write_all(&buf[..n]).and_then(|_| stdout.flush());
                    open = written.is_ok();
                    note_stdout(written);
                }
            }
        })
        .ok()?;
    Some(LibtestOutput {
        writer: Some(writer),
        thread: Some(thread),
    })
}
