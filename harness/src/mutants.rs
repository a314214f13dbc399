//! The suite tests itself: every mutant of the reference
//! ([`ser_reference::mutation`]) runs the case files as a backend, and the
//! cases that fail it are counted.
//!
//! A case *kills* a mutant when it passes on the reference and its verdict
//! on the mutant finds a fault: `fail`, `error`, `timeout`, `crash`, or a
//! recommendation not met (how a mutant that breaks a `should` clause is
//! found; [`Verdict::finds_fault`]), all under the mutant's profile. A case the
//! reference does not pass kills nothing (that is a failure of the suite,
//! which its own tests report), nor does one that does not apply to the
//! profile or needs a capability the reference lacks.
//!
//! A bug mutant must be killed by at least one case; one killed by exactly
//! one is *thinly covered*. A control mutant must be killed by none.
//!
//! A mutant runs only the cases whose reference run reaches its rule site
//! ([`mutation::reached`]): on the others it does exactly what the
//! reference does, and passes.

use crate::load::{load_dir, Case};
use crate::mutant_backend::MutantBackend;
use crate::reference_backend::ReferenceBackend;
use crate::verdict::{judge, Verdict};
use ser_reference::mutation::{self, Kind, Mutation};
use ser_reference::Profile;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What the suite made of one mutant.
#[derive(Clone, Debug)]
pub struct MutantResult {
    pub mutation: Mutation,
    pub profile: Profile,
    /// Cases that pass on the reference under the profile and whose run
    /// reaches the mutation's rule site: those the mutant ran.
    pub reaching: usize,
    /// The ids of the cases that kill it, in case order.
    pub killing: Vec<String>,
}

/// The verdict on a mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MutantVerdict {
    /// A bug mutant some case fails.
    Killed,
    /// A bug mutant every case passes: a gap in the suite.
    Survived,
    /// A control mutant every case passes.
    Passed,
    /// A control mutant some case fails: a case that rejects a legal
    /// implementation.
    WronglyFailed,
}

impl MutantVerdict {
    pub fn name(self) -> &'static str {
        match self {
            MutantVerdict::Killed => "killed",
            MutantVerdict::Survived => "survived",
            MutantVerdict::Passed => "passed",
            MutantVerdict::WronglyFailed => "wrongly failed",
        }
    }

    /// Whether the suite did what it should with the mutant.
    pub fn ok(self) -> bool {
        matches!(self, MutantVerdict::Killed | MutantVerdict::Passed)
    }
}

impl MutantResult {
    pub fn verdict(&self) -> MutantVerdict {
        match (self.mutation.kind(), self.killing.is_empty()) {
            (Kind::Bug, false) => MutantVerdict::Killed,
            (Kind::Bug, true) => MutantVerdict::Survived,
            (Kind::Control, true) => MutantVerdict::Passed,
            (Kind::Control, false) => MutantVerdict::WronglyFailed,
        }
    }

    /// A bug mutant that only one case kills.
    pub fn thinly_covered(&self) -> bool {
        self.mutation.kind() == Kind::Bug && self.killing.len() == 1
    }
}

/// A case that passes on the reference (by index) and the mutations whose
/// sites its reference run reaches.
type ReferenceRun = (usize, BTreeSet<Mutation>);

/// The reference's runs of the cases of `profile` that it passes.
fn reference_runs(cases: &[Case], profile: Profile) -> Vec<ReferenceRun> {
    let reference = ReferenceBackend::new(profile);
    let mut out = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        if !case.profiles.contains(&profile) {
            continue;
        }
        let (result, sites) = mutation::reached(|| judge(case, &reference));
        if result.verdict == Verdict::Pass {
            out.push((i, sites.into_iter().collect()));
        }
    }
    out
}

/// Runs one mutant over the passing cases that reach its site.
fn run_one(cases: &[Case], passing: &[ReferenceRun], mutation: Mutation) -> MutantResult {
    let profile = mutation.profile();
    let backend = MutantBackend::new(mutation, profile);
    let mut result = MutantResult {
        mutation,
        profile,
        reaching: 0,
        killing: Vec::new(),
    };
    for (i, _) in passing
        .iter()
        .filter(|(_, sites)| sites.contains(&mutation))
    {
        result.reaching += 1;
        if judge(&cases[*i], &backend).verdict.finds_fault() {
            result.killing.push(cases[*i].id.clone());
        }
    }
    result
}

