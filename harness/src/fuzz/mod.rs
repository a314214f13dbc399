//! Differential fuzzing of a backend: generated cases run on the backend
//! and on the reference; the backend's buffers are judged against the
//! reference's legal outcomes (every legal result accepted, unspecified
//! words free). A disagreement is shrunk to a small case and written at
//! once as an ordinary case file, expectations included, so it stays a
//! regression case when the generators change; then the campaign goes on.

pub mod expectations;
pub mod out_dir;
pub mod shrink;
pub mod skips;

use crate::backend::{Backend, BackendError, Execution};
use crate::load::{load_generated, Case};
use crate::reference_backend::{Evaluation, ReferenceBackend, REFERENCE_STACK};
use crate::verdict::{judge_batch, judge_within, CaseResult, Verdict};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use ser_generate::case::{self as gen, Generated};
use ser_generate::dialect::{Dialect, Language};
use ser_reference::{Outcome, Profile};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a campaign does.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// Generated cases to run.
    pub cases: u64,
    pub seed: u64,
    /// The first case's number: the cases before it are generated and
    /// dropped, so that case `first` is the case a campaign from 0 makes
    /// there (to run again the batch a finding came from).
    pub first: u64,
    /// Most statements of a generated program's top level.
    pub max_statements: usize,
    /// Where regression cases are written.
    pub out: PathBuf,
    /// Most shrinking steps for one finding.
    pub shrink_budget: usize,
    /// Per-case time limit for the backend.
    pub timeout: Option<Duration>,
    /// Show a progress bar on standard error.
    pub progress: bool,
    /// Generated cases handed to the backend at once
    /// ([`Backend::run_batch`]); 1 runs them one by one.
    pub batch: usize,
    /// Threads that work out the reference's legal outcomes of a batch.
    pub jobs: usize,
    /// Where to write every generated case the reference decides, with its
    /// legal outcomes as expectations: a corpus the ordinary runner can
    /// run (`--cases DIR`).
    pub emit: Option<PathBuf>,
    /// Stop starting batches after this long (a device's time limit): the
    /// summary then counts what ran.
    pub max_time: Option<Duration>,
    /// Generate as for a backend that claims only these capabilities (of
    /// those the backend claims): to make, without the device, the cases a
    /// campaign on it made.
    pub capabilities: Option<Vec<String>>,
}

impl Campaign {
    /// A campaign of `cases` cases from `seed`, one by one, on one thread.
    pub fn new(cases: u64, seed: u64, out: PathBuf) -> Campaign {
        Campaign {
            cases,
            seed,
            first: 0,
            max_statements: 8,
            out,
            shrink_budget: 256,
            timeout: None,
            progress: false,
            batch: 1,
            jobs: 1,
            emit: None,
            capabilities: None,
            max_time: None,
        }
    }
}

/// A disagreement, shrunk and written.
#[derive(Clone, Debug)]
pub struct Finding {
    pub case: u64,
    pub verdict: Verdict,
    /// The judge's message on the shrunk case.
    pub message: String,
    pub file: PathBuf,
    pub shrink_steps: usize,
    /// Statements of the program before and after shrinking.
    pub statements: (String, String),
}

#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub run: u64,
    pub agree: u64,
    /// Generated cases outside the backend's claim (a capability it does
    /// not claim).
    pub not_applicable: u64,
    /// Generated cases inside the claim that the backend declined.
    pub declined: u64,
    /// Cases the reference cannot decide, per reason (too many outcomes
    /// to explore, a step budget, ...).
    pub skipped: skips::Skips,
    /// Cases the generator should not have made, with why.
    pub invalid: Vec<String>,
    pub findings: Vec<Finding>,
    pub elapsed: Duration,
    /// Where the time went.
    pub time: Phases,
}

