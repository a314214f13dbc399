//! `ser-vulkan --bench-batch COUNT BATCH [--batched-only]`: generated
//! cases per second, one pipeline per case (`run`) against batches of
//! BATCH (`run_batch`), in one process, where a batch's time went
//! ([`crate::timing`]), and whether the two agree case for case. The cases are
//! the generator's (`ser_generate::case`), from proptest's deterministic
//! runner, as `harness/benches/generated.rs` makes them. It runs in
//! process: a case that hangs the GPU costs the device layer's 60-second
//! fence wait (on the H200, 150 cases did not finish one by one within
//! 100 s), so this measures only where no generated case hangs; the
//! campaign's per-case timeouts come from the process protocol.

use crate::backend::VulkanBackend;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use ser_generate::case as gen;
use ser_harness::backend::{Backend, BackendError, Execution};
use ser_harness::load::{load_generated, Case};
use std::path::Path;
use std::time::Instant;

/// Cases in the dialect of `backend`'s claim.
fn generated(backend: &VulkanBackend, count: usize) -> Vec<Case> {
    let mut runner = TestRunner::deterministic();
    let dialect = ser_harness::fuzz::dialect(backend.profile(), &backend.capabilities());
    let strategy = gen::generated(8, dialect);
    (0..count)
        .map(|i| {
            let g = strategy.new_tree(&mut runner).expect("generates").current();
            let case = gen::program_case(&format!("bench_{i}"), "bench", &g);
            load_generated(
                Path::new("generated"),
                Path::new("generated/bench.json"),
                gen::file(case),
            )
            .pop()
            .expect("one case")
            .expect("loads")
        })
        .collect()
}

fn kind(r: &Result<Execution, BackendError>) -> String {
    match r {
        Ok(e) => format!("{:?}", e.output),
        Err(BackendError::NotSupported(m)) => format!("not supported: {m}"),
        Err(e) => format!("failed: {e:?}"),
    }
}

/// Runs `count` generated cases one pipeline per case and in batches of
/// `batch` (only the latter with `only_batched`), and prints both rates,
/// where a batch's time went, and whether the answers agree.
pub fn bench(count: usize, batch: usize, only_batched: bool) -> std::process::ExitCode {
    let backend = VulkanBackend::new();
    println!("{}", backend.name());
    let cases = generated(&backend, count);
    let refs: Vec<&Case> = cases.iter().collect();
    println!("generated {count} cases");
    let start = Instant::now();
    let one: Option<Vec<_>> =
        (!only_batched).then(|| refs.iter().map(|c| backend.run(c)).collect());
    let one_s = start.elapsed().as_secs_f64();
    crate::timing::take();
    let start = Instant::now();
    let many: Vec<_> = refs
        .chunks(batch.max(1))
        .flat_map(|c| backend.run_batch(c))
        .collect();
    let many_s = start.elapsed().as_secs_f64();
    for (phase, d, n) in crate::timing::take() {
        println!("  batched, {phase}: {:.2} s ({n})", d.as_secs_f64());
    }
    let ran = many.iter().filter(|r| r.is_ok()).count();
    let unsupported = many
        .iter()
        .filter(|r| matches!(r, Err(BackendError::NotSupported(_))))
        .count();
    println!(
        "{count} generated cases: {ran} ran, {unsupported} not supported, {} failed",
        count - ran - unsupported
    );
    println!(
        "batches of {batch}: {:.1} s, {:.0} cases/s ({} cases ran again alone)",
        many_s,
        count as f64 / many_s,
        backend.retried.load(std::sync::atomic::Ordering::Relaxed)
    );
    for (c, a) in cases.iter().zip(&many).take(3) {
        println!("sample {}: {}", c.id, &kind(a)[..kind(a).len().min(200)]);
    }
    let Some(one) = one else {
        return std::process::ExitCode::SUCCESS;
    };
    println!(
        "one pipeline per case: {:.1} s, {:.0} cases/s",
        one_s,
        count as f64 / one_s
    );
    println!("batched / one per case: {:.1}x", one_s / many_s);
    let differ: Vec<&str> = cases
        .iter()
        .zip(one.iter().zip(&many))
        .filter(|(_, (a, b))| kind(a) != kind(b))
        .map(|(c, _)| c.id.as_str())
        .collect();
    println!(
        "answers that differ: {} {:?}",
        differ.len(),
        &differ[..differ.len().min(10)]
    );
    if differ.is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
