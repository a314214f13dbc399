//! The scheduler: threads grouped in waves, resumed together where they
//! interact.
//!
//! A thread runs until it reaches a synchronisation point: a wave operation
//! or a reorder point. Once every thread has stopped, the scheduler picks,
//! in each wave, the lanes stopped at the earliest dynamic position (their
//! program paths compared in execution order) and resumes them together;
//! this makes lanes that diverged reconverge before a later wave operation,
//! as a structured SIMT machine would. At a reorder point the schedule
//! decides where the arriving threads go; the default schedule keeps every
//! thread in its wave and lane (the minimal implementation, "simply a
//! no-op").
//!
//! Which threads share a wave, from the start of the dispatch on, is itself
//! an implementation choice ([`super::packing`]): unless a case pins a
//! schedule, the scheduler resolves the threads of the whole dispatch as one
//! group, and each wave operation gives every thread the results it has
//! over every wave that thread could be in. The concrete waves and lanes
//! below then only carry the schedule's moves, which a thread's lane
//! follows (so a schedule that moves threads that did not arrive is seen).

use super::memory::{Memory, Writers};
use super::packing::{self, Participant};
use super::thread::Thread;
use super::wave::{self, WaveOp};
use super::World;
use crate::choice::ChoiceLog;
use crate::mutation::{self, Mutation};
use crate::outcome::{Fault, FaultCode};
use crate::value::Value;
use corosensei::stack::DefaultStack;
use corosensei::{CoroutineResult, ScopedCoroutine, ScopedCoroutineRef, Yielder};
use std::cell::RefCell;

pub use super::schedule::Schedule;
use super::schedule::{self, Rng};

/// The kinds of reorder point (`ser.reorder_point.list.comprehensive`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReorderPoint {
    /// A transition into or out of a shader that a trace or call runs.
    ShaderTransition,
    /// The call of `TraceRay` or `HitObject::TraceRay` itself, which may
    /// reorder even when no shader runs: "Reordering at HitObject::TraceRay
    /// ... is permitted" (`ser.reorder_point.hitobject_trace_invoke.reordering_permitted`),
    /// and DXR's repacking points are at `TraceRay`
    /// (`ser.reorder_point.dxr.repacking_points`). The list names only the
    /// shader transitions; the suite reads the call as a possible reorder
    /// point too, so that no case relies on a trace without shaders keeping
    /// the thread in place.
    Trace,
    /// `HitObject::Invoke`, also when no shader runs
    /// (`ser.reorder_point.list.hitobject_invoke_even_without_shader`).
    Invoke,
    /// The `MaybeReorderThread` call site
    /// (`ser.reorder_point.list.maybe_reorder_thread_call_site`).
    MaybeReorderThread,
    /// `ReportHit`, where DXR says so
    /// (`dxr.reorder_points.list.dxr_trace_ray_call_shader_report_hit`).
    ReportHit,
}

pub enum SyncOp {
    /// A wave operation, its operand, and the thread's lane where the
    /// operation reads it (`WaveGetLaneIndex`, `WaveActiveBallot`) and the
    /// packing is explored.
    Wave(WaveOp, Value, Option<u32>),
    Reorder(ReorderPoint),
}

pub struct SyncRequest {
    /// The dynamic position: program path with loop iterations and call
    /// sites, compared lexicographically.
    pub key: Vec<u32>,
    pub op: SyncOp,
}

pub enum SyncResponse {
    /// The legal results of a wave operation for the thread (one, or a
    /// choice among several: see [`super::packing`]).
    Wave(Vec<Value>),
    Resumed,
}

/// Wave and lane of every thread.
pub struct Lanes {
    pub wave_of: Vec<usize>,
    pub lane_of: Vec<usize>,
    /// Where each thread started: a lane that moved without the thread
    /// arriving at a reorder point (an illegal schedule) shows in the lane
    /// the thread reads.
    pub start_lane: Vec<usize>,
    pub wave_size: usize,
}

pub struct Board {
    pub requests: Vec<Option<SyncRequest>>,
    pub responses: Vec<Option<SyncResponse>>,
    pub lanes: Lanes,
    /// Threads that have finished.
    pub done: Vec<bool>,
    /// Threads that have arrived at a reorder point.
    pub arrived: Vec<bool>,
    /// The lane each thread takes in the packing of this run, once it has
    /// chosen it (see [`Board::lane_for`]).
    pub chosen_lane: Vec<Option<u32>>,
    pub schedule: Schedule,
    rng: Rng,
    /// Whether results that depend on the schedule or the packing are
    /// explored (always, except for cases that pin a schedule, which also
    /// pin the packing: thread `t` in lane `t % wave_size`).
    pub taint: bool,
}

