//! `HitObject::Invoke`: closest-hit or miss shading of a hit object.

use super::paq::Call;
use super::sched::ReorderPoint;
use super::thread::{Ex, Thread};
use crate::choice::Chooser;
use crate::hit_object::{self, HitObject};
use crate::mutation::{self, Mutation};
use crate::outcome::FaultCode;
use crate::ray::Ray;
use crate::value::Value;
use crate::Profile;
use ser_lang::ast::Expr;
use ser_lang::names::ray_flag;

impl<'a> Thread<'a> {
    /// `HitObject::Invoke(hit, payload)`.
    ///
    /// Runs the closest-hit shader of a hit or the miss shader of a miss
    /// (`ser.hit_object.invoke.executes_closesthit_or_miss`); a NOP or a
    /// ray-query object without a record runs nothing
    /// (`ser.hit_object.invoke.nop_or_unset_query_not_invoked`). It counts
    /// towards the recursion depth (`ser.hit_object.invoke.counts_toward_recursion`,
    /// `ser.hit_object.invoke.not_at_max_recursion`), is a reorder point even
    /// when no shader runs (`ser.hit_object.invoke.introduces_reorder_points_even_without_shader`),
    /// and never modifies the hit object (`ser.hit_object.invoke.hit_object_not_modified`):
    /// it receives a copy.
    pub fn hit_object_invoke(&mut self, args: &'a [Expr]) -> Ex<Value> {
        let object = self.hit_object_operand(&args[0], "HitObject::Invoke")?;
        self.invoke_object(object, Some(&args[0]), &args[1])
    }

    /// `HitObject::Invoke` of an evaluated hit object; `operand` is the
    /// expression it came from, if any.
    pub(super) fn invoke_object(
        &mut self,
        mut object: Box<HitObject>,
        operand: Option<&'a Expr>,
        payload: &'a Expr,
    ) -> Ex<Value> {
        let place = self.place(payload)?;
        let payload = self.read_place(&place)?;
        if mutation::active(Mutation::NopInvokeRunsMiss) && object.is_nop() {
            *object = hit_object::make_miss(0, 0, Ray::zero(), self.w.options.profile);
        }
        if let HitObject::Hit(h) = &mut *object {
            if mutation::active(Mutation::UnsetQueryInvokesRecord0) {
                h.index.get_or_insert(0);
            }
            // GL_EXT contradicts itself on a hit object recorded from a ray
            // query with no index set since: its index is "to be encoded in
            // the hit object" (`glsl_ext.hit_object_record_from_query.sbt_record_index`),
            // and executing it calls "no shader"
            // (`glsl_ext.hit_object_execute_shader.empty_or_unset_query_no_shader`);
            // SPIR-V's text says both too. Either is legal.
            if h.from_query
                && self.log.choose(
                    2,
                    "whether executing a hit object recorded from a ray query, its index never set, runs the encoded record (GL_EXT says both)",
                ) == 1
            {
                h.index = None;
            }
        }
        let max = self.w.dispatch.max_recursion_depth;
        if self.depth >= max
            && !self.w.options.profile.bounds_invocations()
            && !mutation::active(Mutation::InvokeNotCountedForRecursion)
        {
            return Err(crate::outcome::Fault::new(
                FaultCode::RecursionDepthExceeded,
                format!(
                    "`HitObject::Invoke` at recursion depth {} with a maximum of {max}",
                    self.depth
                ),
            )
            .clause("ser.hit_object.invoke.not_at_max_recursion")
            .into());
        }
        let payload = self.enter_call(payload, Call::Invoke);
        let held = self.holds_in_place();
        self.in_place += held;
        self.reorder_point(ReorderPoint::Invoke);
        let shaded = if self.skips_closest_hit(&object) {
            Ok(payload)
        } else {
            // The shader runs at the next stack position.
            let at = (self.w.options.profile == Profile::VulkanNv).then_some(self.stack.len());
            let outer = std::mem::replace(&mut self.executed_without_flags, at);
            let shaded = self.shade(
                &object,
                payload,
                "ser.hit_object.invoke.executes_closesthit_or_miss",
            );
            self.executed_without_flags = outer;
            shaded
        };
        if shaded.is_ok() {
            self.reorder_point(ReorderPoint::Invoke);
        }
        self.in_place -= held;
        let payload = shaded?;
        let payload = self.leave_call(payload, Call::Invoke);
        self.write_place(&place, payload)?;
        if let Some(operand) = operand.filter(|e| self.is_place(e)) {
            if mutation::active(Mutation::InvokeModifiesObject) {
                let consumed = self.place(operand)?;
                self.write_place(&consumed, Value::HitObject(Box::default()))?;
            }
        }
        Ok(Value::void())
    }

    /// Whether `Invoke` of a hit traced with `RAY_FLAG_SKIP_CLOSEST_HIT_SHADER`
    /// skips the closest-hit shader. The proposal does not say (see the
    /// spec-map note on `ser.design.canonical_sequence.functionally_equivalent_to_trace_ray`),
    /// so both are legal and the reference explores both.
    fn skips_closest_hit(&mut self, object: &HitObject) -> bool {
        let flagged = matches!(object, HitObject::Hit(h) if h.ray.flags & ray_flag::SKIP_CLOSEST_HIT_SHADER != 0 && h.index.is_some());
        if flagged && mutation::active(Mutation::InvokeSkipsClosestHit) {
            return true;
        }
        flagged && self.log.choose(2, "whether HitObject::Invoke honours RAY_FLAG_SKIP_CLOSEST_HIT_SHADER (the proposal does not say)") == 1
    }
}
