//! Running a dispatch: threads in waves, the statements of the case
//! language, and the exploration of every implementation choice.
//!
//! Each thread of the dispatch runs a tree-walking evaluator ([`thread`])
//! as a coroutine on a stack of its own; it suspends where threads interact
//! (wave operations) or may be rearranged (reorder points), and the
//! scheduler ([`sched`]) resumes the lanes of a wave together. [`run`] repeats the
//! dispatch until each thread has taken every sequence of implementation
//! choices (see [`crate::choice`]), and merges the results into the legal
//! contents of every output buffer.

mod expr;
mod hit_object_ops;
mod intrinsics;
mod invoke;
mod math;
pub mod memory;
mod motion;
mod ops;
mod packing;
mod paq;
mod place;
mod record;
mod reorder;
pub mod sched;
pub mod schedule;
mod thread;
mod trace;
mod uav;
mod wave;

use crate::choice::ChoiceLog;
use crate::outcome::{Fault, FaultCode, Outcome, RunResult};
use crate::profile::Profile;
use crate::program::{Program, Stage};
use crate::sbt::ShaderTable;
use crate::scene::Scene;
use memory::Memory;
use std::collections::BTreeMap;

/// The deepest the reference evaluates at run time, in one thread:
/// statements, expressions and places nested in one another, through
/// function calls and shader invocations (`TraceRay`, `CallShader`,
/// `HitObject::Invoke`). The evaluator recurses on its thread's stack
/// (`sched::stacks::THREAD_STACK`), and the case language bounds only each
/// function's nesting
/// (`ser_lang::nesting::MAX_NESTING`, counted through calls): this bounds
/// what shaders calling shaders add up to. Twice the language's limit: a
/// shader nested to the limit, with room for those it calls.
pub const MAX_EVALUATION_DEPTH: u32 = 2 * ser_lang::nesting::MAX_NESTING as u32;

/// The deepest `CallShader` nesting the reference follows: callable shaders
/// calling callable shaders (D3D12 and Vulkan bound it only by the
/// pipeline's stack size, which the reference does not model).
pub const MAX_CALL_SHADER_DEPTH: usize = 32;

/// The dispatch a case makes.
#[derive(Clone, Debug, PartialEq)]
pub struct Dispatch {
    /// The raygeneration entry point.
    pub raygen: String,
    /// Dispatch dimensions.
    pub size: [u32; 3],
    /// Lanes per wave.
    pub wave_size: u32,
    /// The pipeline's maximum trace recursion depth.
    pub max_recursion_depth: u32,
    /// Pipeline flags that act as ray flags on every trace of the pipeline:
    /// `RAY_FLAG_SKIP_TRIANGLES` and `RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES`
    /// (`VK_PIPELINE_CREATE_RAY_TRACING_SKIP_*`, D3D12's
    /// `RAYTRACING_PIPELINE_FLAG_SKIP_*`).
    pub pipeline_flags: u32,
    /// Initial contents of every output buffer, as 32-bit words.
    pub buffers: BTreeMap<String, Vec<u32>>,
}

/// How far past `max_runs` the runs done and the estimate of those left
/// (see [`ChoiceLog::estimated_runs_left`]) may go before the reference
/// gives up without running to the limit. An estimate, so with a margin.
/// Over the 4,000 cases of `cargo bench -p ser-harness --bench generated`
/// (limit 32), a margin of 2 takes 10,663 runs where the rule before it
/// (the first run's estimate past 8 times the limit) took 13,291, and
/// gives up on 3 of the 3,673 cases that end within the limit.
pub const ESTIMATE_MARGIN: u64 = 2;

/// How the reference runs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub profile: Profile,
    /// Most dispatch runs to spend exploring choices. A dispatch is given
    /// up sooner when one thread's choices in one run multiply to more than
    /// [`ESTIMATE_MARGIN`] times this (see [`explore`]).
    pub max_runs: usize,
    /// Most statements and expressions one thread may evaluate in one run.
    pub step_budget: u64,
    pub schedule: sched::Schedule,
    /// Report results that depend on the schedule as unspecified (the
    /// legal outcomes over every schedule). Off only for cases that pin a
    /// schedule to show what one schedule does.
    pub taint_schedule: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            profile: Profile::MaybeReorderThread0027,
            max_runs: 4096,
            step_budget: 200_000,
            schedule: sched::Schedule::None,
            taint_schedule: true,
        }
    }
}

/// Everything a run reads and never changes.
pub struct World<'a> {
    pub program: &'a Program,
    pub scene: &'a Scene,
    pub table: &'a ShaderTable,
    pub dispatch: &'a Dispatch,
    pub options: &'a RunOptions,
}

/// Runs a dispatch and reports the legal contents of every output buffer.
pub fn run(
    program: &Program,
    scene: &Scene,
    table: &ShaderTable,
    dispatch: &Dispatch,
    options: &RunOptions,
) -> RunResult {
    let world = World {
        program,
        scene,
        table,
        dispatch,
        options,
    };
    let fault = |f: Fault, runs: usize| RunResult {
        outcome: Outcome::Fault(f),
        runs,
        choices: Vec::new(),
    };
    if let Err(f) = check_dispatch(&world) {
        return fault(f, 0);
    }
    let threads = (dispatch.size[0] * dispatch.size[1] * dispatch.size[2]) as usize;
    // Whether another thread writes a word a thread reads is known only
    // after every run; explore again, knowing more, until no read was too
    // confident (the set of writers only grows, so this ends).
    let mut known = memory::Writers::new();
    loop {
        match explore(&world, threads, &known) {
            Err((f, runs)) => return fault(f, runs),
            Ok(Explored::Again(writers)) => known = writers,
            Ok(Explored::Done(logs, legal, runs)) => return finish(logs, legal, runs),
        }
    }
}

