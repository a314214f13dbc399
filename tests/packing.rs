//! The packing of a dispatch into waves is an implementation choice
//! (`reference/src/exec/packing.rs`): the suite must accept a wave result
//! that depends on it under more than one packing, and still check exactly
//! what every packing agrees on.

use ser_harness::backend::{Backend, Output};
use ser_harness::load::{load_dir, Case};
use ser_harness::mutant_backend::MutantBackend;
use ser_harness::reference_backend::{Evaluation, ReferenceBackend};
use ser_harness::verdict::{judge, Verdict};
use ser_reference::mutation::Mutation;
use ser_reference::{Legal, Outcome, Profile};
use std::collections::BTreeMap;

const PROFILE: Profile = Profile::MaybeReorderThread0027;

fn case(id: &str) -> Case {
    load_dir(&ser_tests::cases_dir())
        .into_iter()
        .filter_map(Result::ok)
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no case {id}"))
}

fn buffers(backend: &dyn Backend, case: &Case) -> BTreeMap<String, Vec<u32>> {
    match backend.run(case).expect("runs").output {
        Output::Buffers(b) => b,
        other => panic!("{other:?}"),
    }
}

/// The legal values of one word, as the reference reports them.
fn legal(backend: &ReferenceBackend, case: &Case, buffer: &str, word: usize) -> Legal {
    match backend.evaluate(case).expect("evaluates") {
        Evaluation::Ran(r) => match r.outcome {
            Outcome::Completed(b) => b[buffer].words[word].clone(),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

fn values(l: &Legal) -> Vec<u32> {
    match l {
        Legal::Values(v) => {
            let mut v: Vec<u32> = v.iter().map(|o| o.bits).collect();
            v.sort();
            v
        }
        Legal::Unspecified(why) => panic!("unspecified: {why}"),
    }
}

#[test]
fn a_result_that_depends_on_the_packing_passes_under_two_packings() {
    let c = case("wave/packing/results_that_depend_on_the_packing");
    let reference = ReferenceBackend::new(PROFILE);
    let other = MutantBackend::new(Mutation::PackingReversed, PROFILE);
    let (a, b) = (buffers(&reference, &c), buffers(&other, &c));
    // Two packings: the reference's first run has both threads in one wave,
    // lanes 0 and 1; the reversed one has each alone, in lanes 31 and 0.
    assert_ne!(a["Count"], b["Count"], "{a:?} {b:?}");
    assert_ne!(a["Lane"], b["Lane"], "{a:?} {b:?}");
    assert_eq!(judge(&c, &reference).verdict, Verdict::Pass);
    assert_eq!(judge(&c, &other).verdict, Verdict::Pass);
}

#[test]
fn the_legal_results_cover_more_than_the_fixed_packing() {
    let c = case("wave/packing/results_that_depend_on_the_packing");
    let explored = ReferenceBackend::new(PROFILE);
    assert_eq!(values(&legal(&explored, &c, "Count", 0)), [1, 2]);
    assert_eq!(values(&legal(&explored, &c, "First", 1)), [0, 1]);
    assert_eq!(
        values(&legal(&explored, &c, "Lane", 1)),
        (0..32).collect::<Vec<_>>()
    );
    // The packing taken as fixed (thread t in lane t % 32, as a pinned
    // schedule still does) would allow only one of them.
    let mut fixed = ReferenceBackend::new(PROFILE);
    fixed.options.taint_schedule = false;
    assert_eq!(values(&legal(&fixed, &c, "Count", 0)), [2]);
    assert_eq!(values(&legal(&fixed, &c, "First", 1)), [0]);
    assert_eq!(values(&legal(&fixed, &c, "Lane", 1)), [1]);
}

#[test]
fn what_every_packing_agrees_on_is_checked_exactly() {
    let c = case("wave/packing/results_every_packing_agrees_on");
    let reference = ReferenceBackend::new(PROFILE);
    for (buffer, word, value) in [
        ("AllEqual", 0, 1),
        ("None", 3, 0),
        ("Lone", 2, 1),
        ("LoneSum", 2, 4),
    ] {
        assert_eq!(
            values(&legal(&reference, &c, buffer, word)),
            [value],
            "{buffer}[{word}]"
        );
    }
    let wrong = MutantBackend::new(Mutation::WaveCountBitsIgnoresVote, PROFILE);
    let r = judge(&c, &wrong);
    assert_eq!(r.verdict, Verdict::Fail, "{}", r.message);
    assert!(r.message.contains("None"), "{}", r.message);
}
