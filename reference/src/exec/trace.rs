//! `TraceRay` and `HitObject::TraceRay`: traversal with intersection and
//! any-hit shaders, and for `TraceRay` the closest-hit or miss shader.

use super::hit_object_ops::attributes_as;
use super::paq::Call;
use super::place::Place;
use super::sched::ReorderPoint;
use super::thread::{fault, Ex, Exit, Probe, System, Termination, Thread, WriteRecord};
use crate::choice::Chooser;
use crate::hit_object::{Hit, HitObject, Miss};
use crate::mutation::{self, Mutation};
use crate::outcome::{Fault, FaultCode};
use crate::program::Stage;
use crate::ray::{Ray, TraceParams};
use crate::sbt::{miss_record_index, Table};
use crate::traversal::{self, geometry, Candidate, CandidateKind, Committed, Setup};
use crate::value::{Scalar, Value};
use ser_lang::ast::{Expr, ExprKind, ScalarType, Type};
use ser_lang::names::ray_flag;

/// A traversal in progress.
pub(super) struct TraceState {
    pub setup: Setup,
    pub ray: Ray,
    pub params: TraceParams,
    /// The current `tmax`: the initial one, then the closest hit's `t`.
    pub tmax: (f64, f64),
    pub committed: Option<Committed>,
    /// The payload as any-hit shaders leave it.
    pub payload: Value,
    /// The search has ended (accept-first-hit, `AcceptHitAndEndSearch`).
    pub end: bool,
    /// The AABB candidate whose intersection shader is running.
    pub current: Option<Candidate>,
    /// Whether the committed generated hit shows the attributes of later
    /// reports of its intersection shader that did not commit, once chosen
    /// ([`crate::Profile::later_attributes_may_show`]).
    pub later_attributes: Option<bool>,
    /// Hits committed so far.
    pub commits: u32,
}

impl<'a> Thread<'a> {
    /// Ray tracing calls are available in raygeneration, closest-hit and
    /// miss shaders, below the pipeline's maximum recursion depth
    /// (`ser.hit_object.trace_ray.not_at_max_recursion`).
    pub(super) fn check_can_trace(&self, what: &str, clause: &'static str) -> Ex<()> {
        if !matches!(
            self.stage(),
            Stage::RayGeneration | Stage::ClosestHit | Stage::Miss
        ) {
            return fault(
                FaultCode::InvalidStage,
                format!("`{what}` in a {} shader", self.stage().name()),
            );
        }
        let max = self.w.dispatch.max_recursion_depth;
        if self.depth >= max && !self.w.options.profile.bounds_invocations() {
            return Err(Fault::new(
                FaultCode::RecursionDepthExceeded,
                format!(
                    "`{what}` at recursion depth {} with a maximum of {max}",
                    self.depth
                ),
            )
            .clause(clause)
            .into());
        }
        Ok(())
    }

    /// Under Vulkan, a shader about to run one level down must not be
    /// deeper than the pipeline's maximum
    /// (`vk_rt.recursion.max_pipeline_ray_recursion_depth`; a shader run
    /// by a trace or an execute is one deeper than its caller,
    /// `vk_rt.recursion.depth_definition`).
    pub(super) fn check_can_invoke(&self, shader: &str, stage: Stage) -> Ex<()> {
        let max = self.w.dispatch.max_recursion_depth;
        // An any-hit shader a ReportHit runs is executed by the same trace
        // as the intersection shader that reports: the same depth.
        let depth = if self.stage() == Stage::Intersection {
            self.depth
        } else {
            self.depth + 1
        };
        if self.w.options.profile.bounds_invocations() && depth > max {
            return Err(Fault::new(
                FaultCode::RecursionDepthExceeded,
                format!(
                    "the {} shader `{shader}` would run at recursion depth {depth} with a maximum of {max}",
                    stage.name(),
                ),
            )
            .clause("vk_rt.recursion.max_pipeline_ray_recursion_depth")
            .into());
        }
        Ok(())
    }

    /// Evaluates `(Scene, flags, mask, contribution, multiplier, miss,
    /// ray, payload)`; the payload must be a place.
    fn trace_args(&mut self, args: &'a [Expr], what: &str) -> Ex<(TraceParams, Ray, Place<'a>)> {
        self.trace_operands(&args[..7], &args[7], what)
    }

