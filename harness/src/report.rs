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
}

impl Summary {
    pub fn add(&mut self, v: Verdict) {
        match v {
            Verdict::Pass => self.pass += 1,
            Verdict::Fail => self.fail += 1,
            Verdict::NotSupported => self.not_supported += 1,
            Verdict::Error => self.error += 1,
        }
    }

    pub fn total(&self) -> usize {
        self.pass + self.fail + self.not_supported + self.error
    }

    pub fn ok(&self) -> bool {
        self.fail == 0 && self.error == 0
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
