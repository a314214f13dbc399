//! One thread of the dispatch: its shader invocations, function frames and
//! local variables, and the statements of the case language.

use super::sched::{ReorderPoint, Shared, SyncOp, SyncRequest, SyncResponse};
use super::World;
use crate::choice::ChoiceLog;
use crate::hit_object::Hit;
use crate::outcome::{Fault, FaultCode};
use crate::program::Stage;
use crate::ray::Ray;
use crate::ray_query::Handle;
use crate::sbt::Table;
use crate::value::{new_value, Fill, Value};
use corosensei::Yielder;
use ser_lang::ast::*;
use ser_lang::names;
use std::borrow::Cow;

/// Why evaluation stopped early.
pub(super) enum Exit {
    Fault(Box<Fault>),
    /// A shader ended traversal processing: `IgnoreHit`,
    /// `AcceptHitAndEndSearch`, or the end of the search inside an
    /// intersection shader.
    Terminate(Termination),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Termination {
    IgnoreHit,
    AcceptHitAndEndSearch,
    EndSearch,
}

impl From<Fault> for Exit {
    fn from(f: Fault) -> Exit {
        Exit::Fault(Box::new(f))
    }
}

pub(super) type Ex<T> = Result<T, Exit>;

/// A fault of the given code, as an early exit.
pub(super) fn fault<T>(code: FaultCode, message: impl Into<String>) -> Ex<T> {
    Err(Fault::new(code, message).into())
}

/// How a statement ends.
pub(super) enum Flow {
    Next,
    Break,
    Continue,
    Return(Option<Value>),
}

/// The system values a shader invocation sees.
pub(super) enum System {
    /// Raygeneration and callable shaders.
    Dispatch,
    /// Closest-hit, any-hit and intersection shaders: the hit (for an
    /// intersection shader, `t` is the current `tmax`).
    Hit(Box<Hit>),
    Miss(Box<Ray>),
}

/// One shader invocation on the thread's stack.
pub(super) struct Invocation<'a> {
    pub stage: Stage,
    pub system: System,
    /// Local root constants of the record that selected the shader.
    pub constants: Vec<u32>,
    pub frames: Vec<Frame<'a>>,
}

/// One function call: its scopes of local variables, named as the program
/// names them.
pub(super) struct Frame<'a> {
    pub function: &'a str,
    pub scopes: Vec<Vec<(&'a str, Value)>>,
    /// Where the current statement is, for fault messages.
    pub span: ser_lang::Span,
}

pub(super) struct Thread<'a> {
    pub w: &'a World<'a>,
    pub shared: &'a Shared,
    /// Suspends the thread's coroutine at a synchronisation point (see
    /// [`Thread::sync`]).
    yielder: &'a Yielder<(), ()>,
    pub id: usize,
    pub index: [u32; 3],
    pub log: ChoiceLog,
    pub steps: u64,
    /// Statements, expressions and places being evaluated, one inside the
    /// other (see [`super::MAX_EVALUATION_DEPTH`]).
    pub nesting: u32,
    /// Current trace recursion depth (0 in raygeneration).
    pub depth: u32,
    /// Dynamic position, for the scheduler (see [`Thread::event`]).
    pub path: Vec<u32>,
    pub stack: Vec<Invocation<'a>>,
    /// Traversals in progress, innermost last.
    pub traces: Vec<super::trace::TraceState>,
    /// Open logs of the memory writes of shader invocations whose repetition
    /// the reference must judge (any-hit and intersection shaders).
    pub write_logs: Vec<Vec<WriteRecord>>,
    /// Set while an intersection shader runs as a probe (see
    /// `Thread::false_positives`): it then has no effect, and what it would
    /// have done is recorded.
    pub probe: Option<Probe>,
    /// Hit-object calls in progress during which the profile's text rules
    /// out reordering (see [`Thread::holds_in_place`]); no reorder point is
    /// met while one is.
    pub in_place: u32,
    /// The stack position of a shader `hitObjectExecuteShaderNV` runs, while
    /// it runs: GL_NV's hit object encodes no ray flags (it has no getter
    /// for them, and `hitObjectRecordMissNV` and `hitObjectRecordHitNV` take
    /// none), and the text does not say what such a shader's
    /// `gl_IncomingRayFlagsEXT` is (`glsl_nv.hit_object_execute_shader.executes_encoded_shader`).
    pub executed_without_flags: Option<usize>,
}

