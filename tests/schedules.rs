//! Reorder points under adversarial schedules.
//!
//! The reference's legal outcomes must not depend on where a legal schedule
//! puts the threads that arrive at reorder points: every runtime case is run
//! under the default schedule and under ten adversarial ones (eight seeded
//! shuffles, regroup, replace), and what each case's output words may hold
//! must be the same (`ser.divergence.arriving_threads_removed_replaced_or_kept`,
//! `ser.divergence.non_arriving_threads_do_not_migrate`). A difference is a
//! bug in the reference (a guarantee it reports that the spec does not make,
//! or the reverse). A schedule that also moves threads that did not arrive
//! must be caught by the suite.

use ser_harness::load::{load_dir, Case};
use ser_harness::reference_backend::ReferenceBackend;
use ser_harness::verdict::{judge, Verdict};
use ser_reference::exec::schedule::Schedule;

fn adversarial() -> Vec<Schedule> {
    let mut s: Vec<Schedule> = (1..=8).map(Schedule::Shuffle).collect();
    s.push(Schedule::Regroup);
    s.push(Schedule::Replace);
    s
}

fn runtime_cases() -> Vec<Case> {
    load_dir(&ser_tests::cases_dir())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|c| c.schedule.is_none() && c.kind() == "runtime")
        .collect()
}

/// The most threads a case may have to be run under the adversarial
/// schedules. The 16,384-thread counterparts of the Vulkan CTS's large
/// dispatches (`cases/peers/vk_cts/large_dim.json`, `*_16384`) take seconds
/// a run in a debug build, and 21 runs each (the default schedule, then ten
/// others, each run and judged) made this test about 9 minutes longer on 2
/// cores. Each has a 4,096-thread twin (the same scene and shaders over a
/// quarter of the launch), which stays here and keeps the schedule
/// coverage; `tests/suite.rs` still runs the large ones under each of their
/// profiles. (They passed these schedules when added.)
const MAX_SCHEDULED_THREADS: u64 = 4096;

fn threads(case: &Case) -> u64 {
    case.dispatch.size.iter().map(|&n| u64::from(n)).product()
}

#[test]
fn legal_outcomes_do_not_depend_on_the_schedule() {
    let (cases, large): (Vec<Case>, Vec<Case>) = runtime_cases()
        .into_iter()
        .partition(|c| threads(c) <= MAX_SCHEDULED_THREADS);
    let mut problems = Vec::new();
    let mut runs = 0;
    for case in &cases {
        let profile = case.profiles[0];
        let base = ser_tests::shape(case, &ReferenceBackend::new(profile));
        for schedule in adversarial() {
            runs += 1;
            let backend = ReferenceBackend::new(profile).with_schedule(schedule);
            let other = ser_tests::shape(case, &backend);
            if other != base {
                problems.push(format!(
                    "{} [{profile}, {schedule}]:\n  default:  {base:?}\n  schedule: {other:?}",
                    case.id
                ));
            }
            let r = judge(case, &backend);
            if r.verdict != Verdict::Pass {
                problems.push(format!(
                    "{} [{profile}, {schedule}]: {}: {}",
                    case.id,
                    r.verdict.name(),
                    r.message
                ));
            }
        }
    }
    println!(
        "{} runtime cases, {runs} adversarial runs; {} case(s) over {MAX_SCHEDULED_THREADS} threads left out",
        cases.len(),
        large.len()
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The illegal schedule moves threads that never arrived at a reorder
/// point; the cases that read such a thread's lane after a neighbour
/// reordered must fail under it, and the reference under it must not pass
/// the whole suite.
#[test]
fn a_schedule_that_migrates_non_arriving_threads_is_caught() {
    let cases = runtime_cases();
    let backend = ReferenceBackend::new(ser_reference::Profile::MaybeReorderThread0027)
        .with_schedule(Schedule::IllegalMigrateAll);
    let caught: Vec<&str> = cases
        .iter()
        .filter(|c| c.profiles.contains(&backend.options.profile))
        .filter(|c| judge(c, &backend).verdict == Verdict::Fail)
        .map(|c| c.id.as_str())
        .collect();
    println!("caught by {} case(s): {caught:?}", caught.len());
    // Every case that has threads arrive at a reorder point next to
    // threads that do not, and checks the latter keep their lanes.
    let must: Vec<&str> = cases
        .iter()
        .map(|c| c.id.as_str())
        .filter(|id| {
            id.starts_with("reorder/points/") && !id.ends_with("no_reorder_point_without_one")
                || *id == "reorder/divergence/my_func_any_schedule"
        })
        .collect();
    assert!(
        must.len() >= 10,
        "the lane-keeping cases are missing: {must:?}"
    );
    let missed: Vec<&&str> = must.iter().filter(|id| !caught.contains(id)).collect();
    assert!(
        missed.is_empty(),
        "cases that should catch illegal-migrate-all did not fail under it: {missed:?}"
    );
}