    /// The first operand of a trace (or of a hit recorded in a scene) names
    /// the acceleration structure.
    pub(super) fn check_scene_operand(&self, e: &Expr, what: &str) -> Ex<()> {
        match &e.kind {
            ExprKind::Ident(n) if self.w.program.acceleration_structures.contains(n) => Ok(()),
            _ => fault(
                FaultCode::Unsupported,
                format!("the first argument of `{what}` names the acceleration structure"),
            ),
        }
    }

    /// The seven operands before the payload (acceleration structure, flags,
    /// mask, ray contribution, multiplier, miss index, ray) and the payload.
    pub(super) fn trace_operands(
        &mut self,
        args: &'a [Expr],
        payload: &'a Expr,
        what: &str,
    ) -> Ex<(TraceParams, Ray, Place<'a>)> {
        self.check_scene_operand(&args[0], what)?;
        let params = TraceParams {
            flags: self.uint_arg(&args[1], "the ray flags")?,
            cull_mask: self.uint_arg(&args[2], "the instance inclusion mask")?,
            ray_contribution: self
                .uint_arg(&args[3], "the ray contribution to the hit group index")?,
            multiplier: self.uint_arg(&args[4], "the geometry multiplier")?,
            miss_index: self.uint_arg(&args[5], "the miss shader index")?,
        };
        crate::hit_object::check_known_ray_flags(
            params.flags,
            self.w.options.profile,
            "dxr.trace_ray.ray_flags.unknown_flags_undefined",
        )?;
        let desc = self.eval(&args[6])?;
        let ray = Ray::from_desc(params.flags, &desc)?;
        if let Some(why) = ray.unspecified() {
            return fault(
                FaultCode::UnspecifiedControl,
                format!("the ray is unspecified ({why})"),
            );
        }
        let place = self.place(payload)?;
        Ok((params, ray, place))
    }

    /// `HitObject::TraceRay`: traversal, intersection testing and any-hit
    /// shading, without closest-hit or miss shading
    /// (`ser.hit_object.trace_ray.executes_traversal_returns_hit_object`,
    /// `ser.hit_object.trace_ray.no_closesthit_or_miss`). The result is a hit
    /// or a miss, never a NOP (`ser.hit_object.trace_ray.never_nop`).
    pub fn hit_object_trace_ray(&mut self, args: &'a [Expr]) -> Ex<Value> {
        self.check_can_trace(
            "HitObject::TraceRay",
            "ser.hit_object.trace_ray.not_at_max_recursion",
        )?;
        let (params, ray, place) = self.trace_args(args, "HitObject::TraceRay")?;
        self.hit_object_trace(params, ray, place)
    }

    /// `HitObject::TraceRay` once its operands are evaluated.
    pub(super) fn hit_object_trace(
        &mut self,
        params: TraceParams,
        ray: Ray,
        place: Place<'a>,
    ) -> Ex<Value> {
        let payload = self.read_place(&place)?;
        let payload = self.enter_call(payload, Call::HitObjectTraceRay);
        let held = self.holds_in_place();
        self.in_place += held;
        let traversed = self.traverse(params, ray, payload);
        self.in_place -= held;
        let (object, payload) = traversed?;
        let payload = self.leave_call(payload, Call::HitObjectTraceRay);
        self.write_place(&place, payload)?;
        Ok(Value::HitObject(Box::new(object)))
    }

    /// `TraceRay`: traversal, then the closest-hit shader of the hit or the
    /// miss shader (`vk.result.closest_hit_shader_invoked`,
    /// `vk.result.miss_shader_invoked`), unless the ray skips closest-hit
    /// shading (`vk.result.skip_closest_hit_flag`).
    pub fn trace_ray(&mut self, args: &'a [Expr]) -> Ex<Value> {
        self.check_can_trace("TraceRay", "ser.hit_object.trace_ray.not_at_max_recursion")?;
        let (params, ray, place) = self.trace_args(args, "TraceRay")?;
        self.trace(params, ray, place)
    }