/// A campaign's time by phase. The backend runs a batch while the next is
/// generated and decided by the reference, so these overlap: their sum
/// can exceed the campaign's time.
#[derive(Clone, Debug, Default)]
pub struct Phases {
    /// Making the programs and their cases (one thread).
    pub generate: Duration,
    /// The reference's legal outcomes (on `Campaign::jobs` threads).
    pub reference: Duration,
    /// The backend's batches, judged (shrinking not counted).
    pub backend: Duration,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rate = self.run as f64 / self.elapsed.as_secs_f64().max(1e-9);
        write!(
            f,
            "{} generated case(s): {} agree, {} disagree, {} not applicable, {} declined inside the claim, {}, {} invalid ({rate:.1} cases/s; generating {:.1} s, the reference {:.1} s, the backend {:.1} s, overlapped)",
            self.run,
            self.agree,
            self.findings.len(),
            self.not_applicable,
            self.declined,
            self.skipped,
            self.invalid.len(),
            self.time.generate.as_secs_f64(),
            self.time.reference.as_secs_f64(),
            self.time.backend.as_secs_f64(),
        )
    }
}

/// What one generated case showed.
enum Check {
    Agree,
    NotApplicable,
    Declined,
    /// The reference could not decide it: why.
    Skipped(String),
    Invalid(String),
    Disagree(Disagreement),
}

/// Most runs the reference spends exploring one generated case's choices.
pub const MAX_RUNS: usize = 32;

/// Checks generated cases against a backend, for a profile.
pub struct Differential {
    pub backend: Arc<dyn Backend>,
    pub reference: ReferenceBackend,
    pub timeout: Option<Duration>,
}

impl Differential {
    pub fn new(backend: Arc<dyn Backend>, timeout: Option<Duration>) -> Self {
        let backend: Arc<dyn Backend> = Arc::new(UnderTest(backend));
        let mut reference = ReferenceBackend::new(backend.profile());
        // A generated case with more implementation choices than this is
        // skipped: a campaign favours many small cases over a few huge ones.
        reference.options.max_runs = MAX_RUNS;
        Differential {
            backend,
            reference,
            timeout,
        }
    }

    /// What the campaign's programs may use: the forms of the backend's
    /// profile and the capabilities it claims, so that what is generated
    /// is inside its claim.
    pub fn dialect(&self, only: Option<&[String]>) -> Dialect {
        let mut capabilities = self.backend.capabilities();
        if let Some(only) = only {
            capabilities.retain(|c| only.contains(c));
        }
        // Generated cases run in the default wave size: a device without it
        // would find every one with wave operations not applicable.
        let claim = crate::claim::Claim::of(self.backend.as_ref());
        if !claim.runs_waves_of(crate::case::DEFAULT_WAVE_SIZE) {
            capabilities.retain(|c| c != "wave_operations");
        }
        dialect(self.backend.profile(), &capabilities)
    }

    fn load(&self, name: &str, case: &Json) -> Result<Case, String> {
        let file = Path::new("generated").join(format!("{name}.json"));
        match load_generated(Path::new("generated"), &file, gen::file(case.clone())).pop() {
            Some(Ok(c)) => Ok(c),
            Some(Err(e)) => Err(format!("the loader rejects a generated case: {e}")),
            None => Err("no case".into()),
        }
    }

