//! The machine-readable results of a run: JSON Lines, one record per case,
//! written as each case finishes so that a run cut short still leaves a
//! readable report.
//!
//! Records: `{"type": "run", "version": 1, ...}` first, then one
//! `{"type": "case", ...}` per case (see [`crate::verdict::CaseResult`]),
//! then `{"type": "summary", ...}`.

use crate::verdict::{CaseResult, Verdict};
use serde_json::json;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Mutex;

pub const REPORT_VERSION: u32 = 1;

pub struct Report {
    out: Mutex<BufWriter<File>>,
}

impl Report {
    pub fn create(
        path: &Path,
        backend: &str,
        profile: &str,
        cases_dir: &Path,
    ) -> std::io::Result<Report> {
        let report = Report {
            out: Mutex::new(BufWriter::new(File::create(path)?)),
        };
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        report.line(&json!({
            "type": "run",
            "version": REPORT_VERSION,
            "backend": backend,
            "profile": profile,
            "cases": cases_dir.display().to_string(),
            "started_unix": started,
        }));
        Ok(report)
    }

    fn line(&self, v: &serde_json::Value) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        // A failed write must not stop the run; the summary says so.
        let _ = writeln!(out, "{v}");
        let _ = out.flush();
    }

    pub fn case(&self, r: &CaseResult) {
        let mut v = serde_json::to_value(r)
            .unwrap_or_else(|e| json!({ "id": r.id, "error": e.to_string() }));
        if let Some(o) = v.as_object_mut() {
            o.insert("type".into(), "case".into());
        }
        self.line(&v);
    }

    pub fn summary(&self, s: &Summary) {
        self.line(&json!({
            "type": "summary",
            "pass": s.pass,
            "fail": s.fail,
            "not_supported": s.not_supported,
            "error": s.error,
            "timeout": s.timeout,
            "crash": s.crash,
            "expected_fail": s.expected_fail,
            "unexpected_pass": s.unexpected_pass,
            "total": s.total(),
        }));
    }
}

/// Verdict counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub pass: usize,
    pub fail: usize,
    pub not_supported: usize,
    pub error: usize,
    pub timeout: usize,
    pub crash: usize,
    pub expected_fail: usize,
    pub unexpected_pass: usize,
}

impl Summary {
    fn slot(&mut self, v: Verdict) -> &mut usize {
        match v {
            Verdict::Pass => &mut self.pass,
            Verdict::Fail => &mut self.fail,
            Verdict::NotSupported => &mut self.not_supported,
            Verdict::Error => &mut self.error,
            Verdict::Timeout => &mut self.timeout,
            Verdict::Crash => &mut self.crash,
            Verdict::ExpectedFail => &mut self.expected_fail,
            Verdict::UnexpectedPass => &mut self.unexpected_pass,
        }
    }

    pub fn add(&mut self, v: Verdict) {
        *self.slot(v) += 1;
    }

    pub fn count(&self, v: Verdict) -> usize {
        *self.clone().slot(v)
    }

    pub fn total(&self) -> usize {
        ALL_VERDICTS.iter().map(|v| self.count(*v)).sum()
    }

    /// No verdict that fails the run.
    pub fn ok(&self) -> bool {
        ALL_VERDICTS
            .iter()
            .all(|v| !v.fails_run() || self.count(*v) == 0)
    }
}

const ALL_VERDICTS: [Verdict; 8] = [
    Verdict::Pass,
    Verdict::Fail,
    Verdict::NotSupported,
    Verdict::Error,
    Verdict::Timeout,
    Verdict::Crash,
    Verdict::ExpectedFail,
    Verdict::UnexpectedPass,
];

impl std::fmt::Display for Summary {
    /// `N case(s): P pass, F fail, S not supported, E error`, then the
    /// other verdicts that occurred.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} case(s)", self.total())?;
        for (i, v) in ALL_VERDICTS.iter().enumerate() {
            let n = self.count(*v);
            if i < 4 || n > 0 {
                write!(f, "{} {n} {}", if i == 0 { ":" } else { "," }, v.name())?;
            }
        }
        Ok(())
    }
}

/// Reads a report back (for tools and tests): its records, in order.
pub fn read(path: &Path) -> std::io::Result<Vec<serde_json::Value>> {
    let text = std::fs::read_to_string(path)?;
    Ok(text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}
