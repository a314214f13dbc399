//! Judging a backend's run of a case.

use crate::backend::{Backend, BackendError, Execution, Output};
use crate::capability::CAPABILITIES;
use crate::expect::{check_legal, check_words, Mismatch};
use crate::load::{Case, Expected};
use ser_reference::Outcome;
use serde::Serialize;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
    /// The backend lacks a capability or profile the case needs.
    NotSupported,
    /// The case could not be loaded, or the backend failed on it or broke
    /// the protocol.
    Error,
    /// The backend did not finish the case within `--timeout`.
    Timeout,
    /// The backend crashed: its process died, or it panicked in-process.
    Crash,
    /// A known failure the baseline lists that failed again.
    ExpectedFail,
    /// A known failure the baseline lists that passed: the baseline is
    /// stale, and the run fails until it is updated (`--bless`).
    UnexpectedPass,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::NotSupported => "not supported",
            Verdict::Error => "error",
            Verdict::Timeout => "timeout",
            Verdict::Crash => "crash",
            Verdict::ExpectedFail => "expected fail",
            Verdict::UnexpectedPass => "unexpected pass",
        }
    }

    /// Whether the backend got the case wrong (before any baseline).
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Verdict::Fail | Verdict::Error | Verdict::Timeout | Verdict::Crash
        )
    }

    /// Whether the verdict fails the run.
    pub fn fails_run(self) -> bool {
        self.is_failure() || self == Verdict::UnexpectedPass
    }
}

/// The result of one case, as the report records it.
#[derive(Clone, Debug, Serialize)]
pub struct CaseResult {
    pub id: String,
    pub file: String,
    pub verdict: Verdict,
    /// What happened, for people.
    pub message: String,
    pub clauses: Vec<String>,
    /// Where the backend's buffers differ from the case's expectations.
    pub mismatches: Vec<Mismatch>,
    /// Where the case's expectations differ from the reference's legal
    /// outcomes (a failure of the reference, or of the case).
    pub reference_disagreements: Vec<Mismatch>,
    pub duration_ms: f64,
    /// Runs the reference needed to explore every choice (reference only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<usize>,
    /// The implementation choices the reference explored.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    /// When the baseline lists the case as a known failure: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known_failure: Option<String>,
    /// The verdict before the baseline was applied, when it changed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_verdict: Option<Verdict>,
}

impl CaseResult {
    fn new(case: &Case, verdict: Verdict, message: String) -> Self {
        CaseResult {
            id: case.id.clone(),
            file: case.file.display().to_string(),
            verdict,
            message,
            clauses: case.clauses.clone(),
            mismatches: Vec::new(),
            reference_disagreements: Vec::new(),
            duration_ms: 0.0,
            runs: None,
            choices: Vec::new(),
            known_failure: None,
            raw_verdict: None,
        }
    }

    /// The result of a case that never reached the backend's answer.
    pub fn of(case: &Case, verdict: Verdict, message: String) -> Self {
        CaseResult::new(case, verdict, message)
    }
}

/// Why a case does not apply to a backend, if it does not.
pub fn unsupported_reason(case: &Case, backend: &dyn Backend) -> Option<String> {
    let profile = backend.profile();
    if !case.profiles.contains(&profile) {
        let list: Vec<&str> = case.profiles.iter().map(|p| p.name()).collect();
        return Some(format!(
            "the case applies to {}, not to profile {profile}",
            list.join(", ")
        ));
    }
    let have = backend.capabilities();
    let missing: Vec<String> = case
        .requires
        .iter()
        .filter(|r| !have.contains(r))
        .map(|r| {
            let what = CAPABILITIES
                .iter()
                .find(|(n, _)| n == r)
                .map_or("", |(_, d)| *d);
            format!("capability `{r}` ({what})")
        })
        .collect();
    (!missing.is_empty()).then(|| format!("the backend lacks {}", missing.join(", ")))
}

/// Runs a case on a backend and judges the result.
pub fn judge(case: &Case, backend: &dyn Backend) -> CaseResult {
    if let Some(reason) = unsupported_reason(case, backend) {
        return CaseResult::new(case, Verdict::NotSupported, reason);
    }
    let start = Instant::now();
    let ran = catch_unwind(AssertUnwindSafe(|| backend.run(case)));
    let mut result = match ran {
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into());
            CaseResult::new(
                case,
                Verdict::Crash,
                format!("backend `{}` panicked: {msg}", backend.name()),
            )
        }
        Ok(Err(BackendError::NotSupported(r))) => CaseResult::new(case, Verdict::NotSupported, r),
        Ok(Err(BackendError::Failed(m))) => CaseResult::new(
            case,
            Verdict::Error,
            format!("backend `{}` failed: {m}", backend.name()),
        ),
        Ok(Err(BackendError::Timeout(m))) => CaseResult::new(
            case,
            Verdict::Timeout,
            format!("backend `{}`: {m}", backend.name()),
        ),
        Ok(Err(BackendError::Crashed(m))) => CaseResult::new(
            case,
            Verdict::Crash,
            format!("backend `{}` crashed: {m}", backend.name()),
        ),
        Ok(Ok(exec)) => compare(case, &exec),
    };
    result.duration_ms = start.elapsed().as_secs_f64() * 1000.0;
    result
}

