//! The machine-readable results of a run: JSON Lines, one record per case,
//! written as each case finishes so that a run cut short still leaves a
//! readable report.
//!
//! Records: `{"type": "run", "version": 4, ...}` first (the backend and
//! its claim), then one `{"type": "case", ...}` per case (see
//! [`crate::verdict::CaseResult`]), then `{"type": "summary", ...}` with
//! the counts and the verdict (see [`crate::conclusion`]). The same records
//! go to stdout under `--format json`.
//!
//! Version 4: a run that never started (a path its flag refuses, a
//! baseline refused, a backend that does not start) still writes its run
//! record, with `"started": false` and the backend as the command line
//! named it, and a summary whose verdict has the standing `not_started`
//! (exit status 2) and says why. Version 3 added the verdict `warning` (a recommendation not met; see
//! [`crate::broken`]) and its count in the summary; version 2 split
//! version 1's `not_supported` into `not_applicable` (outside the claim)
//! and `not_supported` (declined inside it).

use crate::claim::Claim;
use crate::conclusion::Conclusion;
use crate::output::Output;
use crate::verdict::{CaseResult, Verdict};
use serde::Serialize;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

pub const REPORT_VERSION: u32 = 4;

/// Where the records go: the `--report` file, and stdout under
/// `--format json`. A write that fails (a full disk, a reader that went
/// away) never stops the run; [`Report::finish`] says which output was not
/// written whole.
pub struct Report {
    sinks: Mutex<Vec<Output>>,
}

impl Report {
    /// Creates the file a report will go to: called before anything runs,
    /// so that a bad path is found at once, named.
    pub fn open(path: &Path) -> Result<Output, String> {
        Output::create("--report", path)
    }

    pub fn new(sinks: Vec<Output>) -> Report {
        Report {
            sinks: Mutex::new(sinks),
        }
    }

    /// Flushes and closes every output: the failures, each naming its
    /// output and the error.
    pub fn finish(&self) -> Vec<String> {
        let sinks = std::mem::take(&mut *self.sinks.lock().unwrap_or_else(|e| e.into_inner()));
        sinks.into_iter().filter_map(|s| s.finish().err()).collect()
    }

    /// A report to one file, with its run record written.
    pub fn create(
        path: &Path,
        backend: &str,
        claim: &Claim,
        cases_dir: &Path,
    ) -> Result<Report, String> {
        let report = Report::new(vec![Report::open(path)?]);
        report.start(backend, claim, cases_dir);
        Ok(report)
    }

    /// The first record: who is judged, on what claim, on which cases.
    pub fn start(&self, backend: &str, claim: &Claim, cases_dir: &Path) {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.line(&json!({
            "type": "run",
            "version": REPORT_VERSION,
            "backend": backend,
            "profile": claim.profile.name(),
            "capabilities": claim.capabilities,
            "wave_sizes": claim.wave_sizes,
            "cases": cases_dir.display().to_string(),
            "started": true,
            "started_unix": started,
        }));
    }

    /// The records of a run that never started: the run record as far as
    /// the command line names it, and a summary with no case and why.
    pub fn not_started(&self, backend: &str, profile: Option<&str>, cases_dir: &Path, why: &str) {
        self.line(&json!({
            "type": "run",
            "version": REPORT_VERSION,
            "backend": backend,
            "profile": profile,
            "capabilities": [],
            "wave_sizes": [],
            "cases": cases_dir.display().to_string(),
            "started": false,
        }));
        self.summary(&Summary::default(), &crate::conclusion::not_started(why));
    }

    fn line(&self, v: &serde_json::Value) {
        let mut sinks = self.sinks.lock().unwrap_or_else(|e| e.into_inner());
        let line = format!("{v}\n");
        for out in sinks.iter_mut() {
            out.write(&line);
        }
    }

    pub fn case(&self, r: &CaseResult) {
        let mut v = serde_json::to_value(r)
            .unwrap_or_else(|e| json!({ "id": r.id, "error": e.to_string() }));
        if let Some(o) = v.as_object_mut() {
            o.insert("type".into(), "case".into());
        }
        self.line(&v);
    }

    /// The last record: the counts and the verdict.
    pub fn summary(&self, s: &Summary, conclusion: &Conclusion) {
        self.summary_with(s, conclusion, &[]);
    }

