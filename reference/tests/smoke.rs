//! End-to-end runs of small programs through the reference.

use ser_reference::outcome::{Legal, Outcome};
use ser_reference::program::Program;
use ser_reference::sbt::{HitGroupRecord, ShaderRecord, ShaderTable};
use ser_reference::scene::{Blas, Geometry, Instance, Primitives, Scene};
use ser_reference::{run, Dispatch, RunOptions};
use std::collections::BTreeMap;

fn dispatch(words: usize, threads: u32) -> Dispatch {
    Dispatch {
        raygen: "RayGen".into(),
        size: [threads, 1, 1],
        wave_size: 32,
        max_recursion_depth: 1,
        pipeline_flags: 0,
        buffers: BTreeMap::from([("Out".to_string(), vec![0u32; words])]),
    }
}

fn one_triangle() -> Scene {
    Scene {
        blas: vec![Blas {
            geometries: vec![Geometry {
                primitives: Primitives::Triangles(vec![[
                    [-1.0, -1.0, 5.0],
                    [3.0, -1.0, 5.0],
                    [-1.0, 3.0, 5.0],
                ]]),
                opaque: true,
                no_duplicate_any_hit: false,
                opacity_micromap: None,
            }],
            allow_disable_opacity_micromaps: false,
        }],
        instances: vec![Instance {
            blas: 0,
            transform: ser_reference::scene::IDENTITY,
            instance_id: 7,
            mask: 0xFF,
            hit_group_offset: 0,
            flags: vec![],
            transform_t1: None,
        }],
    }
}

fn words(src: &str, scene: &Scene, table: &ShaderTable, d: &Dispatch) -> Vec<Legal> {
    let program = Program::new(ser_lang::parse(src).expect("parses")).expect("resolves");
    let r = run(&program, scene, table, d, &RunOptions::default());
    match r.outcome {
        Outcome::Completed(b) => b["Out"].words.clone(),
        Outcome::Fault(f) => panic!("fault: {f}"),
    }
}

fn exact(v: u32) -> Legal {
    Legal::Values(vec![ser_reference::outcome::Observed { bits: v, err: 0.0 }])
}

#[test]
fn nop_accessors() {
    let src = r#"
RWStructuredBuffer<uint> Out : register(u0);
[shader("raygeneration")]
void RayGen() {
    HitObject h;
    Out[0] = h.IsNop() ? 1 : 0;
    Out[1] = h.GetRayFlags();
    Out[2] = asuint(h.GetObjectToWorld3x4()[1][1]);
    Out[3] = h.GetShaderTableIndex();
    h.SetShaderTableIndex(5);
    Out[4] = h.GetShaderTableIndex();
}
"#;
    let w = words(
        src,
        &Scene::default(),
        &ShaderTable::default(),
        &dispatch(5, 1),
    );
    assert_eq!(
        w,
        vec![
            exact(1),
            exact(0),
            exact(1.0f32.to_bits()),
            exact(0),
            exact(0)
        ]
    );
}

#[test]
fn trace_and_invoke_a_triangle() {
    let src = r#"
struct Payload { uint v; };
RWStructuredBuffer<uint> Out : register(u0);
RaytracingAccelerationStructure Scene : register(t0);
[shader("raygeneration")]
void RayGen() {
    RayDesc r;
    r.Origin = float3(0, 0, 0);
    r.Direction = float3(0, 0, 1);
    r.TMin = 0.0;
    r.TMax = 100.0;
    Payload p;
    p.v = 0;
    HitObject h = HitObject::TraceRay(Scene, RAY_FLAG_NONE, 0xFF, 0, 1, 0, r, p);
    Out[0] = h.IsHit();
    Out[1] = h.GetInstanceID();
    Out[2] = h.GetHitKind();
    MaybeReorderThread(h);
    HitObject::Invoke(h, p);
    Out[3] = p.v;
    h = HitObject::MakeMiss(0, 0, r);
    HitObject::Invoke(h, p);
    Out[4] = p.v;
}
[shader("closesthit")]
void Hit(inout Payload p, in BuiltInTriangleIntersectionAttributes a) { p.v = 11; }
[shader("miss")]
void Miss(inout Payload p) { p.v = 22; }
"#;
    let table = ShaderTable {
        hit_groups: vec![HitGroupRecord {
            closest_hit: Some("Hit".into()),
            ..Default::default()
        }],
        miss: vec![ShaderRecord {
            shader: Some("Miss".into()),
            ..Default::default()
        }],
        ..Default::default()
    };
    let w = words(src, &one_triangle(), &table, &dispatch(5, 4));
    // The triangle winds clockwise seen from a ray along +z: back face.
    assert_eq!(
        w,
        vec![exact(1), exact(7), exact(0xFF), exact(11), exact(22)]
    );
}
