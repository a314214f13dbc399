//! The device runtime on its own, with hand-written shaders: one triangle
//! (primitive 0) in one instance, a hit group whose record holds the local
//! root constant 1000, a miss shader. The first test needs any device with
//! ray tracing pipelines (lavapipe too); the second needs
//! `VK_NV_ray_tracing_invocation_reorder`. Without such a device each says
//! "not supported" and checks nothing.

use ser_vulkan::device::{Gpu, Job, Module};
use ser_vulkan::emit::{Glsl, Stage};
use ser_vulkan::interface::Interface;

/// The device, or `None` after saying why there is none.
fn gpu(needs_reorder: bool) -> Option<Gpu> {
    match Gpu::open() {
        Ok(g) if needs_reorder && !g.features.reorder_nv => {
            eprintln!(
                "not supported: {} lacks VK_NV_ray_tracing_invocation_reorder",
                g.name
            );
            None
        }
        Ok(g) => Some(g),
        Err(e) => {
            eprintln!("not supported: {}", e.0);
            None
        }
    }
}

/// Runs `rgen` over the scene: the closest-hit shader writes 100 +
/// PrimitiveIndex (0) + the record's constant (1000) into the payload, the
/// miss shader 55. Returns the 8 words of `Out` (initially 0xDEADBEEF).
fn run(gpu: &Gpu, rgen: &str) -> Vec<u32> {
    let chit = r#"#version 460
#extension GL_EXT_ray_tracing : require
layout(location=0) rayPayloadInEXT uint p;
layout(shaderRecordEXT, std430) buffer SR { uint c[]; };
void main() { p = 100u + gl_PrimitiveID + c[0]; }
"#;
    let miss = "#version 460\n#extension GL_EXT_ray_tracing : require\nlayout(location=0) rayPayloadInEXT uint p;\nvoid main() { p = 55u; }\n";
    let mut modules = Vec::new();
    for (e, st, src) in [
        ("RayGen", Stage::RayGeneration, rgen),
        ("CH", Stage::ClosestHit, chit),
        ("Miss", Stage::Miss, miss),
    ] {
        let g = Glsl {
            stage: st,
            entry: e.into(),
            source: src.into(),
        };
        let spirv = ser_vulkan::compile::spirv(&g).unwrap_or_else(|e| panic!("{}: {e}", g.entry));
        let stage = match st {
            Stage::RayGeneration => ash::vk::ShaderStageFlags::RAYGEN_KHR,
            Stage::ClosestHit => ash::vk::ShaderStageFlags::CLOSEST_HIT_KHR,
            _ => ash::vk::ShaderStageFlags::MISS_KHR,
        };
        modules.push(Module {
            entry: e.into(),
            stage,
            spirv,
        });
    }
    let scene: ser_reference::scene::Scene = serde_json::from_str(r#"{"blas":[{"geometries":[{"triangles":[[[0,0,5],[1,0,5],[0,1,5]]],"opaque":true}]}],"instances":[{"blas":0}]}"#).unwrap();
    let table: ser_reference::sbt::ShaderTable = serde_json::from_str(r#"{"hit_groups":[{"closest_hit":"CH","local_root_constants":[1000]}],"miss":[{"shader":"Miss"}]}"#).unwrap();
    let lib = ser_lang::parser::parse("RaytracingAccelerationStructure Scene : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n").unwrap();
    let interface = Interface::of(&lib).unwrap();
    let dispatch = ser_reference::Dispatch {
        raygen: "RayGen".into(),
        size: [1, 1, 1],
        wave_size: 32,
        max_recursion_depth: 1,
        pipeline_flags: 0,
        buffers: [("Out".to_string(), vec![0xDEADBEEFu32; 8])]
            .into_iter()
            .collect(),
    };
    let out = gpu
        .run(&Job {
            scene: &scene,
            table: &table,
            dispatch: &dispatch,
            interface: &interface,
            modules: &modules,
        })
        .unwrap();
    out["Out"].clone()
}

#[test]
fn a_hand_written_pipeline_traces_hits_and_misses() {
    let Some(gpu) = gpu(false) else { return };
    let rgen = r#"#version 460
#extension GL_EXT_ray_tracing : require
layout(set=0, binding=0) uniform accelerationStructureEXT Scene;
layout(set=0, binding=1, std430) buffer Out_block { uint Out[]; };
layout(location=0) rayPayloadEXT uint pl;
void main() {
  pl = 7u;
  traceRayEXT(Scene, 0u, 0xFFu, 0u, 1u, 0u, vec3(0.25, 0.25, 0.0), 0.0, vec3(0,0,1), 100.0, 0);
  Out[0] = pl;
  pl = 7u;
  traceRayEXT(Scene, 0u, 0xFFu, 0u, 1u, 0u, vec3(5.0, 5.0, 0.0), 0.0, vec3(0,0,1), 100.0, 0);
  Out[1] = pl;
  Out[2] = gl_LaunchIDEXT.x;
}
"#;
    // The ray from (0.25, 0.25, 0) along +z meets the triangle; the ray
    // from (5, 5, 0) misses; launch index 0; the rest is never written.
    let d = 0xDEADBEEF;
    assert_eq!(run(&gpu, rgen), vec![1100, 55, 0, d, d, d, d, d]);
}

#[test]
fn a_hand_written_pipeline_traces_records_and_invokes_hit_objects() {
    let Some(gpu) = gpu(true) else { return };
    let rgen = r#"#version 460
#extension GL_EXT_ray_tracing : require
#extension GL_NV_shader_invocation_reorder : require
layout(set=0, binding=0) uniform accelerationStructureEXT Scene;
layout(set=0, binding=1, std430) buffer Out_block { uint Out[]; };
layout(location=0) rayPayloadEXT uint pl;
layout(location=1) rayPayloadEXT uint pl2;
void main() {
  pl = 7u;
  traceRayEXT(Scene, 0u, 0xFFu, 0u, 1u, 0u, vec3(0.25, 0.25, 0.0), 0.0, vec3(0,0,1), 100.0, 0);
  Out[0] = pl;
  hitObjectNV h;
  hitObjectTraceRayNV(h, Scene, 0u, 0xFFu, 0u, 1u, 0u, vec3(0.25, 0.25, 0.0), 0.0, vec3(0,0,1), 100.0, 1);
  Out[1] = hitObjectIsHitNV(h) ? 1u : 0u;
  Out[2] = floatBitsToUint(hitObjectGetRayTMaxNV(h));
  Out[3] = hitObjectGetShaderBindingTableRecordIndexNV(h);
  reorderThreadNV(h);
  pl2 = 0u;
  hitObjectExecuteShaderNV(h, 1);
  Out[4] = pl2;
  hitObjectNV m;
  hitObjectTraceRayNV(m, Scene, 0u, 0xFFu, 0u, 1u, 0u, vec3(5.0, 5.0, 0.0), 0.0, vec3(0,0,1), 100.0, 1);
  Out[5] = hitObjectIsMissNV(m) ? 1u : 0u;
  Out[6] = gl_LaunchIDEXT.x;
}
"#;
    // The ray from (0.25, 0.25, 0) along +z meets the triangle at z = 5,
    // so t = 5; one hit group, contribution 0: record 0; Invoke runs the
    // same closest-hit shader; the ray from (5, 5, 0) misses; launch index
    // 0; the last word is never written.
    assert_eq!(
        run(&gpu, rgen),
        vec![1100, 1, 5.0f32.to_bits(), 0, 1100, 1, 0, 0xDEADBEEF]
    );
}