    /// `TraceRay` once its operands are evaluated.
    pub(super) fn trace(&mut self, params: TraceParams, ray: Ray, place: Place<'a>) -> Ex<Value> {
        let payload = self.read_place(&place)?;
        let payload = self.enter_call(payload, Call::TraceRay);
        let (object, mut payload) = self.traverse(params, ray, payload)?;
        let skip = params.flags & ray_flag::SKIP_CLOSEST_HIT_SHADER != 0
            && !mutation::active(Mutation::SkipClosestHitIgnored);
        if !(object.is_hit() && skip) {
            payload = self.shade(&object, payload, "vk.result.closest_hit_shader_invoked")?;
        }
        let payload = self.leave_call(payload, Call::TraceRay);
        self.write_place(&place, payload)?;
        Ok(Value::void())
    }

    /// Runs the closest-hit shader of a hit or the miss shader of a miss,
    /// one recursion level down, between reorder points
    /// (`ser.reorder_point.list.trace_ray_transitions`,
    /// `ser.reorder_point.list.hitobject_invoke_transitions`).
    pub(super) fn shade(&mut self, object: &HitObject, payload: Value, clause: &str) -> Ex<Value> {
        let Some((table, index)) = object.record() else {
            return Ok(payload);
        };
        self.check_record(table, index, clause)?;
        let (shader, constants, system, attributes) = match object {
            HitObject::Hit(h) => {
                let r = &self.w.table.hit_groups[index as usize];
                (
                    r.closest_hit.clone(),
                    self.w.table.root_constants(table, index),
                    System::Hit(h.clone()),
                    Some(h.attributes.clone()),
                )
            }
            HitObject::Miss(m) => {
                let r = &self.w.table.miss[index as usize];
                (
                    r.shader.clone(),
                    self.w.table.root_constants(table, index),
                    System::Miss(Box::new(m.ray.clone())),
                    None,
                )
            }
            HitObject::Nop => return Ok(payload),
        };
        let stage = if object.is_hit() {
            Stage::ClosestHit
        } else {
            Stage::Miss
        };
        let Some(shader) = shader else {
            return Ok(self.null_shader_stage(payload, stage));
        };
        self.run_stage(&shader, stage, system, constants, payload, attributes)
            .map(|(p, _)| p)
    }

    /// Runs a hit-group or miss shader with the payload (and attributes),
    /// checking both types against the shader's parameters, one recursion
    /// level down and between two reorder points.
    pub(super) fn run_stage(
        &mut self,
        shader: &str,
        stage: Stage,
        system: System,
        constants: Vec<u32>,
        payload: Value,
        attributes: Option<Value>,
    ) -> Ex<(Value, Option<Termination>)> {
        let w = self.w;
        let Some(f) = w.program.function(shader) else {
            return fault(
                FaultCode::Unsupported,
                format!("no shader named `{shader}`"),
            );
        };
        let mut args = vec![payload];
        if let (Some(Type::Struct(want)), Value::Struct { name, .. }) =
            (f.params.first().map(|p| &p.ty), &args[0])
        {
            // "payload_t must match the type expected by the shader being
            // invoked" (`ser.hit_object.invoke.payload_type_matches_invoked_shader`).
            if want.as_str() != &**name {
                return Err(Fault::new(
                    FaultCode::PayloadTypeMismatch,
                    format!(
                        "payload `{name}` passed to {} shader `{shader}`, which takes `{want}`",
                        stage.name()
                    ),
                )
                .clause("ser.hit_object.invoke.payload_type_matches_invoked_shader")
                .into());
            }
        }
        if let (Some(attrs), Some(p)) = (attributes, f.params.get(1)) {
            args.push(attributes_as(
                &attrs,
                &p.ty,
                w.program,
                "ser.hit_object.from_ray_query.attr_type_matches_closesthit",
            )?);
        }
        let arrived = args[0].clone();
        let paq = self.payload_stage(&args[0], stage);
        if let Some((access, s)) = paq {
            access.enter_stage(&mut args[0], s);
        }
        self.check_can_invoke(shader, stage)?;
        self.depth += 1;
        self.reorder_point(ReorderPoint::ShaderTransition);
        let result = self.invoke_entry(shader, stage, system, constants, args);
        self.reorder_point(ReorderPoint::ShaderTransition);
        self.depth -= 1;
        let (mut out, termination) = result?;
        let mut payload = out.swap_remove(0);
        if let Some((access, s)) = paq {
            payload = access.leave_stage(&arrived, payload, s);
        }
        Ok((payload, termination))
    }

