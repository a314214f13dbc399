//! `HitObject::*` static functions and the methods of `HitObject` and
//! `RayQuery` values.

use super::thread::{fault, Ex, Thread};
use crate::hit_object::{self, HitObject};
use crate::mutation::{self, Mutation};
use crate::outcome::{Fault, FaultCode};
use crate::program::{Program, Stage};
use crate::ray::{Ray, RayTime};
use crate::ray_query::{RayQuery, NO_ATTRIBUTES};
use crate::sbt::layout::{self, ConstantLoad};
use crate::sbt::Table;
use crate::value::{new_value, Fill, Scalar, StructLayouts, Value};
use crate::Profile;
use ser_lang::ast::{Expr, ScalarType, Type};
use ser_lang::names::ray_flag;

/// The scalar layout of a type: two attribute types match when their
/// layouts do (the reading the suite takes of "attr_t must match").
fn layout(t: &Type, program: &Program, out: &mut Vec<ScalarType>) {
    match t {
        Type::Scalar(s) => out.push(*s),
        Type::Vector(s, n) => out.extend(std::iter::repeat_n(*s, *n as usize)),
        Type::Matrix(s, r, c) => out.extend(std::iter::repeat_n(*s, (*r as usize) * (*c as usize))),
        Type::Struct(n) => {
            for (_, ft) in program.fields_of(n).unwrap_or(&[]) {
                layout(ft, program, out);
            }
        }
        Type::Array(e, n) => {
            for _ in 0..*n {
                layout(e, program, out);
            }
        }
        _ => out.push(ScalarType::Bool),
    }
}

