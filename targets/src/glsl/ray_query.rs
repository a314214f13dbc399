//! `RayQuery` as `GL_EXT_ray_query`'s `rayQueryEXT`, in every stage
//! (`vk.traversal.intro.ray_query_any_stage`), and, under GL_EXT,
//! `HitObject::FromRayQuery` / `RecordFromQuery` as
//! `hitObjectRecordFromQueryEXT`.
//!
//! A `RayQuery` is a reference to its query
//! (`dxr.ray_query.type.assignment_shares_state`,
//! `dxr.ray_query.type.parameter_by_reference`); `rayQueryEXT` is "a
//! handle representing a ray query object", an opaque type: a parameter
//! of that type hands the callee the caller's query (glslang passes
//! opaque parameters by pointer, and GL_EXT_ray_query's own built-ins
//! change the query they are given), but a `rayQueryEXT` can be neither
//! assigned nor initialised from another, nor returned, nor be a member
//! of a struct. So declarations, arrays indexed by constants and `in`
//! parameters are emitted; copies, `out`/`inout` parameters, struct
//! members and returned queries are declined.
//!
//! The template ray flags are OR'd into the flags given to
//! `rayQueryInitializeEXT` (`dxr.ray_query.type.template_or_dynamic`), so
//! `rayQueryGetRayFlagsEXT` returns both, as `RayFlags` does
//! (`dxr.ray_query.ray_flags.template_or_dynamic`). DXR's ray flags have
//! Vulkan's values, bit for bit.

use super::builtins::const_u32;
use super::expr::Code;
use super::types::{mangle, unsupported};
use super::{Emitter, Spelling, Unsupported};
use ser_lang::ast::*;

const UINT: Type = Type::Scalar(ScalarType::Uint);
const FLOAT: Type = Type::Scalar(ScalarType::Float);
const BOOL: Type = Type::Scalar(ScalarType::Bool);

/// The value a `Candidate*` or `Committed*` method reads, by its name
/// after the prefix: the GL_EXT_ray_query getter
/// `rayQueryGetIntersection<getter>EXT(q, committed)`, the HLSL type, and
/// whether GLSL returns an `int` where HLSL has a `uint`.
fn hit_getter(name: &str) -> Option<(&'static str, Type, bool)> {
    let float3 = Type::Vector(ScalarType::Float, 3);
    Some(match name {
        // DXR's CommittedRayT with nothing committed is the ray's TMax
        // (`dxr.ray_query.committed_ray_t.initialized_to_tmax`);
        // GL_EXT_ray_query does not say what rayQueryGetIntersectionTEXT
        // returns then.
        "TriangleRayT" | "RayT" => ("T", FLOAT, false),
        "InstanceIndex" => ("InstanceId", UINT, true),
        "InstanceID" => ("InstanceCustomIndex", UINT, true),
        "InstanceContributionToHitGroupIndex" => {
            ("InstanceShaderBindingTableRecordOffset", UINT, false)
        }
        "GeometryIndex" => ("GeometryIndex", UINT, true),
        "PrimitiveIndex" => ("PrimitiveIndex", UINT, true),
        "ObjectRayOrigin" => ("ObjectRayOrigin", float3, false),
        "ObjectRayDirection" => ("ObjectRayDirection", float3, false),
        "TriangleBarycentrics" => ("Barycentrics", Type::Vector(ScalarType::Float, 2), false),
        // `vk.culling.face.ray_query_front_face`.
        "TriangleFrontFace" => ("FrontFace", BOOL, false),
        _ => return None,
    })
}

/// Whether `t` is a `RayQuery` or an array of them.
pub(crate) fn is_query(t: &Type) -> bool {
    match t {
        Type::RayQuery(..) => true,
        Type::Array(e, _) => is_query(e),
        _ => false,
    }
}