/// What a probed intersection shader would have done.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Probe {
    /// It reported a hit within the ray's interval.
    pub reported: bool,
    /// It wrote memory.
    pub wrote: bool,
}

/// A memory write: buffer, word, value.
pub(super) type WriteRecord = (usize, usize, crate::value::Scalar);

impl<'a> Thread<'a> {
    pub fn new(
        w: &'a World<'a>,
        shared: &'a Shared,
        yielder: &'a Yielder<(), ()>,
        id: usize,
        index: [u32; 3],
        log: ChoiceLog,
    ) -> Self {
        Thread {
            w,
            shared,
            yielder,
            id,
            index,
            log,
            steps: 0,
            nesting: 0,
            depth: 0,
            path: Vec::new(),
            stack: Vec::new(),
            traces: Vec::new(),
            write_logs: Vec::new(),
            probe: None,
            in_place: 0,
            executed_without_flags: None,
        }
    }

    /// Runs the raygeneration shader with its record's embedded parameters
    /// (`sbt.raygen.record_contents`); gives back the choice log.
    pub fn run(mut self) -> (ChoiceLog, Result<(), Fault>) {
        let raygen = self.w.dispatch.raygen.clone();
        let constants = self.w.table.root_constants(Table::RayGen, 0);
        let result = self.invoke_entry(
            &raygen,
            Stage::RayGeneration,
            System::Dispatch,
            constants,
            Vec::new(),
        );
        let result = match result {
            Ok((_, None)) => Ok(()),
            Ok((_, Some(t))) => Err(Fault::new(
                FaultCode::InvalidStage,
                format!("{t:?} outside an any-hit or intersection shader"),
            )),
            Err(Exit::Fault(f)) => Err(*f),
            Err(Exit::Terminate(t)) => Err(Fault::new(
                FaultCode::InvalidStage,
                format!("{t:?} outside an any-hit or intersection shader"),
            )),
        };
        (self.log, result)
    }