    /// Traversal: every candidate, in every order that can matter, through
    /// confirmation and closest-hit determination; the result as a hit
    /// object (`vk.result.hit_or_miss`).
    fn traverse(
        &mut self,
        params: TraceParams,
        ray: Ray,
        payload: Value,
    ) -> Ex<(HitObject, Value)> {
        self.reorder_point(ReorderPoint::Trace);
        let w = self.w;
        if w.options.profile.is_hlsl() {
            traversal::micromap::check_disable_allowed(
                w.scene,
                "dxr.omm.trace_ray.disable_needs_build_flag",
            )?;
        }
        let setup = traversal::candidates(
            w.scene,
            &ray,
            &params,
            w.dispatch.pipeline_flags,
            &mut self.log,
        )?;
        let mut remaining = setup.candidates.clone();
        let missed = setup.missed_boxes.clone();
        let tmin = (ray.tmin.to_f64(), ray.tmin.err);
        self.traces.push(TraceState {
            tmax: (ray.tmax.to_f64(), ray.tmax.err),
            setup,
            ray: ray.clone(),
            params,
            committed: None,
            payload,
            end: false,
            current: None,
            later_attributes: None,
            commits: 0,
        });
        let any_hit = |c: &Candidate| {
            w.table
                .hit_groups
                .get(c.record as usize)
                .is_none_or(|r| r.any_hit.is_some())
        };
        let accept_first = params.flags & ray_flag::ACCEPT_FIRST_HIT_AND_END_SEARCH != 0;
        let depth = self.path.len();
        self.event();
        self.path.push(0);
        let mut result = self
            .false_positives(missed)
            .map(|extra| remaining.extend(extra));
        let order_matters = traversal::order_matters(&remaining, any_hit, accept_first);
        while result.is_ok() {
            let Some(c) = traversal::next_candidate(&mut remaining, order_matters, &mut self.log)
            else {
                break;
            };
            *self.path.last_mut().expect("pushed above") += 1;
            result = self.process_candidate(c, tmin);
            if self.traces.last().expect("pushed above").end {
                break;
            }
        }
        self.path.truncate(depth);
        let state = self.traces.pop().expect("pushed above");
        result?;
        let object = match state.committed {
            Some(c) => HitObject::Hit(Box::new(traversal::commit(
                w.scene,
                &state.setup,
                &state.ray,
                c,
            ))),
            None => HitObject::Miss(Box::new(Miss {
                ray: state.ray,
                index: miss_record_index(params.miss_index),
            })),
        };
        Ok((object, state.payload))
    }

    /// Boxes the ray misses whose intersection shader would make a
    /// difference if an implementation ran it: an implementation may enlarge
    /// a box (`vk.candidate.aabb.enlargement_may`), so the shader may run for
    /// a box the ray does not meet (`vk.candidate.aabb.false_positives_may`,
    /// `vk.confirmation.aabb.no_guarantee_ray_hits_bounds`). The reference
    /// probes each such shader without effect; one that reports a hit in
    /// range or writes memory makes both running it and not legal. A shader
    /// that verifies its hits, as the chapter says applications should
    /// (`vk.confirmation.aabb.app_should_verify`), costs no exploration.
    fn false_positives(&mut self, missed: Vec<Candidate>) -> Ex<Vec<Candidate>> {
        let mut out = Vec::new();
        for c in missed {
            let Some(shader) = self
                .w
                .table
                .hit_groups
                .get(c.record as usize)
                .and_then(|r| r.intersection.clone())
            else {
                continue;
            };
            self.probe = Some(Probe::default());
            let result = self.run_intersection(&c, &shader);
            let probe = self.probe.take().expect("set above");
            result?;
            if traversal::repeat::box_enlarged(probe.reported || probe.wrote, &mut self.log) {
                out.push(c);
            }
        }
        Ok(out)
    }