/// Whether a value of struct `have` can be read as type `want`.
pub(super) fn attributes_match(have: &str, want: &Type, program: &Program) -> bool {
    if let Type::Struct(w) = want {
        if w == have {
            return true;
        }
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    layout(&Type::Struct(have.to_string()), program, &mut a);
    layout(want, program, &mut b);
    a == b
}

impl<'a> Thread<'a> {
    /// `HitObject` and its functions exist only in raygeneration, closest-hit
    /// and miss shaders (`ser.hit_object.stages.raygen_closesthit_miss_only`).
    pub(super) fn hit_object_stage(&self, ty: &str, method: &str) -> Ex<()> {
        match self.stage() {
            Stage::RayGeneration | Stage::ClosestHit | Stage::Miss => Ok(()),
            s => Err(Fault::new(
                FaultCode::InvalidStage,
                format!("`{ty}::{method}` in a {} shader", s.name()),
            )
            .clause("ser.hit_object.stages.raygen_closesthit_miss_only")
            .into()),
        }
    }

    pub fn static_call(
        &mut self,
        ty: &str,
        method: &'a str,
        _template: Option<&'a Type>,
        args: &'a [Expr],
    ) -> Ex<Value> {
        // The operand count is the signature's (checked when the program
        // was built: `ser_lang::signatures`).
        self.hit_object_stage(ty, method)?;
        match method {
            "TraceRay" => self.hit_object_trace_ray(args),
            "Invoke" => self.hit_object_invoke(args),
            // `ser.hit_object.make_nop.neither_hit_nor_miss`
            "MakeNop" => Ok(Value::HitObject(Box::new(HitObject::Nop))),
            "MakeMiss" | "MakeMissMotion" => self.make_miss(method, args),
            // `(q)`, `(q, attributes)` (the proposal revisions) and
            // `(q, hitKind, attributes)` (Shader Model 6.9,
            // `sm69.hit_object.from_ray_query.hit_kind_and_attributes_overload_for_procedural`).
            "FromRayQuery" => {
                let hit_kind = match args.len() {
                    3 => Some(self.uint_arg(&args[1], "the committed custom hit kind")?),
                    _ => None,
                };
                let attributes = match args.len() {
                    1 => None,
                    n => Some(self.eval(&args[n - 1])?),
                };
                let q = self.ray_query_arg(&args[0], "HitObject::FromRayQuery")?;
                // Under GL_EXT the one form there is, `hitObjectRecordFromQueryEXT`
                // with record index 0, is what `FromRayQuery` means: one program,
                // one meaning.
                let record = (self.w.options.profile == Profile::VulkanExt).then_some(0);
                let obj = q
                    .get()
                    .to_hit_object(self.w.scene, hit_kind, attributes, record)?;
                Ok(Value::HitObject(Box::new(obj)))
            }
            "TraceRayMotion" => self.hit_object_trace_ray_motion(args),
            "MakeHit" | "MakeHitWithIndex" | "MakeHitMotion" | "MakeHitWithIndexMotion" => {
                self.record_hit(method, args)
            }
            "RecordFromQuery" => self.record_from_query(args),
            "ReorderExecute" => self.reorder_execute(args),
            "TraceReorderExecute" | "TraceMotionReorderExecute" => {
                self.trace_reorder_execute(method, args)
            }
            _ => fault(
                FaultCode::Unsupported,
                format!("`HitObject::{method}` is not supported"),
            ),
        }
    }

    /// `HitObject::MakeMiss(flags, missIndex, ray)` and its motion form
    /// `MakeMissMotion(flags, missIndex, ray, currentTime)` (GLSL's
    /// `hitObjectRecordMissMotion*`, "Refer to 'hitObjectRecordMissNV' for
    /// various parameter definitions",
    /// `glsl_nv.hit_object_record_miss_motion.same_as_record_miss`).
    fn make_miss(&mut self, method: &str, args: &'a [Expr]) -> Ex<Value> {
        let motion = method == "MakeMissMotion";
        let flags = self.uint_arg(&args[0], "the ray flags")?;
        let miss = self.uint_arg(&args[1], "the miss shader index")?;
        let desc = self.eval(&args[2])?;
        hit_object::check_known_ray_flags(
            flags,
            self.w.options.profile,
            "dxr.trace_ray.ray_flags.unknown_flags_undefined",
        )?;
        let mut ray = Ray::from_desc(flags, &desc)?;
        if motion {
            ray.time = RayTime::Recorded(self.time_arg(&args[3])?);
        }
        let profile = self.w.options.profile;
        let obj = hit_object::make_miss(flags, miss, ray, profile);
        // "The miss shader index must reference a valid shader table
        // record" (`ser.hit_object.make_miss.miss_index_must_be_valid`);
        // GLSL's index "refers to the record index of the miss shader"
        // (`glsl_nv.hit_object_record_miss.sbt_record_index`): one that
        // refers to no record is read as undefined there too.
        let clause = match profile {
            Profile::VulkanNv => "glsl_nv.hit_object_record_miss.sbt_record_index",
            Profile::VulkanExt => "glsl_ext.hit_object_record_miss.sbt_record_index",
            _ => "ser.hit_object.make_miss.miss_index_must_be_valid",
        };
        if let Some((table, index)) = obj.record() {
            self.check_record(table, index, clause)?;
        }
        Ok(Value::HitObject(Box::new(obj)))
    }

    /// A record index must lie in its table.
    pub(super) fn check_record(&self, table: Table, index: u32, clause: &str) -> Ex<()> {
        let len = self.w.table.len(table);
        if (index as usize) < len {
            return Ok(());
        }
        let code = match table {
            Table::HitGroup => FaultCode::HitGroupRecordOutOfRange,
            Table::Miss => FaultCode::MissRecordOutOfRange,
            Table::Callable => FaultCode::CallableRecordOutOfRange,
            Table::RayGen => FaultCode::Unsupported,
        };
        Err(Fault::new(
            code,
            format!(
                "{} record {index} is outside the table of {len} record(s)",
                table.name()
            ),
        )
        .clause(clause)
        .into())
    }

    pub fn method_call(
        &mut self,
        receiver: &'a Expr,
        method: &'a str,
        template: Option<&'a Type>,
        args: &'a [Expr],
    ) -> Ex<Value> {
        // Methods whose operand is an `out` place.
        match (method, args) {
            ("GetAttributes", [out]) if template.is_none() => {
                self.hit_object_stage("HitObject", "GetAttributes")?;
                return self.get_attributes_out(receiver, out);
            }
            ("GetTriangleVertexPositions", [out]) => {
                self.hit_object_stage("HitObject", "GetTriangleVertexPositions")?;
                return self.get_triangle_vertex_positions(receiver, out);
            }
            _ => {}
        }
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.eval(a)?);
        }
        if self.is_place(receiver) {
            let place = self.place(receiver)?;
            self.with_local(&place, |t, v| t.apply_method(v, method, template, values))
        } else {
            let mut v = self.eval(receiver)?;
            self.apply_method(&mut v, method, template, values)
        }
    }

    fn apply_method(
        &mut self,
        v: &mut Value,
        method: &str,
        template: Option<&Type>,
        args: Vec<Value>,
    ) -> Ex<Value> {
        match v {
            Value::HitObject(h) => {
                self.hit_object_stage("HitObject", method)?;
                self.hit_object_method(h, method, template, args)
            }
            Value::RayQuery(q) => self.ray_query_method(&mut q.get(), method, args),
            other => fault(
                FaultCode::Unsupported,
                format!("`.{method}()` on {}", other.type_name()),
            ),
        }
    }

    fn hit_object_method(
        &mut self,
        h: &mut HitObject,
        method: &str,
        template: Option<&Type>,
        args: Vec<Value>,
    ) -> Ex<Value> {
        let p = self.w.options.profile;
        let arg = |i: usize| -> Ex<Scalar> {
            match args.get(i).and_then(Value::as_scalar) {
                Some(s) => Ok(s.clone()),
                None => fault(
                    FaultCode::Unsupported,
                    format!("`{method}` takes a scalar argument"),
                ),
            }
        };
        Ok(match method {
            "IsMiss" => Value::boolean(h.is_miss()),
            "IsHit" => Value::boolean(h.is_hit()),
            "IsNop" => Value::boolean(h.is_nop()),
            "GetRayFlags" => h.get_ray_flags(p),
            "GetRayTMin" => h.get_ray_tmin(p),
            "GetRayTCurrent" => h.get_ray_tcurrent(p),
            "GetWorldRayOrigin" => h.get_world_ray_origin(p),
            "GetWorldRayDirection" => h.get_world_ray_direction(p),
            "GetObjectRayOrigin" => h.get_object_ray_origin(p),
            "GetObjectRayDirection" => h.get_object_ray_direction(p),
            "GetObjectToWorld3x4" => h.get_object_to_world_3x4(p),
            "GetObjectToWorld4x3" => h.get_object_to_world_4x3(p),
            "GetWorldToObject3x4" => h.get_world_to_object_3x4(p),
            "GetWorldToObject4x3" => h.get_world_to_object_4x3(p),
            "GetInstanceIndex" => h.get_instance_index(p),
            "GetInstanceID" => h.get_instance_id(p),
            "GetGeometryIndex" => h.get_geometry_index(p),
            "GetPrimitiveIndex" => h.get_primitive_index(p),
            "GetHitKind" => h.get_hit_kind(p),
            "GetShaderTableIndex" => h.get_shader_table_index(p),
            "GetCurrentTime" => h.get_current_time(),
            "SetShaderTableIndex" => {
                let index = arg(0)?;
                if let Some(why) = &index.unspecified {
                    return fault(
                        FaultCode::UnspecifiedControl,
                        format!("the record index is unspecified ({why})"),
                    );
                }
                let index = index.convert(ScalarType::Uint, &mut self.log).bits;
                h.set_shader_table_index(index, self.w.options.profile);
                Value::void()
            }
            "LoadLocalRootTableConstant" => {
                let offset = arg(0)?;
                if let Some(why) = &offset.unspecified {
                    return fault(
                        FaultCode::UnspecifiedControl,
                        format!("the offset is unspecified ({why})"),
                    );
                }
                self.load_local_root_table_constant(h, offset.bits)?
            }
            "GetAttributes" => {
                let Some(ty) = template else {
                    return fault(
                        FaultCode::Unsupported,
                        "`GetAttributes` needs a type argument: `GetAttributes<T>()`",
                    );
                };
                self.get_attributes(h, ty)?
            }
            _ => {
                return fault(
                    FaultCode::Unsupported,
                    format!("`HitObject::{method}` is not supported"),
                )
            }
        })
    }

    /// `ser.hit_object.load_local_root_table_constant.loads_from_shader_table`:
    /// the offset counts from the local root arguments, after the shader
    /// identifier, and must be a multiple of 4; NOP and unbound ray-query
    /// objects read zero (`ser.hit_object.load_local_root_table_constant.nop_or_unset_query_zero`).
    fn load_local_root_table_constant(&self, h: &HitObject, offset: u32) -> Ex<Value> {
        let Some((table, index)) = h.record() else {
            if !self.w.options.profile.is_hlsl() {
                return Err(Self::no_record_to_read(self.w.options.profile));
            }
            if !offset.is_multiple_of(4) {
                return self.misaligned(offset);
            }
            return Ok(Value::uint(0));
        };
        self.check_record(
            table,
            index,
            "ser.hit_object.load_local_root_table_constant.loads_from_shader_table",
        )?;
        let args = self.w.table.arguments(table, index).expect("checked above");
        // The record's bytes as the profile's API lays them out.
        let rules = layout::Rules::for_profile(self.w.options.profile);
        let bytes = layout::argument_bytes(&rules, &args)
            .map_err(|e| Fault::new(FaultCode::Unsupported, e))?;
        let offset = if mutation::active(Mutation::RootConstantOffsetInWords) {
            offset.wrapping_mul(4)
        } else {
            offset
        };
        Ok(match layout::load_constant(&bytes, offset) {
            ConstantLoad::Value(v) => Value::uint(v),
            ConstantLoad::Misaligned => return self.misaligned(offset),
            ConstantLoad::Undefined => Value::Scalar(Scalar::unspecified(
                ScalarType::Uint,
                "LoadLocalRootTableConstant of padding or of bytes past the record's local root arguments",
            )),
        })
    }

    /// GLSL reads a record through the handle `hitObjectGetShaderRecordBufferHandle*`
    /// returns, "the address for data for a record in the shader binding
    /// table as encoded in the hit object"; an object that encodes no
    /// record (an empty one) has no such address, and the texts do not say
    /// what the handle is then. Reading through it is read here as a read
    /// through a buffer reference that addresses nothing: undefined (HLSL's
    /// NOP rule, return 0, is not GLSL's).
    fn no_record_to_read(profile: Profile) -> super::thread::Exit {
        let clause = if profile == Profile::VulkanExt {
            "glsl_ext.hit_object_get_shader_record_buffer_handle.returns_record_address"
        } else {
            "glsl_nv.hit_object_get_shader_record_buffer_handle.returns_record_address"
        };
        Fault::new(
            FaultCode::InvalidValue,
            "a shader record read through the handle of a hit object that encodes no record (an empty one): the GLSL texts give it no address",
        )
        .clause(clause)
        .into()
    }

    fn misaligned(&self, offset: u32) -> Ex<Value> {
        Err(Fault::new(
            FaultCode::MisalignedRootConstantOffset,
            format!("LoadLocalRootTableConstant({offset}): the offset is not a multiple of 4"),
        )
        .clause("ser.hit_object.load_local_root_table_constant.offset_multiple_of_4")
        .into())
    }

    /// `ser.hit_object.get_attributes.returns_attributes`: the type must
    /// match the committed attributes
    /// (`ser.hit_object.get_attributes.type_must_match_committed`); a
    /// non-hit gives zeros (`ser.hit_object.get_attributes.non_hit_zero_initialized`).
    pub(super) fn get_attributes(&self, h: &HitObject, ty: &Type) -> Ex<Value> {
        let program = self.w.program;
        let HitObject::Hit(hit) = h else {
            let fill = if mutation::active(Mutation::NonHitAttributesUninitialized) {
                Fill::Uninitialized("a mutant leaves the attributes of a non-hit uninitialized")
            } else {
                Fill::Zero
            };
            let zero = new_value(ty, fill, program);
            if self.w.options.profile.defines_non_hit_accessors() {
                return Ok(zero);
            }
            return Ok(crate::value::unspecify(
                zero,
                "the Vulkan profiles leave attributes of a non-hit undefined",
            ));
        };
        attributes_as(
            &hit.attributes,
            ty,
            program,
            "ser.hit_object.get_attributes.type_must_match_committed",
        )
    }

    fn ray_query_method(&mut self, q: &mut RayQuery, method: &str, args: Vec<Value>) -> Ex<Value> {
        let log = &mut self.log;
        let uint = |i: usize| -> Ex<u32> {
            match args.get(i).and_then(Value::as_scalar) {
                Some(s) if s.unspecified.is_none() => Ok(s.bits),
                _ => fault(
                    FaultCode::Unsupported,
                    format!("`RayQuery::{method}` argument {i} must be a specified scalar"),
                ),
            }
        };
        let void = Value::void();
        Ok(match method {
            "TraceRayInline" => {
                if args[0] != super::expr::acceleration_structure() {
                    return fault(
                        FaultCode::Unsupported,
                        "`TraceRayInline` takes (acceleration structure, flags, mask, ray)",
                    );
                }
                let ray = Ray::from_desc(0, &args[3])?;
                let flags = uint(1)?;
                crate::hit_object::check_known_ray_flags(
                    flags | q.template_flags,
                    self.w.options.profile,
                    "dxr.ray_query.trace_ray_inline.unknown_flags_undefined",
                )?;
                // A dynamic RAY_FLAG_SKIP_CLOSEST_HIT_SHADER (a constant one
                // the validator rejects).
                if (flags | q.template_flags) & ray_flag::SKIP_CLOSEST_HIT_SHADER != 0
                    && self.w.options.profile.is_hlsl()
                {
                    return Err(Fault::new(
                        FaultCode::InvalidFlags,
                        "TraceRayInline with RAY_FLAG_SKIP_CLOSEST_HIT_SHADER",
                    )
                    .clause("dxr.ray_flags.skip_closest_hit.not_for_ray_query")
                    .into());
                }
                let profile = self.w.options.profile;
                q.trace(self.w.scene, flags, uint(2)?, ray, profile, log)?;
                void
            }
            "Proceed" => Value::boolean(q.proceed(self.w.scene, log)?),
            "Abort" => {
                q.abort()?;
                void
            }
            "CandidateType" => Value::uint(q.candidate_type()?),
            "CandidateTriangleRayT" => Value::Scalar(q.candidate_triangle_t()?),
            "CandidateProceduralPrimitiveNonOpaque" => {
                Value::boolean(q.candidate_procedural_non_opaque()?)
            }
            "CommitNonOpaqueTriangleHit" => {
                q.commit_triangle(log)?;
                void
            }
            "CommitProceduralPrimitiveHit" => {
                let Some(t) = args.first().and_then(Value::as_scalar) else {
                    return fault(
                        FaultCode::Unsupported,
                        "`CommitProceduralPrimitiveHit` takes a float t",
                    );
                };
                let t = t.convert(ScalarType::Float, log);
                q.commit_procedural(&t, log)?;
                void
            }
            "CommittedStatus" => Value::uint(q.committed_status()?),
            "CommittedRayT" => Value::Scalar(q.committed_t()?),
            _ => match q.read(self.w.scene, method)? {
                Some(v) => v,
                None => {
                    return fault(
                        FaultCode::Unsupported,
                        format!("`RayQuery::{method}` is not supported"),
                    )
                }
            },
        })
    }
}