    /// The case with the reference's legal outcome as its expectations.
    fn with_expectations(&self, name: &str, mut case: Json) -> Result<(Case, Json), Check> {
        let loaded = self.load(name, &case).map_err(Check::Invalid)?;
        if !loaded.profiles.contains(&self.reference.profile()) {
            return Err(Check::Skipped(skips::OTHER_PROFILE.into()));
        }
        let result = match self.reference.evaluate(&loaded) {
            Ok(Evaluation::Ran(result)) => result,
            Ok(other) => {
                return Err(Check::Invalid(format!(
                    "the reference did not run a generated case: {other:?}"
                )))
            }
            Err(e) => return Err(Check::Invalid(format!("the reference failed: {e}"))),
        };
        match result.outcome {
            Outcome::Completed(buffers) => {
                case["expect"] = expectations::expect(&buffers);
                let mut loaded = loaded;
                loaded.expect = expectations::parse(&case["expect"], &buffers)
                    .map_err(|e| Check::Invalid(format!("expectations: {e}")))?;
                Ok((loaded, case))
            }
            Outcome::Fault(f) if f.code.is_undefined_behaviour() => Err(Check::Invalid(format!(
                "a generated program has undefined behaviour: {f}"
            ))),
            // A limit of the reference (too many outcomes to explore, the
            // step budget) is no verdict on the generator.
            Outcome::Fault(f) => Err(Check::Skipped(skips::reason(
                f.code,
                self.reference.options.max_runs,
            ))),
        }
    }

    fn check(&self, name: &str, case: Json) -> Check {
        let (loaded, case) = match self.with_expectations(name, case) {
            Ok(c) => c,
            Err(check) => return check,
        };
        let result = judge_within(&Arc::new(loaded), &self.backend, self.timeout);
        Self::verdict(result, case)
    }

    fn verdict(result: CaseResult, case: Json) -> Check {
        match result.verdict {
            Verdict::Pass => Check::Agree,
            Verdict::NotApplicable => Check::NotApplicable,
            Verdict::NotSupported => Check::Declined,
            verdict => Check::Disagree(Disagreement {
                verdict,
                message: result.message,
                case,
            }),
        }
    }

    /// The reference's part of [`Differential::check`] for many cases:
    /// each case with its legal outcomes as expectations (on `jobs`
    /// threads), or its check where the reference settles it alone.
    fn expect_batch(
        &self,
        cases: &[(String, Json)],
        jobs: usize,
        emit: Option<&Path>,
    ) -> std::io::Result<Vec<Result<(Case, Json), Check>>> {
        let expected = parallel_map(cases, jobs, |(name, case)| {
            self.with_expectations(name, case.clone())
        });
        if let Some(dir) = emit {
            std::fs::create_dir_all(dir)?;
            for ((name, _), e) in cases.iter().zip(&expected) {
                if let Ok((_, json)) = e {
                    let text = serde_json::to_string_pretty(&gen::file(json.clone()))
                        .expect("JSON serializes");
                    std::fs::write(dir.join(format!("{name}.json")), text + "\n")?;
                }
            }
        }
        Ok(expected)
    }

    /// The backend's part: the cases with expectations go to the backend
    /// as one batch.
    fn judge_batch(&self, expected: Vec<Result<(Case, Json), Check>>) -> Vec<Check> {
        let mut checks: Vec<Option<Check>> = Vec::with_capacity(expected.len());
        let (mut batch, mut jsons, mut at) = (Vec::new(), Vec::new(), Vec::new());
        for (i, e) in expected.into_iter().enumerate() {
            match e {
                Ok((loaded, json)) => {
                    batch.push(Arc::new(loaded));
                    jsons.push(json);
                    at.push(i);
                    checks.push(None);
                }
                Err(check) => checks.push(Some(check)),
            }
        }
        let results = judge_batch(&batch, &self.backend, self.timeout);
        for ((result, json), i) in results.into_iter().zip(jsons).zip(at) {
            checks[i] = Some(Self::verdict(result, json));
        }
        checks
            .into_iter()
            .map(|c| c.expect("every case checked"))
            .collect()
    }
}

/// The dialect of programs for a claim: the forms of `profile`'s text and
/// what `capabilities` allow.
pub fn dialect(profile: Profile, capabilities: &[String]) -> Dialect {
    let language = match profile {
        Profile::Sm69 => Language::Hlsl { sm69: true },
        Profile::VulkanNv => Language::GlslNv,
        Profile::VulkanExt => Language::GlslExt,
        _ => Language::Hlsl { sm69: false },
    };
    Dialect::with_capabilities(language, capabilities)
}