    fn process_candidate(&mut self, c: Candidate, tmin: (f64, f64)) -> Ex<()> {
        let tmax = self.traces.last().expect("tracing").tmax;
        match c.kind {
            CandidateKind::Triangle {
                t,
                t_err,
                barycentrics,
                front,
            } => {
                // Tested again against the current tmax
                // (`vk.candidate.triangle_t_open_interval`).
                let in_range = geometry::triangle_t_in_range(t, t_err, tmin, tmax);
                if !traversal::decide(
                    in_range,
                    &mut self.log,
                    "a triangle hit within implementation precision of the current tmax",
                ) {
                    return Ok(());
                }
                let hit_kind = Scalar::uint(traversal::triangle_hit_kind(front));
                let attributes = traversal::triangle_attributes(barycentrics);
                self.confirm(c, Scalar::float_approx(t, t_err), hit_kind, attributes)?;
                Ok(())
            }
            CandidateKind::Aabb { t0, t1, err } => {
                let in_range = geometry::aabb_interval_in_range(t0, t1, err, tmin, tmax);
                if !traversal::decide(
                    in_range,
                    &mut self.log,
                    "a box within implementation precision of the current tmax",
                ) {
                    return Ok(());
                }
                self.intersect(c)
            }
        }
    }

    /// Runs the intersection shader of an AABB candidate
    /// (`vk.confirmation.aabb.intersection_shader_invoked`); a record
    /// without one processes nothing further
    /// (`vk.confirmation.aabb.unused_intersection_shader_no_processing`).
    fn intersect(&mut self, c: Candidate) -> Ex<()> {
        self.check_record(
            Table::HitGroup,
            c.record,
            "vk.confirmation.aabb.intersection_shader_invoked",
        )?;
        let record = &self.w.table.hit_groups[c.record as usize];
        let Some(shader) = record.intersection.clone() else {
            return Ok(());
        };
        self.run_intersection(&c, &shader)?;
        // It "may be executed multiple times for the same intersection
        // candidate" (`vk.confirmation.aabb.may_execute_multiple_times`): a
        // later run sees the hit an earlier one committed as RayTCurrent,
        // and may report again. The reference explores up to
        // `traversal::repeat::repeats` more runs; it reads
        // NO_DUPLICATE_ANY_HIT as also ruling out repeated reports of a
        // geometry's candidates, whose confirmation the flag keeps from
        // repeating (the chapter does not say).
        let may_repeat = traversal::repeat::confirmation_may_repeat(self.w.scene, &c);
        for _ in 0..traversal::repeat::repeats() {
            if !may_repeat
                || self.traces.last().expect("tracing").end
                || !traversal::repeat::processed_again(
                    &mut self.log,
                    "whether an intersection shader runs again for the same candidate",
                )
            {
                break;
            }
            self.run_intersection(&c, &shader)?;
        }
        Ok(())
    }

    /// Runs the intersection shader of a box candidate, one recursion level
    /// down and between reorder points. The shader "may be executed multiple
    /// times for the same intersection candidate"
    /// (`vk.confirmation.aabb.may_execute_multiple_times`), with no flag to
    /// prevent it, so how often its writes happen is open: what it writes is
    /// unspecified.
    fn run_intersection(&mut self, c: &Candidate, shader: &str) -> Ex<()> {
        let constants = self.w.table.root_constants(Table::HitGroup, c.record);
        let state = self.traces.last_mut().expect("tracing");
        state.current = Some(c.clone());
        let tmax = state.tmax;
        let unknown_kind =
            Scalar::unspecified(ScalarType::Uint, "HitKind in an intersection shader");
        let hit = self.candidate_hit(
            c,
            Scalar::float_approx(tmax.0, tmax.1),
            unknown_kind,
            no_attributes(),
        );
        self.check_can_invoke(shader, Stage::Intersection)?;
        self.depth += 1;
        self.reorder_point(ReorderPoint::ShaderTransition);
        self.write_logs.push(Vec::new());
        let result = self.invoke_entry(
            shader,
            Stage::Intersection,
            System::Hit(Box::new(hit)),
            constants,
            Vec::new(),
        );
        let log = self.write_logs.pop().expect("pushed above");
        self.reorder_point(ReorderPoint::ShaderTransition);
        self.depth -= 1;
        let mut memory = self.shared.memory.borrow_mut();
        for (b, word, _) in &log {
            memory.taint(self.id, *b, *word, "an intersection shader may run more than once for a candidate, so what it writes is unspecified");
        }
        drop(memory);
        match result?.1 {
            None | Some(Termination::EndSearch) => Ok(()),
            Some(t) => fault(
                FaultCode::InvalidStage,
                format!("{t:?} in an intersection shader"),
            ),
        }
    }