/// State the threads of one run share.
pub struct Shared {
    pub memory: RefCell<Memory>,
    pub board: RefCell<Board>,
}

/// The dispatch index of a linear thread number (x fastest).
pub fn dispatch_index(t: usize, size: [u32; 3]) -> [u32; 3] {
    let t = t as u32;
    [
        t % size[0],
        (t / size[0]) % size[1],
        t / (size[0] * size[1]),
    ]
}

/// Runs every thread of the dispatch once, taking the choices the logs
/// dictate.
pub fn run_once(w: &World, logs: &mut [ChoiceLog], known: &Writers) -> Result<Memory, Fault> {
    let n = logs.len();
    let wave_size = w.dispatch.wave_size as usize;
    let memory = Memory::new(
        w.program,
        &w.dispatch.buffers,
        w.options.profile,
        n,
        known.clone(),
    )?;
    let mut rng = Rng::new(match w.options.schedule {
        Schedule::Shuffle(seed) => seed,
        _ => 0,
    });
    let start = schedule::initial_layout(w.options.schedule, &mut rng, n, wave_size);
    let shared = Shared {
        memory: RefCell::new(memory),
        board: RefCell::new(Board {
            requests: (0..n).map(|_| None).collect(),
            responses: (0..n).map(|_| None).collect(),
            lanes: Lanes {
                wave_of: start.iter().map(|s| s.0).collect(),
                lane_of: start.iter().map(|s| s.1).collect(),
                start_lane: start.iter().map(|s| s.1).collect(),
                wave_size,
            },
            done: vec![false; n],
            arrived: vec![false; n],
            chosen_lane: vec![None; n],
            schedule: w.options.schedule,
            rng,
            taint: w.options.taint_schedule,
        }),
    };
    let result = drive(w, &shared, logs);
    result.map(|()| shared.memory.into_inner())
}

/// What a thread's coroutine gives back when it ends: its choice log, and
/// how it ended.
type Ended = (ChoiceLog, Result<(), Fault>);

/// A thread of the dispatch as a coroutine on a stack of its own: it runs
/// the evaluator until it suspends at a synchronisation point
/// ([`Thread::sync`]) or ends.
type Coroutine<'c> = ScopedCoroutine<'c, (), (), Ended, &'c mut DefaultStack>;
type Resumable<'r, 'c> = ScopedCoroutineRef<'r, (), (), Ended, &'c mut DefaultStack>;

/// Runs every thread of the dispatch to its end, each as a coroutine the
/// scheduler resumes.
fn drive(w: &World, shared: &Shared, logs: &mut [ChoiceLog]) -> Result<(), Fault> {
    let mut stacks = stacks::take(logs.len()).map_err(|e| {
        Fault::new(
            FaultCode::Unsupported,
            format!("cannot map a stack for each of the dispatch's threads: {e}"),
        )
    })?;
    let result = {
        let coroutines: Vec<Coroutine> = stacks
            .iter_mut()
            .enumerate()
            .map(|(t, stack)| {
                let log = std::mem::take(&mut logs[t]);
                ScopedCoroutine::with_stack(stack, move |yielder: &Yielder<(), ()>, ()| {
                    let index = dispatch_index(t, w.dispatch.size);
                    Thread::new(w, shared, yielder, t, index, log).run()
                })
            })
            .collect();
        scoped(coroutines, Vec::new(), |threads| {
            schedule(w, shared, logs, threads)
        })
    };
    stacks::give_back(stacks);
    result
}

/// Calls `body` with every coroutine of `rest` (and those of `ready`,
/// first), each in the scope that lets it be resumed.
fn scoped<'c, T>(
    mut rest: Vec<Coroutine<'c>>,
    ready: Vec<Resumable<'_, 'c>>,
    body: impl for<'r> FnOnce(&mut [Resumable<'r, 'c>]) -> T,
) -> T {
    if rest.is_empty() {
        let mut ready = ready;
        return body(&mut ready);
    }
    let next = rest.remove(0);
    next.scope(move |coroutine| {
        let mut ready = ready;
        ready.push(coroutine);
        scoped(rest, ready, body)
    })
}