/// The template ray flags of a `RayQuery` type (0 for other types). The
/// second template argument, Shader Model 6.9's `RAYQUERY_FLAG_*`, has no
/// GLSL counterpart: only `RAYQUERY_FLAG_NONE` is emitted.
pub(crate) fn template_flags(t: &Type) -> Result<u32, Unsupported> {
    let Type::RayQuery(flags, query_flags) = t else {
        return Ok(0);
    };
    if let Some(q) = query_flags {
        if const_u32(q) != Some(0) {
            return unsupported(
                "RayQuery's RAYQUERY_FLAG_* template argument (Shader Model 6.9): GL_EXT_ray_query has no ray query flags",
            );
        }
    }
    match const_u32(flags) {
        Some(f) if f <= u64::from(u32::MAX) => Ok(f as u32),
        _ => unsupported("a RayQuery template argument that is not a constant"),
    }
}

impl Emitter<'_> {
    /// `RayQuery<...> q;` (or an array of them) as `rayQueryEXT q;`. DXR's
    /// declaration makes a new query, on which only `TraceRayInline` is
    /// defined (`dxr.ray_query.intrinsics.unsupported_call_undefined`), so
    /// a `rayQueryEXT` declared in a loop body, one variable for every
    /// iteration, means the same.
    pub fn query_decl(
        &mut self,
        t: &Type,
        name: &str,
        init: Option<&Expr>,
    ) -> Result<(), Unsupported> {
        if init.is_some() {
            return unsupported(
                "a RayQuery initialised from another (DXR shares the query, dxr.ray_query.type.assignment_shares_state; a rayQueryEXT cannot be assigned)",
            );
        }
        let mut elem = t;
        while let Type::Array(e, _) = elem {
            elem = e;
        }
        template_flags(elem)?;
        self.uses.ray_query = true;
        let decl = super::types::declare(t, &mangle(name))?;
        self.line(&format!("{decl};"));
        Ok(())
    }

    /// A query operand: a `RayQuery` variable or parameter, or an element
    /// of an array of them with constant indices (GL_EXT_ray_query leaves
    /// other than dynamically uniform indices into a `rayQueryEXT` array
    /// undefined). Its GLSL text and its template flags.
    pub fn query_operand(&mut self, e: &Expr) -> Result<(String, u32), Unsupported> {
        if !self.is_query_place(e) {
            return unsupported("a RayQuery operand other than a variable, a parameter or an element of an array of them");
        }
        let mut root = e;
        while let ExprKind::Index(b, i) = &root.kind {
            if const_u32(i).is_none() {
                return unsupported(
                    "an array of RayQuery indexed by other than a constant (GL_EXT_ray_query allows only dynamically uniform indices)",
                );
            }
            root = b;
        }
        let (code, t) = self.expr(e)?;
        if !matches!(t, Type::RayQuery(..)) {
            return unsupported(format!("a ray query operand of type {t:?}"));
        }
        self.uses.ray_query = true;
        Ok((code, template_flags(&t)?))
    }

    /// Whether `e` names a query: a local or parameter, or an element of
    /// an array of them.
    pub fn is_query_place(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Ident(n) => self.local(n).is_some_and(is_query),
            ExprKind::Index(b, _) => self.is_query_place(b),
            _ => false,
        }
    }

    /// A `RayQuery` argument for an `in` parameter of type `param`: the
    /// query itself, which the callee shares
    /// (`dxr.ray_query.type.parameter_by_reference`).
    pub fn query_argument(&mut self, e: &Expr, param: &Type) -> Result<String, Unsupported> {
        if !matches!(param, Type::RayQuery(..)) {
            return unsupported("an array of RayQuery as a parameter");
        }
        let (code, flags) = self.query_operand(e)?;
        if flags != template_flags(param)? {
            return unsupported(
                "a RayQuery argument whose template flags differ from the parameter's",
            );
        }
        Ok(code)
    }

    /// A `RayQuery` method call.
    pub fn query_method(
        &mut self,
        receiver: &Expr,
        method: &str,
        args: &[Expr],
    ) -> Result<Code, Unsupported> {
        let (q, template) = self.query_operand(receiver)?;
        let call = |f: &str| format!("{f}({q})");
        Ok(match method {
            // `rayQueryInitializeEXT(q, topLevel, rayFlags, cullMask, origin,
            // tMin, direction, tMax)`: both use the 8 low bits of the mask
            // (`dxr.ray_query.trace_ray_inline.instance_mask_bottom_8_bits`).
            "TraceRayInline" => {
                let accel = self.accel_operand(&args[0])?;
                let flags = match const_u32(&args[1]) {
                    Some(f) if template != 0 => format!("{}u", f | u64::from(template)),
                    _ if template != 0 => {
                        format!("({} | {template}u)", self.expr_as(&args[1], &UINT)?)
                    }
                    _ => self.expr_as(&args[1], &UINT)?,
                };
                let mask = self.expr_as(&args[2], &UINT)?;
                let ray = self.ray_operand(&args[3])?;
                (
                    format!("rayQueryInitializeEXT({q}, {accel}, {flags}, {mask}, {ray})"),
                    Type::Void,
                )
            }
            "Proceed" => (call("rayQueryProceedEXT"), BOOL),
            "Abort" => (call("rayQueryTerminateEXT"), Type::Void),
            "CommitNonOpaqueTriangleHit" => (call("rayQueryConfirmIntersectionEXT"), Type::Void),
            "CommitProceduralPrimitiveHit" => {
                let t = self.expr_as(&args[0], &FLOAT)?;
                (
                    format!("rayQueryGenerateIntersectionEXT({q}, {t})"),
                    Type::Void,
                )
            }
            // GLSL's candidate types, Triangle 0 and AABB 1
            // (`vk.confirmation.triangle.ray_query_candidate_type_triangle`,
            // `vk.confirmation.aabb.ray_query_candidate_type_aabb`), are
            // DXR's CANDIDATE_NON_OPAQUE_TRIANGLE and
            // CANDIDATE_PROCEDURAL_PRIMITIVE; its committed types None 0,
            // Triangle 1 and Generated 2 (`vk.result.ray_query_committed_none`,
            // `vk.result.ray_query_committed_hit_type`) DXR's COMMITTED_STATUS
            // (`dxr.ray_query.committed_status.enum_values`): the values
            // pass as they are (`candidate_and_committed_types_keep_their_values`
            // holds the two to each other).
            "CandidateType" => (format!("rayQueryGetIntersectionTypeEXT({q}, false)"), UINT),
            "CommittedStatus" => (format!("rayQueryGetIntersectionTypeEXT({q}, true)"), UINT),
            // `vk.culling.opacity.ray_query_candidate_aabb_opaque_value`.
            "CandidateProceduralPrimitiveNonOpaque" => (
                format!("(!rayQueryGetIntersectionCandidateAABBOpaqueEXT({q}))"),
                BOOL,
            ),
            "RayFlags" => (call("rayQueryGetRayFlagsEXT"), UINT),
            "RayTMin" => (call("rayQueryGetRayTMinEXT"), FLOAT),
            "WorldRayOrigin" => (
                call("rayQueryGetWorldRayOriginEXT"),
                Type::Vector(ScalarType::Float, 3),
            ),
            "WorldRayDirection" => (
                call("rayQueryGetWorldRayDirectionEXT"),
                Type::Vector(ScalarType::Float, 3),
            ),
            _ => {
                let (committed, name) = match (
                    method.strip_prefix("Candidate"),
                    method.strip_prefix("Committed"),
                ) {
                    (Some(n), _) => (false, n),
                    (_, Some(n)) => (true, n),
                    _ => return unsupported(format!("the RayQuery method `{method}`")),
                };
                let transform = name
                    .strip_suffix("3x4")
                    .or_else(|| name.strip_suffix("4x3"));
                if let Some(m @ ("ObjectToWorld" | "WorldToObject")) = transform {
                    let rows = if name.ends_with("3x4") { 3 } else { 4 };
                    return Ok(super::builtins::transform(
                        format!("rayQueryGetIntersection{m}EXT({q}, {committed})"),
                        rows,
                    ));
                }
                let Some((getter, t, int)) = hit_getter(name) else {
                    return unsupported(format!("the RayQuery method `{method}`"));
                };
                let code = format!("rayQueryGetIntersection{getter}EXT({q}, {committed})");
                (if int { format!("uint({code})") } else { code }, t)
            }
        })
    }

    /// `HitObject::FromRayQuery(q[, attributes])`,
    /// `HitObject::FromRayQuery(q, hitKind, attributes)` (Shader Model
    /// 6.9) and `HitObject::RecordFromQuery(q, sbtRecordIndex, attributes
    /// [, hitKind])` as GL_EXT's `hitObjectRecordFromQueryEXT`
    /// (`glsl_ext.hit_object_record_from_query.signature`,
    /// `glsl_ext.hit_object_record_from_query_hit_kind.signature`) into
    /// the hit object `target`. `FromRayQuery` names no record: its index
    /// is 0, which no shader reads before `SetShaderTableIndex`, and such a
    /// hit object executes no shader until then
    /// (`glsl_ext.hit_object_execute_shader.empty_or_unset_query_no_shader`).
    /// Without attributes the function still takes an attribute location:
    /// an unwritten `BuiltInTriangleIntersectionAttributes`, ignored for a
    /// triangle (`glsl_ext.hit_object_record_from_query.triangle_attributes_from_query`)
    /// and unspecified for a procedural hit, as DXR leaves it.
    pub fn record_from_query(
        &mut self,
        target: &str,
        method: &str,
        args: &[Expr],
    ) -> Result<(), Unsupported> {
        let from = method == "FromRayQuery";
        if self.spelling != Spelling::Ext {
            return unsupported(format!(
                "HitObject::{method}: GL_NV_shader_invocation_reorder has no record-from-query function (GL_EXT's hitObjectRecordFromQueryEXT)"
            ));
        }
        let (q, _) = self.query_operand(&args[0])?;
        let (index, attributes, hit_kind) = match (from, args.len()) {
            (true, 1) => ("0u".to_string(), None, None),
            (true, 2) => ("0u".to_string(), Some(&args[1]), None),
            (true, _) => ("0u".to_string(), Some(&args[2]), Some(&args[1])),
            (false, _) => (self.expr_as(&args[1], &UINT)?, Some(&args[2]), args.get(3)),
        };
        let k = match attributes {
            Some(a) => {
                let (attr, t) = self.expr(a)?;
                let k = self.hit_attr_location(&t);
                self.push_pre(format!("_hoa{k} = {attr};"))?;
                k
            }
            None => self.hit_attr_location(&Type::Struct(
                "BuiltInTriangleIntersectionAttributes".into(),
            )),
        };
        let hit_kind = match hit_kind {
            Some(h) => format!(", {}", self.expr_as(h, &UINT)?),
            None => String::new(),
        };
        self.push_pre(format!(
            "hitObjectRecordFromQueryEXT({target}, {q}, {index}, {k}{hit_kind});"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{entry_point, Spelling};
    use super::*;
    use crate::interface::Interface;

    /// `rayQueryGetIntersectionTypeEXT(q, false)` returns
    /// `gl_RayQueryCandidateIntersectionTriangleEXT` (0) or
    /// `gl_RayQueryCandidateIntersectionAABBEXT` (1)
    /// (`vk.confirmation.triangle.ray_query_candidate_type_triangle`,
    /// `vk.confirmation.aabb.ray_query_candidate_type_aabb`): DXR's
    /// `CANDIDATE_NON_OPAQUE_TRIANGLE` and `CANDIDATE_PROCEDURAL_PRIMITIVE`,
    /// in the order of its `CANDIDATE_TYPE` enum. Each pair is (DXR name,
    /// GLSL name, value), as GL_EXT_ray_query defines the GLSL constants.
    const CANDIDATE_TYPES: [(&str, &str, u32); 2] = [
        (
            "CANDIDATE_NON_OPAQUE_TRIANGLE",
            "gl_RayQueryCandidateIntersectionTriangleEXT",
            0,
        ),
        (
            "CANDIDATE_PROCEDURAL_PRIMITIVE",
            "gl_RayQueryCandidateIntersectionAABBEXT",
            1,
        ),
    ];

    /// `rayQueryGetIntersectionTypeEXT(q, true)` returns
    /// `gl_RayQueryCommittedIntersection{None,Triangle,Generated}EXT` (0, 1, 2)
    /// (`vk.result.ray_query_committed_none`,
    /// `vk.confirmation.triangle.ray_query_confirm_intersection`,
    /// `vk.confirmation.aabb.ray_query_generate_intersection`): DXR's
    /// `COMMITTED_STATUS` values (`dxr.ray_query.committed_status.enum_values`).
    const COMMITTED_STATUSES: [(&str, &str, u32); 3] = [
        (
            "COMMITTED_NOTHING",
            "gl_RayQueryCommittedIntersectionNoneEXT",
            0,
        ),
        (
            "COMMITTED_TRIANGLE_HIT",
            "gl_RayQueryCommittedIntersectionTriangleEXT",
            1,
        ),
        (
            "COMMITTED_PROCEDURAL_PRIMITIVE_HIT",
            "gl_RayQueryCommittedIntersectionGeneratedEXT",
            2,
        ),
    ];

    const HEAD: &str = "RWStructuredBuffer<uint> Out : register(u0);
        RWStructuredBuffer<float> OutF : register(u1);
        RaytracingAccelerationStructure Scene : register(t0);
        struct A { float2 uv; uint id; };";
    const RAY: &str = "RayDesc r; r.Origin = float3(0, 0, 0); r.Direction = float3(0, 0, 1); r.TMin = 0.5; r.TMax = 100;";

    fn emit(body: &str, spelling: Spelling) -> Result<String, Unsupported> {
        let src = format!("{HEAD}[shader(\"raygeneration\")] void RG() {{ {RAY} {body} }}");
        let lib = ser_lang::parse(&src).expect("the test program parses");
        let iface = Interface::of(&lib).expect("an interface");
        entry_point(&lib, "RG", &iface, spelling).map(|g| g.source)
    }

    fn lines(body: &str) -> Vec<String> {
        let src = emit(body, Spelling::Nv).unwrap_or_else(|u| panic!("unsupported: {u}"));
        src.lines().map(|l| l.trim().to_string()).collect()
    }

    fn has(lines: &[String], want: &[&str]) {
        for w in want {
            assert!(
                lines.iter().any(|l| l == w),
                "missing `{w}` in:\n{}",
                lines.join("\n")
            );
        }
    }

    /// The case language's CANDIDATE_* and COMMITTED_* constants have the
    /// values GL_EXT_ray_query gives its intersection types, so the type
    /// is emitted as GLSL returns it.
    #[test]
    fn candidate_and_committed_types_keep_their_values() {
        for (dxr, glsl, value) in CANDIDATE_TYPES.iter().chain(COMMITTED_STATUSES.iter()) {
            assert_eq!(
                ser_lang::names::constant(dxr),
                Some(*value),
                "{dxr} is not {glsl} ({value})"
            );
        }
        let l = lines(
            "RayQuery<RAY_FLAG_NONE> q;
            q.TraceRayInline(Scene, RAY_FLAG_NONE, 0xFF, r);
            while (q.Proceed()) {
                if (q.CandidateType() == CANDIDATE_PROCEDURAL_PRIMITIVE) { q.CommitProceduralPrimitiveHit(5); }
                else { q.CommitNonOpaqueTriangleHit(); }
            }
            Out[0] = q.CommittedStatus() == COMMITTED_PROCEDURAL_PRIMITIVE_HIT ? 1 : 0;",
        );
        has(
            &l,
            &[
                "#extension GL_EXT_ray_query : require",
                "rayQueryEXT q;",
                "rayQueryInitializeEXT(q, Scene, 0u, 255u, r.Origin, r.TMin, r.Direction, r.TMax);",
                "while (rayQueryProceedEXT(q)) {",
                "if (rayQueryGetIntersectionTypeEXT(q, false) == 1u) {",
                "rayQueryGenerateIntersectionEXT(q, 5.0);",
                "rayQueryConfirmIntersectionEXT(q);",
                "Out[0u] = uint(((rayQueryGetIntersectionTypeEXT(q, true) == 2u) ? 1 : 0));",
            ],
        );
    }

    #[test]
    fn template_flags_are_ored_into_the_trace_flags() {
        let l = lines(
            "RayQuery<RAY_FLAG_CULL_BACK_FACING_TRIANGLES> q;
            uint f = Out[1];
            q.TraceRayInline(Scene, f, Out[2], r);
            q.Abort();
            Out[0] = q.RayFlags();
            OutF[0] = q.RayTMin() + q.WorldRayOrigin().x + q.WorldRayDirection().z;",
        );
        has(
            &l,
            &[
                "rayQueryInitializeEXT(q, Scene, (f | 16u), Out[2u], r.Origin, r.TMin, r.Direction, r.TMax);",
                "rayQueryTerminateEXT(q);",
                "Out[0u] = rayQueryGetRayFlagsEXT(q);",
                "OutF[0u] = ((rayQueryGetRayTMinEXT(q) + rayQueryGetWorldRayOriginEXT(q).x) + rayQueryGetWorldRayDirectionEXT(q).z);",
            ],
        );
    }

    #[test]
    fn candidate_and_committed_getters() {
        let mut body = String::from(
            "RayQuery<RAY_FLAG_NONE> q; q.TraceRayInline(Scene, 0, 0xFF, r); q.Proceed();",
        );
        let mut want = Vec::new();
        for (prefix, committed) in [("Candidate", "false"), ("Committed", "true")] {
            let t = if committed == "true" {
                "RayT"
            } else {
                "TriangleRayT"
            };
            body.push_str(&format!(
                "OutF[0] = q.{prefix}{t}();
                Out[0] = q.{prefix}InstanceIndex() + q.{prefix}InstanceID() + q.{prefix}InstanceContributionToHitGroupIndex();
                Out[1] = q.{prefix}GeometryIndex() + q.{prefix}PrimitiveIndex();
                float3 o{prefix} = q.{prefix}ObjectRayOrigin() + q.{prefix}ObjectRayDirection();
                float3x4 a{prefix} = q.{prefix}ObjectToWorld3x4();
                float4x3 b{prefix} = q.{prefix}ObjectToWorld4x3();
                float3x4 c{prefix} = q.{prefix}WorldToObject3x4();
                float4x3 d{prefix} = q.{prefix}WorldToObject4x3();
                float2 u{prefix} = q.{prefix}TriangleBarycentrics();
                bool f{prefix} = q.{prefix}TriangleFrontFace();"
            ));
            want.extend([
                format!("OutF[0u] = rayQueryGetIntersectionTEXT(q, {committed});"),
                format!("Out[0u] = ((uint(rayQueryGetIntersectionInstanceIdEXT(q, {committed})) + uint(rayQueryGetIntersectionInstanceCustomIndexEXT(q, {committed}))) + rayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetEXT(q, {committed}));"),
                format!("Out[1u] = (uint(rayQueryGetIntersectionGeometryIndexEXT(q, {committed})) + uint(rayQueryGetIntersectionPrimitiveIndexEXT(q, {committed})));"),
                format!("vec3 o{prefix} = (rayQueryGetIntersectionObjectRayOriginEXT(q, {committed}) + rayQueryGetIntersectionObjectRayDirectionEXT(q, {committed}));"),
                // GLSL's mat4x3 is HLSL's float4x3 here (types.rs).
                format!("mat3x4 a{prefix} = transpose(rayQueryGetIntersectionObjectToWorldEXT(q, {committed}));"),
                format!("mat4x3 b{prefix} = rayQueryGetIntersectionObjectToWorldEXT(q, {committed});"),
                format!("mat3x4 c{prefix} = transpose(rayQueryGetIntersectionWorldToObjectEXT(q, {committed}));"),
                format!("mat4x3 d{prefix} = rayQueryGetIntersectionWorldToObjectEXT(q, {committed});"),
                format!("vec2 u{prefix} = rayQueryGetIntersectionBarycentricsEXT(q, {committed});"),
                format!("bool f{prefix} = rayQueryGetIntersectionFrontFaceEXT(q, {committed});"),
            ]);
        }
        body.push_str("Out[2] = q.CandidateProceduralPrimitiveNonOpaque() ? 1 : 0;");
        want.push(
            "Out[2u] = uint(((!rayQueryGetIntersectionCandidateAABBOpaqueEXT(q)) ? 1 : 0));".into(),
        );
        let want: Vec<&str> = want.iter().map(String::as_str).collect();
        has(&lines(&body), &want);
    }

    #[test]
    fn queries_in_arrays_and_parameters() {
        let src = format!(
            "{HEAD}
            uint Count(RayQuery<RAY_FLAG_NONE> q) {{ uint n = 0; while (q.Proceed()) {{ n++; }} return n; }}
            [shader(\"closesthit\")] void CH(inout A a, in BuiltInTriangleIntersectionAttributes b) {{
                {RAY}
                RayQuery<RAY_FLAG_NONE> qs[2];
                qs[1].TraceRayInline(Scene, 0, 1, r);
                a.id = Count(qs[1]);
            }}"
        );
        let lib = ser_lang::parse(&src).expect("parses");
        let iface = Interface::of(&lib).expect("an interface");
        let l: Vec<String> = entry_point(&lib, "CH", &iface, Spelling::Nv)
            .expect("emitted")
            .source
            .lines()
            .map(|l| l.trim().to_string())
            .collect();
        has(
            &l,
            &[
                "uint Count(in rayQueryEXT q);",
                "while (rayQueryProceedEXT(q)) {",
                "rayQueryEXT qs[2];",
                "rayQueryInitializeEXT(qs[1], Scene, 0u, 1u, r.Origin, r.TMin, r.Direction, r.TMax);",
                "a.id = Count(qs[1]);",
            ],
        );
    }

    #[test]
    fn record_from_query_under_ext() {
        let body = "RayQuery<RAY_FLAG_NONE> q; q.TraceRayInline(Scene, 0, 0xFF, r);
            A a; a.uv = float2(1, 2); a.id = 3;
            HitObject h = HitObject::FromRayQuery(q);
            HitObject g = HitObject::FromRayQuery(q, a);
            HitObject k = HitObject::FromRayQuery(q, 5, a);
            HitObject m = HitObject::RecordFromQuery(q, 3, a);
            HitObject n = HitObject::RecordFromQuery(q, 3, a, 9);";
        let src = emit(body, Spelling::Ext).expect("emitted");
        let l: Vec<String> = src.lines().map(|l| l.trim().to_string()).collect();
        has(
            &l,
            &[
                "#extension GL_EXT_shader_invocation_reorder : require",
                "#extension GL_EXT_ray_query : require",
                "layout(location = 0) hitObjectAttributeEXT BuiltInTriangleIntersectionAttributes _hoa0;",
                "layout(location = 1) hitObjectAttributeEXT A _hoa1;",
                "hitObjectRecordFromQueryEXT(h, q, 0u, 0);",
                "_hoa1 = a;",
                "hitObjectRecordFromQueryEXT(g, q, 0u, 1);",
                "hitObjectRecordFromQueryEXT(k, q, 0u, 1, 5u);",
                "hitObjectRecordFromQueryEXT(m, q, 3u, 1);",
                "hitObjectRecordFromQueryEXT(n, q, 3u, 1, 9u);",
            ],
        );
        let nv = emit(body, Spelling::Nv).expect_err("NV has no record-from-query");
        assert!(
            nv.0.contains("GL_NV_shader_invocation_reorder has no record-from-query"),
            "{nv}"
        );
    }

    #[test]
    fn what_glsl_cannot_express_is_declined() {
        for (body, why) in [
            ("RayQuery<RAY_FLAG_NONE> q; RayQuery<RAY_FLAG_NONE> c = q;", "cannot be assigned"),
            (
                "RayQuery<RAY_FLAG_NONE> q; RayQuery<RAY_FLAG_NONE> c; c = q;",
                "cannot be assigned",
            ),
            (
                "RayQuery<RAY_FLAG_NONE> qs[2]; uint i = Out[0]; qs[i].TraceRayInline(Scene, 0, 1, r);",
                "dynamically uniform",
            ),
            (
                "RayQuery<RAY_FLAG_NONE, RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS> q;",
                "no ray query flags",
            ),
            ("HitObject h; Out[0] = h.RayFlags();", "on other than a RayQuery"),
        ] {
            let e = emit(body, Spelling::Nv).expect_err(body);
            assert!(e.0.contains(why), "{body}: {e}");
        }
        assert!(emit(
            "RayQuery<RAY_FLAG_NONE, RAYQUERY_FLAG_NONE> q; q.TraceRayInline(Scene, 0, 1, r);",
            Spelling::Nv
        )
        .is_ok());
    }
}
