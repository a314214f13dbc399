//! The GLSL texts' functions without an HLSL counterpart: hits recorded
//! without tracing (`hitObjectRecordHitNV`, `hitObjectRecordHitWithIndexNV`,
//! `hitObjectRecordFromQueryEXT`), the EXT shorthands for reordering and
//! executing (`hitObjectReorderExecuteEXT`, `hitObjectTraceReorderExecuteEXT`),
//! and the getters that write an `out` operand.

use super::thread::{fault, Ex, Thread};
use crate::hit_object::{self, HitObject, RecordedHit};
use crate::outcome::FaultCode;
use crate::ray::{Ray, RayTime};
use crate::ray_query::Handle;
use crate::scene::Primitives;
use crate::value::{Scalar, Value};
use ser_lang::ast::{Expr, ScalarType};

impl<'a> Thread<'a> {
    pub(super) fn ray_query_arg(&mut self, e: &'a Expr, what: &str) -> Ex<Handle> {
        match self.eval(e)? {
            Value::RayQuery(q) => Ok(q),
            _ => fault(
                FaultCode::Unsupported,
                format!("the first operand of `{what}` is a RayQuery"),
            ),
        }
    }

    /// `HitObject::MakeHit(Scene, instance, primitive, geometry, hitKind,
    /// sbtRecordOffset, sbtRecordStride, ray, attributes)` and
    /// `HitObject::MakeHitWithIndex(Scene, instance, primitive, geometry,
    /// hitKind, sbtRecordIndex, ray, attributes)`: GL_NV's
    /// `hitObjectRecordHitNV` and `hitObjectRecordHitWithIndexNV`. Their
    /// motion forms (`MakeHitMotion`, `MakeHitWithIndexMotion`) take a time
    /// after the ray (see `exec::motion`).
    pub(super) fn record_hit(&mut self, method: &str, args: &'a [Expr]) -> Ex<Value> {
        let with_index = method.starts_with("MakeHitWithIndex");
        let motion = method.ends_with("Motion");
        let n = args.len();
        self.check_scene_operand(&args[0], method)?;
        let instance = self.uint_arg(&args[1], "the instance index")?;
        let primitive = self.uint_arg(&args[2], "the primitive index")?;
        let geometry = self.uint_arg(&args[3], "the geometry index")?;
        let hit_kind = self.uint_arg(&args[4], "the hit kind")?;
        let (record, prefix) = if with_index {
            // "Only the 4 least-significant bits are used; other bits are
            // ignored." (`glsl_nv.hit_object_record_hit_with_index.sbt_record_index_low_4_bits`)
            let index = self.uint_arg(&args[5], "the record index")?;
            (index & 0xF, "glsl_nv.hit_object_record_hit_with_index")
        } else {
            // The Vulkan hit shader indexing of `traceRayEXT`
            // (`glsl_nv.hit_object_record_hit.sbt_offset_stride`).
            let offset = self.uint_arg(&args[5], "the record offset")?;
            let stride = self.uint_arg(&args[6], "the record stride")?;
            let inst = self.w.scene.instances.get(instance as usize);
            let base = inst.map_or(0, |i| i.hit_group_offset);
            let record = crate::sbt::hit_group_record_index(offset, stride, geometry, base);
            (record, "glsl_nv.hit_object_record_hit")
        };
        let ray_at = if with_index { 6 } else { 7 };
        let desc = self.eval(&args[ray_at])?;
        let mut ray = Ray::from_desc(0, &desc)?;
        if motion {
            ray.time = RayTime::Recorded(self.time_arg(&args[ray_at + 1])?);
        }
        let attributes = self.eval(&args[n - 1])?;
        if !matches!(attributes, Value::Struct { .. }) {
            return fault(FaultCode::Unsupported, "the attributes are a struct");
        }
        let r = RecordedHit {
            instance,
            primitive,
            geometry,
            hit_kind,
            record,
            ray,
            attributes,
        };
        let obj = hit_object::record_hit(self.w.scene, r, prefix)?;
        Ok(Value::HitObject(Box::new(obj)))
    }

