//! Judging a backend's run of a case.

use crate::backend::{Backend, BackendError, Execution};
use crate::broken::Citation;
use crate::claim::Claim;
use crate::expect::Mismatch;
use crate::load::Case;
use serde::{Deserialize, Serialize};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
    /// The case is outside the backend's claim (another profile, or a
    /// capability it does not claim): it says nothing either way.
    NotApplicable,
    /// The backend declined a case inside its claim: a conformance gap,
    /// counted against the verdict unless a baseline lists it.
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
    /// A recommendation not met: the buffers differ from the case's
    /// expectations only in elements that `should` clauses alone decide
    /// (see [`crate::broken`]). Reported, with its mismatches, and not
    /// counted against conformance, as the Vulkan CTS's `QualityWarning`.
    Warning,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::NotApplicable => "not applicable",
            Verdict::NotSupported => "not supported",
            Verdict::Error => "error",
            Verdict::Timeout => "timeout",
            Verdict::Crash => "crash",
            Verdict::ExpectedFail => "expected fail",
            Verdict::UnexpectedPass => "unexpected pass",
            Verdict::Warning => "recommendation not met",
        }
    }

    /// `n` cases of this verdict, for people: `2 fail`, `7 recommendations
    /// not met`.
    pub fn counted(self, n: usize) -> String {
        let n_text = crate::report::thousands(n);
        match self {
            Verdict::Warning if n != 1 => format!("{n_text} recommendations not met"),
            v => format!("{n_text} {}", v.name()),
        }
    }

    /// Whether the backend got the case wrong (before any baseline).
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Verdict::Fail | Verdict::Error | Verdict::Timeout | Verdict::Crash
        )
    }

    /// Whether the case found anything wrong: a failure, or a
    /// recommendation not met. What kills a mutant (one that breaks a
    /// `should` clause, such as `watertight_double_hit`, is found by a
    /// recommendation not met) and what a control must never get.
    pub fn finds_fault(self) -> bool {
        self.is_failure() || self == Verdict::Warning
    }

    /// Whether the verdict counts against the backend's claim: a failure,
    /// or a case inside the claim that it declined. A baseline can list
    /// these as known.
    pub fn counts_against(self) -> bool {
        self.is_failure() || self == Verdict::NotSupported
    }

    /// Whether the verdict fails the run.
    pub fn fails_run(self) -> bool {
        self.counts_against() || self == Verdict::UnexpectedPass
    }

    /// Whether the case was judged against the claim (everything but *not
    /// applicable*).
    pub fn is_applicable(self) -> bool {
        self != Verdict::NotApplicable
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
    /// For a *not applicable* case: why, in a word or two (`other
    /// profiles`, or the capabilities the backend does not claim).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outside_claim: Option<String>,
    /// Where the backend's buffers differ from the case's expectations.
    pub mismatches: Vec<Mismatch>,
    /// The clauses a failing case shows broken: its one clause, or those
    /// its ties bind to a mismatching element. Its other clauses are only
    /// *cited* by a failing case. For a recommendation not met: the
    /// `should` clauses not met. See [`Citation::shown`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub broken_clauses: Vec<String>,
    /// The clauses a failing case (or a recommendation not met) still shows
    /// kept: those its ties bind only to matching elements.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept_clauses: Vec<String>,
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
            clauses: case.clauses.clone(),
            ..CaseResult::bare(
                case.id.clone(),
                case.file.display().to_string(),
                verdict,
                message,
            )
        }
    }

    /// A result with nothing but its id, file, verdict and message (a file
    /// that did not load has no case to take the rest from).
    pub fn bare(id: String, file: String, verdict: Verdict, message: String) -> Self {
        CaseResult {
            id,
            file,
            verdict,
            message,
            clauses: Vec::new(),
            outside_claim: None,
            broken_clauses: Vec::new(),
            kept_clauses: Vec::new(),
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

/// Runs a case on a backend and judges the result against the backend's
/// claim (see [`crate::claim`]).
pub fn judge(case: &Case, backend: &dyn Backend) -> CaseResult {
    let claim = Claim::of(backend);
    if let Some(r) = not_applicable(case, &claim) {
        return r;
    }
    let start = Instant::now();
    let ran = catch_unwind(AssertUnwindSafe(|| backend.run(case))).map_err(panic_message);
    let mut result = conclude(case, backend, &claim, ran);
    result.duration_ms = start.elapsed().as_secs_f64() * 1000.0;
    result
}

/// The *not applicable* result of a case outside `claim`, if it is.
fn not_applicable(case: &Case, claim: &Claim) -> Option<CaseResult> {
    claim.outside(case).map(|outside| {
        let mut r = CaseResult::new(case, Verdict::NotApplicable, outside.message(claim));
        r.outside_claim = Some(outside.category());
        r
    })
}

fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into())
}

