//! Generated cases per second on one core: through the reference case by
//! case (made by the strategies, printed, loaded, run), each of those
//! phases over all the cases, and the differential loop with the reference
//! as the backend (the reference runs twice per case: for the legal
//! outcomes and as the backend).
//! `cargo bench -p ser-harness --bench generated`.
//!
//! Target (issues "Generated cases" and 21): at least 2,000 generated cases
//! per second through the reference on one core of the 2-core machine.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use ser_generate::case::{self as gen, Generated};
use ser_generate::dialect::{Dialect, Language};
use ser_harness::backend::Backend;
use ser_harness::fuzz::{self, Campaign, Differential, MAX_RUNS};
use ser_harness::load::{load_generated, Case};
use ser_harness::reference_backend::{ReferenceBackend, REFERENCE_STACK};
use ser_reference::Profile;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: ser_harness::alloc::Allocator = ser_harness::alloc::Allocator;

/// 4,000 cases, or `SER_BENCH_CASES` (a profiler's shorter run).
fn cases() -> usize {
    std::env::var("SER_BENCH_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4000)
}
const PROFILE: Profile = Profile::MaybeReorderThread0027;

/// The bench's cases, in the same order each time it is called.
fn generated() -> impl Iterator<Item = Generated> {
    let mut runner = TestRunner::deterministic();
    let strategy = gen::generated(8, Dialect::full(Language::Hlsl { sm69: false }));
    std::iter::repeat_with(move || strategy.new_tree(&mut runner).expect("generates").current())
}

fn load(g: &Generated) -> Case {
    let case = gen::program_case("bench", "bench", g);
    let file = Path::new("generated/bench.json");
    load_generated(Path::new("generated"), file, gen::file(case))
        .pop()
        .expect("one case")
        .expect("loads")
}

fn rate(n: usize, start: Instant) -> f64 {
    n as f64 / start.elapsed().as_secs_f64()
}

/// Measured on a thread with the reference's stack, as the fuzz loop's
/// threads are: loading and running each case happen in place there.
fn main() {
    ser_harness::alloc::keep_freed_memory();
    ser_lang::nesting::on_stack("bench", REFERENCE_STACK, measure)
        .expect("starts the bench's thread");
}

fn measure() {
    let n = cases();
    let mut reference = ReferenceBackend::new(PROFILE);
    reference.options.max_runs = MAX_RUNS;

    // Case by case, as the fuzz loop goes: each case made, printed, loaded
    // and run, then dropped.
    let start = Instant::now();
    let mut completed = 0;
    for g in generated().take(n) {
        if reference.run(&load(&g)).is_ok() {
            completed += 1;
        }
    }
    let through = rate(n, start);

    // Each phase over all the cases, to show where the time goes. Every
    // loaded case is held until the runs, which costs the loading phase
    // fresh memory that the loop above reuses.
    let start = Instant::now();
    let values: Vec<Generated> = generated().take(n).collect();
    let made = rate(n, start);
    let start = Instant::now();
    let cases: Vec<Case> = values.iter().map(load).collect();
    let loaded = rate(n, start);
    let start = Instant::now();
    for c in &cases {
        let _ = reference.run(c);
    }
    let run = rate(n, start);
    let phases = 1.0 / (1.0 / made + 1.0 / loaded + 1.0 / run);
    drop(cases);

    let campaign = Campaign {
        shrink_budget: 0,
        ..Campaign::new(
            n as u64,
            0,
            std::env::temp_dir().join("ser-bench-regressions"),
        )
    };
    let backend: Arc<dyn Backend> = Arc::new(ReferenceBackend::new(PROFILE));
    let start = Instant::now();
    let summary = fuzz::run(&campaign, &Differential::new(backend, None)).expect("runs");
    let differential = rate(n, start);
    assert!(summary.findings.is_empty(), "{summary}");

    println!("generated cases, one core, {n} cases (max {MAX_RUNS} runs of the reference per case; {completed} completed, the rest skipped at that limit):");
    println!("  through the reference, case by case:  {through:>6.0} cases/s");
    println!("    strategies only:                  {made:>8.0} cases/s");
    println!("    printing and loading only:        {loaded:>8.0} cases/s");
    println!("    the reference's runs only:        {run:>8.0} cases/s");
    println!("    the three phases combined:        {phases:>8.0} cases/s (every loaded case held at once)");
    println!("  differential loop (reference as backend): {differential:.0} cases/s ({summary})");
    println!(
        "  differential / through the reference: {:.2}",
        differential / through
    );
}