    /// The hit a candidate would make, as shaders see it.
    fn candidate_hit(&self, c: &Candidate, t: Scalar, hit_kind: Scalar, attributes: Value) -> Hit {
        let state = self.traces.last().expect("tracing");
        traversal::commit(
            self.w.scene,
            &state.setup,
            &state.ray,
            Committed {
                candidate: c.clone(),
                t,
                hit_kind,
                attributes,
            },
        )
    }

    /// Confirmation and closest-hit determination of a triangle or generated
    /// candidate: opaque ones are confirmed at once
    /// (`vk.confirmation.triangle.opaque_confirmed_immediately`), others run
    /// the any-hit shader (`vk.confirmation.triangle.any_hit_invoked`), which
    /// may ignore them (`vk.confirmation.triangle.ignore_intersection_drops`);
    /// without one they are confirmed (`vk.confirmation.triangle.unused_any_hit_confirms`).
    /// Returns whether the candidate was confirmed.
    fn confirm(
        &mut self,
        c: Candidate,
        t: Scalar,
        hit_kind: Scalar,
        attributes: Value,
    ) -> Ex<bool> {
        let mut end = false;
        if !c.opaque || mutation::active(Mutation::OpaqueRunsAnyHit) {
            match self.any_hit(&c, &t, &hit_kind, &attributes)? {
                Some(Termination::IgnoreHit) if !mutation::active(Mutation::IgnoreHitConfirms) => {
                    return Ok(false)
                }
                Some(Termination::AcceptHitAndEndSearch) => end = true,
                _ => {}
            }
        }
        let state = self.traces.last().expect("tracing");
        let accept_first = state.params.flags & ray_flag::ACCEPT_FIRST_HIT_AND_END_SEARCH != 0
            && !mutation::active(Mutation::AcceptFirstHitIgnored);
        let take = traversal::becomes_closest(t.to_f64(), t.err, state.tmax, &mut self.log);
        let state = self.traces.last_mut().expect("tracing");
        if take {
            if !mutation::active(Mutation::ClosestHitNotClosest) {
                state.tmax = (t.to_f64(), t.err);
            }
            state.committed = Some(Committed {
                candidate: c,
                t,
                hit_kind,
                attributes,
            });
            state.later_attributes = None;
            state.commits += 1;
        }
        // `vk.closest_hit.terminate_on_first_hit`
        if end || accept_first {
            state.end = true;
        }
        Ok(true)
    }

    /// Runs the any-hit shader of a non-opaque candidate, if its record has
    /// one (`vk.confirmation.triangle.any_hit_invoked`); returns how it
    /// ended. The shader "may be executed multiple times for the same
    /// intersection candidate unless" the geometry has
    /// `NO_DUPLICATE_ANY_HIT` (`vk.confirmation.triangle.may_execute_multiple_times_unless_no_duplicate`):
    /// without the flag the reference runs it a second time, and when the
    /// second run changes the payload, the decision or what the shader
    /// wrote, the number of runs is observable and unbounded, so the
    /// payload and those words become unspecified and both decisions legal.
    fn any_hit(
        &mut self,
        c: &Candidate,
        t: &Scalar,
        hit_kind: &Scalar,
        attributes: &Value,
    ) -> Ex<Option<Termination>> {
        self.check_record(
            Table::HitGroup,
            c.record,
            "vk.confirmation.triangle.any_hit_invoked",
        )?;
        let record = &self.w.table.hit_groups[c.record as usize];
        let Some(shader) = record.any_hit.clone() else {
            // `vk.confirmation.triangle.unused_any_hit_confirms`
            return Ok(None);
        };
        let constants = self.w.table.root_constants(Table::HitGroup, c.record);
        let (first_payload, first, first_log) =
            self.any_hit_once(c, t, hit_kind, attributes, &shader, &constants)?;
        if !traversal::repeat::confirmation_may_repeat(self.w.scene, c) {
            return Ok(first);
        }
        let (second_payload, second, second_log) =
            self.any_hit_once(c, t, hit_kind, attributes, &shader, &constants)?;
        if first_payload == second_payload && first == second && first_log == second_log {
            return Ok(first);
        }
        let why = "an any-hit shader that is not idempotent may run more than once for a candidate of a geometry without NO_DUPLICATE_ANY_HIT";
        let state = self.traces.last_mut().expect("tracing");
        state.payload = crate::value::unspecify_differences(first_payload, &second_payload, why);
        // A word is determined only if both runs left it with the same value.
        let last = |log: &[WriteRecord], b: usize, w: usize| {
            log.iter()
                .rev()
                .find(|(x, y, _)| (*x, *y) == (b, w))
                .map(|(.., v)| v.clone())
        };
        let mut memory = self.shared.memory.borrow_mut();
        for (b, word, _) in first_log.iter().chain(&second_log) {
            if last(&first_log, *b, *word) != last(&second_log, *b, *word) {
                memory.taint(self.id, *b, *word, why);
            }
        }
        drop(memory);
        if first == second {
            return Ok(first);
        }
        let pick = crate::choice::Chooser::choose(
            &mut self.log,
            2,
            "the decision of an any-hit shader that may run more than once",
        );
        Ok(if pick == 0 { first } else { second })
    }