/// `f` over `items` on up to `jobs` threads, results in order. The
/// threads have the reference's stack, so that loading and running each
/// case happen in place ([`ser_lang::nesting::on_stack`]); one job runs on
/// the calling thread where its stack is that deep already.
fn parallel_map<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let chunk = items.len().div_ceil(jobs.max(1)).max(1);
    if chunk >= items.len() {
        let all = || items.iter().map(&f).collect();
        return ser_lang::nesting::on_stack("reference", REFERENCE_STACK, all)
            .expect("start a reference thread");
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                let work = || part.iter().map(&f).collect::<Vec<R>>();
                ser_lang::nesting::spawn_scoped(scope, "reference", REFERENCE_STACK, work)
                    .expect("start a reference thread")
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a reference thread panicked"))
            .collect()
    })
}

/// The backend under test, judged on its buffers alone: when it is the
/// reference itself (under another schedule, say), its own legal outcomes
/// are no standard for the case.
struct UnderTest(Arc<dyn Backend>);

impl Backend for UnderTest {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn profile(&self) -> Profile {
        self.0.profile()
    }
    fn capabilities(&self) -> Vec<String> {
        self.0.capabilities()
    }
    fn wave_sizes(&self) -> Vec<u32> {
        self.0.wave_sizes()
    }
    fn phase(&self) -> crate::claim::Phase {
        self.0.phase()
    }
    fn run(&self, case: &Case) -> Result<Execution, BackendError> {
        self.0.run(case).map(without_legal)
    }
    fn run_batch(&self, cases: &[&Case]) -> Vec<Result<Execution, BackendError>> {
        let ran = self.0.run_batch(cases);
        ran.into_iter().map(|r| r.map(without_legal)).collect()
    }
    fn enforces_timeout(&self) -> bool {
        self.0.enforces_timeout()
    }
}

fn without_legal(mut exec: Execution) -> Execution {
    exec.legal = None;
    exec
}

/// The name of the `n`-th case of a campaign: from the profile and the
/// seed alone, never the backend's display name (free text, such as
/// `vulkan-nv (NVIDIA H100 80GB HBM3, ...)`, which a case name, `[a-z0-9_]+`,
/// cannot hold), so that one seed names the same cases on every backend.
fn case_name(profile: Profile, seed: u64, n: u64) -> String {
    format!("{}_seed{seed}_case{n}", profile.name().replace('-', "_"))
}

fn origin(seed: u64, n: u64, g: &Generated) -> String {
    format!(
        "ser-generate program strategy, seed {seed}, case {n}: {}",
        gen::describe(&g.program)
    )
}

fn runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

/// One batch of a campaign, generated and with the reference's legal
/// outcomes: the generator's trees (for shrinking), the cases, and what
/// the reference made of each.
struct Prepared {
    made: Vec<(u64, BoxedTree)>,
    cases: Vec<(String, Json)>,
    expected: Vec<Result<(Case, Json), Check>>,
}

type BoxedTree = Box<dyn ValueTree<Value = Generated>>;

/// Runs a campaign: generates, checks (in batches of `campaign.batch`),
/// shrinks and writes each disagreement, and goes on. While the backend
/// runs one batch, the next is generated and the reference works out its
/// legal outcomes. Writing a regression case that fails is an I/O error;
/// everything else is in the summary.
///
/// It runs on a thread with the reference's stack (this one, where its
/// stack is that deep already), so that each batch's cases are made and
/// their legal outcomes worked out in place, without a thread of their own.
pub fn run(campaign: &Campaign, diff: &Differential) -> std::io::Result<Summary> {
    ser_lang::nesting::on_stack("fuzz", REFERENCE_STACK, || run_here(campaign, diff))?
}

