//! The runner's outputs (`--report`, `--junit`, and stdout under `--format
//! json`), and whether each was written whole.
//!
//! A write that fails never stops the run: the output stops taking writes,
//! the run goes on, and at the end the failure is reported with the path
//! and the error, and the runner exits with a status of its own
//! ([`OUTPUT_FAILED`]). An output is whole only once it is flushed and, for
//! a regular file, synced to its disk (where a full disk can show first).
//! A reader of stdout that goes away (`| head`) chose to stop reading:
//! that is not a failure.

use std::fs::File;
use std::io::{BufWriter, ErrorKind, Write};
use std::path::Path;

/// The exit status of a run whose verdict was reached but an output could
/// not be written whole (README, "The runner").
pub const OUTPUT_FAILED: u8 = 4;

enum Target {
    File {
        out: BufWriter<File>,
        regular: bool,
    },
    Stdout,
    /// Anything else that takes bytes (tests).
    Other(Box<dyn Write + Send>),
}

/// One output of a run.
pub struct Output {
    /// How it is named in a message: `--report run.jsonl`, `stdout`.
    name: String,
    target: Target,
    failed: Option<String>,
}

impl Output {
    /// Creates the file an output goes to: called before anything runs, so
    /// that a bad path is found at once, named after its flag.
    pub fn create(flag: &str, path: &Path) -> Result<Output, String> {
        let name = format!("{flag} {}", path.display());
        let file = File::create(path).map_err(|e| format!("{name}: cannot write: {e}"))?;
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        Ok(Output {
            name,
            target: Target::File {
                out: BufWriter::new(file),
                regular,
            },
            failed: None,
        })
    }

    /// Stdout (the records under `--format json`).
    pub fn stdout() -> Output {
        Output {
            name: "stdout".into(),
            target: Target::Stdout,
            failed: None,
        }
    }

    /// Any writer, named `name`.
    pub fn other(name: &str, out: Box<dyn Write + Send>) -> Output {
        Output {
            name: name.into(),
            target: Target::Other(out),
            failed: None,
        }
    }

    fn note(&mut self, result: std::io::Result<()>) {
        match result {
            Ok(()) => {}
            // The reader went away: it has what it wanted.
            Err(e)
                if e.kind() == ErrorKind::BrokenPipe && matches!(self.target, Target::Stdout) =>
            {
                self.failed = Some(String::new())
            }
            Err(e) => self.failed = Some(format!("{}: cannot write: {e}", self.name)),
        }
    }

    /// Writes `text` and flushes it (a report read while the run goes on
    /// has every record so far). After a failure, writes nothing more.
    pub fn write(&mut self, text: &str) {
        if self.failed.is_some() {
            return;
        }
        let result = match &mut self.target {
            Target::File { out, .. } => out.write_all(text.as_bytes()).and_then(|()| out.flush()),
            Target::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes()).and_then(|()| out.flush())
            }
            Target::Other(out) => out.write_all(text.as_bytes()).and_then(|()| out.flush()),
        };
        self.note(result);
    }

    /// Flushes and closes the output: `Err` with the path and the error
    /// when it was not written whole.
    pub fn finish(mut self) -> Result<(), String> {
        if self.failed.is_none() {
            let result = match std::mem::replace(&mut self.target, Target::Stdout) {
                Target::File { out, regular } => out
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .and_then(|f| if regular { f.sync_all() } else { Ok(()) }),
                Target::Stdout => std::io::stdout().flush(),
                Target::Other(mut out) => out.flush(),
            };
            self.note(result);
        }
        match self.failed {
            Some(m) if !m.is_empty() => Err(m),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_device_is_a_failure_named_by_its_flag() {
        if !Path::new("/dev/full").exists() {
            return;
        }
        let mut out = Output::create("--report", Path::new("/dev/full")).unwrap();
        out.write("{}\n");
        let e = out.finish().unwrap_err();
        assert!(
            e.starts_with("--report /dev/full: cannot write: No space left on device"),
            "{e}"
        );
    }

    #[test]
    fn a_file_written_whole_is_no_failure() {
        let path = std::env::temp_dir().join(format!("ser-output-{}", std::process::id()));
        let mut out = Output::create("--junit", &path).unwrap();
        out.write("<x/>\n");
        assert_eq!(out.finish(), Ok(()));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "<x/>\n");
        let _ = std::fs::remove_file(path);
    }
}