    /// The current shader invocation.
    pub fn invocation(&self) -> &Invocation<'a> {
        self.stack.last().expect("a shader is running")
    }

    pub fn stage(&self) -> Stage {
        self.invocation().stage
    }

    fn frame(&mut self) -> &mut Frame<'a> {
        self.stack
            .last_mut()
            .expect("a shader is running")
            .frames
            .last_mut()
            .expect("a function is running")
    }

    /// Adds the location of the running statement to a fault.
    pub fn locate(&self, mut f: Fault) -> Fault {
        if f.at.is_none() {
            if let Some(frame) = self.stack.last().and_then(|i| i.frames.last()) {
                f.at = Some((frame.function.to_string(), frame.span));
            }
        }
        f
    }

    /// Counts one step against the budget.
    pub fn step(&mut self) -> Ex<()> {
        self.steps += 1;
        if self.steps > self.w.options.step_budget {
            return fault(
                FaultCode::StepBudgetExhausted,
                format!(
                    "a thread ran more than {} steps: an endless loop?",
                    self.w.options.step_budget
                ),
            );
        }
        Ok(())
    }

    /// Goes one level deeper into the evaluation; [`Thread::ascend`]
    /// comes back.
    pub fn descend(&mut self) -> Ex<()> {
        if self.nesting >= super::MAX_EVALUATION_DEPTH {
            return fault(
                FaultCode::EvaluationDepthExceeded,
                format!(
                    "statements and expressions nested more than {} levels deep, through \
                     function calls and shader invocations: a limit of the reference",
                    super::MAX_EVALUATION_DEPTH
                ),
            );
        }
        self.nesting += 1;
        Ok(())
    }

    pub fn ascend(&mut self) {
        self.nesting -= 1;
    }

    // ---- dynamic position ------------------------------------------------

    /// Marks an event (a call, a shader invocation, a synchronisation) in
    /// the current statement. The path is the sequence of statement indices,
    /// loop iterations and per-statement event counters from the entry
    /// point down; comparing paths lexicographically orders two positions
    /// as execution reaches them.
    pub fn event(&mut self) {
        if let Some(last) = self.path.last_mut() {
            *last += 1;
        }
    }

    /// Stops at a synchronisation point until the scheduler resumes this
    /// thread.
    pub fn sync(&mut self, op: SyncOp) -> SyncResponse {
        self.event();
        let request = SyncRequest {
            key: self.path.clone(),
            op,
        };
        self.shared.board.borrow_mut().requests[self.id] = Some(request);
        self.yielder.suspend(());
        self.shared.board.borrow_mut().responses[self.id]
            .take()
            .expect("the scheduler answers before it resumes a thread")
    }

    /// A reorder point (`ser.reorder_point.definition.may_change_thread_arrangement`).
    pub fn reorder_point(&mut self, kind: ReorderPoint) {
        if self.probe.is_none() && self.in_place == 0 {
            self.shared.memory.borrow_mut().reorder_point(self.id);
            self.sync(SyncOp::Reorder(kind));
        }
    }

    /// Whether `HitObject::TraceRay` and `HitObject::Invoke` keep the thread
    /// in place, reorder points of their shaders included: GL_NV says of
    /// hitObjectTraceRayNV "No thread reordering or user-observable driver
    /// side scheduling occurs" (`glsl_nv.hit_object_trace_ray.no_reordering`)
    /// and of hitObjectExecuteShaderNV "This call does not trigger
    /// reordering of threads" (`glsl_nv.hit_object_execute_shader.no_reordering`).
    /// The HLSL proposal and GL_EXT state no such rule; under them both calls
    /// stay reorder points. (The Vulkan chapter and SPIR-V list
    /// `OpHitObjectTraceRayEXT` among the invocation repack instructions
    /// and leave `OpHitObjectExecuteShaderEXT` out, which keeps the caller
    /// where it was, `vk_rt.repack.not_listed.hit_object_execute_shader_ext`;
    /// GL_EXT lists `hitObjectExecuteShaderEXT` among its invocation repack
    /// functions. The texts disagree, so an execute stays a point where a
    /// thread may move, and may stay: both readings are accepted.)
    pub fn holds_in_place(&self) -> u32 {
        u32::from(self.w.options.profile == crate::profile::Profile::VulkanNv)
    }

    // ---- variables -------------------------------------------------------

    pub fn declare(&mut self, name: &'a str, value: Value) {
        self.frame()
            .scopes
            .last_mut()
            .expect("a scope is open")
            .push((name, value));
    }

    /// The variable `name` in the current function, innermost first.
    pub fn local_mut(&mut self, name: &str) -> Option<&mut Value> {
        self.frame().scopes.iter_mut().rev().find_map(|s| {
            s.iter_mut()
                .rev()
                .find(|(n, _)| names::same(n.as_bytes(), name.as_bytes()))
                .map(|(_, v)| v)
        })
    }

    fn push_scope(&mut self) {
        self.frame().scopes.push(Vec::new());
    }

    fn pop_scope(&mut self) {
        self.frame().scopes.pop();
    }

    // ---- calls -----------------------------------------------------------

    /// Runs a shader entry point with its arguments (payload, attributes).
    /// Returns the arguments as the shader left them (`inout` copy-out), and
    /// how it ended if it ended traversal processing (`IgnoreHit`, ...):
    /// payload writes made before that are kept.
    pub fn invoke_entry(
        &mut self,
        name: &str,
        stage: Stage,
        system: System,
        constants: Vec<u32>,
        args: Vec<Value>,
    ) -> Ex<(Vec<Value>, Option<Termination>)> {
        let w = self.w;
        let Some(f) = w.program.function(name) else {
            return fault(FaultCode::Unsupported, format!("no shader named `{name}`"));
        };
        if w.program.entry_stage(name) != Some(stage) {
            return fault(
                FaultCode::Unsupported,
                format!("`{name}` is not a {} shader", stage.name()),
            );
        }
        self.stack.push(Invocation {
            stage,
            system,
            constants,
            frames: Vec::new(),
        });
        let depth = self.path.len();
        self.event();
        let (result, params) = self.call_function(f, args);
        self.path.truncate(depth);
        self.stack.pop();
        match result {
            Ok(_) => Ok((params, None)),
            Err(Exit::Terminate(t)) => Ok((params, Some(t))),
            Err(e) => Err(e),
        }
    }

    /// Calls a function: binds the parameters, runs the body, and returns
    /// the return value, and the final values of all parameters (also when
    /// the body ended early).
    pub fn call_function(
        &mut self,
        f: &'a FunctionDecl,
        args: Vec<Value>,
    ) -> (Ex<Option<Value>>, Vec<Value>) {
        let w = self.w;
        let mut scope = Vec::with_capacity(f.params.len());
        for (p, a) in f.params.iter().zip(args) {
            let v = if p.mode == ParamMode::Out {
                Ok(new_value(
                    &p.ty,
                    Fill::Uninitialized("an `out` parameter the callee did not write"),
                    w.program,
                ))
            } else {
                self.convert_to(&p.ty, a)
            };
            match v {
                Ok(v) => scope.push((p.name.as_str(), v)),
                Err(e) => return (Err(e), Vec::new()),
            }
        }
        let invocation = self.stack.last_mut().expect("a shader is running");
        invocation.frames.push(Frame {
            function: &f.name,
            scopes: vec![scope],
            span: f.span,
        });
        let flow = self.exec_block(&f.body);
        let frame = self
            .stack
            .last_mut()
            .expect("a shader is running")
            .frames
            .pop()
            .expect("the frame pushed above");
        let params = frame
            .scopes
            .into_iter()
            .next()
            .unwrap_or_default()
            .into_iter()
            .map(|(_, v)| v)
            .collect();
        let ret = match flow {
            Ok(Flow::Return(v)) => v,
            Ok(_) => None,
            Err(e) => return (Err(e), params),
        };
        let ret = match (ret, &f.return_type) {
            (_, Type::Void) => Ok(None),
            (Some(v), t) => self.convert_to(t, v).map(Some),
            (None, t) => Ok(Some(new_value(
                t,
                Fill::Uninitialized("a function that ended without returning a value"),
                w.program,
            ))),
        };
        (ret, params)
    }

    // ---- statements ------------------------------------------------------

    pub fn exec_block(&mut self, b: &'a Block) -> Ex<Flow> {
        self.push_scope();
        self.path.push(0);
        self.path.push(0);
        let mut flow = Flow::Next;
        for (i, s) in b.stmts.iter().enumerate() {
            let n = self.path.len();
            self.path[n - 2] = i as u32;
            self.path[n - 1] = 0;
            match self.exec_stmt(s) {
                Ok(Flow::Next) => {}
                Ok(other) => {
                    flow = other;
                    break;
                }
                Err(e) => {
                    self.path.truncate(n - 2);
                    self.pop_scope();
                    return Err(e);
                }
            }
        }
        self.path.pop();
        self.path.pop();
        self.pop_scope();
        Ok(flow)
    }

    /// A statement nested in `if` or a loop, tagged so that the branches
    /// of an `if` are distinct positions.
    fn exec_nested(&mut self, tag: u32, s: &'a Stmt) -> Ex<Flow> {
        self.path.push(tag);
        let r = match &s.kind {
            StmtKind::Block(b) => self.exec_block(b),
            _ => {
                let one = std::slice::from_ref(s);
                self.exec_stmts_as_block(one)
            }
        };
        self.path.pop();
        r
    }

    fn exec_stmts_as_block(&mut self, stmts: &'a [Stmt]) -> Ex<Flow> {
        self.push_scope();
        self.path.push(0);
        self.path.push(0);
        let r = self.exec_stmt(&stmts[0]);
        self.path.pop();
        self.path.pop();
        self.pop_scope();
        r
    }

    /// One statement, counted as a step and a level.
    fn exec_stmt(&mut self, s: &'a Stmt) -> Ex<Flow> {
        self.step()?;
        self.descend()?;
        let r = self.exec_stmt_kind(s);
        self.ascend();
        r
    }

    fn exec_stmt_kind(&mut self, s: &'a Stmt) -> Ex<Flow> {
        self.frame().span = s.span;
        match &s.kind {
            StmtKind::Block(b) => self.exec_block(b),
            StmtKind::Decl(d) => {
                self.declare_vars(d)?;
                Ok(Flow::Next)
            }
            StmtKind::Expr(e) => {
                self.eval_for_effect(e)?;
                Ok(Flow::Next)
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                if self.condition(cond)? {
                    self.exec_nested(0, then_branch)
                } else if let Some(e) = else_branch {
                    self.exec_nested(1, e)
                } else {
                    Ok(Flow::Next)
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.push_scope();
                let r = self.exec_for(init.as_deref(), cond.as_deref(), step.as_deref(), body);
                self.pop_scope();
                r
            }
            StmtKind::While { cond, body } => self.exec_loop(Some(cond), None, body, false),
            StmtKind::DoWhile { body, cond } => self.exec_loop(Some(cond), None, body, true),
            StmtKind::Break => Ok(Flow::Break),
            StmtKind::Continue => Ok(Flow::Continue),
            StmtKind::UsingDx => Ok(Flow::Next),
            StmtKind::Return(v) => {
                let v = match v {
                    Some(e) => Some(self.eval(e)?),
                    None => None,
                };
                Ok(Flow::Return(v))
            }
        }
    }

    fn exec_for(
        &mut self,
        init: Option<&'a Stmt>,
        cond: Option<&'a Expr>,
        step: Option<&'a Expr>,
        body: &'a Stmt,
    ) -> Ex<Flow> {
        if let Some(i) = init {
            match &i.kind {
                StmtKind::Decl(d) => self.declare_vars(d)?,
                StmtKind::Expr(e) => self.eval_for_effect(e)?,
                _ => {
                    return fault(
                        FaultCode::Unsupported,
                        "a for-loop initializer is a declaration or an expression",
                    )
                }
            }
        }
        self.exec_loop(cond, step, body, false)
    }

    /// `while`, `do ... while` and the loop part of `for`. Each iteration is
    /// its own position (`[iteration, event counter, ...]`).
    fn exec_loop(
        &mut self,
        cond: Option<&'a Expr>,
        step: Option<&'a Expr>,
        body: &'a Stmt,
        body_first: bool,
    ) -> Ex<Flow> {
        let depth = self.path.len();
        let mut iteration = 0u32;
        let result = loop {
            self.path.truncate(depth);
            self.path.push(iteration);
            self.path.push(0);
            if !(body_first && iteration == 0) {
                if let Some(c) = cond {
                    match self.condition(c) {
                        Ok(true) => {}
                        Ok(false) => break Ok(Flow::Next),
                        Err(e) => break Err(e),
                    }
                }
            }
            self.event();
            match self.exec_nested(0, body) {
                Ok(Flow::Break) => break Ok(Flow::Next),
                Ok(Flow::Return(v)) => break Ok(Flow::Return(v)),
                Ok(Flow::Next | Flow::Continue) => {}
                Err(e) => break Err(e),
            }
            self.event();
            if let Some(s) = step {
                if let Err(e) = self.eval_for_effect(s) {
                    break Err(e);
                }
            }
            iteration += 1;
        };
        self.path.truncate(depth);
        result
    }

    /// Evaluates a condition; an unspecified one may go either way, and the
    /// reference explores both.
    pub fn condition(&mut self, e: &'a Expr) -> Ex<bool> {
        let v = self.eval(e)?;
        let s = match v {
            Value::Scalar(s) => s,
            other => {
                return fault(
                    FaultCode::Unsupported,
                    format!("a condition must be a scalar, found {}", other.type_name()),
                )
            }
        };
        if s.unspecified.is_some() {
            return Ok(self.log.choose_bool("a branch on an unspecified value"));
        }
        Ok(s.truth(&mut self.log))
    }

    fn declare_vars(&mut self, d: &'a VarDecl) -> Ex<()> {
        let w = self.w;
        for dc in &d.declarators {
            // The declared type, copied only to make an array of it.
            let ty = match dc.array_len {
                Some(n) => Cow::Owned(Type::Array(Box::new(d.ty.clone()), n)),
                None => Cow::Borrowed(&d.ty),
            };
            let value = match &dc.init {
                Some(init) => {
                    let v = self.eval(init)?;
                    self.convert_to(&ty, v)?
                }
                None => {
                    let mut v = new_value(
                        &ty,
                        Fill::Uninitialized("a variable read before it was written"),
                        w.program,
                    );
                    if let (Type::RayQuery(flags, query_flags), None) = (&d.ty, dc.array_len) {
                        let template_flags = self.constant_flags(flags)?;
                        let query_flags = match query_flags {
                            Some(q) => self.constant_flags(q)?,
                            None => 0,
                        };
                        v = Value::RayQuery(Handle::new(template_flags, query_flags));
                    }
                    v
                }
            };
            self.declare(&dc.name, value);
        }
        Ok(())
    }
}

impl<'a> Thread<'a> {
    /// The value of a `RayQuery` template argument.
    fn constant_flags(&mut self, e: &'a Expr) -> Ex<u32> {
        Ok(self.eval(e)?.as_scalar().map_or(0, |s| s.bits))
    }
}

/// A two-way choice on the thread's log.
trait ChooseBool {
    fn choose_bool(&mut self, why: &'static str) -> bool;
}

impl ChooseBool for ChoiceLog {
    fn choose_bool(&mut self, why: &'static str) -> bool {
        crate::choice::Chooser::choose(self, 2, why) == 1
    }
}
