//! The differential fuzzer finds a planted bug: a copy of the reference
//! with NOP `GetRayTMin` returning 1 (a mutant backend) disagrees with the
//! reference on generated cases; the fuzzer shrinks the first such case and
//! writes it as a regression case that fails the mutant and passes the
//! reference. Against the reference itself it finds nothing. A
//! disagreement that only a batch shows is reported as such, not shrunk.

use ser_harness::backend::{Backend, BackendError, Execution, Output};
use ser_harness::fuzz::{self, Campaign, Differential};
use ser_harness::load::{load_file, Case};
use ser_harness::mutant_backend::MutantBackend;
use ser_harness::reference_backend::ReferenceBackend;
use ser_harness::verdict::{judge, Verdict};
use ser_reference::mutation::Mutation;
use ser_reference::Profile;
use std::sync::Arc;

fn campaign(name: &str, cases: u64) -> Campaign {
    Campaign {
        shrink_budget: 2000,
        ..Campaign::new(cases, 1, ser_tests::scratch(name))
    }
}

#[test]
fn a_planted_bug_is_found_shrunk_and_written_as_a_regression_case() {
    let profile = Profile::MaybeReorderThread0027;
    let mutant: Arc<dyn Backend> = Arc::new(MutantBackend::new(Mutation::NopRayTminOne, profile));
    let c = campaign("fuzz-planted", 60);
    let summary = fuzz::run(&c, &Differential::new(mutant.clone(), None)).expect("writes");
    assert!(summary.invalid.is_empty(), "{:?}", summary.invalid);
    let finding = summary
        .findings
        .first()
        .unwrap_or_else(|| panic!("the planted bug went unnoticed: {summary}"));
    assert_eq!(finding.verdict, Verdict::Fail);
    assert!(
        finding.message.contains("expected 0.0") && finding.message.contains("actual 1.0"),
        "{}",
        finding.message
    );

    // The file is an ordinary case: it loads, the reference passes it (its
    // expectations agree with the legal outcomes) and the mutant fails it.
    let mut loaded = load_file(&c.out, &finding.file);
    let case = loaded
        .pop()
        .expect("one case")
        .expect("the regression case loads");
    let reference = judge(&case, &ReferenceBackend::new(profile));
    assert_eq!(reference.verdict, Verdict::Pass, "{}", reference.message);
    assert_eq!(judge(&case, mutant.as_ref()).verdict, Verdict::Fail);

    // Shrunk to one thread and the read that shows the bug (at most inside
    // one loop or branch: the strategies shrink a branch's body, not the
    // branch away), and the text reads GetRayTMin.
    assert!(
        finding.statements.1 == "1 thread(s), 1 statement(s)"
            || finding.statements.1 == "1 thread(s), 2 statement(s)",
        "shrunk from {} to {} in {} steps",
        finding.statements.0,
        finding.statements.1,
        finding.shrink_steps
    );
    assert!(case.source.contains("GetRayTMin"), "{}", case.source);
}

#[test]
fn the_reference_agrees_with_itself() {
    let reference: Arc<dyn Backend> =
        Arc::new(ReferenceBackend::new(Profile::MaybeReorderThread0027));
    let c = campaign("fuzz-reference", 40);
    let summary = fuzz::run(&c, &Differential::new(reference, None)).expect("runs");
    assert!(summary.findings.is_empty(), "{summary}");
    assert!(summary.invalid.is_empty(), "{:?}", summary.invalid);
    assert!(summary.agree >= 30, "{summary}");
}

/// The reference, except that in a batch of more than one case it
/// corrupts every word of the first case's buffers (as a driver might
/// when cases share a pipeline).
struct WrongInBatches(ReferenceBackend);

impl Backend for WrongInBatches {
    fn name(&self) -> &str {
        "wrong-in-batches"
    }
    fn profile(&self) -> Profile {
        self.0.profile()
    }
    fn capabilities(&self) -> Vec<String> {
        self.0.capabilities()
    }
    fn run(&self, case: &Case) -> Result<Execution, BackendError> {
        let output = self.0.run(case)?.output;
        Ok(Execution {
            output,
            legal: None,
        })
    }
    fn run_batch(&self, cases: &[&Case]) -> Vec<Result<Execution, BackendError>> {
        let mut answers: Vec<_> = cases.iter().map(|c| self.run(c)).collect();
        if let (
            true,
            Some(Ok(Execution {
                output: Output::Buffers(buffers),
                ..
            })),
        ) = (cases.len() > 1, answers.first_mut())
        {
            for w in buffers.values_mut().flatten() {
                *w ^= 0x5a5a_5a5a;
            }
        }
        answers
    }
}

#[test]
fn a_disagreement_only_a_batch_shows_is_reported_as_such() {
    let profile = Profile::MaybeReorderThread0027;
    let backend: Arc<dyn Backend> = Arc::new(WrongInBatches(ReferenceBackend::new(profile)));
    let c = Campaign {
        batch: 4,
        ..campaign("fuzz-batch-only", 16)
    };
    let summary = fuzz::run(&c, &Differential::new(backend, None)).expect("runs");
    assert!(!summary.findings.is_empty(), "{summary}");
    for f in &summary.findings {
        assert_eq!(f.shrink_steps, 0, "not shrunk: {f:?}");
        let text = std::fs::read_to_string(&f.file).expect("written");
        assert!(
            text.contains("disagreed in a batch of 4 and agrees alone")
                && text.contains(
                    "--cases 4 --batch 4`, with the same `--backends`, runs its batch again"
                ),
            "{text}"
        );
    }
}

/// `--first K` runs the cases a campaign from 0 makes from case K on: the
/// same names and the same programs (how a batch-only finding's batch is
/// run again).
#[test]
fn a_campaign_from_case_k_makes_the_cases_a_whole_campaign_makes_there() {
    let profile = Profile::MaybeReorderThread0027;
    let reference: Arc<dyn Backend> = Arc::new(ReferenceBackend::new(profile));
    let emitted = |name: &str, first: u64, cases: u64| {
        let dir = ser_tests::scratch(name);
        let c = Campaign {
            first,
            emit: Some(dir.join("emit")),
            ..campaign(&format!("{name}-out"), cases)
        };
        let summary = fuzz::run(&c, &Differential::new(reference.clone(), None)).expect("runs");
        assert!(summary.findings.is_empty(), "{summary}");
        let mut files: Vec<(String, String)> = std::fs::read_dir(dir.join("emit"))
            .expect("emitted")
            .map(|e| {
                let path = e.expect("entry").path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(&path).expect("reads"))
            })
            .collect();
        files.sort();
        files
    };
    let whole = emitted("fuzz-first-whole", 0, 12);
    let later = emitted("fuzz-first-later", 7, 5);
    let tail: Vec<_> = whole
        .iter()
        .filter(|(name, _)| {
            let n: u64 = name
                .trim_end_matches(".json")
                .rsplit("case")
                .next()
                .and_then(|n| n.parse().ok())
                .expect("a numbered case");
            n >= 7
        })
        .cloned()
        .collect();
    assert!(
        !later.is_empty(),
        "the reference decides some of cases 7 to 11"
    );
    assert_eq!(later, tail);
}
