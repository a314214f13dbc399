//! The mapping's trickiest parts, line by line, and programs that must
//! compile with glslang.

use crate::emit::{entry_point, Glsl, Spelling, Unsupported};
use crate::interface::Interface;

fn emit(src: &str, entry: &str) -> Result<Glsl, Unsupported> {
    let lib = ser_lang::parse(src).expect("the test program parses");
    let iface = Interface::of(&lib).expect("an interface");
    entry_point(&lib, entry, &iface, Spelling::Nv)
}

/// Emits, compiles, and returns the GLSL lines, trimmed.
fn lines(src: &str, entry: &str) -> Vec<String> {
    let glsl = emit(src, entry).unwrap_or_else(|u| panic!("unsupported: {u}"));
    if let Err(m) = crate::compile::spirv(&glsl) {
        panic!("{}\n{m}", glsl.source);
    }
    glsl.source.lines().map(|l| l.trim().to_string()).collect()
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

const RAYGEN_HEAD: &str = "RWStructuredBuffer<float> Out : register(u0);\n";

#[test]
fn matrices_are_transposed_glsl_matrices() {
    let src = format!(
        "{RAYGEN_HEAD}[shader(\"raygeneration\")] void RG() {{
            float3x4 m = float3x4(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
            Out[0] = m[1][2];
            float4 row = m[2];
            m[0][3] = 0.5;
            float3 v = mul(m, float4(1, 0, 0, 0));
            float4 w = mul(float3(1, 0, 0), m);
            float4x3 t = transpose(m);
            float3x3 sq = mul(m, t);
            Out[1] = row.x + v.y + w.z + t[3][1] + sq[0][0];
        }}"
    );
    let l = lines(&src, "RG");
    has(
        &l,
        &[
            // HLSL rows fill GLSL columns, in the same order.
            "mat3x4 m = mat3x4(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);",
            // HLSL m[r][c] is GLSL m[r][c]: column r of the transposed matrix.
            "Out[0u] = m[1][2];",
            "vec4 row = m[2];",
            "m[0][3] = 0.5;",
            "vec3 v = (vec4(1, 0, 0, 0) * m);",
            "vec4 w = (m * vec3(1, 0, 0));",
            "mat4x3 t = transpose(m);",
            "mat3x3 sq = (t * m);",
        ],
    );
}

