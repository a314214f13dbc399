//! Intrinsics, system values, ray tracing calls and the HitObject API.

use super::expr::{Code, ACCEL};
use super::types::{
    common, convert, glsl_type, mangle, normalize, scalar_of, unsupported, with_scalar,
};
use super::{Emitter, Spelling, Stage, Unsupported};
use ser_lang::ast::*;

const UINT: Type = Type::Scalar(ScalarType::Uint);
const FLOAT: Type = Type::Scalar(ScalarType::Float);
const BOOL: Type = Type::Scalar(ScalarType::Bool);
const FLOAT3: Type = Type::Vector(ScalarType::Float, 3);

/// Intrinsics that may be evaluated twice with the same meaning.
pub(crate) const PURE_INTRINSICS: &[&str] = &[
    "DispatchRaysIndex",
    "DispatchRaysDimensions",
    "RayFlags",
    "RayTMin",
    "RayTCurrent",
    "WorldRayOrigin",
    "WorldRayDirection",
    "ObjectRayOrigin",
    "ObjectRayDirection",
    "ObjectToWorld3x4",
    "ObjectToWorld4x3",
    "WorldToObject3x4",
    "WorldToObject4x3",
    "InstanceIndex",
    "InstanceID",
    "GeometryIndex",
    "PrimitiveIndex",
    "HitKind",
    "asuint",
    "asint",
    "asfloat",
    "abs",
    "min",
    "max",
    "clamp",
    "floor",
    "ceil",
    "sqrt",
    "dot",
    "cross",
    "length",
    "normalize",
    "mul",
    "transpose",
    "countbits",
    "all",
    "any",
];

/// A system value: its GLSL expression and HLSL type.
fn system_value(name: &str) -> Option<(&'static str, Type)> {
    let m34 = Type::Matrix(ScalarType::Float, 3, 4);
    let m43 = Type::Matrix(ScalarType::Float, 4, 3);
    Some(match name {
        "DispatchRaysIndex" => ("gl_LaunchIDEXT", Type::Vector(ScalarType::Uint, 3)),
        "DispatchRaysDimensions" => ("gl_LaunchSizeEXT", Type::Vector(ScalarType::Uint, 3)),
        "RayFlags" => ("gl_IncomingRayFlagsEXT", UINT),
        "RayTMin" => ("gl_RayTminEXT", FLOAT),
        // In an intersection shader, the closest hit so far; in hit
        // shaders, the hit's t (gl_HitTEXT is the same value there).
        "RayTCurrent" => ("gl_RayTmaxEXT", FLOAT),
        "WorldRayOrigin" => ("gl_WorldRayOriginEXT", FLOAT3),
        "WorldRayDirection" => ("gl_WorldRayDirectionEXT", FLOAT3),
        "ObjectRayOrigin" => ("gl_ObjectRayOriginEXT", FLOAT3),
        "ObjectRayDirection" => ("gl_ObjectRayDirectionEXT", FLOAT3),
        // gl_ObjectToWorldEXT is a mat4x3: 4 columns of 3, the 3x4 matrix.
        // HLSL float3x4 is GLSL mat3x4 here (types.rs): its transpose.
        "ObjectToWorld3x4" => ("transpose(gl_ObjectToWorldEXT)", m34),
        "ObjectToWorld4x3" => ("gl_ObjectToWorldEXT", m43),
        "WorldToObject3x4" => ("transpose(gl_WorldToObjectEXT)", m34),
        "WorldToObject4x3" => ("gl_WorldToObjectEXT", m43),
        "InstanceIndex" => ("uint(gl_InstanceID)", UINT),
        "InstanceID" => ("uint(gl_InstanceCustomIndexEXT)", UINT),
        "GeometryIndex" => ("uint(gl_GeometryIndexEXT)", UINT),
        "PrimitiveIndex" => ("uint(gl_PrimitiveID)", UINT),
        "HitKind" => ("gl_HitKindEXT", UINT),
        _ => return None,
    })
}