    /// One run of an any-hit shader: the payload it leaves (also kept in
    /// the trace), how it ended, and what it wrote to memory.
    fn any_hit_once(
        &mut self,
        c: &Candidate,
        t: &Scalar,
        hit_kind: &Scalar,
        attributes: &Value,
        shader: &str,
        constants: &[u32],
    ) -> Ex<(Value, Option<Termination>, Vec<WriteRecord>)> {
        let hit = self.candidate_hit(c, t.clone(), hit_kind.clone(), attributes.clone());
        let payload = self.traces.last().expect("tracing").payload.clone();
        self.write_logs.push(Vec::new());
        let r = self.run_stage(
            shader,
            Stage::AnyHit,
            System::Hit(Box::new(hit)),
            constants.to_vec(),
            payload,
            Some(attributes.clone()),
        );
        let log = self.write_logs.pop().expect("pushed above");
        let (payload, termination) = r?;
        self.traces.last_mut().expect("tracing").payload = payload.clone();
        Ok((payload, termination, log))
    }

    /// `ReportHit(t, kind, attributes)` in an intersection shader: a
    /// generated candidate at `t` (`vk.confirmation.generated.t_equals_hit_parameter`)
    /// with the AABB's opacity (`vk.culling.opacity.generated_inherits_aabb_opacity`),
    /// confirmed like a triangle (`vk.confirmation.generated.independent_confirmation`).
    /// A `t` outside `[RayTMin, RayTCurrent]` is ignored and reports false
    /// (HLSL's `ReportHit`; the chapter is silent, see the spec-map note).
    /// Under Shader Model 6.9 the call is a reorder point
    /// (`dxr.reorder_points.list.dxr_trace_ray_call_shader_report_hit`).
    pub fn report_hit(&mut self, args: &'a [Expr]) -> Ex<Value> {
        if self.stage() != Stage::Intersection {
            return fault(
                FaultCode::InvalidStage,
                "`ReportHit` is available only in intersection shaders",
            );
        }
        let t = self
            .scalar_arg(&args[0])?
            .convert(ScalarType::Float, &mut self.log);
        let kind = self.uint_arg(&args[1], "the hit kind")?;
        let attributes = self.eval(&args[2])?;
        if !matches!(attributes, Value::Struct { .. }) {
            return fault(
                FaultCode::Unsupported,
                "the attributes of `ReportHit` are a struct",
            );
        }
        if kind > 127 {
            return fault(
                FaultCode::InvalidValue,
                format!("ReportHit hit kind {kind}: user hit kinds are 0..=127"),
            );
        }
        // A reorder point whether or not the hit is accepted (DXR's reading,
        // see `Profile::report_hit_reorders`).
        if self.w.options.profile.report_hit_reorders() {
            self.reorder_point(ReorderPoint::ReportHit);
        }
        let state = self
            .traces
            .last()
            .expect("an intersection shader runs inside a trace");
        let (tmin, tmax) = ((state.ray.tmin.to_f64(), state.ray.tmin.err), state.tmax);
        let c = state
            .current
            .clone()
            .expect("an intersection shader runs for a candidate");
        let in_range = geometry::aabb_interval_in_range(t.to_f64(), t.to_f64(), t.err, tmin, tmax);
        if !traversal::decide(
            in_range,
            &mut self.log,
            "a reported hit within implementation precision of tmin or tmax",
        ) {
            self.rejected_attributes(&c, attributes);
            return Ok(Value::boolean(false));
        }
        if let Some(probe) = &mut self.probe {
            probe.reported = true;
            return Ok(Value::boolean(false));
        }
        let commits = self.traces.last().expect("tracing").commits;
        let written = attributes.clone();
        let confirmed = self.confirm(c.clone(), t, Scalar::uint(kind), attributes)?;
        if self.traces.last().expect("tracing").commits == commits {
            // Confirmed but not closer, or ignored: not this report's hit.
            self.rejected_attributes(&c, written);
        }
        let state = self.traces.last().expect("tracing");
        let (end, new_tmax) = (state.end, state.tmax);
        // The intersection shader sees the new closest hit's t.
        if let System::Hit(h) = &mut self.stack.last_mut().expect("running").system {
            h.t = Scalar::float_approx(new_tmax.0, new_tmax.1);
        }
        if end {
            return Err(Exit::Terminate(Termination::EndSearch));
        }
        Ok(Value::boolean(confirmed))
    }