fn run_here(campaign: &Campaign, diff: &Differential) -> std::io::Result<Summary> {
    let start = Instant::now();
    let strategy = gen::generated(
        campaign.max_statements,
        diff.dialect(campaign.capabilities.as_deref()),
    );
    let mut runner = runner(campaign.seed);
    for _ in 0..campaign.first {
        // A generator that gives up has drawn from the RNG all the same.
        let _ = strategy.new_tree(&mut runner);
    }
    let bar = progress_bar(campaign);
    let mut summary = Summary::default();
    // The next case's number, and the number after the last.
    let mut n: u64 = campaign.first;
    let end = campaign.first.saturating_add(campaign.cases);
    let mut prepare = |summary: &mut Summary| -> std::io::Result<Option<Prepared>> {
        if n >= end || campaign.max_time.is_some_and(|t| start.elapsed() >= t) {
            return Ok(None);
        }
        let started = Instant::now();
        let size = (end - n).min(campaign.batch.max(1) as u64);
        let mut made: Vec<(u64, BoxedTree)> = Vec::new();
        for k in n..n + size {
            match strategy.new_tree(&mut runner) {
                Ok(tree) => made.push((k, Box::new(tree))),
                Err(_) => summary
                    .invalid
                    .push(format!("case {k}: the generator gave up")),
            }
        }
        n += size;
        let cases: Vec<(String, Json)> = made
            .iter()
            .map(|(k, tree)| {
                let g = tree.current();
                let name = case_name(diff.backend.profile(), campaign.seed, *k);
                let case = gen::program_case(&name, &origin(campaign.seed, *k, &g), &g);
                (name, case)
            })
            .collect();
        summary.time.generate += started.elapsed();
        let started = Instant::now();
        let expected = diff.expect_batch(&cases, campaign.jobs, campaign.emit.as_deref())?;
        summary.time.reference += started.elapsed();
        Ok(Some(Prepared {
            made,
            cases,
            expected,
        }))
    };
    // One thread runs the backend for the whole campaign, a batch at a
    // time, while this one prepares the next batch. It has the reference's
    // stack: an in-process backend runs each case there, in place.
    std::thread::scope(|scope| -> std::io::Result<()> {
        let (to_backend, batches) = std::sync::mpsc::channel();
        let (to_loop, judged) = std::sync::mpsc::channel();
        ser_lang::nesting::spawn_scoped(scope, "backend", REFERENCE_STACK, move || {
            for expected in batches {
                let started = Instant::now();
                let checks = diff.judge_batch(expected);
                if to_loop.send((checks, started.elapsed())).is_err() {
                    break;
                }
            }
        })?;
        let mut next = prepare(&mut summary)?;
        while let Some(Prepared {
            made,
            cases,
            expected,
        }) = next.take()
        {
            to_backend
                .send(expected)
                .expect("the backend's thread waits for batches");
            let following = prepare(&mut summary);
            let (checks, took) = judged.recv().expect("the backend's thread panicked");
            summary.time.backend += took;
            for (((k, mut tree), check), (name, _)) in made.into_iter().zip(checks).zip(&cases) {
                summary.run += 1;
                match check {
                    Check::Agree => summary.agree += 1,
                    Check::NotApplicable => summary.not_applicable += 1,
                    Check::Declined => summary.declined += 1,
                    Check::Skipped(why) => summary.skipped.add(&why),
                    Check::Invalid(why) => summary.invalid.push(format!("case {k}: {why}")),
                    Check::Disagree(found) => {
                        bar.suspend(|| {
                            eprintln!("fuzz: case {k}: {}, shrinking", found.verdict.name())
                        });
                        let g = tree.current();
                        let finding =
                            shrink_and_write(campaign, diff, &mut tree, k, found, name, &g)?;
                        bar.suspend(|| eprintln!("fuzz: wrote {}", finding.file.display()));
                        summary.findings.push(finding);
                    }
                }
                bar.inc(1);
            }
            let rate = summary.run as f64 / start.elapsed().as_secs_f64().max(1e-9);
            bar.set_message(format!(
                "{} disagree, {rate:.0} cases/s",
                summary.findings.len()
            ));
            next = following?;
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    summary.elapsed = start.elapsed();
    Ok(summary)
}

fn progress_bar(campaign: &Campaign) -> indicatif::ProgressBar {
    if !campaign.progress {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(campaign.cases);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} cases, {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar
}

/// A disagreement: the verdict, the judge's message, the case (JSON, with
/// the reference's outcome as its expectations).
struct Disagreement {
    verdict: Verdict,
    message: String,
    case: Json,
}

fn shrink_and_write(
    campaign: &Campaign,
    diff: &Differential,
    tree: &mut impl ValueTree<Value = Generated>,
    n: u64,
    found: Disagreement,
    name: &str,
    original: &Generated,
) -> std::io::Result<Finding> {
    let origin_text = origin(campaign.seed, n, original);
    let describe = |d: &Disagreement, shrunk: Shrunk| {
        let before = gen::describe(&original.program);
        let how = match shrunk {
            Shrunk::Tried(tries, small) => format!(
                "{before}, {tries} shrinking tries, leaving {}",
                gen::describe(&small.program)
            ),
            Shrunk::NotYet => format!("{before}, not shrunk"),
            Shrunk::AgreesAlone => {
                let b = campaign.batch.max(1) as u64;
                let first = campaign.first + (n - campaign.first) / b * b;
                format!(
                    "{before}; it disagreed in a batch of {b} and agrees alone, so it depends on the cases run with it and was not shrunk; `--first {first} --cases {b} --batch {b}`, with the same `--backends`, runs its batch again"
                )
            }
        };
        format!(
            "Found by `ser-conformance fuzz --seed {}` against backend `{}` (case {n}; {how}). The backend's verdict was {}: {}",
            campaign.seed,
            diff.backend.name(),
            d.verdict.name(),
            d.message.lines().next().unwrap_or("")
        )
    };
    // Written before shrinking, so that a campaign stopped while it shrinks
    // (a device's time limit) keeps what it found.
    let file = write_finding(campaign, name, &found, describe(&found, Shrunk::NotYet))?;
    let same = |check: Check, verdict: Verdict| match check {
        Check::Disagree(d) if d.verdict == verdict => Some(d),
        _ => None,
    };
    // Shrinking judges one case at a time: a disagreement found in a batch
    // is first checked alone, and one that then agrees is a finding about
    // the batch (cases sharing a pipeline or a submission), kept as found.
    let batch_only = campaign.batch > 1 && {
        let alone = diff.check(name, gen::program_case(name, &origin_text, original));
        same(alone, found.verdict).is_none()
    };
    // A step of shrinking a hang or a crash costs a time limit or a fresh
    // process: a few steps only.
    let budget = match found.verdict {
        _ if batch_only => 0,
        Verdict::Timeout | Verdict::Crash => campaign.shrink_budget.min(HANG_SHRINK_STEPS),
        _ => campaign.shrink_budget,
    };
    // The smallest value that still disagrees the same way is the last one
    // that did: keep its judgement rather than judge it again.
    let mut last = found;
    let (small, steps) = shrink::shrink(tree, budget, |g| {
        let check = diff.check(name, gen::program_case(name, &origin_text, g));
        match same(check, last.verdict) {
            Some(d) => {
                last = d;
                true
            }
            None => false,
        }
    });
    let shrunk = if batch_only {
        Shrunk::AgreesAlone
    } else {
        Shrunk::Tried(steps, &small)
    };
    write_finding(campaign, name, &last, describe(&last, shrunk))?;
    let Disagreement {
        verdict, message, ..
    } = last;
    Ok(Finding {
        case: n,
        verdict,
        message,
        file,
        shrink_steps: steps,
        statements: (
            gen::describe(&original.program),
            gen::describe(&small.program),
        ),
    })
}

/// How far a finding's case was shrunk, for its description.
enum Shrunk<'a> {
    /// Written as found, before shrinking.
    NotYet,
    /// After this many tries, the smallest case that still disagreed.
    Tried(usize, &'a Generated),
    /// Found in a batch, agreeing when run alone.
    AgreesAlone,
}

/// Most shrinking steps for a hang or a crash.
const HANG_SHRINK_STEPS: usize = 8;

/// Writes a disagreement as a regression case file; returns its path.
fn write_finding(
    campaign: &Campaign,
    name: &str,
    d: &Disagreement,
    description: String,
) -> std::io::Result<PathBuf> {
    let mut case = d.case.clone();
    case["description"] = Json::String(description);
    case["reading"] = Json::String(
        "A differential regression case: its expectations are the reference's legal outcomes for a generated program (every legal result accepted, unspecified words free), not worked out by hand. Check the disagreement against the spec before relying on it.".into(),
    );
    std::fs::create_dir_all(&campaign.out)?;
    let file = campaign.out.join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(&gen::file(case)).expect("JSON serializes");
    std::fs::write(&file, text + "\n")?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A compile-only backend that counts its batches.
    #[derive(Default)]
    struct Batches(AtomicUsize);

    impl Backend for Batches {
        fn name(&self) -> &str {
            "batches"
        }
        fn profile(&self) -> Profile {
            Profile::VulkanNv
        }
        fn capabilities(&self) -> Vec<String> {
            Vec::new()
        }
        fn phase(&self) -> crate::claim::Phase {
            crate::claim::Phase::Compile
        }
        fn run(&self, _: &Case) -> Result<Execution, BackendError> {
            Err(BackendError::Failed("runs only in batches".into()))
        }
        fn run_batch(&self, _: &[&Case]) -> Vec<Result<Execution, BackendError>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Vec::new()
        }
    }

    /// The backend under test keeps the wrapped backend's batches and
    /// phase (it once ran every batch one by one, and judged a compile-only
    /// backend as one that runs).
    #[test]
    fn the_backend_under_test_keeps_batches_and_phase() {
        let inner = Arc::new(Batches::default());
        let under = UnderTest(inner.clone());
        assert!(under.run_batch(&[]).is_empty());
        assert_eq!(inner.0.load(Ordering::SeqCst), 1);
        assert_eq!(under.phase(), crate::claim::Phase::Compile);
    }

    /// An HLSL backend with wave operations on a device of `0`'s sizes.
    struct Waves(Vec<u32>);

    impl Backend for Waves {
        fn name(&self) -> &str {
            "waves"
        }
        fn profile(&self) -> Profile {
            Profile::Sm69
        }
        fn capabilities(&self) -> Vec<String> {
            vec!["wave_operations".into()]
        }
        fn wave_sizes(&self) -> Vec<u32> {
            self.0.clone()
        }
        fn run(&self, _: &Case) -> Result<Execution, BackendError> {
            Err(BackendError::Failed("never runs".into()))
        }
    }

    /// Generated programs use wave operations only where the device runs
    /// the generated cases' wave size (elsewhere each would be not
    /// applicable).
    #[test]
    fn waves_are_generated_only_in_a_size_the_device_runs() {
        let waves = |sizes: Vec<u32>| {
            let d = Differential::new(Arc::new(Waves(sizes)), None);
            d.dialect(None).waves
        };
        assert!(waves(Vec::new()));
        assert!(waves(vec![32, 64]));
        assert!(!waves(vec![8]));
    }

    /// A campaign's case names load under every profile, whatever the
    /// backend calls itself (they once carried the display name, and every
    /// case of a Vulkan campaign was invalid).
    #[test]
    fn case_names_are_valid_names_under_every_profile() {
        for p in Profile::ALL {
            let name = case_name(p, 5, 399);
            assert_eq!(crate::load::check_case_name(&name), Ok(()), "{name}");
        }
        assert_eq!(case_name(Profile::VulkanNv, 5, 3), "vulkan_nv_seed5_case3");
    }
}