enum Explored {
    /// Every choice explored: the logs, the legal contents, the run count.
    Done(
        Vec<ChoiceLog>,
        BTreeMap<String, crate::outcome::LegalBuffer>,
        usize,
    ),
    /// A read assumed no other thread writes a word that one does.
    Again(memory::Writers),
}

/// Runs the dispatch until each thread has taken every sequence of
/// implementation choices.
fn explore(
    world: &World,
    threads: usize,
    known: &memory::Writers,
) -> Result<Explored, (Fault, usize)> {
    let mut logs = vec![ChoiceLog::default(); threads];
    let mut legal = None;
    let mut runs = 0;
    let mut writers = known.clone();
    let mut too_early = false;
    loop {
        runs += 1;
        for log in &mut logs {
            log.start_run();
        }
        let memory = sched::run_once(world, &mut logs, known).map_err(|f| (f, runs))?;
        memory.writers_into(&mut writers);
        too_early |= memory.read_too_early(&writers);
        match &mut legal {
            None => legal = Some(memory.legal()),
            Some(l) => memory.merge_into(l),
        }
        // Estimated before the walks move on from this run's paths.
        let too_many = too_many_runs(&logs, runs, world.options.max_runs);
        // Advance every thread's walk (no short-circuit).
        let more = logs
            .iter_mut()
            .fold(false, |more, log| log.advance() | more);
        if !more {
            break;
        }
        if let Some(why) = too_many {
            return Err((Fault::new(FaultCode::TooManyOutcomes, why), runs));
        }
    }
    if too_early && writers != *known {
        return Ok(Explored::Again(writers));
    }
    Ok(Explored::Done(logs, legal.expect("at least one run"), runs))
}

/// Why exploring must stop before every choice is taken, when it must:
/// the runs done and those a thread's walk must still take
/// ([`ChoiceLog::runs_left`]) pass `max_runs`, or the runs done and those
/// a thread's walk is estimated to take
/// ([`ChoiceLog::estimated_runs_left`]) pass [`ESTIMATE_MARGIN`] times
/// it. Either way the runs up to the limit are spared.
fn too_many_runs(logs: &[ChoiceLog], runs: usize, max_runs: usize) -> Option<String> {
    let most = |f: fn(&ChoiceLog) -> u64| logs.iter().map(f).max().unwrap_or(0);
    let (runs, max_runs) = (runs as u64, max_runs as u64);
    let left = most(ChoiceLog::runs_left);
    if runs + left > max_runs {
        return Some(format!(
            "more than {max_runs} runs would be needed to explore every implementation choice \
             ({runs} done, at least {left} to go)"
        ));
    }
    let estimate = most(ChoiceLog::estimated_runs_left);
    let total = runs.saturating_add(estimate);
    (total > ESTIMATE_MARGIN.saturating_mul(max_runs)).then(|| {
        format!(
            "about {total} runs would be needed to explore every implementation choice \
             ({runs} done, about {estimate} to go, estimated from the choices of this run), \
             more than {max_runs}"
        )
    })
}

fn finish(
    logs: Vec<ChoiceLog>,
    legal: BTreeMap<String, crate::outcome::LegalBuffer>,
    runs: usize,
) -> RunResult {
    let mut choices: Vec<String> = Vec::new();
    for log in &logs {
        for r in &log.reasons {
            if !choices.iter().any(|c| c == r) {
                choices.push(r.to_string());
            }
        }
    }
    RunResult {
        outcome: Outcome::Completed(legal),
        runs,
        choices,
    }
}

/// The dispatch must name a raygeneration shader and give every buffer the
/// library declares.
fn check_dispatch(w: &World) -> Result<(), Fault> {
    let unsupported = |m: String| Err(Fault::new(FaultCode::Unsupported, m));
    match w.program.entry_stage(&w.dispatch.raygen) {
        Some(Stage::RayGeneration) => {}
        _ => {
            return unsupported(format!(
                "`{}` is not a raygeneration shader",
                w.dispatch.raygen
            ))
        }
    }
    if w.dispatch.wave_size == 0 || w.dispatch.size.contains(&0) {
        return unsupported("the dispatch size and wave size must be positive".into());
    }
    for b in &w.program.buffers {
        if !w.dispatch.buffers.contains_key(&b.name) {
            return unsupported(format!("no contents given for buffer `{}`", b.name));
        }
    }
    Memory::new(
        w.program,
        &w.dispatch.buffers,
        w.options.profile,
        0,
        memory::Writers::new(),
    )
    .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::Chooser;

    fn log_with(alternatives: &[usize]) -> ChoiceLog {
        let mut log = ChoiceLog::default();
        log.start_run();
        for &n in alternatives {
            log.choose(n, "test");
        }
        log
    }

    #[test]
    fn stops_at_the_limit_or_when_one_thread_estimates_past_its_margin() {
        // Two choices of two, first alternatives taken: two runs to go.
        let small = log_with(&[2, 2]);
        assert_eq!(too_many_runs(std::slice::from_ref(&small), 2, 4), None);
        let why = too_many_runs(std::slice::from_ref(&small), 3, 4).expect("the limit");
        assert!(why.contains("3 done, at least 2 to go"), "{why}");
        // Five binary choices: 1 + (2^5 - 1) = 32 runs is within 2 x 16,
        // and 1 + 5 within 16; six: 1 + 63 = 64 is past it, though 1 + 6
        // is not.
        assert_eq!(
            too_many_runs(&[small.clone(), log_with(&[2; 5])], 1, 16),
            None
        );
        let why = too_many_runs(&[small, log_with(&[2; 6])], 1, 16).expect("past the margin");
        assert!(why.contains("about 64 runs"), "{why}");
    }
}
