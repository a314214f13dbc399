//! Runs a folder of cases against a backend, one libtest-mimic trial per
//! case, and prints the verdict.

use crate::backend::Backend;
use crate::baseline::{self, Baseline};
use crate::load::{load_dir, Case, LoadError};
use crate::report::{Report, Summary};
use crate::verdict::{judge_within, CaseResult, Verdict};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct Config {
    pub cases_dir: PathBuf,
    pub report: Option<PathBuf>,
    pub backend: Arc<dyn Backend>,
    pub args: Arguments,
    /// Per-case time limit.
    pub timeout: Option<Duration>,
    /// Known failures of the backend.
    pub baseline: Option<Baseline>,
    /// Run only this slice of the suite.
    pub fraction: Option<Fraction>,
    /// Write JUnit XML here at the end of the run.
    pub junit: Option<PathBuf>,
}

impl Config {
    /// A run of `cases_dir` against `backend` with libtest's defaults.
    pub fn new(cases_dir: PathBuf, backend: Arc<dyn Backend>) -> Config {
        Config {
            cases_dir,
            report: None,
            backend,
            args: Arguments::default(),
            timeout: None,
            baseline: None,
            fraction: None,
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
    pub results: Vec<CaseResult>,
    /// The id of every case of the suite (all slices, load errors
    /// included).
    pub ids: BTreeSet<String>,
    /// Baseline entries that name no case of the suite.
    pub stale: Vec<String>,
}

fn item_id(item: &Result<Case, LoadError>) -> String {
    match item {
        Ok(c) => c.id.clone(),
        Err(e) => load_error_id(e),
    }
}

fn load_error_result(e: &LoadError) -> CaseResult {
    CaseResult {
        id: load_error_id(e),
        file: e.file.display().to_string(),
        verdict: Verdict::Error,
        message: e.to_string(),
        clauses: Vec::new(),
        mismatches: Vec::new(),
        reference_disagreements: Vec::new(),
        duration_ms: 0.0,
        runs: None,
        choices: Vec::new(),
        known_failure: None,
        raw_verdict: None,
    }
}

fn load_error_id(e: &LoadError) -> String {
    e.case
        .clone()
        .unwrap_or_else(|| format!("{} (load error)", e.file.display()))
}

/// Runs the suite; returns the verdict counts, or `None` for `--list`.
pub fn run(config: Config) -> std::io::Result<Option<RunSummary>> {
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
    let baseline = Arc::new(config.baseline.clone().unwrap_or_default());
    let report = match &config.report {
        Some(p) => Some(Arc::new(Report::create(
            p,
            config.backend.name(),
            config.backend.profile().name(),
            &config.cases_dir,
        )?)),
        None => None,
    };
    let results: Arc<Mutex<Vec<CaseResult>>> = Arc::default();
    let record = {
        let results = results.clone();
        let report = report.clone();
        let baseline = baseline.clone();
        move |mut r: CaseResult| {
            baseline::apply(&baseline, &mut r);
            if let Some(rep) = &report {
                rep.case(&r);
            }
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
    let listing = config.args.list;
    let _conclusion = libtest_mimic::run(&config.args, trials);
    if listing {
        return Ok(None);
    }
    for r in unnamed_load_errors {
        let judged = |x: &CaseResult| x.id == r.id;
        if !results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(judged)
        {
            eprintln!(
                "error: {} (not matched by the filter, reported anyway)",
                r.message
            );
            let _ = record(r);
        }
    }
    let results = std::mem::take(&mut *results.lock().unwrap_or_else(|e| e.into_inner()));
    let mut summary = Summary::default();
    for r in &results {
        summary.add(r.verdict);
    }
    if let Some(rep) = &report {
        rep.summary(&summary);
    }
    if let Some(path) = &config.junit {
        let suite = format!(
            "{} ({})",
            config.backend.name(),
            config.backend.profile().name()
        );
        std::fs::write(path, crate::junit::write(&suite, &summary, &results))?;
    }
    let stale = baseline
        .unknown_ids(&ids)
        .into_iter()
        .map(str::to_string)
        .collect();
    Ok(Some(RunSummary {
        summary,
        results,
        ids,
        stale,
    }))
}

/// How libtest shows a result.
fn outcome(r: &CaseResult) -> Result<Completion, Failed> {
    match r.verdict {
        Verdict::Pass => Ok(Completion::Completed),
        Verdict::NotSupported | Verdict::ExpectedFail => Ok(Completion::ignored_with(format!(
            "{}: {}",
            r.verdict.name(),
            r.message.lines().next().unwrap_or("")
        ))),
        v => Err(Failed::from(format!("{}: {}", v.name(), r.message))),
    }
}
