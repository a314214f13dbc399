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

use super::memory::{Memory, Writers};
use super::thread::Thread;
use super::wave::{self, WaveOp};
use super::World;
use crate::choice::ChoiceLog;
use crate::mutation::{self, Mutation};
use crate::outcome::{Fault, FaultCode};
use crate::value::Value;
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

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
    Wave(WaveOp, Value),
    Reorder(ReorderPoint),
}

pub struct SyncRequest {
    /// The dynamic position: program path with loop iterations and call
    /// sites, compared lexicographically.
    pub key: Vec<u32>,
    pub op: SyncOp,
}

pub enum SyncResponse {
    Wave(Value),
    Resumed,
}

/// Wave and lane of every thread.
pub struct Lanes {
    pub wave_of: Vec<usize>,
    pub lane_of: Vec<usize>,
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
    /// Waves whose membership may have changed: a thread of theirs arrived
    /// at a reorder point, or one moved in.
    pub disturbed: Vec<bool>,
    pub schedule: Schedule,
    rng: Rng,
    /// Whether results that depend on the schedule are reported
    /// unspecified (always, except for cases that pin a schedule).
    pub taint: bool,
}

/// State the threads of one run share.
pub struct Shared {
    pub memory: RefCell<Memory>,
    pub board: RefCell<Board>,
}

/// Suspends a thread at a synchronisation point until the scheduler
/// answers.
pub struct Sync<'a> {
    shared: &'a Shared,
    thread: usize,
    request: Option<SyncRequest>,
}

impl<'a> Sync<'a> {
    pub fn new(shared: &'a Shared, thread: usize, request: SyncRequest) -> Self {
        Sync {
            shared,
            thread,
            request: Some(request),
        }
    }
}

impl Future for Sync<'_> {
    type Output = SyncResponse;

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<SyncResponse> {
        let mut board = self.shared.board.borrow_mut();
        if let Some(r) = self.request.take() {
            board.requests[self.thread] = Some(r);
            return Poll::Pending;
        }
        match board.responses[self.thread].take() {
            Some(r) => Poll::Ready(r),
            None => Poll::Pending,
        }
    }
}

type Task<'a> = Pin<Box<dyn Future<Output = (ChoiceLog, Result<(), Fault>)> + 'a>>;

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
                wave_size,
            },
            done: vec![false; n],
            arrived: vec![false; n],
            disturbed: vec![false; n.div_ceil(wave_size)],
            schedule: w.options.schedule,
            rng,
            taint: w.options.taint_schedule,
        }),
    };
    let result = drive(w, &shared, logs);
    result.map(|()| shared.memory.into_inner())
}

fn drive(w: &World, shared: &Shared, logs: &mut [ChoiceLog]) -> Result<(), Fault> {
    let n = logs.len();
    let mut tasks: Vec<Option<Task>> = (0..n)
        .map(|t| {
            let index = dispatch_index(t, w.dispatch.size);
            let thread = Thread::new(w, shared, t, index, std::mem::take(&mut logs[t]));
            Some(Box::pin(thread.run()) as Task)
        })
        .collect();
    let mut cx = Context::from_waker(Waker::noop());
    let mut runnable: Vec<usize> = (0..n).collect();
    loop {
        for t in runnable.drain(..) {
            let Some(task) = tasks[t].as_mut() else {
                continue;
            };
            if let Poll::Ready((log, result)) = task.as_mut().poll(&mut cx) {
                logs[t] = log;
                tasks[t] = None;
                shared.board.borrow_mut().done[t] = true;
                if let Err(mut f) = result {
                    f.thread.get_or_insert(dispatch_index(t, w.dispatch.size));
                    return Err(f);
                }
            }
        }
        if tasks.iter().all(Option::is_none) {
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
        for wave in 0..waves {
            let waiting: Vec<usize> = (0..self.requests.len())
                .filter(|&t| self.lanes.wave_of[t] == wave && self.requests[t].is_some())
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
                SyncOp::Wave(op, _) => {
                    let operands: Vec<(usize, Value)> = group
                        .iter()
                        .zip(&requests)
                        .map(|(&t, r)| match &r.op {
                            SyncOp::Wave(_, v) => (self.lanes.lane_of[t], v.clone()),
                            SyncOp::Reorder(_) => unreachable!("one position, one operation"),
                        })
                        .collect();
                    let results = match op {
                        WaveOp::LaneIndex => group.iter().map(|&t| self.lane_index(t)).collect(),
                        _ => self.wave_result(wave, *op, &operands),
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

    /// A wave operation's results. Once a wave's membership may have
    /// changed at a reorder point, which threads share it is up to the
    /// implementation and visible through wave operations
    /// (`ser.reorder_point.definition.migration_visible_via_system_state`):
    /// their results are unspecified.
    fn wave_result(&self, wave: usize, op: WaveOp, operands: &[(usize, Value)]) -> Vec<Value> {
        let results = wave::execute(op, operands, self.lanes.wave_size);
        if !(self.taint && self.disturbed.get(wave).copied().unwrap_or(true)) {
            return results;
        }
        let why =
            "a wave operation in a wave whose threads may have been rearranged at a reorder point";
        results
            .into_iter()
            .map(|v| crate::value::unspecify(v, why))
            .collect()
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
            self.mark_disturbed(self.lanes.wave_of[t]);
            self.lanes.wave_of[t] = wave;
            self.lanes.lane_of[t] = lane;
            self.mark_disturbed(wave);
            self.responses[t] = Some(SyncResponse::Resumed);
        }
    }

    fn mark_disturbed(&mut self, wave: usize) {
        if self.disturbed.len() <= wave {
            self.disturbed.resize(wave + 1, false);
        }
        self.disturbed[wave] = true;
    }

    /// `WaveGetLaneIndex`: a thread that never arrived at a reorder point
    /// keeps its lane (`ser.divergence.non_arriving_threads_do_not_migrate`);
    /// any other's lane is up to the implementation.
    fn lane_index(&self, t: usize) -> Value {
        let v = Value::uint(self.lanes.lane_of[t] as u32);
        if self.taint && self.arrived[t] {
            crate::value::unspecify(v, "the lane of a thread that arrived at a reorder point")
        } else {
            v
        }
    }
}