/// The result of a case inside the claim from what the backend's run gave
/// (`Err`: it panicked, with the panic's message).
fn conclude(
    case: &Case,
    backend: &dyn Backend,
    claim: &Claim,
    ran: Result<Result<Execution, BackendError>, String>,
) -> CaseResult {
    let mut result = match ran {
        Err(msg) => CaseResult::new(
            case,
            Verdict::Crash,
            format!("backend `{}` panicked: {msg}", backend.name()),
        ),
        Ok(Err(BackendError::NotSupported(r))) => CaseResult::new(
            case,
            Verdict::NotSupported,
            format!(
                "backend `{}` declined a case inside its claim ({}): {r}",
                backend.name(),
                claim.describe()
            ),
        ),
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
        Ok(Ok(exec)) => crate::compare::compare(case, &exec, claim),
    };
    // A negative case's recommendation not met names its clauses itself.
    if result.broken_clauses.is_empty() {
        (result.broken_clauses, result.kept_clauses) =
            Citation::of(case, claim.profile).shown(result.verdict, &result.mismatches);
    }
    result
}

/// [`judge_within`] for many cases at once, through [`Backend::run_batch`]:
/// cases outside the claim are judged so without running; the rest run as
/// one batch, under `timeout` for each case in it. When the batch panics,
/// overruns, or answers with the wrong number of results, every case of it
/// is judged again on its own, so the verdicts name the case at fault.
pub fn judge_batch(
    cases: &[Arc<Case>],
    backend: &Arc<dyn Backend>,
    timeout: Option<Duration>,
) -> Vec<CaseResult> {
    let claim = Claim::of(backend.as_ref());
    let mut results: Vec<Option<CaseResult>> =
        cases.iter().map(|c| not_applicable(c, &claim)).collect();
    let inside: Vec<Arc<Case>> = cases
        .iter()
        .zip(&results)
        .filter(|(_, r)| r.is_none())
        .map(|(c, _)| c.clone())
        .collect();
    let start = Instant::now();
    let limit = timeout.map(|t| t * inside.len().max(1) as u32);
    let answers = run_batch_within(&inside, backend, limit);
    let per_case = start.elapsed().as_secs_f64() * 1000.0 / inside.len().max(1) as f64;
    let mut answers = answers.into_iter();
    for (case, slot) in cases.iter().zip(results.iter_mut()) {
        if slot.is_some() {
            continue;
        }
        *slot = Some(match answers.next() {
            Some(ran) => {
                let mut r = conclude(case, backend.as_ref(), &claim, Ok(ran));
                r.duration_ms = per_case;
                r
            }
            None => judge_within(case, backend, timeout),
        });
    }
    results
        .into_iter()
        .map(|r| r.expect("every case judged"))
        .collect()
}

/// The batch's answers, or none (so each case is judged alone) when the
/// batch panicked, overran `limit` or miscounted its answers.
fn run_batch_within(
    cases: &[Arc<Case>],
    backend: &Arc<dyn Backend>,
    limit: Option<Duration>,
) -> Vec<Result<Execution, BackendError>> {
    if cases.is_empty() {
        return Vec::new();
    }
    let run = {
        let (cases, backend) = (cases.to_vec(), backend.clone());
        move || {
            let refs: Vec<&Case> = cases.iter().map(|c| c.as_ref()).collect();
            catch_unwind(AssertUnwindSafe(|| backend.run_batch(&refs))).ok()
        }
    };
    let answers = match limit.filter(|_| !backend.enforces_timeout()) {
        None => run(),
        Some(limit) => on_thread_within("batch".into(), limit, run).ok().flatten(),
    };
    answers
        .filter(|a| a.len() == cases.len())
        .unwrap_or_default()
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
    let (c, b) = (case.clone(), backend.clone());
    match on_thread_within(format!("case {}", case.id), limit, move || {
        judge(&c, b.as_ref())
    }) {
        Ok(r) => r,
        Err(Overrun::NoThread(e)) => {
            CaseResult::new(case, Verdict::Error, format!("cannot start a thread: {e}"))
        }
        Err(Overrun::Late) => {
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

/// Why work on a thread of its own gave no answer.
enum Overrun {
    NoThread(std::io::Error),
    Late,
}

/// `work` on a thread named `name`, awaited at most `limit`; a thread that
/// overruns is left to finish in the background (a thread cannot be
/// stopped). The thread has the reference's stack, so that an in-process
/// backend runs there in place.
fn on_thread_within<T: Send + 'static>(
    name: String,
    limit: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Overrun> {
    let (tx, rx) = std::sync::mpsc::channel();
    ser_lang::nesting::spawn(
        &name,
        crate::reference_backend::REFERENCE_STACK,
        move || {
            let _ = tx.send(work());
        },
    )
    .map_err(Overrun::NoThread)?;
    rx.recv_timeout(limit).map_err(|_| Overrun::Late)
}
