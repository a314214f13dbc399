//! Printing and parsing keep the IR: `parse(print(ir)) == ir`, and printing
//! is a fixpoint.

use ser_lang::{parse, print};

const SAMPLE: &str = r#"
// Every construct of the language at least once.
[raypayload]
struct Payload {
    uint value : read(caller, closesthit) : write(caller, miss, closesthit);
    float3 color : read(caller) : write(anyhit);
};
struct Attribs { float2 uv; uint extra[2]; };
RWStructuredBuffer<uint> Out : register(u0);
globallycoherent RWStructuredBuffer<float4> Colors : register(u1);
RaytracingAccelerationStructure Scene : register(t0);
cbuffer Local : register(b0, space1) { uint material; float albedo; };

uint helper(HitObject h, inout uint acc, out float f) {
    acc += h.GetShaderTableIndex() << 2;
    f = (float)acc * 0.5f;
    return acc > 3u ? acc : 0xFFu;
}

[shader("raygeneration")]
void RayGen() {
    uint3 id = DispatchRaysIndex();
    RayDesc ray;
    ray.Origin = float3(0, 0, -1.5);
    ray.Direction = float3(0.0, 0.0, 1.0);
    ray.TMin = 0.0f; ray.TMax = 1e30;
    Payload p = (Payload)0;
    HitObject h = HitObject::TraceRay(Scene, RAY_FLAG_NONE, 0xFF, 0, 1, 0, ray, p);
    MaybeReorderThread(h, id.x & 3, 2);
    HitObject::Invoke(h, p);
    HitObject n;
    n = HitObject::MakeMiss(RAY_FLAG_FORCE_OPAQUE | RAY_FLAG_CULL_OPAQUE, 1, ray);
    RayQuery<RAY_FLAG_NONE> q;
    q.TraceRayInline(Scene, 0, 0xFF, ray);
    while (q.Proceed()) {
        if (q.CandidateType() == CANDIDATE_PROCEDURAL_PRIMITIVE) q.CommitProceduralPrimitiveHit(2.0);
        else if (!false) { q.CommitNonOpaqueTriangleHit(); }
        else
            continue;
    }
    Attribs a = h.GetAttributes<Attribs>();
    float3x4 m = h.GetObjectToWorld3x4();
    float f;
    uint acc = 0, i;
    for (i = 0; i < 4; i++) { acc = helper(h, acc, f); if (acc == 2) break; }
    for (uint j = 0; j < 2; ++j) acc -= -(-1);
    do { acc--; } while (acc > 10 && !(acc == 7 || acc < 2));
    Out[id.x] = acc + (uint)m[0][3] * 2 - ~a.extra[1] % 3;
    Out[id.x + 1] = (acc & 1) == 0 ? asuint(f) : uint(f);
    Colors[0] = float4(h.GetWorldRayOrigin(), 1).zyxw;
}

[shader("closesthit")]
void Hit(inout Payload p, in BuiltInTriangleIntersectionAttributes attr) {
    p.value = material + PrimitiveIndex();
    return;
}
"#;

#[test]
fn sample_round_trips_through_the_printer() {
    let ir = parse(SAMPLE).unwrap_or_else(|e| panic!("sample does not parse: {e}"));
    let text = print(&ir);
    let again = parse(&text).unwrap_or_else(|e| panic!("printed text does not parse: {e}\n{text}"));
    assert_eq!(ir, again, "IR changed through the printer:\n{text}");
    assert_eq!(text, print(&again), "printing is not a fixpoint");
}

#[test]
fn ir_round_trips_through_json() {
    let ir = parse(SAMPLE).unwrap();
    let json = serde_json::to_string(&ir).unwrap();
    let back: ser_lang::Library = serde_json::from_str(&json).unwrap();
    assert_eq!(ir, back);
}

#[test]
fn parse_errors_give_line_column_and_declaration() {
    let src = "struct P { uint a; };\n[shader(\"raygeneration\")]\nvoid RayGen() {\n    uint x = 1 +;\n}\n";
    let err = parse(src).unwrap_err();
    assert_eq!((err.span.line, err.span.column), (4, 17));
    assert_eq!(err.within.as_deref(), Some("RayGen"));
    assert!(
        err.message.contains("expected an expression"),
        "{}",
        err.message
    );
}

#[test]
fn unknown_type_is_an_error_not_an_expression() {
    let err = parse("void f() { Foo x; }").unwrap_err();
    assert_eq!((err.span.line, err.span.column), (1, 16));
}

#[test]
fn printed_sample_looks_canonical() {
    let text = print(&parse(SAMPLE).unwrap());
    println!("{text}");
    assert!(text.contains(
        "HitObject h = HitObject::TraceRay(Scene, RAY_FLAG_NONE, 0xFF, 0, 1, 0, ray, p);"
    ));
    assert!(text.contains("acc -= -(-1);"));
    assert!(text.contains("Attribs a = h.GetAttributes<Attribs>();"));
}

