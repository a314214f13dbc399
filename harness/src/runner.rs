//! Runs a folder of cases against a backend, one libtest-mimic trial per
//! case, and prints the verdict.

use crate::backend::Backend;
use crate::baseline::{self, Baseline};
use crate::claim::Claim;
use crate::conclusion::{conclude, Conclusion, Scope};
use crate::console::{self, LibtestOutput};
use crate::load::{load_dir, Case, LoadError};
use crate::output::Output;
use crate::report::{Report, Summary};
use crate::verdict::{judge_within, CaseResult, Verdict};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct Config {
    pub cases_dir: PathBuf,
    pub backend: Arc<dyn Backend>,
    pub args: Arguments,
    /// Per-case time limit (`None`: none).
    pub timeout: Option<Duration>,
    /// Known failures of the backend, and the file they came from.
    pub baseline: Option<(String, Baseline)>,
    /// Run only this slice of the suite.
    pub fraction: Option<Fraction>,
    /// Where the report's records go (the `--report` file), opened before
    /// the run; stdout is added under `--format json`.
    pub report: Vec<Output>,
    /// Where the JUnit XML goes, opened before the run.
    pub junit: Option<Output>,
}

/// The per-case time limit when none is given (`--timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

impl Config {
    /// A run of `cases_dir` against `backend` with libtest's defaults and
    /// the default time limit.
    pub fn new(cases_dir: PathBuf, backend: Arc<dyn Backend>) -> Config {
        Config {
            cases_dir,
            backend,
            args: Arguments::default(),
            timeout: Some(DEFAULT_TIMEOUT),
            baseline: None,
            fraction: None,
            report: Vec::new(),
            junit: None,
        }
    }
}

/// `I/N`: the I-th of N deterministic slices of the suite (1 <= I <= N):
/// with the cases sorted by id, those at positions p with p mod N = I - 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fraction {
    pub index: usize,
    pub of: usize,
}

impl FromStr for Fraction {
    type Err = String;

    fn from_str(s: &str) -> Result<Fraction, String> {
        let bad = || format!("`{s}`: expected I/N with whole numbers 1 <= I <= N, e.g. 2/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let of: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || of == 0 || index > of {
            return Err(bad());
        }
        Ok(Fraction { index, of })
    }
}

/// What a run found.
pub struct RunSummary {
    pub summary: Summary,
    pub conclusion: Conclusion,
    pub results: Vec<CaseResult>,
    /// The id of every case of the suite (all slices, load errors
    /// included).
    pub ids: BTreeSet<String>,
    /// Baseline entries that name no case of the suite.
    pub stale: Vec<String>,
    /// The outputs not written whole, each with its path and the error.
    pub output_errors: Vec<String>,
}

fn item_id(item: &Result<Case, LoadError>) -> String {
    match item {
        Ok(c) => c.id.clone(),
        Err(e) => load_error_id(e),
    }
}

fn load_error_result(e: &LoadError) -> CaseResult {
    CaseResult::bare(
        load_error_id(e),
        e.file.display().to_string(),
        Verdict::Error,
        e.to_string(),
    )
}

fn load_error_id(e: &LoadError) -> String {
    e.case
        .clone()
        .unwrap_or_else(|| format!("{} (load error)", e.file.display()))
}