/// Resumes the threads the board releases, until every thread has ended
/// or one faults.
fn schedule(
    w: &World,
    shared: &Shared,
    logs: &mut [ChoiceLog],
    threads: &mut [Resumable],
) -> Result<(), Fault> {
    let mut runnable: Vec<usize> = (0..threads.len()).collect();
    loop {
        for t in runnable.drain(..) {
            if shared.board.borrow().done[t] {
                continue;
            }
            if let CoroutineResult::Return((log, result)) = threads[t].as_mut().resume(()) {
                logs[t] = log;
                shared.board.borrow_mut().done[t] = true;
                if let Err(mut f) = result {
                    f.thread.get_or_insert(dispatch_index(t, w.dispatch.size));
                    return Err(f);
                }
            }
        }
        if !shared.board.borrow().done.contains(&false) {
            return Ok(());
        }
        runnable = shared.board.borrow_mut().resolve();
        if runnable.is_empty() {
            return Err(Fault::new(
                FaultCode::Unsupported,
                "internal: every live thread is suspended and none can resume",
            ));
        }
    }
}

/// The threads' stacks, kept for the next run: mapping a fresh stack for
/// each thread of each run would cost more than a small run. One pool for
/// the process, within a budget of maps: each stack is two memory maps
/// (the stack and its guard page), and Linux allows 65,530 maps to a
/// process, so runs that together would need more wait for stacks to come
/// back instead of failing (two dispatches of 16,384 threads on two test
/// threads).
mod stacks {
    use corosensei::stack::DefaultStack;
    use std::sync::{Condvar, Mutex};

    /// Each thread's stack. The evaluator recurses on it, up to
    /// [`super::super::MAX_EVALUATION_DEPTH`] levels: the programs of
    /// `tests/limits.rs` that evaluate to that limit run within it in a debug
    /// build. Only the pages a thread touches are backed by memory.
    pub const THREAD_STACK: usize = 64 << 20;

    /// The most stacks mapped at once: 49,152 maps, with room left for the
    /// rest of the process. A run needs one stack per thread; the loader
    /// allows 16,384 threads.
    pub const BUDGET: usize = 24_576;

    struct Pool {
        free: Vec<DefaultStack>,
        /// Stacks mapped, free or in use.
        mapped: usize,
        budget: usize,
    }

    impl Pool {
        /// `n` stacks, reused where there are free ones; `None` while the
        /// budget is taken by stacks in use.
        fn take(&mut self, n: usize) -> Option<std::io::Result<Vec<DefaultStack>>> {
            if self.free.len() + (self.budget - self.mapped) < n {
                return None;
            }
            let keep = self.free.len().saturating_sub(n);
            let mut out = self.free.split_off(keep);
            while out.len() < n {
                match DefaultStack::new(THREAD_STACK) {
                    Ok(stack) => {
                        self.mapped += 1;
                        out.push(stack);
                    }
                    Err(e) => {
                        self.free.extend(out);
                        return Some(Err(e));
                    }
                }
            }
            Some(Ok(out))
        }
    }

    static POOL: Mutex<Pool> = Mutex::new(Pool {
        free: Vec::new(),
        mapped: 0,
        budget: BUDGET,
    });
    static RETURNED: Condvar = Condvar::new();