#[test]
fn system_value_matrices_keep_their_orientation() {
    let src = "RWStructuredBuffer<float> Out : register(u0);
        struct P { uint v; };
        [shader(\"closesthit\")] void CH(inout P p, in BuiltInTriangleIntersectionAttributes a) {
            float3x4 m = ObjectToWorld3x4();
            float4x3 n = WorldToObject4x3();
            Out[0] = m[0][3] + n[3][0];
        }";
    let l = lines(src, "CH");
    has(
        &l,
        &[
            "mat3x4 m = transpose(gl_ObjectToWorldEXT);",
            "mat4x3 n = gl_WorldToObjectEXT;",
        ],
    );
}

#[test]
fn vector_buffers_store_tightly_packed_words() {
    let src = "RWStructuredBuffer<float3> Out : register(u0);
        RWStructuredBuffer<uint2> U : register(u1);
        [shader(\"raygeneration\")] void RG() {
            uint i = DispatchRaysIndex().x;
            Out[i] = float3(1, 2, 3);
            Out[i].zx = float2(4, 5);
            U[2].y = 7;
            U[1] += uint2(1, 1);
            float3 back = Out[i];
            float z = Out[i].z;
            Out[0][1] = back.x + z;
        }";
    let l = lines(src, "RG");
    has(
        &l,
        &[
            "layout(set = 0, binding = 1, std430) buffer Out_block { float Out[]; };",
            "layout(set = 0, binding = 2, std430) buffer U_block { uint U[]; };",
            "uint _t1 = i;",
            "vec3 _t2 = vec3(1, 2, 3);",
            "Out[_t1 * 3u + 0u] = _t2.x;",
            "Out[_t1 * 3u + 1u] = _t2.y;",
            "Out[_t1 * 3u + 2u] = _t2.z;",
            // A swizzle writes just its components, in its order.
            "Out[_t3 * 3u + 2u] = _t4.x;",
            "Out[_t3 * 3u + 0u] = _t4.y;",
            "U[_t5 * 2u + 1u] = _t6;",
            "uvec2 _t8 = uvec2(U[_t7 * 2u + 0u], U[_t7 * 2u + 1u]) + uvec2(1, 1);",
            "vec3 back = vec3(Out[i * 3u + 0u], Out[i * 3u + 1u], Out[i * 3u + 2u]);",
            "float z = Out[i * 3u + 2u];",
            "Out[_t9 * 3u + 1u] = _t10;",
        ],
    );
}

#[test]
fn payloads_are_copied_in_and_out() {
    let src = "struct P { uint v; float f; };
        RWStructuredBuffer<uint> Out : register(u0);
        RaytracingAccelerationStructure Scene : register(t0);
        [shader(\"raygeneration\")] void RG() {
            P ps[2];
            ps[1].v = 1;
            RayDesc r;
            r.Origin = float3(0, 0, 0); r.Direction = float3(0, 0, 1); r.TMin = 0; r.TMax = 10;
            TraceRay(Scene, RAY_FLAG_FORCE_OPAQUE, 0xFF, 0, 1, 0, r, ps[1]);
            HitObject h = HitObject::TraceRay(Scene, 0, 0xFF, 0, 1, 0, r, ps[0]);
            HitObject::Invoke(h, ps[0]);
            Out[0] = ps[0].v + ps[1].v;
        }
        [shader(\"miss\")] void M(inout P p) { p.v = 2; }";
    let l = lines(src, "RG");
    has(
        &l,
        &[
            "layout(location = 1) rayPayloadEXT P _pl1;",
            "_pl1 = ps[1];",
            "traceRayEXT(Scene, 1u, 255u, 0u, 1u, 0u, r.Origin, r.TMin, r.Direction, r.TMax, 1);",
            "ps[1] = _pl1;",
            "hitObjectNV h;",
            "_pl1 = ps[0];",
            "hitObjectTraceRayNV(h, Scene, 0u, 255u, 0u, 1u, 0u, r.Origin, r.TMin, r.Direction, r.TMax, 1);",
            "ps[0] = _pl1;",
            "hitObjectExecuteShaderNV(h, 1);",
        ],
    );
    let m = lines(src, "M");
    has(
        &m,
        &["layout(location = 0) rayPayloadInEXT P p;", "p.v = 2u;"],
    );
}

#[test]
fn attributes_and_report_hit() {
    let src = "struct P { uint v; };
        struct A { float2 uv; uint k; };
        RWStructuredBuffer<uint> Out : register(u0);
        [shader(\"intersection\")] void IS() {
            A a; a.uv = float2(0.5, 0.25); a.k = 3;
            if (ReportHit(1.0, 7, a)) { Out[1] = 1; }
        }
        [shader(\"closesthit\")] void CH(inout P p, in A a) { a.k += 1; p.v = a.k + HitKind(); }";
    let is = lines(src, "IS");
    has(
        &is,
        &[
            "hitAttributeEXT A _ha;",
            "_ha = a;",
            "if (reportIntersectionEXT(1.0, 7u)) {",
        ],
    );
    let ch = lines(src, "CH");
    has(
        &ch,
        &[
            "hitAttributeEXT A _attr_in;",
            "A a = _attr_in;",
            "p.v = (a.k + gl_HitKindEXT);",
        ],
    );
}

#[test]
fn hit_object_api() {
    let src = "struct P { uint v; };
        struct A { float2 uv; };
        RWStructuredBuffer<uint> Out : register(u0);
        RaytracingAccelerationStructure Scene : register(t0);
        [shader(\"raygeneration\")] void RG() {
            RayDesc r;
            r.Origin = float3(0, 0, 0); r.Direction = float3(0, 0, 1); r.TMin = 0; r.TMax = 10;
            HitObject n;
            HitObject m = HitObject::MakeMiss(RAY_FLAG_NONE, 1, r);
            Out[0] = n.IsNop() ? 1 : 0;
            Out[1] = m.GetShaderTableIndex() + m.GetInstanceIndex() + m.GetInstanceID();
            A a = m.GetAttributes<A>();
            MaybeReorderThread(m);
            MaybeReorderThread(Out[0], 2);
            MaybeReorderThread(m, 5u, 3);
            Out[2] = HitObject::MakeNop().IsNop() ? asuint(a.uv.x) : 0;
        }";
    let l = lines(src, "RG");
    has(
        &l,
        &[
            "hitObjectNV n;",
            "hitObjectRecordEmptyNV(n);",
            "hitObjectRecordMissNV(m, 1u, r.Origin, r.TMin, r.Direction, r.TMax);",
            "Out[1u] = ((hitObjectGetShaderBindingTableRecordIndexNV(m) + uint(hitObjectGetInstanceIdNV(m))) + uint(hitObjectGetInstanceCustomIndexNV(m)));",
            "layout(location = 0) hitObjectAttributeNV A _hoa0;",
            "hitObjectGetAttributesNV(m, 0);",
            "A _t1 = _hoa0;",
            "A a = _t1;",
            "reorderThreadNV(m);",
            "reorderThreadNV(Out[0u], 2u);",
            "reorderThreadNV(m, 5u, 3u);",
            "hitObjectRecordEmptyNV(_t2);",
        ],
    );
}

/// The motion forms need GL_NV_ray_tracing_motion_blur in both spellings;
/// GL_EXT's record-miss form takes the ray flags.
#[test]
fn motion_forms_in_both_spellings() {
    let src = "struct P { uint v; };
        RWStructuredBuffer<float> Out : register(u0);
        RaytracingAccelerationStructure Scene : register(t0);
        [shader(\"raygeneration\")] void RG() {
            RayDesc r;
            r.Origin = float3(0, 0, 0); r.Direction = float3(0, 0, 1); r.TMin = 0; r.TMax = 10;
            P p;
            p.v = 0;
            HitObject h = HitObject::TraceRayMotion(Scene, 0, 255, 0, 1, 0, r, 0.5, p);
            HitObject m = HitObject::MakeMissMotion(0, 1, r, 0.25);
            TraceRayMotion(Scene, 0, 255, 0, 1, 0, r, 1.0, p);
            Out[0] = h.GetCurrentTime() + m.GetCurrentTime();
        }";
    let lib = ser_lang::parse(src).expect("the test program parses");
    let iface = Interface::of(&lib).expect("an interface");
    for (spelling, want) in [
        (
            Spelling::Nv,
            [
                "hitObjectTraceRayMotionNV(h, Scene, 0u, 255u, 0u, 1u, 0u, r.Origin, r.TMin, r.Direction, r.TMax, 0.5, 1);",
                "hitObjectRecordMissMotionNV(m, 1u, r.Origin, r.TMin, r.Direction, r.TMax, 0.25);",
                "Out[0u] = (hitObjectGetCurrentTimeNV(h) + hitObjectGetCurrentTimeNV(m));",
            ],
        ),
        (
            Spelling::Ext,
            [
                "hitObjectTraceRayMotionEXT(h, Scene, 0u, 255u, 0u, 1u, 0u, r.Origin, r.TMin, r.Direction, r.TMax, 0.5, 1);",
                "hitObjectRecordMissMotionEXT(m, 0u, 1u, r.Origin, r.TMin, r.Direction, r.TMax, 0.25);",
                "Out[0u] = (hitObjectGetCurrentTimeEXT(h) + hitObjectGetCurrentTimeEXT(m));",
            ],
        ),
    ] {
        let glsl = entry_point(&lib, "RG", &iface, spelling).expect("emitted");
        if let Err(m) = crate::compile::spirv(&glsl) {
            panic!("{}\n{m}", glsl.source);
        }
        let l: Vec<String> = glsl.source.lines().map(|l| l.trim().to_string()).collect();
        has(&l, &want);
        has(
            &l,
            &[
                "#extension GL_NV_ray_tracing_motion_blur : require",
                "traceRayMotionNV(Scene, 0u, 255u, 0u, 1u, 0u, r.Origin, r.TMin, r.Direction, r.TMax, 1.0, 1);",
            ],
        );
    }
}

#[test]
fn what_nv_cannot_express_is_unsupported() {
    let head = "struct P { uint v; };
        RWStructuredBuffer<uint> Out : register(u0);
        RaytracingAccelerationStructure Scene : register(t0);";
    let ray = "RayDesc r; r.Origin = float3(0, 0, 0); r.Direction = float3(0, 0, 1); r.TMin = 0; r.TMax = 10;";
    for (body, why) in [
        (
            "HitObject h = HitObject::MakeMiss(RAY_FLAG_FORCE_OPAQUE, 0, r);",
            "ray flags",
        ),
        ("HitObject h; Out[0] = h.GetRayFlags();", "GetRayFlags"),
        (
            "HitObject h; h.SetShaderTableIndex(1);",
            "SetShaderTableIndex",
        ),
        ("HitObject hs[2];", "HitObject in a struct or array"),
        ("HitObject a; HitObject b = a;", "cannot be assigned"),
    ] {
        let src = format!("{head}[shader(\"raygeneration\")] void RG() {{ {ray} {body} }}");
        let e = emit(&src, "RG").expect_err(body);
        assert!(e.0.contains(why), "{body}: {e}");
    }
}

#[test]
fn hlsl_conversions_and_integer_rules() {
    let src = "RWStructuredBuffer<int> Out : register(u0);
        cbuffer Local : register(b0, space1) { uint tag; float3 dir; };
        [shader(\"raygeneration\")] void RG() {
            int a = -7;
            int b = 2;
            Out[0] = a % b;
            uint s = 33;
            Out[1] = (int)(1u << s);
            float f = 2.5;
            int c = 1;
            c += f;
            Out[2] = c + (int)tag + (int)dir.y;
            bool t = s;
            Out[3] = t && !(s == 0) ? 1 : 0;
        }";
    let l = lines(src, "RG");
    has(
        &l,
        &[
            "layout(shaderRecordEXT, scalar) buffer Local_record {",
            // HLSL's `%` takes the dividend's sign.
            "Out[0u] = (a - b * (a / b));",
            // HLSL shifts by the low 5 bits.
            "Out[1u] = int((1u << (s & 31u)));",
            "c = int((float(c) + f));",
            "bool t = bool(s);",
        ],
    );
}

#[test]
fn loops_waves_and_callables_compile() {
    let src = "struct C { uint v; };
        RWStructuredBuffer<uint> Out : register(u0);
        uint Twice(uint x) { return x * 2; }
        void Bump(inout uint x) { x += 1; }
        [shader(\"raygeneration\")] void RG() {
            uint i = DispatchRaysIndex().x;
            uint acc = 0;
            for (uint k = 0; k < 4; k++) {
                if (k == 2) continue;
                acc += Twice(k);
            }
            int j = 3;
            while (j > 0) { j--; Bump(acc); }
            do { acc ^= 1; } while (acc > 100);
            C c; c.v = acc;
            CallShader(1, c);
            uint4 b = WaveActiveBallot(acc > 2);
            Out[i] = c.v + b.x + WaveActiveCountBits(true) + WaveActiveSum(1u) + WaveReadLaneFirst(i)
                + (WaveActiveAllEqual(i) ? 1 : 0) + (WaveIsFirstLane() ? WaveGetLaneCount() : 0);
            InterlockedAdd(Out[0], 1);
            uint old;
            InterlockedAdd(Out[1], 2u, old);
        }
        [shader(\"callable\")] void Callee(inout C c) { c.v = c.v * 3; }";
    let l = lines(src, "RG");
    has(
        &l,
        &[
            "layout(location = 1) callableDataEXT C _cd1;",
            "_cd1 = c;",
            "executeCallableEXT(1u, 1);",
            "c = _cd1;",
            "for (; k < 4u; k++) {",
            "atomicAdd(Out[0u], 1u);",
            "old = atomicAdd(Out[1u], 2u);",
        ],
    );
    has(
        &lines(src, "Callee"),
        &["layout(location = 0) callableDataInEXT C c;"],
    );
}

/// Every RayQuery method, in a helper that shares the caller's query,
/// called from every stage (`vk.traversal.intro.ray_query_any_stage`);
/// under GL_EXT also the record-from-query forms. Each module compiles
/// and, with `spirv-val` on PATH, validates.
#[test]
fn ray_queries_in_every_stage_compile() {
    let src = "struct P { uint v; };
        struct A { float2 uv; uint id; };
        RWStructuredBuffer<uint> Out : register(u0);
        RWStructuredBuffer<float> OutF : register(u1);
        RaytracingAccelerationStructure Scene : register(t0);
        uint Query(RayQuery<RAY_FLAG_CULL_BACK_FACING_TRIANGLES> q) {
            RayDesc r;
            r.Origin = float3(0, 0, 0); r.Direction = float3(0, 0, 1); r.TMin = 0.5; r.TMax = 100;
            q.TraceRayInline(Scene, RAY_FLAG_NONE, 0xFF, r);
            uint n = 0;
            while (q.Proceed()) {
                n += q.CandidateType() + q.CandidateInstanceIndex() + q.CandidateInstanceID()
                    + q.CandidateInstanceContributionToHitGroupIndex() + q.CandidateGeometryIndex()
                    + q.CandidatePrimitiveIndex();
                float3x4 a = q.CandidateObjectToWorld3x4();
                float4x3 b = q.CandidateWorldToObject4x3();
                OutF[0] = a[0][3] + b[3][0] + q.CandidateObjectRayOrigin().x + q.CandidateObjectRayDirection().y;
                if (q.CandidateType() == CANDIDATE_PROCEDURAL_PRIMITIVE) {
                    if (q.CandidateProceduralPrimitiveNonOpaque()) { q.CommitProceduralPrimitiveHit(5.0); }
                } else {
                    OutF[1] = q.CandidateTriangleRayT() + q.CandidateTriangleBarycentrics().x;
                    if (q.CandidateTriangleFrontFace()) { q.CommitNonOpaqueTriangleHit(); } else { q.Abort(); }
                }
            }
            if (q.CommittedStatus() != COMMITTED_NOTHING) {
                n += q.CommittedInstanceIndex() + q.CommittedInstanceID()
                    + q.CommittedInstanceContributionToHitGroupIndex() + q.CommittedGeometryIndex()
                    + q.CommittedPrimitiveIndex() + (q.CommittedTriangleFrontFace() ? 1 : 0);
                float4x3 c = q.CommittedObjectToWorld4x3();
                float3x4 d = q.CommittedWorldToObject3x4();
                OutF[2] = q.CommittedRayT() + c[3][2] + d[2][3] + q.CommittedObjectRayOrigin().z
                    + q.CommittedObjectRayDirection().x + q.CommittedTriangleBarycentrics().y;
            }
            OutF[3] = q.RayTMin() + q.WorldRayOrigin().x + q.WorldRayDirection().z;
            return n + q.RayFlags();
        }
        uint Run() { RayQuery<RAY_FLAG_CULL_BACK_FACING_TRIANGLES> q; return Query(q); }
        [shader(\"raygeneration\")] void RG() {
            Out[0] = Run();
            RayQuery<RAY_FLAG_NONE> q;
            RayDesc r;
            r.Origin = float3(0, 0, 0); r.Direction = float3(0, 0, 1); r.TMin = 0.5; r.TMax = 100;
            q.TraceRayInline(Scene, RAY_FLAG_NONE, 0xFF, r);
            while (q.Proceed()) { q.CommitProceduralPrimitiveHit(5.0); }
            A a; a.uv = float2(0.5, 0.25); a.id = 3;
            HitObject h = HitObject::FromRayQuery(q);
            HitObject g = HitObject::FromRayQuery(q, a);
            HitObject k = HitObject::RecordFromQuery(q, 2, a);
            Out[1] = (h.IsHit() ? 1 : 0) + g.GetShaderTableIndex() + k.GetShaderTableIndex();
        }
        [shader(\"closesthit\")] void CH(inout P p, in BuiltInTriangleIntersectionAttributes a) { p.v = Run(); }
        [shader(\"anyhit\")] void AH(inout P p, in BuiltInTriangleIntersectionAttributes a) { p.v = Run(); }
        [shader(\"miss\")] void MS(inout P p) { p.v = Run(); }
        [shader(\"intersection\")] void IS() { A a; a.uv = float2(0, 0); a.id = Run(); ReportHit(1.0, 0, a); }
        [shader(\"callable\")] void CL(inout P p) { p.v = Run(); }";
    let lib = ser_lang::parse(src).expect("the test program parses");
    let iface = Interface::of(&lib).expect("an interface");
    let tool = crate::compile::spirv_val();
    for spelling in [Spelling::Nv, Spelling::Ext] {
        for entry in ["RG", "CH", "AH", "MS", "IS", "CL"] {
            let glsl = match entry_point(&lib, entry, &iface, spelling) {
                Ok(g) => g,
                // NV has no record-from-query function.
                Err(u) if spelling == Spelling::Nv && entry == "RG" => {
                    assert!(u.0.contains("no record-from-query"), "{u}");
                    continue;
                }
                Err(u) => panic!("{entry} ({spelling:?}): {u}"),
            };
            let words =
                crate::compile::spirv(&glsl).unwrap_or_else(|m| panic!("{}\n{m}", glsl.source));
            if let Some(t) = &tool {
                if let Err(m) =
                    crate::compile::validate(t, &words, &format!("rq-{entry}-{spelling:?}"))
                {
                    panic!("{}\nspirv-val: {m}", glsl.source);
                }
            }
            let l: Vec<String> = glsl.source.lines().map(|l| l.trim().to_string()).collect();
            has(
                &l,
                &[
                    "#extension GL_EXT_ray_query : require",
                    "uint Query(in rayQueryEXT q);",
                    "rayQueryInitializeEXT(q, Scene, 16u, 255u, r.Origin, r.TMin, r.Direction, r.TMax);",
                ],
            );
        }
    }
}