    /// A report that did not commit (outside the ray's interval, ignored,
    /// or not the closest) wrote its attributes all the same. Where the profile leaves open whether a hit its intersection
    /// shader committed earlier shows them
    /// ([`crate::Profile::later_attributes_may_show`]), either reading is
    /// legal, once for the hit: it keeps the attributes it was reported
    /// with, or it shows the last ones written (every later rejected
    /// report's, as one variable would).
    fn rejected_attributes(&mut self, c: &Candidate, attributes: Value) {
        if !self.w.options.profile.later_attributes_may_show() {
            return;
        }
        let state = self.traces.last().expect("tracing");
        if !state.committed.as_ref().is_some_and(|k| k.candidate == *c) {
            return;
        }
        let later = match state.later_attributes {
            Some(later) => later,
            None => {
                self.log.choose(
                    2,
                    "whether a committed generated hit shows the attributes later rejected reports wrote",
                ) == 1
            }
        };
        let state = self.traces.last_mut().expect("tracing");
        state.later_attributes = Some(later);
        if let (true, Some(k)) = (later, &mut state.committed) {
            k.attributes = attributes;
        }
    }

    /// `CallShader(index, params)`: the callable shader of a callable
    /// record, between reorder points (`ser.reorder_point.list.call_shader_transitions`).
    pub fn call_shader(&mut self, args: &'a [Expr]) -> Ex<Value> {
        if !matches!(
            self.stage(),
            Stage::RayGeneration | Stage::ClosestHit | Stage::Miss | Stage::Callable
        ) {
            return fault(
                FaultCode::InvalidStage,
                format!("`CallShader` in a {} shader", self.stage().name()),
            );
        }
        let index = self.uint_arg(&args[0], "the callable shader index")?;
        let place = self.place(&args[1])?;
        let params = self.read_place(&place)?;
        self.check_record(
            Table::Callable,
            index,
            "ser.reorder_point.list.call_shader_transitions",
        )?;
        let record = &self.w.table.callable[index as usize];
        let Some(shader) = record.shader.clone() else {
            return Ok(params);
        };
        let nested = self.stack.iter().filter(|i| i.stage == Stage::Callable);
        if nested.count() >= super::MAX_CALL_SHADER_DEPTH {
            return fault(
                FaultCode::CallShaderDepthExceeded,
                format!(
                    "`CallShader` nested more than {} deep: a limit of the reference (D3D12 and \
                     Vulkan bound callable shader nesting only by the pipeline's stack size)",
                    super::MAX_CALL_SHADER_DEPTH
                ),
            );
        }
        let constants = self.w.table.root_constants(Table::Callable, index);
        self.reorder_point(ReorderPoint::ShaderTransition);
        let result = self.invoke_entry(
            &shader,
            Stage::Callable,
            System::Dispatch,
            constants,
            vec![params],
        );
        self.reorder_point(ReorderPoint::ShaderTransition);
        let (mut out, _) = result?;
        self.write_place(&place, out.swap_remove(0))?;
        Ok(Value::void())
    }
}

fn no_attributes() -> Value {
    Value::Struct {
        name: "<none>".into(),
        fields: Vec::new(),
    }
}