    /// `HitObject::RecordFromQuery(q, sbtRecordIndex, attributes)` and
    /// `(q, sbtRecordIndex, attributes, hitKind)`: GL_EXT's
    /// `hitObjectRecordFromQueryEXT`, a hit bound to the given record
    /// (`glsl_ext.hit_object_record_from_query.sbt_record_index`). For a
    /// query without a committed hit the texts say nothing; the suite reads
    /// it as an empty hit object, the reading the Vulkan CTS
    /// (`record_from_query_empty`) and the final HLSL text
    /// (`sm69.hit_object.from_ray_query.no_committed_hit_returns_nop`) share
    /// (the note of `glsl_ext.hit_object_record_from_query.populates_hit`).
    pub(super) fn record_from_query(&mut self, args: &'a [Expr]) -> Ex<Value> {
        let q = self.ray_query_arg(&args[0], "HitObject::RecordFromQuery")?;
        let record = self.uint_arg(&args[1], "the record index")?;
        let attributes = self.eval(&args[2])?;
        let hit_kind = match args.get(3) {
            Some(k) => Some(self.uint_arg(k, "the hit kind")?),
            None => None,
        };
        let obj = q
            .get()
            .to_hit_object(self.w.scene, hit_kind, Some(attributes), Some(record))?;
        Ok(Value::HitObject(Box::new(obj)))
    }

    /// `HitObject::ReorderExecute(hit, payload)` and `(hit, hint, bits,
    /// payload)`: "Equivalent of: reorderThreadEXT(hitObject[, hint, bits]);
    /// hitObjectExecuteShaderEXT(hitObject, payload);"
    /// (`glsl_ext.hit_object_reorder_execute.equivalent_sequence`,
    /// `glsl_ext.hit_object_reorder_execute_hint.equivalent_sequence`).
    pub(super) fn reorder_execute(&mut self, args: &'a [Expr]) -> Ex<Value> {
        let (operands, payload) = args.split_at(args.len() - 1);
        let name = self.w.options.profile.reorder_intrinsic();
        self.check_reorder_stage(name)?;
        let values = self.eval_args(operands)?;
        let Value::HitObject(object) = values[0].clone() else {
            return fault(FaultCode::Unsupported, "the first operand is a HitObject");
        };
        self.reorder_values(name, values)?;
        self.invoke_object(object, Some(&args[0]), &payload[0])
    }

    /// `HitObject::TraceReorderExecute(Scene, flags, mask, offset, stride,
    /// miss, ray[, hint, bits], payload)`: "Equivalent of:
    /// hitObjectTraceRayEXT(...); reorderThreadEXT(hitObject[, hint, bits]);
    /// hitObjectExecuteShaderEXT(hitObject, payload);"
    /// (`glsl_ext.hit_object_trace_reorder_execute.equivalent_sequence`,
    /// `glsl_ext.hit_object_trace_reorder_execute_hint.equivalent_sequence`),
    /// and `HitObject::TraceMotionReorderExecute(..., ray, currentTime, hint,
    /// bits, payload)`, the same with `hitObjectTraceRayMotionEXT`
    /// (`glsl_ext.hit_object_trace_motion_reorder_execute.equivalent_sequence`).
    /// The result is the traced hit object.
    pub(super) fn trace_reorder_execute(&mut self, method: &str, args: &'a [Expr]) -> Ex<Value> {
        let motion = method == "TraceMotionReorderExecute";
        let arities: &[usize] = if motion { &[11] } else { &[8, 10] };
        if !arities.contains(&args.len()) {
            return fault(
                FaultCode::Unsupported,
                format!(
                    "`HitObject::{method}` takes the operands of HitObject::TraceRay{}, with hint and bits before the payload{}",
                    if motion { "Motion" } else { "" },
                    if motion { "" } else { " or not" }
                ),
            );
        }
        let payload = &args[args.len() - 1];
        let what = format!("HitObject::{method}");
        let name = self.w.options.profile.reorder_intrinsic();
        self.check_reorder_stage(name)?;
        self.check_can_trace(&what, "ser.hit_object.trace_ray.not_at_max_recursion")?;
        let (params, mut ray, place) = self.trace_operands(&args[..7], payload, &what)?;
        let hint_at = if motion {
            ray.time = RayTime::Traced(self.time_arg(&args[7])?);
            8
        } else {
            7
        };
        let traced = self.hit_object_trace(params, ray, place)?;
        let Value::HitObject(object) = &traced else {
            unreachable!("HitObject::TraceRay makes a hit object")
        };
        let mut operands = vec![traced.clone()];
        for e in &args[hint_at..args.len() - 1] {
            operands.push(self.eval(e)?);
        }
        self.reorder_values(name, operands)?;
        self.invoke_object(object.clone(), None, payload)?;
        Ok(traced)
    }

