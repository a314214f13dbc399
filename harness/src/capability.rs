//! Capabilities: optional parts of the model a backend may lack. A case
//! needs those its shaders use (found by scanning the IR) and those it lists
//! in `requires`; a backend that lacks one reports the case as not
//! supported, naming it.

use ser_lang::ast::{Expr, ExprKind, Item, Library, Type};

/// `(name, what it means)`.
pub const CAPABILITIES: &[(&str, &str)] = &[
    (
        "shader_execution_reorder",
        "hit objects and reordering (`HitObject`, `MaybeReorderThread`, `reordercoherent`; VK_NV/EXT_ray_tracing_invocation_reorder): a ray tracing implementation without SER is judged on the rest",
    ),
    ("ray_query", "inline ray tracing (`RayQuery`)"),
    ("hit_object_from_ray_query", "`HitObject::FromRayQuery`"),
    ("hit_object_set_shader_table_index", "`HitObject::SetShaderTableIndex`"),
    ("hit_object_get_ray_flags", "`HitObject::GetRayFlags`"),
    ("hit_object_load_local_root_table_constant", "`HitObject::LoadLocalRootTableConstant`"),
    (
        "hit_object_triangle_vertex_positions",
        "`HitObject::GetTriangleVertexPositions` (GL_EXT's vertex position getter, which needs ray tracing position fetch)",
    ),
    ("callable_shaders", "`CallShader` and callable shaders"),
    ("wave_operations", "wave intrinsics (`WaveActiveBallot`, ...)"),
    ("opacity_micromaps", "opacity micromaps on triangle geometries"),
    (
        "motion_blur",
        "motion instances and the motion functions of the GLSL texts (`HitObject::TraceRayMotion`, `GetCurrentTime`, ...; VK_NV_ray_tracing_motion_blur)",
    ),
    ("validation", "reporting the validator's diagnostics by the suite's codes (negative cases)"),
    (
        "rejection",
        "rejecting the programs negative cases hold and accepting their controls: a negative case is judged by whether the compiler rejects the program, not by the suite's code (as test262 checks only an error's phase and type); cases that expect only warnings are outside it",
    ),
    ("schedule_control", "choosing the schedule at reorder points (cases that pin one)"),
    ("sbt_layout", "computing how an API lays out a shader table (layout cases)"),
    (
        "undefined_behaviour_diagnosis",
        "reporting that a program broke a rule the spec states for run time (only the reference can)",
    ),
];

pub fn is_known(name: &str) -> bool {
    CAPABILITIES.iter().any(|(n, _)| *n == name)
}

/// The capabilities a library's shaders use.
pub fn used_by(lib: &Library) -> Vec<&'static str> {
    let mut used = Vec::new();
    let mut add = |c: &'static str| {
        if !used.contains(&c) {
            used.push(c);
        }
    };
    // One walk over the expressions: the SER calls among them, and the
    // capabilities each form needs.
    let mut ser_call = false;
    ser_lang::visit::exprs(lib, &mut |e| {
        ser_call |= is_ser_call(e);
        match &e.kind {
            ExprKind::MethodCall { method, .. } => match method.as_str() {
                "SetShaderTableIndex" => add("hit_object_set_shader_table_index"),
                "GetRayFlags" => add("hit_object_get_ray_flags"),
                "LoadLocalRootTableConstant" => add("hit_object_load_local_root_table_constant"),
                "GetTriangleVertexPositions" => add("hit_object_triangle_vertex_positions"),
                "GetCurrentTime" => add("motion_blur"),
                "TraceRayInline" | "Proceed" => add("ray_query"),
                _ => {}
            },
            ExprKind::StaticCall { method, .. }
                if method == "FromRayQuery" || method == "RecordFromQuery" =>
            {
                add("hit_object_from_ray_query");
                add("ray_query");
            }
            ExprKind::StaticCall { method, .. } if method.contains("Motion") => add("motion_blur"),
            ExprKind::Call { name, .. } if name == "TraceRayMotion" => add("motion_blur"),
            ExprKind::Call { name, .. } if name == "CallShader" => add("callable_shaders"),
            ExprKind::Call { name, .. } if name.starts_with("Wave") => add("wave_operations"),
            _ => {}
        }
    });
    for item in &lib.items {
        if let ser_lang::ast::Item::Function(f) = item {
            if f.stage() == Some("callable") {
                add("callable_shaders");
            }
        }
    }
    // SER first, where the list has always named it.
    if ser_call || declares_ser(lib) {
        used.insert(0, "shader_execution_reorder");
    }
    used
}

// A library uses SER at all when it has a `HitObject` anywhere (a
// `HitObject::` call, or the type in a signature, a local, a struct or
// groupshared memory), a reorder call, or a `reordercoherent` resource.
// Everything else is ray tracing that an implementation without SER can
// run.

/// Whether an expression is a SER call: `HitObject::...` or a reorder.
fn is_ser_call(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::StaticCall { ty, .. } => ty == "HitObject",
        ExprKind::Call { name, .. } => name == "MaybeReorderThread" || name == "ReorderThread",
        _ => false,
    }
}

/// Whether a library's declarations use SER: a `HitObject` in a type, or a
/// `reordercoherent` resource.
fn declares_ser(lib: &Library) -> bool {
    ser_lang::visit::types(lib).any(Type::is_hit_object_or_array)
        || lib.items.iter().any(|item| match item {
            Item::Struct(s) => s.fields.iter().any(|f| f.ty.is_hit_object_or_array()),
            Item::GroupShared(g) => g.ty.is_hit_object_or_array(),
            Item::Resource(r) => {
                r.storage.iter().any(|s| s == "reordercoherent")
                    || r.kind.element().is_some_and(Type::is_hit_object_or_array)
            }
            Item::Global(g) => {
                g.ty.is_hit_object_or_array() || g.storage.iter().any(|s| s == "reordercoherent")
            }
            Item::CBuffer(c) => c.fields.iter().any(|f| f.ty.is_hit_object_or_array()),
            Item::Function(f) => f.qualifiers.iter().any(|s| s == "reordercoherent"),
        })
}