    /// `n` stacks from the process's pool; waits while the budget is taken
    /// by other runs.
    pub fn take(n: usize) -> std::io::Result<Vec<DefaultStack>> {
        if n > BUDGET {
            return Err(std::io::Error::other(format!(
                "{n} threads need more stacks than the {BUDGET} the reference maps at once"
            )));
        }
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(taken) = pool.take(n) {
                return taken;
            }
            pool = RETURNED.wait(pool).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Returns stacks to the pool.
    pub fn give_back(stacks: Vec<DefaultStack>) {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        pool.free.extend(stacks);
        RETURNED.notify_all();
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use corosensei::stack::Stack;

        fn pool(budget: usize) -> Pool {
            Pool {
                free: Vec::new(),
                mapped: 0,
                budget,
            }
        }

        #[test]
        fn a_later_run_reuses_the_stacks_of_an_earlier_one() {
            let mut p = pool(4);
            let first = p.take(3).expect("within budget").expect("maps");
            let bases: Vec<usize> = first.iter().map(|s| s.base().get()).collect();
            p.free.extend(first);
            let second = p.take(2).expect("within budget").expect("reuses");
            assert!(second.iter().all(|s| bases.contains(&s.base().get())));
            assert_eq!(p.mapped, 3);
        }

        #[test]
        fn a_run_waits_while_the_budget_is_in_use() {
            let mut p = pool(4);
            let running = p.take(3).expect("within budget").expect("maps");
            assert!(p.take(2).is_none(), "only one stack is left to map");
            p.free.extend(running);
            assert!(p.take(2).is_some(), "the first run's stacks came back");
        }
    }
}

impl Board {
    /// In every wave, resumes the lanes stopped at the earliest position:
    /// a wave operation runs for them together; threads at reorder points,
    /// from every wave, are placed by the schedule first.
    fn resolve(&mut self) -> Vec<usize> {
        let waves = self
            .lanes
            .wave_of
            .iter()
            .copied()
            .max()
            .map_or(0, |m| m + 1);
        let mut released = Vec::new();
        let mut arriving = Vec::new();
        // Exploring the packing, the whole dispatch is one group: any of its
        // threads may share a wave (`super::packing`).
        let (waves, wave_of) = if self.taint {
            (waves.min(1), vec![0; self.requests.len()])
        } else {
            (waves, self.lanes.wave_of.clone())
        };
        for wave in 0..waves {
            let waiting: Vec<usize> = (0..self.requests.len())
                .filter(|&t| wave_of[t] == wave && self.requests[t].is_some())
                .collect();
            let Some(min) = waiting
                .iter()
                .map(|&t| &self.requests[t].as_ref().expect("waiting").key)
                .min()
                .cloned()
            else {
                continue;
            };
            let mut group: Vec<usize> = waiting
                .into_iter()
                .filter(|&t| self.requests[t].as_ref().expect("waiting").key == min)
                .collect();
            group.sort_by_key(|&t| self.lanes.lane_of[t]);
            let requests: Vec<SyncRequest> = group
                .iter()
                .map(|&t| self.requests[t].take().expect("waiting"))
                .collect();
            match &requests[0].op {
                SyncOp::Wave(op, ..) => {
                    let results = if self.taint {
                        self.packed_results(*op, &group, &requests)
                    } else {
                        self.pinned_results(*op, &group, &requests)
                    };
                    for (&t, r) in group.iter().zip(results) {
                        self.responses[t] = Some(SyncResponse::Wave(r));
                    }
                }
                SyncOp::Reorder(_) => arriving.extend(group.iter().copied()),
            }
            released.extend(group);
        }
        if !arriving.is_empty() {
            self.migrate(&arriving);
        }
        released
    }

    /// A wave operation's results in the concrete waves and lanes (those
    /// of a pinned schedule): one result per thread of `group`, each from
    /// the threads of `group` in its wave.
    fn pinned_results(
        &self,
        op: WaveOp,
        group: &[usize],
        requests: &[SyncRequest],
    ) -> Vec<Vec<Value>> {
        group
            .iter()
            .map(|&t| {
                let wave: Vec<(usize, Value)> = group
                    .iter()
                    .zip(requests)
                    .filter(|(&u, _)| self.lanes.wave_of[u] == self.lanes.wave_of[t])
                    .map(|(&u, r)| (self.lanes.lane_of[u], operand(r)))
                    .collect();
                let at = wave
                    .iter()
                    .position(|(lane, _)| *lane == self.lanes.lane_of[t])
                    .expect("a thread is in its own wave");
                let v = match op {
                    WaveOp::LaneIndex => Value::uint(self.lanes.lane_of[t] as u32),
                    _ => wave::execute(op, &wave, self.lanes.wave_size).swap_remove(at),
                };
                vec![v]
            })
            .collect()
    }