/// Committed attributes read as type `want`: the same struct, or one of
/// the same scalar layout (the suite's reading of "must match"). A
/// procedural hit made by `FromRayQuery` without attributes gives an
/// unspecified value.
pub(super) fn attributes_as(
    attrs: &Value,
    want: &Type,
    program: &Program,
    clause: &str,
) -> Ex<Value> {
    let Value::Struct { name, fields } = attrs else {
        return fault(
            FaultCode::Unsupported,
            "committed attributes are not a struct",
        );
    };
    if &**name == NO_ATTRIBUTES {
        return Ok(new_value(
            want,
            Fill::Uninitialized("a procedural hit made by FromRayQuery without attributes"),
            program,
        ));
    }
    if !attributes_match(name, want, program) {
        return Err(Fault::new(
            FaultCode::AttributeTypeMismatch,
            format!(
                "attributes `{name}` read as `{}`",
                ser_lang::printer::print_type(want)
            ),
        )
        .clause(clause)
        .into());
    }
    let mut out = new_value(want, Fill::Zero, program);
    let mut comps = fields.iter().flat_map(Value::components);
    fill_components(&mut out, &mut comps);
    Ok(out)
}

/// Overwrites the scalars of `v` in order, keeping their types.
fn fill_components(v: &mut Value, comps: &mut impl Iterator<Item = Scalar>) {
    match v {
        Value::Scalar(s) => {
            if let Some(c) = comps.next() {
                *s = Scalar { ty: s.ty, ..c };
            }
        }
        Value::Vector(c) | Value::Matrix { elems: c, .. } => {
            for s in c {
                if let Some(n) = comps.next() {
                    *s = Scalar { ty: s.ty, ..n };
                }
            }
        }
        Value::Struct { fields, .. } => fields.iter_mut().for_each(|f| fill_components(f, comps)),
        Value::Array(items) => items.iter_mut().for_each(|f| fill_components(f, comps)),
        _ => {}
    }
}
