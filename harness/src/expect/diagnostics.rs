//! Negative cases: the diagnostics a backend reports against those the
//! case expects, by code and severity (never by message text), as sets. An
//! optional expectation (a diagnostic a text only recommends) may be
//! missing; nothing else may be added.

use crate::load::ExpectedDiagnostic;
use ser_reference::validate::Diagnostic;

/// What differs, one line per missing or unexpected diagnostic.
pub fn check(expected: &[ExpectedDiagnostic], actual: &[Diagnostic]) -> Vec<String> {
    let got = |e: &ExpectedDiagnostic| {
        actual
            .iter()
            .any(|d| d.code == e.code && d.severity == e.severity)
    };
    let mut problems: Vec<String> = expected
        .iter()
        .filter(|e| !e.optional && !got(e))
        .map(|e| {
            format!(
                "missing {} `{}` ({})",
                e.severity.name(),
                e.code.name(),
                e.code.meaning()
            )
        })
        .collect();
    let mut seen = Vec::new();
    for d in actual {
        let key = (d.code, d.severity);
        let wanted = expected.iter().any(|e| (e.code, e.severity) == key);
        if !wanted && !seen.contains(&key) {
            seen.push(key);
            problems.push(format!("unexpected {d}"));
        }
    }
    problems
}
