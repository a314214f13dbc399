//! A negative case (or a control): the program is only compiled, and the
//! backend's diagnostics are judged against the expected ones by code and
//! severity, as sets. A diagnostic only `should` clauses require is a
//! recommendation (DXIL's validation warnings, "the compiler should
//! warn"): a backend that stays silent on it has not met a
//! recommendation, which does not count against it. A backend that
//! compiles the program (`compiled`) is judged as one reporting no
//! diagnostic: its output must be valid too.

use super::{first_line, Found};
use crate::backend::Output;
use crate::broken::Citation;
use crate::claim::Claim;
use crate::expect::diagnostics::{self, located, required_error, requiring};
use crate::load::{Case, ExpectedDiagnostic};
use ser_reference::validate::Severity;

pub(super) fn judge(
    case: &Case,
    expect: &[ExpectedDiagnostic],
    output: &Output,
    claim: &Claim,
) -> Found {
    let expects_error = || {
        required_error(expect).map(|e| format!("error `{}` ({})", e.code.name(), e.code.meaning()))
    };
    // An optional error: the case allows a rejection for it.
    let allows_error = || {
        expect
            .iter()
            .find(|e| e.severity == Severity::Error)
            .map(|e| format!("optional error `{}` ({})", e.code.name(), e.code.meaning()))
    };
    match output {
        Output::Rejected { message, .. } if !claim.judges_by_rejection() => Found::problem(format!(
            "the backend rejected the program without the suite's codes, and it claims `validation`, which reports them: {message}"
        )),
        Output::Rejected { message, lines } => match expects_error().or_else(allows_error) {
            Some(e) => match located(case, claim.profile, expect, lines) {
                Ok(how) => Found::note(format!(
                    "rejected, as the case's {e} allows (judged by rejection, not by code; {how}): {}",
                    first_line(message)
                )),
                Err(problem) => Found::problem(format!("{problem}: {message}")),
            },
            None => Found::problem(format!(
                "the backend rejected a program the case expects to be accepted{}: {message}",
                if expect.is_empty() {
                    ""
                } else {
                    " (it expects warnings only)"
                }
            )),
        },
        Output::Compiled { output, invalid } => {
            let mut found = differences(case, expect, &[], claim);
            match invalid {
                Some(why) if required_error(expect).is_none() => {
                    found.not_met = None;
                    found.problems.push(format!(
                        "the backend accepted the program ({output}), and its output is invalid: {why}"
                    ));
                }
                _ if found.problems.is_empty() => {
                    found.note = format!("accepted, as the case allows: {output}")
                }
                _ => {
                    if let Some(e) = expects_error() {
                        found.problems.insert(
                            0,
                            format!("the backend accepted the program ({output}); the case expects {e}"),
                        );
                    }
                }
            }
            found
        }
        Output::Diagnostics(actual) => differences(case, expect, actual, claim),
        _ => Found::problem(format!(
            "the backend accepted the program; the case expects {}",
            if expect.is_empty() {
                "no diagnostics".to_string()
            } else {
                expect
                    .iter()
                    .map(|e| format!("{} `{}`", e.severity.name(), e.code.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )),
    }
}

/// What the reported diagnostics miss or add; when all they do wrong is
/// miss diagnostics that `should` clauses alone require, those clauses.
fn differences(
    case: &Case,
    expect: &[ExpectedDiagnostic],
    actual: &[ser_reference::validate::Diagnostic],
    claim: &Claim,
) -> Found {
    let d = diagnostics::check(expect, actual);
    let not_met = (d.unexpected.is_empty() && !d.missing.is_empty())
        .then(|| {
            let citation = Citation::of(case, claim.profile);
            let mut all = Vec::new();
            for m in &d.missing {
                let clauses = requiring(case, claim.profile, m.code);
                all.extend(citation.only_should(&clauses)?);
            }
            all.sort();
            all.dedup();
            Some(all)
        })
        .flatten();
    Found {
        problems: d.lines(),
        not_met,
        ..Found::default()
    }
}