/// Shader Model 6.9's `dx::` names parse to the same items as the plain
/// ones; the library keeps how each use was written (and whether a `using
/// namespace dx;` was in scope), and the canonical printer writes them back
/// so, so the round trip holds.
#[test]
fn dx_namespace_names_round_trip_as_written() {
    let qualified = "[shader(\"raygeneration\")] void RG() { dx::HitObject h = dx::HitObject::MakeNop(); dx::MaybeReorderThread(h); HitObject n = HitObject::MakeNop(); }";
    let plain = qualified.replace("dx::", "");
    let (q, p) = (parse(qualified).unwrap(), parse(&plain).unwrap());
    assert!(q.dx_namespace && !p.dx_namespace);
    assert_eq!(q.items, p.items);
    let written: Vec<bool> = q.name_uses.iter().map(|u| u.qualified).collect();
    assert_eq!(written, [true, true, true, false, false]);
    let text = print(&q);
    assert!(
        text.contains("dx::HitObject h = dx::HitObject::MakeNop();"),
        "{text}"
    );
    assert!(text.contains("dx::MaybeReorderThread(h);"), "{text}");
    assert!(
        text.contains("    HitObject n = HitObject::MakeNop();"),
        "{text}"
    );
    assert_eq!(parse(&text).unwrap(), q);
    assert!(!print(&p).contains("dx::"));
}

/// `using namespace dx;` at file scope and in a block: the uses after it
/// (in its block) are in its scope, the others not.
#[test]
fn using_namespace_dx_scopes() {
    let text = "void F() { { using namespace dx; HitObject a = HitObject::MakeNop(); } MaybeReorderThread(0, 0); }
using namespace dx;
[shader(\"raygeneration\")] void RG() { HitObject b; }";
    let lib = parse(text).unwrap();
    let scoped: Vec<(String, bool)> = lib
        .name_uses
        .iter()
        .map(|u| (u.name.clone(), u.in_using_scope))
        .collect();
    assert_eq!(
        scoped,
        [
            ("HitObject".to_string(), true),
            ("HitObject".to_string(), true),
            ("MaybeReorderThread".to_string(), false),
            ("HitObject".to_string(), true),
        ]
    );
    assert_eq!(lib.using_dx, [1]);
    let printed = print(&lib);
    assert!(
        printed.contains("using namespace dx;\n[shader"),
        "{printed}"
    );
    assert_eq!(parse(&printed).unwrap(), lib);
}

/// The forms of one profile a library uses are found, each once.
#[test]
fn profile_forms_are_found() {
    let src = "struct A { uint a; }; RaytracingAccelerationStructure Scene : register(t0);
        [shader(\"raygeneration\")] void RG() { RayDesc r; A a; A b;
        HitObject h = HitObject::MakeHit(Scene, 0, 0, 0, 254, 0, 1, r, a);
        HitObject g = HitObject::MakeHit(Scene, 0, 0, 0, 254, 0, 1, r, a);
        h.GetAttributes(b); A c = h.GetAttributes<A>(); }";
    let forms: Vec<&str> = ser_lang::forms::used(&parse(src).unwrap())
        .iter()
        .map(|f| f.clause)
        .collect();
    assert_eq!(
        forms,
        [
            "glsl_nv.hit_object_record_hit.signature",
            "sm69.hit_object.get_attributes.out_parameter_signature"
        ]
    );
}

/// `RayQuery`'s optional second template parameter (Shader Model 6.9)
/// round-trips, and is a form of `sm69` whether written in a declaration or
/// a parameter; the one-parameter form is not.
#[test]
fn ray_query_flags_parameter_is_an_sm69_form() {
    let decl = "[shader(\"raygeneration\")] void RG() { RayQuery<RAY_FLAG_NONE, RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS> q; }";
    let param = "void F(RayQuery<RAY_FLAG_NONE, RAYQUERY_FLAG_NONE> q) { } [shader(\"raygeneration\")] void RG() { RayQuery<0> q; F(q); }";
    let plain = "[shader(\"raygeneration\")] void RG() { RayQuery<RAY_FLAG_NONE> q; }";
    for src in [decl, param] {
        let lib = parse(src).unwrap();
        assert_eq!(parse(&print(&lib)).unwrap(), lib);
        let forms: Vec<&str> = ser_lang::forms::used(&lib)
            .iter()
            .map(|f| f.clause)
            .collect();
        assert_eq!(forms, ["dxr.ray_query.type.template_parameters"], "{src}");
    }
    assert!(print(&parse(decl).unwrap())
        .contains("RayQuery<RAY_FLAG_NONE, RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS> q;"));
    assert!(ser_lang::forms::used(&parse(plain).unwrap()).is_empty());
}