    /// The last record, with the backend's notices (what it did that no
    /// case's verdict shows).
    pub fn summary_with(&self, s: &Summary, conclusion: &Conclusion, notices: &[String]) {
        let mut v = serde_json::to_value(s).expect("a summary serializes");
        if let Some(o) = v.as_object_mut() {
            o.insert("type".into(), "summary".into());
            o.insert("total".into(), s.total().into());
            o.insert("applicable".into(), s.applicable().into());
            o.insert(
                "verdict".into(),
                serde_json::to_value(conclusion).expect("a conclusion serializes"),
            );
            if !notices.is_empty() {
                o.insert("notices".into(), notices.into());
            }
        }
        self.line(&v);
    }
}

/// Verdict counts, and the not-applicable cases by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub pass: usize,
    pub fail: usize,
    pub not_applicable: usize,
    pub not_supported: usize,
    pub error: usize,
    pub timeout: usize,
    pub crash: usize,
    pub expected_fail: usize,
    pub unexpected_pass: usize,
    /// Recommendations not met (`should` clauses alone): not counted
    /// against conformance.
    pub warning: usize,
    /// Not-applicable cases by reason (`other profiles`, a capability).
    pub not_applicable_by: BTreeMap<String, usize>,
}

impl Summary {
    fn slot(&mut self, v: Verdict) -> &mut usize {
        match v {
            Verdict::Pass => &mut self.pass,
            Verdict::Fail => &mut self.fail,
            Verdict::NotApplicable => &mut self.not_applicable,
            Verdict::NotSupported => &mut self.not_supported,
            Verdict::Error => &mut self.error,
            Verdict::Timeout => &mut self.timeout,
            Verdict::Crash => &mut self.crash,
            Verdict::ExpectedFail => &mut self.expected_fail,
            Verdict::UnexpectedPass => &mut self.unexpected_pass,
            Verdict::Warning => &mut self.warning,
        }
    }

    pub fn add(&mut self, r: &CaseResult) {
        *self.slot(r.verdict) += 1;
        if r.verdict == Verdict::NotApplicable {
            let why = r.outside_claim.clone().unwrap_or_else(|| "unknown".into());
            *self.not_applicable_by.entry(why).or_default() += 1;
        }
    }

    pub fn of(results: &[CaseResult]) -> Summary {
        let mut s = Summary::default();
        results.iter().for_each(|r| s.add(r));
        s
    }

    pub fn count(&self, v: Verdict) -> usize {
        // `slot` takes `&mut`: a copy of the counts, not of the reasons map.
        let mut counts = Summary {
            not_applicable_by: BTreeMap::new(),
            ..*self
        };
        *counts.slot(v)
    }

    pub fn total(&self) -> usize {
        ALL_VERDICTS.iter().map(|v| self.count(*v)).sum()
    }

    /// Cases judged against the claim: all but the not applicable.
    pub fn applicable(&self) -> usize {
        ALL_VERDICTS
            .iter()
            .filter(|v| v.is_applicable())
            .map(|v| self.count(*v))
            .sum()
    }

    /// No verdict that fails the run.
    pub fn ok(&self) -> bool {
        ALL_VERDICTS
            .iter()
            .all(|v| !v.fails_run() || self.count(*v) == 0)
    }

    /// The not-applicable reasons, most frequent first:
    /// `722 other profiles, 175 validation`.
    pub fn not_applicable_reasons(&self) -> String {
        let mut by: Vec<(&String, &usize)> = self.not_applicable_by.iter().collect();
        by.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        by.iter()
            .map(|(why, n)| format!("{} {why}", thousands(**n)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

pub const ALL_VERDICTS: [Verdict; 10] = [
    Verdict::Pass,
    Verdict::Fail,
    Verdict::NotApplicable,
    Verdict::NotSupported,
    Verdict::Error,
    Verdict::Timeout,
    Verdict::Crash,
    Verdict::ExpectedFail,
    Verdict::UnexpectedPass,
    Verdict::Warning,
];

impl std::fmt::Display for Summary {
    /// `N case(s): P pass, F fail, A not applicable, S not supported, E
    /// error`, then the other verdicts that occurred.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} case(s)", thousands(self.total()))?;
        for (i, v) in ALL_VERDICTS.iter().enumerate() {
            let n = self.count(*v);
            if i < 5 || n > 0 {
                write!(f, "{} {}", if i == 0 { ":" } else { "," }, v.counted(n))?;
            }
        }
        Ok(())
    }
}

/// `1265` as `1,265`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Reads a report back (for tools and tests): its records, in order.
pub fn read(path: &Path) -> Result<Vec<serde_json::Value>, String> {
    let text = crate::files::read_text(path, crate::files::MAX_RESULTS_FILE)?;
    Ok(text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn groups_digits_by_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1265), "1,265");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