    /// `hit.GetAttributes(out attributes)` (Shader Model 6.9,
    /// `sm69.hit_object.get_attributes.stores_committed_attributes`): the
    /// value form's result, stored to the operand.
    pub(super) fn get_attributes_out(&mut self, hit: &'a Expr, out: &'a Expr) -> Ex<Value> {
        let h = self.hit_object_operand(hit, "GetAttributes")?;
        let place = self.place(out)?;
        let ty = super::ops::type_of(&self.read_place(&place)?);
        let v = self.get_attributes(&h, &ty)?;
        self.write_place(&place, v)?;
        Ok(Value::void())
    }

    /// `hit.GetTriangleVertexPositions(out float3 positions[3])`: GL_EXT's
    /// `hitObjectGetIntersectionTriangleVertexPositionsEXT`, "the three
    /// vertex positions encoded in the hit object if the intersection is a
    /// triangle" (`glsl_ext.hit_object_get_triangle_vertex_positions.returns_positions`):
    /// the triangle's vertices as the scene gives them (object space, as
    /// `gl_HitTriangleVertexPositionsEXT`); for anything else the text says
    /// nothing, so they are unspecified.
    pub(super) fn get_triangle_vertex_positions(
        &mut self,
        hit: &'a Expr,
        out: &'a Expr,
    ) -> Ex<Value> {
        let h = self.hit_object_operand(hit, "GetTriangleVertexPositions")?;
        let place = self.place(out)?;
        let triangle = match &*h {
            HitObject::Hit(hit) => {
                let inst = &self.w.scene.instances[hit.instance_index as usize];
                let g = &self.w.scene.blas[inst.blas].geometries[hit.geometry_index as usize];
                match &g.primitives {
                    Primitives::Triangles(t) => Some(t[hit.primitive_index as usize]),
                    Primitives::Aabbs(_) => None,
                }
            }
            _ => None,
        };
        let vertex = |v: Option<[f32; 3]>| {
            Value::Vector(
                (0..3)
                    .map(|c| match v {
                        Some(p) => Scalar::float(p[c]),
                        None => Scalar::unspecified(
                            ScalarType::Float,
                            "GL_EXT gives vertex positions only for a triangle hit",
                        ),
                    })
                    .collect(),
            )
        };
        let v = Value::Array((0..3).map(|i| vertex(triangle.map(|t| t[i]))).collect());
        self.write_place(&place, v)?;
        Ok(Value::void())
    }

    /// The hit object operand of `what`, evaluated.
    pub(super) fn hit_object_operand(&mut self, e: &'a Expr, what: &str) -> Ex<Box<HitObject>> {
        match self.eval(e)? {
            Value::HitObject(h) => Ok(h),
            _ => fault(
                FaultCode::Unsupported,
                format!("the hit object operand of `{what}` is not a HitObject"),
            ),
        }
    }
}
