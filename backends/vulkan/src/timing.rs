//! Where a batch's time goes, phase by phase (emit, compile, scenes,
//! pipelines, buffers, trace, read-back), summed over the process: what
//! `--bench-batch` prints, so that a speed-up is aimed at the phase that
//! costs, not guessed at.

use std::sync::Mutex;
use std::time::{Duration, Instant};

static PHASES: Mutex<Vec<(&'static str, Duration, usize)>> = Mutex::new(Vec::new());

/// Runs `f`, adding its time to `phase`.
pub fn time<T>(phase: &'static str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    add(phase, start.elapsed(), 1);
    out
}

/// Adds `d` and `count` things done (pipelines made, cases traced) to `phase`.
pub fn add(phase: &'static str, d: Duration, count: usize) {
    let mut phases = PHASES.lock().unwrap_or_else(|e| e.into_inner());
    match phases.iter_mut().find(|(p, _, _)| *p == phase) {
        Some((_, total, n)) => {
            *total += d;
            *n += count;
        }
        None => phases.push((phase, d, count)),
    }
}

/// The phases so far, in the order first seen, and clears them.
pub fn take() -> Vec<(&'static str, Duration, usize)> {
    std::mem::take(&mut *PHASES.lock().unwrap_or_else(|e| e.into_inner()))
}
