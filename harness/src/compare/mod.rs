//! A backend's output against a case's expectations, and the case's
//! expectations against the reference's legal outcomes when they come
//! along: one module per kind of case ([`negative`]: diagnostics;
//! [`runtime`]: buffers or undefined behaviour; layouts here), and one
//! place ([`finish`]) that turns what was found into a verdict.

mod negative;
mod runtime;

use crate::backend::{Execution, Output};
use crate::broken::Citation;
use crate::claim::Claim;
use crate::expect::Mismatch;
use crate::load::{Case, Expected};
use crate::verdict::{CaseResult, Verdict};
use std::collections::BTreeMap;

/// What a comparison found.
#[derive(Debug, Default)]
struct Found {
    /// What is wrong beyond mismatching words, for people.
    problems: Vec<String>,
    /// Where the backend's buffers (or layout) differ from the case's.
    mismatches: Vec<Mismatch>,
    /// Where the case's expectations differ from the reference's legal
    /// outcomes (a failure of the reference, or of the case).
    disagreements: Vec<Mismatch>,
    /// For a negative case whose every problem is a diagnostic that only
    /// `should` clauses require: those clauses (a recommendation not met).
    not_met: Option<Vec<String>>,
    /// What a pass says.
    note: String,
}

impl Found {
    fn problem(problem: String) -> Found {
        Found {
            problems: vec![problem],
            ..Found::default()
        }
    }

    fn note(note: String) -> Found {
        Found {
            note,
            ..Found::default()
        }
    }
}

/// Compares an execution with the case's expectations.
pub(crate) fn compare(case: &Case, exec: &Execution, claim: &Claim) -> CaseResult {
    let mut r = CaseResult::of(case, Verdict::Pass, String::new());
    if let Some(legal) = &exec.legal {
        r.runs = Some(legal.runs);
        r.choices = legal.choices.clone();
    }
    if let Output::Buffers(actual) = &exec.output {
        let wrong = buffer_shape(case, actual);
        if !wrong.is_empty() {
            r.verdict = Verdict::Error;
            r.message = format!(
                "the backend broke the protocol: its buffers do not match the case's: {}",
                wrong.join("; ")
            );
            return r;
        }
    }
    let found = match &case.expect {
        Expected::Diagnostics(expect) => negative::judge(case, expect, &exec.output, claim),
        Expected::Layout(expect) => match &exec.output {
            Output::Layout(actual) => Found {
                mismatches: crate::expect::layout::check(expect, actual),
                ..Found::default()
            },
            _ => Found::problem("the backend did not report a layout for a layout case".into()),
        },
        Expected::Buffers(_) | Expected::Undefined(_) => runtime::judge(case, exec, claim),
    };
    finish(case, claim, r, found)
}

/// The most mismatches a message lists (the report keeps them all).
const SHOWN: usize = 20;

/// The verdict from what was found: a pass when nothing is wrong; a
/// recommendation not met when everything wrong is decided by `should`
/// clauses alone (mismatching words, through the case's ties, or missing
/// diagnostics, through the validator's rules); a fail otherwise.
fn finish(case: &Case, claim: &Claim, mut r: CaseResult, found: Found) -> CaseResult {
    let Found {
        mut problems,
        mismatches,
        disagreements,
        not_met,
        note,
    } = found;
    if problems.is_empty() && mismatches.is_empty() && disagreements.is_empty() {
        r.message = note;
        return r;
    }
    let citation = Citation::of(case, claim.profile);
    let recommendations = if !disagreements.is_empty() {
        None
    } else if let Some(clauses) = not_met {
        Some(clauses)
    } else if problems.is_empty() {
        citation
            .only_recommendations(&mismatches)
            .map(|c| c.into_iter().map(str::to_string).collect())
    } else {
        None
    };
    problems.extend(mismatches.iter().take(SHOWN).map(Mismatch::to_string));
    if mismatches.len() > SHOWN {
        problems.push(format!(
            "... and {} more mismatches",
            mismatches.len() - SHOWN
        ));
    }
    if !disagreements.is_empty() {
        problems.push("the case's expectations disagree with the reference's legal outcomes (a failure of the reference or of the case):".into());
        problems.extend(disagreements.iter().take(SHOWN).map(|m| format!("  {m}")));
    }
    r.verdict = Verdict::Fail;
    if let Some(clauses) = recommendations {
        r.verdict = Verdict::Warning;
        problems.insert(
            0,
            format!(
                "everything wrong is decided by should clauses alone ({}): a recommendation, not counted against conformance",
                clauses.join(", ")
            ),
        );
        if mismatches.is_empty() {
            r.broken_clauses = clauses;
        }
    }
    r.mismatches = mismatches;
    r.reference_disagreements = disagreements;
    r.message = problems.join("\n");
    r
}

/// The first line of a compiler's message, for one-line verdicts.
fn first_line(message: &str) -> &str {
    message
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
}

/// How a backend's buffers differ in shape from those the case declares
/// (missing, unknown, or of another length), before any value is compared:
/// a reply of the wrong shape is broken, not a wrong answer at element 0.
fn buffer_shape(case: &Case, actual: &BTreeMap<String, Vec<u32>>) -> Vec<String> {
    let declared = &case.dispatch.buffers;
    let mut wrong = Vec::new();
    for (name, words) in declared {
        match actual.get(name) {
            None => wrong.push(format!(
                "no buffer `{name}` ({} words declared)",
                words.len()
            )),
            Some(got) if got.len() != words.len() => wrong.push(format!(
                "buffer `{name}` has {} words, the case declares {}",
                got.len(),
                words.len()
            )),
            Some(_) => {}
        }
    }
    for name in actual.keys().filter(|n| !declared.contains_key(*n)) {
        let names: Vec<String> = declared.keys().map(|n| format!("`{n}`")).collect();
        wrong.push(format!(
            "an unknown buffer `{name}` (the case declares {})",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ));
    }
    wrong
}
