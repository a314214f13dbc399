//! Negative cases: the diagnostics a backend reports against those the
//! case expects, by code and severity (never by message text), as sets. An
//! optional expectation (a diagnostic a text only recommends) may be
//! missing; nothing else may be added.

use crate::load::{Case, ExpectedDiagnostic};
use ser_reference::validate::{Diagnostic, Severity};
use ser_reference::Profile;

/// How a backend's diagnostics differ from a case's.
#[derive(Debug, Default, PartialEq)]
pub struct Differences {
    /// Expected and required, not reported.
    pub missing: Vec<ExpectedDiagnostic>,
    /// Reported and not expected, each once: `error ...` as people read it.
    pub unexpected: Vec<String>,
}

impl Differences {
    pub fn is_empty(&self) -> bool {
        self.missing.is_empty() && self.unexpected.is_empty()
    }

    /// One line per missing or unexpected diagnostic.
    pub fn lines(&self) -> Vec<String> {
        self.missing
            .iter()
            .map(|e| {
                format!(
                    "missing {} `{}` ({})",
                    e.severity.name(),
                    e.code.name(),
                    e.code.meaning()
                )
            })
            .chain(self.unexpected.iter().map(|u| format!("unexpected {u}")))
            .collect()
    }
}

/// What differs between the expected diagnostics and the reported ones.
pub fn check(expected: &[ExpectedDiagnostic], actual: &[Diagnostic]) -> Differences {
    let got = |e: &ExpectedDiagnostic| {
        actual
            .iter()
            .any(|d| d.code == e.code && d.severity == e.severity)
    };
    let missing = expected
        .iter()
        .filter(|e| !e.optional && !got(e))
        .copied()
        .collect();
    let mut unexpected = Vec::new();
    let mut seen = Vec::new();
    for d in actual {
        let key = (d.code, d.severity);
        let wanted = expected.iter().any(|e| (e.code, e.severity) == key);
        if !wanted && !seen.contains(&key) {
            seen.push(key);
            unexpected.push(d.to_string());
        }
    }
    Differences {
        missing,
        unexpected,
    }
}

/// The clauses that require a diagnostic the case expects: those the
/// suite's validator cites when it reports the diagnostic's code for the
/// case's program under `profile` (the rule that decides it); where it
/// reports none, every clause the case cites. What makes a missing
/// diagnostic a failure or a recommendation not met.
pub fn requiring(
    case: &Case,
    profile: Profile,
    code: ser_reference::validate::DiagCode,
) -> Vec<String> {
    let cited = || case.clauses.clone();
    let Ok(program) = case.program_for(profile) else {
        return cited();
    };
    let mut clauses: Vec<String> =
        ser_reference::validate::validate(&program, profile, &case.limits)
            .into_iter()
            .filter(|d| d.code == code)
            .map(|d| d.clause)
            .collect();
    clauses.sort();
    clauses.dedup();
    if clauses.is_empty() {
        cited()
    } else {
        clauses
    }
}

/// The first error a case requires (not an optional one): what a rejection
/// can show.
pub fn required_error(expected: &[ExpectedDiagnostic]) -> Option<&ExpectedDiagnostic> {
    expected
        .iter()
        .find(|e| e.severity == Severity::Error && !e.optional)
}

/// Judging by rejection with locations: whether a rejection whose errors
/// point at `lines` of the case's text shows the rule the case breaks. It
/// does when one of them is a line where the suite's validator finds an
/// error the case expects (test262's check of an error's phase and type,
/// made sharper by place); a rejection somewhere else was for another
/// reason. With no lines (a compiler that gives none) the rejection alone
/// is judged, and the message says so.
pub fn located(
    case: &Case,
    profile: Profile,
    expected: &[ExpectedDiagnostic],
    lines: &[u32],
) -> Result<String, String> {
    if lines.is_empty() {
        return Ok("the compiler gave no location".into());
    }
    let program = case
        .program_for(profile)
        .map_err(|e| format!("the case's library does not load: {e}"))?;
    let mut broken: Vec<u32> = ser_reference::validate::validate(&program, profile, &case.limits)
        .iter()
        .filter(|d| {
            d.severity == Severity::Error
                && expected
                    .iter()
                    .any(|e| e.code == d.code && e.severity == Severity::Error)
        })
        .map(|d| d.span.line)
        .collect();
    broken.sort_unstable();
    broken.dedup();
    if broken.is_empty() {
        // Only an optional error the suite's validator does not report
        // (a rule the texts allow a compiler to apply, not require) has
        // no place here: the rejection alone is judged.
        return Ok("the case allows the error without placing it".into());
    }
    let list = |l: &[u32]| l.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    let matched: Vec<u32> = broken
        .iter()
        .copied()
        .filter(|l| lines.contains(l))
        .collect();
    if !matched.is_empty() {
        Ok(format!(
            "at line {}, where the rule is broken",
            list(&matched)
        ))
    } else {
        Err(format!(
            "rejected for another reason: the compiler's errors are at line(s) {}, the case breaks its rule at line(s) {}",
            list(lines),
            list(&broken)
        ))
    }
}