/// The value of a constant operand (literals, named constants, `|`).
pub(crate) fn const_u32(e: &Expr) -> Option<u64> {
    match &e.kind {
        ExprKind::IntLit { value, .. } => Some(*value),
        ExprKind::Ident(n) => ser_lang::names::constant(n).map(u64::from),
        ExprKind::Cast(_, x) => const_u32(x),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (const_u32(a)?, const_u32(b)?);
            match op {
                BinaryOp::BitOr => Some(a | b),
                BinaryOp::BitAnd => Some(a & b),
                BinaryOp::Add => Some(a + b),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A transform GLSL returns as `mat4x3` (`gl_ObjectToWorldEXT`,
/// `hitObjectGetObjectToWorldNV`, `rayQueryGetIntersectionObjectToWorldEXT`:
/// 4 columns of 3, the 3x4 matrix column by column) as HLSL's `float4x3`
/// (`rows` 4: GLSL `mat4x3` as laid out in types.rs) or `float3x4` (`rows`
/// 3: its transpose).
pub(crate) fn transform(mat4x3: String, rows: u8) -> Code {
    if rows == 3 {
        (
            format!("transpose({mat4x3})"),
            Type::Matrix(ScalarType::Float, 3, 4),
        )
    } else {
        (mat4x3, Type::Matrix(ScalarType::Float, 4, 3))
    }
}

impl Emitter<'_> {
    /// Arguments converted to one common type (of at least `min` rank).
    fn unify(&mut self, args: &[Expr], float: bool) -> Result<(Vec<String>, Type), Unsupported> {
        let mut codes = Vec::new();
        let mut t: Option<Type> = None;
        for a in args {
            let (c, at) = self.expr(a)?;
            t = Some(match t {
                None => common(&at, &at, true)?,
                Some(t) => common(&t, &at, true)?,
            });
            codes.push((c, at));
        }
        let mut t = t.expect("at least one argument");
        if float {
            t = with_scalar(&t, ScalarType::Float);
        }
        let codes = codes
            .into_iter()
            .map(|(c, at)| convert(c, &at, &t))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((codes, t))
    }

    pub fn intrinsic(&mut self, name: &str, args: &[Expr]) -> Result<Code, Unsupported> {
        if let Some((code, t)) = system_value(name) {
            return Ok((code.to_string(), t));
        }
        match name {
            "asuint" | "asint" | "asfloat" => {
                let (c, t) = self.expr(&args[0])?;
                let to = match name {
                    "asuint" => ScalarType::Uint,
                    "asint" => ScalarType::Int,
                    _ => ScalarType::Float,
                };
                let from =
                    scalar_of(&t).ok_or_else(|| Unsupported(format!("`{name}` of {t:?}")))?;
                let rt = with_scalar(&t, to);
                let f = match (from, to) {
                    (a, b) if a == b => return Ok((c, t)),
                    (ScalarType::Float, ScalarType::Uint) => "floatBitsToUint",
                    (ScalarType::Float, ScalarType::Int) => "floatBitsToInt",
                    (ScalarType::Uint, ScalarType::Float) => "uintBitsToFloat",
                    (ScalarType::Int, ScalarType::Float) => "intBitsToFloat",
                    (ScalarType::Int | ScalarType::Uint, _) => {
                        return Ok((convert(c, &t, &rt)?, rt))
                    }
                    _ => return unsupported(format!("`{name}` of {t:?}")),
                };
                Ok((format!("{f}({c})"), rt))
            }
            "abs" => {
                let (c, t) = self.unify(args, false)?;
                if scalar_of(&t) == Some(ScalarType::Uint) {
                    return Ok((c[0].clone(), t));
                }
                Ok((format!("abs({})", c[0]), t))
            }
            "min" | "max" | "clamp" => {
                let (c, t) = self.unify(args, false)?;
                if matches!(t, Type::Matrix(..)) {
                    return unsupported(format!("`{name}` of matrices"));
                }
                Ok((format!("{name}({})", c.join(", ")), t))
            }
            "floor" | "ceil" | "sqrt" | "normalize" | "length" => {
                let (c, t) = self.unify(args, true)?;
                if matches!(t, Type::Matrix(..)) {
                    return unsupported(format!("`{name}` of a matrix"));
                }
                let t = if name == "length" { FLOAT } else { t };
                Ok((format!("{name}({})", c[0]), t))
            }
            "dot" | "cross" => {
                let (c, t) = self.unify(args, false)?;
                if scalar_of(&t) != Some(ScalarType::Float) {
                    return unsupported(format!(
                        "`{name}` of {t:?} (GLSL has float dot and cross only)"
                    ));
                }
                if name == "cross" && t != FLOAT3 {
                    return unsupported("`cross` of other than float3");
                }
                let rt = if name == "dot" { FLOAT } else { t };
                Ok((format!("{name}({}, {})", c[0], c[1]), rt))
            }
            "mul" => self.mul(&args[0], &args[1]),
            "transpose" => {
                let (c, t) = self.expr(&args[0])?;
                match t {
                    Type::Matrix(s, r, cc) => {
                        Ok((format!("transpose({c})"), Type::Matrix(s, cc, r)))
                    }
                    _ => unsupported(format!("`transpose` of {t:?}")),
                }
            }
            "countbits" => {
                let (c, t) = self.expr(&args[0])?;
                let ut = with_scalar(&t, ScalarType::Uint);
                let c = convert(c, &t, &ut)?;
                Ok((format!("{}(bitCount({c}))", glsl_type(&ut)?), ut))
            }
            "all" | "any" => {
                let (c, t) = self.expr(&args[0])?;
                match &t {
                    Type::Scalar(_) => Ok((convert(c, &t, &BOOL)?, BOOL)),
                    Type::Vector(_, n) => {
                        let b = convert(c, &t, &Type::Vector(ScalarType::Bool, *n))?;
                        Ok((format!("{name}({b})"), BOOL))
                    }
                    _ => unsupported(format!("`{name}` of {t:?}")),
                }
            }
            "WaveGetLaneIndex" | "WaveGetLaneCount" | "WaveIsFirstLane" => {
                self.uses.subgroup_basic = true;
                Ok(match name {
                    "WaveGetLaneIndex" => ("gl_SubgroupInvocationID".into(), UINT),
                    "WaveGetLaneCount" => ("gl_SubgroupSize".into(), UINT),
                    _ => ("subgroupElect()".into(), BOOL),
                })
            }
            "WaveActiveBallot" | "WaveActiveCountBits" => {
                self.uses.subgroup_ballot = true;
                let b = self.cond(&args[0])?;
                if name == "WaveActiveBallot" {
                    Ok((
                        format!("subgroupBallot({b})"),
                        Type::Vector(ScalarType::Uint, 4),
                    ))
                } else {
                    Ok((format!("subgroupBallotBitCount(subgroupBallot({b}))"), UINT))
                }
            }
            "WaveActiveSum" | "WaveReadLaneFirst" | "WaveActiveAllEqual" => {
                let (c, t) = self.expr(&args[0])?;
                if !matches!(t, Type::Scalar(_) | Type::Vector(..))
                    || (name == "WaveActiveSum" && scalar_of(&t) == Some(ScalarType::Bool))
                {
                    return unsupported(format!("`{name}` of {t:?}"));
                }
                match name {
                    "WaveActiveSum" => {
                        self.uses.subgroup_arithmetic = true;
                        Ok((format!("subgroupAdd({c})"), t))
                    }
                    "WaveReadLaneFirst" => {
                        self.uses.subgroup_ballot = true;
                        Ok((format!("subgroupBroadcastFirst({c})"), t))
                    }
                    _ => {
                        if !matches!(t, Type::Scalar(_)) {
                            return unsupported("`WaveActiveAllEqual` of a vector");
                        }
                        self.uses.subgroup_vote = true;
                        Ok((format!("subgroupAllEqual({c})"), BOOL))
                    }
                }
            }
            "DeviceMemoryBarrier" => Ok(("memoryBarrierBuffer()".into(), Type::Void)),
            "Barrier" => match const_u32(&args[1]) {
                Some(sem) if sem & 1 == 0 => Ok(("memoryBarrierBuffer()".into(), Type::Void)),
                _ => unsupported("`Barrier` with GROUP_SYNC or non-constant flags"),
            },
            "InterlockedAdd" => {
                if self.vector_buffer_root(&args[0]) {
                    return unsupported(
                        "`InterlockedAdd` on a component of a vector buffer element",
                    );
                }
                let dest_is_buffer =
                    matches!(&args[0].kind, ExprKind::Index(b, _) if self.buffer_of(b).is_some());
                if !dest_is_buffer {
                    return unsupported("`InterlockedAdd` on other than a buffer element");
                }
                let (d, dt) = self.expr(&args[0])?;
                if !matches!(dt, Type::Scalar(ScalarType::Int | ScalarType::Uint)) {
                    return unsupported(format!("`InterlockedAdd` on {dt:?}"));
                }
                let v = self.expr_as(&args[1], &dt)?;
                let call = format!("atomicAdd({d}, {v})");
                match args.get(2) {
                    None => Ok((call, Type::Void)),
                    Some(o) => {
                        let (oc, ot) = self.expr(o)?;
                        Ok((format!("({oc} = {})", convert(call, &dt, &ot)?), Type::Void))
                    }
                }
            }
            "TraceRay" | "TraceRayMotion" => {
                let motion = self.motion(name);
                let mut call = self.trace_args(args)?;
                if motion {
                    call.push_str(&format!(", {}", self.expr_as(&args[7], &FLOAT)?));
                }
                let (p, pt) = self.payload_place(&args[args.len() - 1])?;
                let k = self.payload_location(&pt);
                let f = if motion {
                    "traceRayMotionNV"
                } else {
                    "traceRayEXT"
                };
                self.push_pre(format!("_pl{k} = {p};"))?;
                self.push_pre(format!("{f}({call}, {k});"))?;
                self.push_pre(format!("{p} = _pl{k};"))?;
                Ok((String::new(), Type::Void))
            }
            "CallShader" => {
                let i = self.expr_as(&args[0], &UINT)?;
                let (p, pt) = self.payload_place(&args[1])?;
                let k = self.callable_location(&pt);
                self.push_pre(format!("_cd{k} = {p};"))?;
                self.push_pre(format!("executeCallableEXT({i}, {k});"))?;
                self.push_pre(format!("{p} = _cd{k};"))?;
                Ok((String::new(), Type::Void))
            }
            "ReportHit" => {
                if self.stage != Stage::Intersection {
                    return unsupported("`ReportHit` outside an intersection shader");
                }
                let t = self.expr_as(&args[0], &FLOAT)?;
                let k = self.expr_as(&args[1], &UINT)?;
                let (a, at) = self.expr(&args[2])?;
                match &self.report_attr {
                    Some(prev) if *prev != at => {
                        return unsupported(
                            "`ReportHit` with attributes of two types in one shader",
                        )
                    }
                    _ => self.report_attr = Some(at),
                }
                self.push_pre(format!("_ha = {a};"))?;
                Ok((format!("reportIntersectionEXT({t}, {k})"), BOOL))
            }
            "IgnoreHit" | "AcceptHitAndEndSearch" => {
                if self.stage != Stage::AnyHit {
                    return unsupported(format!("`{name}` outside an any-hit shader"));
                }
                let s = if name == "IgnoreHit" {
                    "ignoreIntersectionEXT"
                } else {
                    "terminateRayEXT"
                };
                Ok((s.into(), Type::Void))
            }
            "MaybeReorderThread" | "ReorderThread" => {
                self.uses.reorder = true;
                let mut parts = Vec::new();
                let mut rest = args;
                if args.len() != 2 {
                    parts.push(self.hit_value(&args[0])?);
                    rest = &args[1..];
                }
                for a in rest {
                    parts.push(self.expr_as(a, &UINT)?);
                }
                Ok((format!("reorderThreadNV({})", parts.join(", ")), Type::Void))
            }
            _ => unsupported(format!("the intrinsic `{name}`")),
        }
    }

    /// HLSL `mul` in the transposed matrix layout of types.rs.
    fn mul(&mut self, a: &Expr, b: &Expr) -> Result<Code, Unsupported> {
        let (ac, at) = self.expr(a)?;
        let (bc, bt) = self.expr(b)?;
        let float = |c: String, t: &Type| convert(c, t, &with_scalar(t, ScalarType::Float));
        match (&at, &bt) {
            (Type::Scalar(_), _) | (_, Type::Scalar(_)) => {
                let t = common(&at, &bt, true)?;
                Ok((
                    format!("({} * {})", convert(ac, &at, &t)?, convert(bc, &bt, &t)?),
                    t,
                ))
            }
            (Type::Vector(_, n), Type::Vector(_, m)) if n == m => {
                let t = common(&at, &bt, true)?;
                if scalar_of(&t) != Some(ScalarType::Float) {
                    return unsupported("`mul` of integer vectors");
                }
                Ok((
                    format!("dot({}, {})", convert(ac, &at, &t)?, convert(bc, &bt, &t)?),
                    FLOAT,
                ))
            }
            (Type::Vector(_, n), Type::Matrix(_, r, c)) if n == r => Ok((
                format!("({} * {})", bc, float(ac, &at)?),
                Type::Vector(ScalarType::Float, *c),
            )),
            (Type::Matrix(_, r, c), Type::Vector(_, n)) if n == c => Ok((
                format!("({} * {})", float(bc, &bt)?, ac),
                Type::Vector(ScalarType::Float, *r),
            )),
            (Type::Matrix(_, r, k1), Type::Matrix(_, k2, c)) if k1 == k2 => Ok((
                format!("({bc} * {ac})"),
                Type::Matrix(ScalarType::Float, *r, *c),
            )),
            _ => unsupported(format!("`mul` of {at:?} and {bt:?}")),
        }
    }

    /// The acceleration structure operand of a trace, a recorded hit or a
    /// ray query's `TraceRayInline`.
    pub(super) fn accel_operand(&mut self, e: &Expr) -> Result<String, Unsupported> {
        let (a, at) = self.expr(e)?;
        if at != Type::Struct(ACCEL.into()) {
            return unsupported("a first operand (of a trace, a recorded hit or TraceRayInline) that is not the acceleration structure");
        }
        Ok(a)
    }

    /// Whether `method` is a motion form (GL_NV_ray_tracing_motion_blur),
    /// noting that the module needs the extension.
    fn motion(&mut self, method: &str) -> bool {
        let motion = method.contains("Motion");
        self.uses.motion |= motion;
        motion
    }

    /// The operands of `traceRayEXT`/`hitObjectTraceRayNV` from HLSL's
    /// `(Scene, flags, mask, contribution, multiplier, miss, ray, _)`,
    /// without the payload location.
    fn trace_args(&mut self, args: &[Expr]) -> Result<String, Unsupported> {
        let mut parts = vec![self.accel_operand(&args[0])?];
        for x in &args[1..6] {
            parts.push(self.expr_as(x, &UINT)?);
        }
        parts.push(self.ray_operand(&args[6])?);
        Ok(parts.join(", "))
    }

    /// `origin, tmin, direction, tmax` of a RayDesc operand.
    pub(super) fn ray_operand(&mut self, e: &Expr) -> Result<String, Unsupported> {
        let (c, t) = self.expr(e)?;
        if t != Type::Struct("RayDesc".into()) {
            return unsupported(format!("a ray of type {t:?}"));
        }
        let place = matches!(
            e.kind,
            ExprKind::Ident(_) | ExprKind::Member(..) | ExprKind::Index(..)
        ) && self.pure(e);
        let r = if place {
            c
        } else {
            let tmp = self.fresh();
            self.push_pre(format!("RayDesc {tmp} = {c};"))?;
            tmp
        };
        Ok(format!("{r}.Origin, {r}.TMin, {r}.Direction, {r}.TMax"))
    }

    /// A payload (or callable parameter) operand: a variable or a part of
    /// one, copied in and out around the call.
    fn payload_place(&mut self, e: &Expr) -> Result<(String, Type), Unsupported> {
        let place = matches!(
            e.kind,
            ExprKind::Ident(_) | ExprKind::Member(..) | ExprKind::Index(..)
        );
        if !place || !self.pure(e) || self.vector_buffer_root(e) || self.buffer_of(e).is_some() {
            return unsupported("a payload operand that is not a variable");
        }
        let (c, t) = self.expr(e)?;
        if self.holds_hit_object(&t) {
            return unsupported("a HitObject in a payload");
        }
        if matches!(&e.kind, ExprKind::Index(b, _) if self.buffer_of(b).is_some()) {
            return unsupported("a buffer element as a payload");
        }
        Ok((c, t))
    }

    /// A hit object operand as a GLSL `hitObjectNV` variable.
    pub fn hit_value(&mut self, e: &Expr) -> Result<String, Unsupported> {
        self.uses.reorder = true;
        match &e.kind {
            ExprKind::Ident(n) if self.local(n) == Some(&Type::HitObject) => Ok(mangle(n)),
            ExprKind::StaticCall { .. } => {
                let tmp = self.fresh();
                self.push_pre(format!("hitObjectNV {tmp};"))?;
                self.hit_into(&tmp, e)?;
                Ok(tmp)
            }
            _ => unsupported("a hit object operand other than a variable or a HitObject:: call"),
        }
    }

    /// Makes the `hitObjectNV` variable `target` hold the value of `e`.
    pub fn hit_into(&mut self, target: &str, e: &Expr) -> Result<(), Unsupported> {
        self.uses.reorder = true;
        match &e.kind {
            ExprKind::StaticCall {
                ty, method, args, ..
            } if ty == "HitObject" => match method.as_str() {
                "MakeNop" => self.push_pre(format!("hitObjectRecordEmptyNV({target});")),
                "MakeMiss" | "MakeMissMotion" => {
                    let motion = self.motion(method);
                    let miss = self.expr_as(&args[1], &UINT)?;
                    let mut ray = self.ray_operand(&args[2])?;
                    if motion {
                        ray.push_str(&format!(", {}", self.expr_as(&args[3], &FLOAT)?));
                    }
                    let f = if motion {
                        "hitObjectRecordMissMotionNV"
                    } else {
                        "hitObjectRecordMissNV"
                    };
                    if self.spelling == Spelling::Ext {
                        // `hitObjectRecordMiss[Motion]EXT(h, rayFlags, sbtRecordIndex, ...)`
                        let flags = self.expr_as(&args[0], &UINT)?;
                        return self.push_pre(format!("{f}({target}, {flags}, {miss}, {ray});"));
                    }
                    if const_u32(&args[0]) != Some(0) {
                        return unsupported(format!("NV's {f} takes no ray flags (HitObject::{method} with flags other than a constant 0)"));
                    }
                    self.push_pre(format!("{f}({target}, {miss}, {ray});"))
                }
                "TraceRay"
                | "TraceReorderExecute"
                | "TraceRayMotion"
                | "TraceMotionReorderExecute" => {
                    let motion = self.motion(method);
                    let reorder = method.ends_with("ReorderExecute");
                    if reorder && self.spelling != Spelling::Ext {
                        return unsupported(format!("HitObject::{method} is GL_EXT's"));
                    }
                    let mut call = self.trace_args(args)?;
                    // The time (motion forms), then hint and bits.
                    for (i, x) in args[7..args.len() - 1].iter().enumerate() {
                        let t = if motion && i == 0 { &FLOAT } else { &UINT };
                        call.push_str(", ");
                        call.push_str(&self.expr_as(x, t)?);
                    }
                    let (p, pt) = self.payload_place(&args[args.len() - 1])?;
                    let k = self.payload_location(&pt);
                    let f = match (motion, reorder) {
                        (false, false) => "hitObjectTraceRayNV",
                        (false, true) => "hitObjectTraceReorderExecuteEXT",
                        (true, false) => "hitObjectTraceRayMotionNV",
                        (true, true) => "hitObjectTraceMotionReorderExecuteEXT",
                    };
                    self.push_pre(format!("_pl{k} = {p};"))?;
                    self.push_pre(format!("{f}({target}, {call}, {k});"))?;
                    self.push_pre(format!("{p} = _pl{k};"))
                }
                "MakeHit" | "MakeHitWithIndex" | "MakeHitMotion" | "MakeHitWithIndexMotion" => {
                    let motion = self.motion(method);
                    let with_index = method.starts_with("MakeHitWithIndex");
                    let n = if with_index { 8 } else { 9 } + usize::from(motion);
                    if self.spelling != Spelling::Nv {
                        return unsupported(format!("HitObject::{method} is GL_NV's"));
                    }
                    let mut parts = vec![self.accel_operand(&args[0])?];
                    for x in &args[1..4] {
                        parts.push(format!("int({})", self.expr_as(x, &UINT)?));
                    }
                    let ray_at = if with_index { 6 } else { 7 };
                    for x in &args[4..ray_at] {
                        parts.push(self.expr_as(x, &UINT)?);
                    }
                    parts.push(self.ray_operand(&args[ray_at])?);
                    if motion {
                        parts.push(self.expr_as(&args[ray_at + 1], &FLOAT)?);
                    }
                    let (attr, t) = self.expr(&args[n - 1])?;
                    let k = self.hit_attr_location(&normalize(t));
                    self.push_pre(format!("_hoa{k} = {attr};"))?;
                    let f = format!(
                        "hitObjectRecordHit{}{}NV",
                        if with_index { "WithIndex" } else { "" },
                        if motion { "Motion" } else { "" }
                    );
                    self.push_pre(format!("{f}({target}, {}, {k});", parts.join(", ")))
                }
                "FromRayQuery" | "RecordFromQuery" => self.record_from_query(target, method, args),
                m => unsupported(format!("`HitObject::{m}` as a value")),
            },
            ExprKind::Ident(n) if self.local(n) == Some(&Type::HitObject) => {
                unsupported("a copy of a hit object: GLSL's opaque types cannot be assigned, and SPIR-V forbids OpLoad, OpStore and OpCopyMemory through a pointer to a hit object (SPV_NV and SPV_EXT_shader_invocation_reorder)")
            }
            _ => unsupported("a hit object value other than a variable or a HitObject:: call"),
        }
    }

    pub fn hit_object_static(
        &mut self,
        e: &Expr,
        method: &str,
        _template: Option<&Type>,
        args: &[Expr],
    ) -> Result<Code, Unsupported> {
        self.uses.reorder = true;
        if method == "Invoke" || method == "ReorderExecute" {
            let invoke = method == "Invoke";
            if !invoke && self.spelling != Spelling::Ext {
                return unsupported("HitObject::ReorderExecute is GL_EXT's");
            }
            let mut operands = vec![self.hit_value(&args[0])?];
            for hint in &args[1..args.len() - 1] {
                operands.push(self.expr_as(hint, &UINT)?);
            }
            let (p, pt) = self.payload_place(&args[args.len() - 1])?;
            let k = self.payload_location(&pt);
            let f = if invoke {
                "hitObjectExecuteShaderNV"
            } else {
                "hitObjectReorderExecuteEXT"
            };
            self.push_pre(format!("_pl{k} = {p};"))?;
            self.push_pre(format!("{f}({}, {k});", operands.join(", ")))?;
            self.push_pre(format!("{p} = _pl{k};"))?;
            return Ok((String::new(), Type::Void));
        }
        let tmp = self.hit_value(e)?;
        Ok((tmp, Type::HitObject))
    }

    pub fn method(
        &mut self,
        receiver: &Expr,
        method: &str,
        template: Option<&Type>,
        args: &[Expr],
    ) -> Result<Code, Unsupported> {
        if ser_lang::names::RAY_QUERY_METHODS.contains(&method) {
            if template.is_some() {
                return unsupported(format!("`{method}` with a template argument"));
            }
            if !self.is_query_place(receiver) {
                return unsupported(format!("`{method}` on other than a RayQuery"));
            }
            return self.query_method(receiver, method, args);
        }
        let h = self.hit_value(receiver)?;
        let (f, t): (String, Type) = match method {
            "IsMiss" => (format!("hitObjectIsMissNV({h})"), BOOL),
            "IsHit" => (format!("hitObjectIsHitNV({h})"), BOOL),
            "IsNop" => (format!("hitObjectIsEmptyNV({h})"), BOOL),
            "GetRayTMin" => (format!("hitObjectGetRayTMinNV({h})"), FLOAT),
            "GetRayTCurrent" => (format!("hitObjectGetRayTMaxNV({h})"), FLOAT),
            "GetWorldRayOrigin" => (format!("hitObjectGetWorldRayOriginNV({h})"), FLOAT3),
            "GetWorldRayDirection" => (format!("hitObjectGetWorldRayDirectionNV({h})"), FLOAT3),
            "GetObjectRayOrigin" => (format!("hitObjectGetObjectRayOriginNV({h})"), FLOAT3),
            "GetObjectRayDirection" => (format!("hitObjectGetObjectRayDirectionNV({h})"), FLOAT3),
            "GetObjectToWorld3x4"
            | "GetObjectToWorld4x3"
            | "GetWorldToObject3x4"
            | "GetWorldToObject4x3" => {
                let m = &method[3..method.len() - 3];
                let rows = if method.ends_with("3x4") { 3 } else { 4 };
                transform(format!("hitObjectGet{m}NV({h})"), rows)
            }
            "GetInstanceIndex" => (format!("uint(hitObjectGetInstanceIdNV({h}))"), UINT),
            "GetInstanceID" => (
                format!("uint(hitObjectGetInstanceCustomIndexNV({h}))"),
                UINT,
            ),
            "GetGeometryIndex" => (format!("uint(hitObjectGetGeometryIndexNV({h}))"), UINT),
            "GetPrimitiveIndex" => (format!("uint(hitObjectGetPrimitiveIndexNV({h}))"), UINT),
            "GetHitKind" => (format!("hitObjectGetHitKindNV({h})"), UINT),
            "GetShaderTableIndex" => (
                format!("hitObjectGetShaderBindingTableRecordIndexNV({h})"),
                UINT,
            ),
            "GetCurrentTime" => {
                self.uses.motion = true;
                (format!("hitObjectGetCurrentTimeNV({h})"), FLOAT)
            }
            "GetAttributes" => {
                let t = normalize(
                    template
                        .cloned()
                        .ok_or_else(|| Unsupported("`GetAttributes` without a type".into()))?,
                );
                if self.holds_hit_object(&t) {
                    return unsupported("a HitObject in attributes");
                }
                let k = self.hit_attr_location(&t);
                let tmp = self.fresh();
                self.push_pre(format!("hitObjectGetAttributesNV({h}, {k});"))?;
                self.push_pre(format!("{} = _hoa{k};", super::types::declare(&t, &tmp)?))?;
                return Ok((tmp, t));
            }
            "GetRayFlags" if self.spelling == Spelling::Ext => {
                (format!("hitObjectGetRayFlagsEXT({h})"), UINT)
            }
            "GetRayFlags" => {
                return unsupported(
                    "HitObject::GetRayFlags: NV has no getter for a hit object's ray flags",
                )
            }
            "SetShaderTableIndex" if self.spelling == Spelling::Ext => {
                let i = self.expr_as(&args[0], &UINT)?;
                self.push_pre(format!(
                    "hitObjectSetShaderBindingTableRecordIndexEXT({h}, {i});"
                ))?;
                return Ok((String::new(), Type::Void));
            }
            "SetShaderTableIndex" => {
                return unsupported("HitObject::SetShaderTableIndex: no NV equivalent")
            }
            "GetTriangleVertexPositions" if self.spelling == Spelling::Ext => {
                let (p, _) = self.expr(&args[0])?;
                self.push_pre(format!(
                    "hitObjectGetIntersectionTriangleVertexPositionsEXT({h}, {p});"
                ))?;
                return Ok((String::new(), Type::Void));
            }
            // The record's data after its handle, as a buffer reference
            // (`glsl_nv.types.shader_record_buffer.reads_record_data`); the
            // offset is in bytes, each local root constant one word.
            "LoadLocalRootTableConstant" => {
                let offset = self.expr_as(&args[0], &UINT)?;
                self.uses.shader_record = true;
                return Ok((format!("_ShaderRecord(hitObjectGetShaderRecordBufferHandleNV({h})).data[({offset}) / 4u]"), UINT));
            }
            m => return unsupported(format!("the method `{m}`")),
        };
        if !args.is_empty() {
            return unsupported(format!("`{method}` with arguments"));
        }
        Ok((f, t))
    }
}
