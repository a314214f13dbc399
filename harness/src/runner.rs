//! Runs a folder of cases against a backend, one libtest-mimic trial per
//! case, and prints the verdict.

use crate::backend::Backend;
use crate::load::{load_dir, LoadError};
use crate::report::{Report, Summary};
use crate::verdict::{judge, CaseResult, Verdict};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub struct Config {
    pub cases_dir: PathBuf,
    pub report: Option<PathBuf>,
    pub backend: Arc<dyn Backend>,
    pub args: Arguments,
}

/// What a run found.
pub struct RunSummary {
    pub summary: Summary,
    pub results: Vec<CaseResult>,
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
    }
}

fn load_error_id(e: &LoadError) -> String {
    e.case
        .clone()
        .unwrap_or_else(|| format!("{} (load error)", e.file.display()))
}

/// Runs the suite; returns the verdict counts, or `None` for `--list`.
pub fn run(config: Config) -> std::io::Result<Option<RunSummary>> {
    let loaded = load_dir(&config.cases_dir);
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
        move |r: CaseResult| {
            if let Some(rep) = &report {
                rep.case(&r);
            }
            results.lock().unwrap_or_else(|e| e.into_inner()).push(r);
        }
    };
    let mut trials = Vec::new();
    for item in loaded {
        let record = record.clone();
        match item {
            Ok(case) => {
                let backend = config.backend.clone();
                let case = Arc::new(case);
                let kind = case.kind();
                let trial = Trial::ignorable_test(case.id.clone(), move || {
                    let r = judge(&case, backend.as_ref());
                    let outcome = match r.verdict {
                        Verdict::Pass => Ok(Completion::Completed),
                        Verdict::NotSupported => Ok(Completion::ignored_with(format!(
                            "not supported: {}",
                            r.message
                        ))),
                        Verdict::Fail | Verdict::Error => {
                            Err(Failed::from(format!("{}: {}", r.verdict.name(), r.message)))
                        }
                    };
                    record(r);
                    outcome
                });
                trials.push(match kind {
                    "runtime" => trial,
                    other => trial.with_kind(other),
                });
            }
            Err(e) => {
                let r = load_error_result(&e);
                trials.push(Trial::test(load_error_id(&e), move || {
                    let msg = format!("error: {}", r.message);
                    record(r);
                    Err(Failed::from(msg))
                }));
            }
        }
    }
    let listing = config.args.list;
    let _conclusion = libtest_mimic::run(&config.args, trials);
    if listing {
        return Ok(None);
    }
    let results = std::mem::take(&mut *results.lock().unwrap_or_else(|e| e.into_inner()));
    let mut summary = Summary::default();
    for r in &results {
        summary.add(r.verdict);
    }
    if let Some(rep) = &report {
        rep.summary(&summary);
    }
    Ok(Some(RunSummary { summary, results }))
}