    /// A wave operation's legal results for each thread of `group` (every
    /// thread at this position) over every packing (`super::packing`).
    /// Which threads share a wave after a reorder point is up to the
    /// implementation as well
    /// (`ser.reorder_point.definition.migration_visible_via_system_state`),
    /// which those sets cover; the lane of a thread that arrived is not
    /// known.
    fn packed_results(
        &self,
        op: WaveOp,
        group: &[usize],
        requests: &[SyncRequest],
    ) -> Vec<Vec<Value>> {
        let participants: Vec<Participant> = group
            .iter()
            .zip(requests)
            .map(|(&t, r)| Participant {
                value: operand(r),
                lane: match &r.op {
                    SyncOp::Wave(_, _, Some(lane)) if !self.arrived[t] => {
                        Some(self.lane_after_moves(t, *lane))
                    }
                    _ => None,
                },
            })
            .collect();
        // The first alternative is the result in the concrete waves (a
        // real packing, so the first run is one legal execution throughout).
        let pinned = self.pinned_results(op, group, requests);
        let reversed = mutation::active(Mutation::PackingReversed);
        (0..group.len())
            .map(|me| {
                let mut r = packing::results(op, me, &participants, self.lanes.wave_size as u32);
                if let Some(i) = r.iter().position(|v| pinned[me].contains(v)) {
                    let first = r.remove(i);
                    r.insert(0, first);
                }
                if reversed {
                    r.reverse();
                }
                r
            })
            .collect()
    }

    /// The lane a thread reads: the one it chose, moved as far as the
    /// schedule moved it (never, for a thread that did not arrive at a
    /// reorder point, under a legal schedule:
    /// `ser.divergence.non_arriving_threads_do_not_migrate`).
    fn lane_after_moves(&self, t: usize, chosen: u32) -> u32 {
        let ws = self.lanes.wave_size;
        let moved = (self.lanes.lane_of[t] + ws - self.lanes.start_lane[t] % ws) % ws;
        ((chosen as usize + moved) % ws) as u32
    }

    /// The lane thread `t` takes in this run's packing: any lane below the
    /// wave size (`super::packing`), chosen the first time the thread reads
    /// it and kept for the run.
    pub fn lane_for(&mut self, t: usize, log: &mut ChoiceLog) -> u32 {
        if let Some(lane) = self.chosen_lane[t] {
            return lane;
        }
        let ws = self.lanes.wave_size;
        let pick = if ws < 2 {
            0
        } else {
            crate::choice::Chooser::choose(log, ws, packing::WHY)
        };
        // Alternative 0 is the thread's concrete lane (see `packed_results`).
        let pick = if mutation::active(Mutation::PackingReversed) {
            ws - 1 - pick
        } else {
            pick
        };
        let lane = ((self.lanes.start_lane[t] + pick) % ws) as u32;
        self.chosen_lane[t] = Some(lane);
        lane
    }

    /// Places the threads arriving at reorder points by the schedule. Only
    /// they move (`ser.divergence.non_arriving_threads_do_not_migrate`).
    fn migrate(&mut self, arriving: &[usize]) {
        let waves = self
            .lanes
            .wave_of
            .iter()
            .copied()
            .max()
            .map_or(0, |m| m + 1);
        let slot = |b: &Board, t: usize| (b.lanes.wave_of[t], b.lanes.lane_of[t]);
        let occupied: Vec<schedule::Slot> = (0..self.done.len())
            .filter(|&t| !self.done[t] && !arriving.contains(&t))
            .map(|t| slot(self, t))
            .collect();
        if self.schedule == Schedule::IllegalMigrateAll
            || mutation::active(Mutation::MigrateNonArriving)
        {
            // Rotate every live thread by one lane,
            // arrived or not: what a correct implementation never does.
            for t in (0..self.done.len()).filter(|&t| !self.done[t]) {
                self.lanes.lane_of[t] = (self.lanes.lane_of[t] + 1) % self.lanes.wave_size;
            }
        }
        let from: Vec<schedule::Slot> = arriving.iter().map(|&t| slot(self, t)).collect();
        // A case that pins a schedule (no taint) asks for that one.
        let schedule = if self.taint && mutation::active(Mutation::ScheduleRegroup) {
            Schedule::Regroup
        } else {
            self.schedule
        };
        let to = schedule::place(
            schedule,
            &mut self.rng,
            self.lanes.wave_size,
            waves,
            &occupied,
            &from,
        );
        for (&t, (wave, lane)) in arriving.iter().zip(to) {
            self.arrived[t] = true;
            self.lanes.wave_of[t] = wave;
            self.lanes.lane_of[t] = lane;
            self.responses[t] = Some(SyncResponse::Resumed);
        }
    }
}

fn operand(r: &SyncRequest) -> Value {
    match &r.op {
        SyncOp::Wave(_, v, _) => v.clone(),
        SyncOp::Reorder(_) => unreachable!("one position, one operation"),
    }
}
