//! The motion forms of the GLSL texts' hit object functions
//! (`hitObjectTraceRayMotion*`, `hitObjectRecord*Motion*`): each "operates
//! the same as" its counterpart "with the exception of <currentTime>"
//! (`glsl_nv.hit_object_trace_ray_motion.same_as_trace_ray`), so each runs
//! its counterpart with the time on the ray; the traversal evaluates motion
//! instances at it (`crate::traversal::motion`).

use super::place::Place;
use super::thread::{Ex, Thread};
use crate::ray::{Ray, RayTime, TraceParams};
use crate::value::{Scalar, Value};
use ser_lang::ast::{Expr, ScalarType};

impl<'a> Thread<'a> {
    /// The `currentTime` operand, as a float.
    pub(super) fn time_arg(&mut self, e: &'a Expr) -> Ex<Scalar> {
        let s = self.scalar_arg(e)?;
        Ok(s.convert(ScalarType::Float, &mut self.log))
    }

    /// `HitObject::TraceRayMotion(Scene, flags, mask, contribution,
    /// multiplier, miss, ray, currentTime, payload)`: `HitObject::TraceRay`
    /// at the given time (`glsl_nv.hit_object_trace_ray_motion.same_as_trace_ray`,
    /// `glsl_nv.hit_object_trace_ray_motion.traverses_and_records`), whose
    /// hit object encodes the time (`glsl_nv.hit_object_get_current_time.returns_time`).
    pub(super) fn hit_object_trace_ray_motion(&mut self, args: &'a [Expr]) -> Ex<Value> {
        let what = "HitObject::TraceRayMotion";
        self.check_can_trace(what, "ser.hit_object.trace_ray.not_at_max_recursion")?;
        let (params, ray, place) = self.motion_trace_operands(args, what)?;
        self.hit_object_trace(params, ray, place)
    }

    /// `TraceRayMotion(Scene, flags, mask, contribution, multiplier, miss,
    /// ray, currentTime, payload)`: GLSL's `traceRayMotionNV`
    /// (OpTraceRayMotionNV), `TraceRay` at the given time
    /// (`vk.candidate.motion.positions_at_time`).
    pub(super) fn trace_ray_motion(&mut self, args: &'a [Expr]) -> Ex<Value> {
        let what = "TraceRayMotion";
        self.check_can_trace(what, "ser.hit_object.trace_ray.not_at_max_recursion")?;
        let (params, ray, place) = self.motion_trace_operands(args, what)?;
        self.trace(params, ray, place)
    }

    /// The nine operands of a motion trace: those of a trace, with the
    /// time between the ray and the payload.
    fn motion_trace_operands(
        &mut self,
        args: &'a [Expr],
        what: &str,
    ) -> Ex<(TraceParams, Ray, Place<'a>)> {
        let (params, mut ray, place) = self.trace_operands(&args[..7], &args[8], what)?;
        ray.time = RayTime::Traced(self.time_arg(&args[7])?);
        Ok((params, ray, place))
    }
}