/// Runs the suite; returns what it found, or `None` for `--list`.
pub fn run(mut config: Config) -> Option<RunSummary> {
    let mut loaded = load_dir(&config.cases_dir);
    loaded.sort_by_cached_key(item_id);
    let ids: BTreeSet<String> = loaded.iter().map(item_id).collect();
    if let Some(f) = config.fraction {
        loaded = loaded
            .into_iter()
            .enumerate()
            .filter(|(p, _)| p % f.of == f.index - 1)
            .map(|(_, item)| item)
            .collect();
    }
    let json = console::json(&config.args);
    let claim = Claim::of(config.backend.as_ref());
    let (baseline_file, baseline) = match config.baseline.take() {
        Some((file, b)) => (Some(file), b),
        None => (None, Baseline::default()),
    };
    let baseline = Arc::new(baseline);
    let mut sinks = std::mem::take(&mut config.report);
    if json {
        sinks.push(Output::stdout());
    }
    let report = Arc::new(Report::new(sinks));
    let results: Arc<Mutex<Vec<CaseResult>>> = Arc::default();
    let record = {
        let results = results.clone();
        let report = report.clone();
        let baseline = baseline.clone();
        move |mut r: CaseResult| {
            baseline::apply(&baseline, &mut r);
            report.case(&r);
            let outcome = outcome(&r);
            results.lock().unwrap_or_else(|e| e.into_inner()).push(r);
            outcome
        }
    };
    // A file that fails to load before naming its cases cannot be matched
    // against a name filter: it is reported whatever the filter says, so a
    // filtered run never calls a broken file's cases conformant.
    let mut unnamed_load_errors = Vec::new();
    let mut trials = Vec::new();
    for item in loaded {
        let record = record.clone();
        match item {
            Ok(case) => {
                let backend = config.backend.clone();
                let case = Arc::new(case);
                let kind = case.kind();
                let timeout = config.timeout;
                let trial = Trial::ignorable_test(case.id.clone(), move || {
                    let r = judge_within(&case, &backend, timeout);
                    record(r)
                });
                trials.push(match kind {
                    "runtime" => trial,
                    other => trial.with_kind(other),
                });
            }
            Err(e) => {
                let r = load_error_result(&e);
                if e.case.is_none() {
                    unnamed_load_errors.push(r.clone());
                }
                trials.push(Trial::ignorable_test(load_error_id(&e), move || record(r)));
            }
        }
    }
    if config.args.list {
        list(&config.args, &trials, json);
        return None;
    }
    let selected = trials
        .iter()
        .filter(|t| !config.args.is_filtered_out(t))
        .count();
    report.start(config.backend.name(), &claim, &config.cases_dir);
    let mut args = config.args.clone();
    let output = LibtestOutput::route(&mut args);
    let _conclusion = libtest_mimic::run(&args, trials);
    output.finish();
    let mut extra = 0;
    for r in unnamed_load_errors {
        let judged = |x: &CaseResult| x.id == r.id;
        if !results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(judged)
        {
            console::say(
                json,
                &format!(
                    "error: {} (not matched by the filter, reported anyway)",
                    r.message
                ),
            );
            let _ = record(r);
            extra += 1;
        }
    }
    let results = std::mem::take(&mut *results.lock().unwrap_or_else(|e| e.into_inner()));
    let summary = Summary::of(&results);
    let stale: Vec<String> = baseline
        .unknown_ids(&ids)
        .into_iter()
        .map(str::to_string)
        .collect();
    let notices = config.backend.notices();
    for n in &notices {
        console::say(json, &format!("backend notice: {n}"));
    }
    let scope = Scope {
        suite: ids.len(),
        selected: selected + extra,
        baseline: baseline_file,
        stale: stale.len(),
        notices: notices.len(),
    };
    let conclusion = conclude(&claim, &summary, &scope);
    report.summary_with(&summary, &conclusion, &notices);
    let mut output_errors = report.finish();
    if let Some(mut out) = config.junit.take() {
        let suite = format!("{} ({})", config.backend.name(), claim.describe());
        out.write(&crate::junit::write(&suite, &summary, &results));
        output_errors.extend(out.finish().err());
    }
    Some(RunSummary {
        summary,
        conclusion,
        results,
        ids,
        stale,
        output_errors,
    })
}

/// `--list`: the cases the filter selects, as libtest lists tests (`[kind]
/// name: test`), or as JSON records under `--format json`; a reader that
/// goes away ends the list quietly.
fn list(args: &Arguments, trials: &[Trial], json: bool) {
    let mut stdout = std::io::stdout().lock();
    for t in trials.iter().filter(|t| !args.is_filtered_out(t)) {
        let written = if json {
            let kind = if t.kind().is_empty() {
                "runtime"
            } else {
                t.kind()
            };
            writeln!(
                stdout,
                "{}",
                serde_json::json!({ "type": "listed", "id": t.name(), "kind": kind })
            )
        } else if t.kind().is_empty() {
            writeln!(stdout, "{}: test", t.name())
        } else {
            writeln!(stdout, "[{}] {}: test", t.kind(), t.name())
        };
        if written.is_err() {
            return;
        }
    }
}

/// How libtest shows a result: `ok` for a pass; `ignored`, with the verdict
/// and the first line of its message, for a verdict that counts neither for
/// nor against the backend (libtest has no `ok` with a note, and a
/// recommendation not met must be seen); `FAILED` for the rest.
fn outcome(r: &CaseResult) -> Result<Completion, Failed> {
    match r.verdict {
        Verdict::Pass => Ok(Completion::Completed),
        Verdict::NotApplicable | Verdict::ExpectedFail | Verdict::Warning => {
            Ok(Completion::ignored_with(format!(
                "{}: {}",
                r.verdict.name(),
                r.message.lines().next().unwrap_or("")
            )))
        }
        v => Err(Failed::from(format!("{}: {}", v.name(), r.message))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference_backend::ReferenceBackend;

    #[test]
    fn a_run_has_a_time_limit_unless_told_otherwise() {
        let backend = Arc::new(ReferenceBackend::new(
            ser_reference::Profile::MaybeReorderThread0027,
        ));
        let config = Config::new(PathBuf::from("cases"), backend);
        assert_eq!(config.timeout, Some(DEFAULT_TIMEOUT));
        assert_eq!(
            DEFAULT_TIMEOUT,
            Duration::from_secs(30),
            "README and --help say 30 s"
        );
    }

    #[test]
    fn fractions_are_whole_slices() {
        assert_eq!("2/4".parse(), Ok(Fraction { index: 2, of: 4 }));
        assert!("0/4".parse::<Fraction>().is_err());
        assert!("5/4".parse::<Fraction>().is_err());
    }
}