/// Loads the case files of `dir` and runs every mutant over them, on as
/// many threads as the machine has.
pub fn run_dir(dir: &Path) -> Result<Vec<MutantResult>, String> {
    let mut cases = Vec::new();
    for loaded in load_dir(dir) {
        cases.push(loaded.map_err(|e| format!("{}: {e}", dir.display()))?);
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    Ok(run(&cases, Mutation::ALL, threads))
}

/// Runs every mutant in `mutations` over `cases` under its own profile, on
/// up to `threads` threads; the results come back in the order given.
pub fn run(cases: &[Case], mutations: &[Mutation], threads: usize) -> Vec<MutantResult> {
    let profiles: Vec<Profile> = mutations
        .iter()
        .map(|m| m.profile())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let runs = parallel(threads, profiles.len(), |i| {
        reference_runs(cases, profiles[i])
    });
    let passing: BTreeMap<Profile, Vec<ReferenceRun>> = profiles.into_iter().zip(runs).collect();
    parallel(threads, mutations.len(), |i| {
        let m = mutations[i];
        run_one(cases, &passing[&m.profile()], m)
    })
}

/// `job(0..n)` on up to `threads` scoped threads, each taking the next
/// index; the results in index order. (The reference runs each case on a
/// stack of its own, `ReferenceBackend::evaluate`, so these need none.)
fn parallel<T: Send>(threads: usize, n: usize, job: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for t in 0..threads.clamp(1, n.max(1)) {
            std::thread::Builder::new()
                .name(format!("mutants-{t}"))
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let r = job(i);
                    done.lock().expect("a job panicked")[i] = Some(r);
                })
                .expect("start a thread");
        }
    });
    done.into_inner()
        .expect("a job panicked")
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// Whether every bug mutant was killed and every control passed.
pub fn all_ok(results: &[MutantResult]) -> bool {
    results.iter().all(|r| r.verdict().ok())
}

/// The mutation score: killed bug mutants out of all bug mutants.
pub fn score(results: &[MutantResult]) -> (usize, usize) {
    let bugs: Vec<&MutantResult> = results
        .iter()
        .filter(|r| r.mutation.kind() == Kind::Bug)
        .collect();
    let killed = bugs
        .iter()
        .filter(|r| r.verdict() == MutantVerdict::Killed)
        .count();
    (killed, bugs.len())
}

/// The results as a Markdown table, with a summary line.
pub fn table(results: &[MutantResult]) -> String {
    const SHOWN: usize = 3;
    let mut out = String::from(
        "| mutant | kind | profile | clause | verdict | killing / reaching cases | first killing cases |\n\
         | --- | --- | --- | --- | --- | ---: | --- |\n",
    );
    for r in results {
        let kind = match r.mutation.kind() {
            Kind::Bug => "bug",
            Kind::Control => "control",
        };
        let mut verdict = r.verdict().name().to_string();
        if r.thinly_covered() {
            verdict.push_str(" (thinly covered)");
        }
        let mut first: Vec<String> = r
            .killing
            .iter()
            .take(SHOWN)
            .map(|id| format!("`{id}`"))
            .collect();
        if r.killing.len() > SHOWN {
            first.push("...".into());
        }
        out.push_str(&format!(
            "| `{}` | {kind} | {} | `{}` | {verdict} | {} / {} | {} |\n",
            r.mutation.name(),
            r.profile,
            r.mutation.clause(),
            r.killing.len(),
            r.reaching,
            first.join(", ")
        ));
    }
    let (killed, bugs) = score(results);
    let controls = results
        .iter()
        .filter(|r| r.mutation.kind() == Kind::Control)
        .count();
    let controls_ok = results
        .iter()
        .filter(|r| r.verdict() == MutantVerdict::Passed)
        .count();
    let thin = results.iter().filter(|r| r.thinly_covered()).count();
    out.push_str(&format!(
        "\nmutation score: {killed}/{bugs} bug mutants killed ({thin} thinly covered); {controls_ok}/{controls} controls passed\n"
    ));
    out
}