/// [`judge`] under a time limit. A backend that enforces the limit itself
/// (a process it can stop) is called directly; an in-process backend runs
/// on a thread of its own, and one that overruns is left to finish on that
/// thread while the case gets its `timeout` verdict (a thread cannot be
/// stopped).
pub fn judge_within(
    case: &Arc<Case>,
    backend: &Arc<dyn Backend>,
    timeout: Option<Duration>,
) -> CaseResult {
    let Some(limit) = timeout.filter(|_| !backend.enforces_timeout()) else {
        return judge(case, backend.as_ref());
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let (c, b) = (case.clone(), backend.clone());
    let spawned = std::thread::Builder::new()
        .name(format!("case {}", case.id))
        .spawn(move || {
            let _ = tx.send(judge(&c, b.as_ref()));
        });
    if let Err(e) = spawned {
        return CaseResult::new(case, Verdict::Error, format!("cannot start a thread: {e}"));
    }
    match rx.recv_timeout(limit) {
        Ok(r) => r,
        Err(_) => {
            let mut r = CaseResult::new(
                case,
                Verdict::Timeout,
                format!(
                    "backend `{}` did not finish within {} s (its thread is left to finish in the background)",
                    backend.name(),
                    limit.as_secs_f64()
                ),
            );
            r.duration_ms = limit.as_secs_f64() * 1000.0;
            r
        }
    }
}

/// Compares an execution with the case's expectations, and the case's
/// expectations with the reference's legal outcomes when they come along.
fn compare(case: &Case, exec: &Execution) -> CaseResult {
    let mut r = CaseResult::new(case, Verdict::Pass, String::new());
    let mut problems: Vec<String> = Vec::new();
    if let Some(legal) = &exec.legal {
        r.runs = Some(legal.runs);
        r.choices = legal.choices.clone();
    }
    match (&case.expect, &exec.output) {
        (Expected::Diagnostics(expect), Output::Diagnostics(actual)) => {
            problems.extend(crate::expect::diagnostics::check(expect, actual))
        }
        (Expected::Diagnostics(expect), _) => problems.push(format!(
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
        (_, Output::Diagnostics(actual)) => problems.push(format!(
            "the backend rejected the program: {}",
            actual
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        )),
        (Expected::Layout(expect), Output::Layout(actual)) => {
            r.mismatches
                .extend(crate::expect::layout::check(expect, actual));
        }
        (Expected::Layout(_), _) => {
            problems.push("the backend did not report a layout for a layout case".into())
        }
        (_, Output::Layout(_)) => {
            problems.push("the backend reported a layout for a case that runs shaders".into())
        }
        (Expected::Undefined(code), Output::Undefined { code: got, .. }) if code.name() == got => {}
        (Expected::Undefined(code), Output::Undefined { code: got, message }) => {
            problems.push(format!(
                "expected undefined behaviour `{}`, the backend reported `{got}`: {message}",
                code.name()
            ))
        }
        (Expected::Undefined(code), Output::Buffers(_)) => problems.push(format!(
            "expected undefined behaviour `{}`, the backend completed the dispatch",
            code.name()
        )),
        (Expected::Buffers(_), Output::Undefined { message, .. }) => problems.push(format!(
            "the backend reported undefined behaviour where the case expects buffers: {message}"
        )),
        (Expected::Buffers(expected), Output::Buffers(actual)) => {
            for (name, exp) in expected {
                match actual.get(name) {
                    Some(words) => r.mismatches.extend(check_words(name, exp, words)),
                    None => problems.push(format!("the backend returned no buffer `{name}`")),
                }
            }
            if let Some(Outcome::Completed(legal)) = exec.legal.as_ref().map(|l| &l.outcome) {
                for (name, exp) in expected {
                    if let Some(l) = legal.get(name) {
                        r.reference_disagreements.extend(check_legal(name, exp, l));
                    }
                }
            }
        }
    }
    let shown = 20;
    for m in r.mismatches.iter().take(shown) {
        problems.push(m.to_string());
    }
    if r.mismatches.len() > shown {
        problems.push(format!(
            "... and {} more mismatches",
            r.mismatches.len() - shown
        ));
    }
    if !r.reference_disagreements.is_empty() {
        problems.push("the case's expectations disagree with the reference's legal outcomes (a failure of the reference or of the case):".into());
        for m in r.reference_disagreements.iter().take(shown) {
            problems.push(format!("  {m}"));
        }
    }
    if !problems.is_empty() {
        r.verdict = Verdict::Fail;
        r.message = problems.join("\n");
    }
    r
}
