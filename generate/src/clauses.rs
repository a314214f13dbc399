//! The clause each kind of generated statement exercises, from the text
//! the program's dialect answers to: the SER proposal's for HLSL, the
//! GLSL extension texts for hit objects under Vulkan, the Vulkan chapter
//! for tracing and inline queries there.

use crate::dialect::{Dialect, Language};
use crate::program::{Accessor, Construct, Reorder, Stmt};

/// The three texts a generated statement can answer to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Text {
    Proposal,
    Nv,
    Ext,
}

fn text(d: Dialect) -> Text {
    match d.language {
        Language::Hlsl { .. } => Text::Proposal,
        Language::GlslNv => Text::Nv,
        Language::GlslExt => Text::Ext,
    }
}

/// Picks the clause of the text: `(proposal, nv, ext)`.
fn pick(d: Dialect, (p, nv, ext): (&'static str, &'static str, &'static str)) -> &'static str {
    match text(d) {
        Text::Proposal => p,
        Text::Nv => nv,
        Text::Ext => ext,
    }
}

/// What a program without a statement that names a clause still checks:
/// what its epilogue reads (its hit objects, or its payload after traces).
pub fn fallback(d: Dialect) -> &'static str {
    if !d.ser {
        return "vk.result.closest_hit_shader_invoked";
    }
    pick(
        d,
        (
            "ser.hit_object.type.encapsulates_hit_or_miss",
            "glsl_nv.hit_object_is_hit.true_only_for_hit",
            "glsl_ext.hit_object_is_hit.true_only_for_hit",
        ),
    )
}

/// The clause a statement exercises, if any (control flow names none).
pub fn of(s: &Stmt, d: Dialect) -> Option<&'static str> {
    let vulkan = text(d) != Text::Proposal;
    Some(match s {
        Stmt::Construct { how, .. } => pick(d, construct(how)),
        Stmt::SetIndex { .. } => pick(
            d,
            (
                "ser.hit_object.set_shader_table_index.sets_index",
                "glsl_ext.hit_object_set_sbt_record_index.sets_index",
                "glsl_ext.hit_object_set_sbt_record_index.sets_index",
            ),
        ),
        Stmt::Invoke(_) => pick(d, EXECUTE),
        Stmt::Reorder(r) => pick(d, reorder(r)),
        Stmt::TraceRay(_) if vulkan => "vk.result.closest_hit_shader_invoked",
        Stmt::TraceRay(_) => "ser.design.canonical_sequence.functionally_equivalent_to_trace_ray",
        Stmt::Read { accessor, .. } => pick(d, read(*accessor)),
        Stmt::LoadConstant { .. } => pick(
            d,
            (
                "ser.hit_object.load_local_root_table_constant.loads_from_shader_table",
                "glsl_nv.hit_object_get_shader_record_buffer_handle.returns_record_address",
                "glsl_ext.hit_object_get_shader_record_buffer_handle.returns_record_address",
            ),
        ),
        Stmt::ReadPayload | Stmt::SetPayload(_) if !d.ser => "vk.result.closest_hit_shader_invoked",
        Stmt::ReadPayload | Stmt::SetPayload(_) => pick(d, EXECUTE),
        Stmt::Query(_) if vulkan => "vk.result.ray_query_committed_hit_type",
        Stmt::Query(_) => "dxr.ray_query.committed_status.returns_status",
        Stmt::IfHit { .. } => pick(d, IS_HIT),
        Stmt::IfThread { .. } | Stmt::Repeat { .. } => return None,
    })
}

type Clauses = (&'static str, &'static str, &'static str);

const EXECUTE: Clauses = (
    "ser.hit_object.invoke.executes_closesthit_or_miss",
    "glsl_nv.hit_object_execute_shader.executes_encoded_shader",
    "glsl_ext.hit_object_execute_shader.executes_encoded_shader",
);

const IS_HIT: Clauses = (
    "ser.hit_object.is_hit.true_for_hit",
    "glsl_nv.hit_object_is_hit.true_only_for_hit",
    "glsl_ext.hit_object_is_hit.true_only_for_hit",
);

fn construct(how: &Construct) -> Clauses {
    match how {
        Construct::Trace(_) => (
            "ser.hit_object.trace_ray.executes_traversal_returns_hit_object",
            "glsl_nv.hit_object_trace_ray.traverses_and_records",
            "glsl_ext.hit_object_trace_ray.traverses_and_records",
        ),
        Construct::MakeMiss { .. } => (
            "ser.hit_object.make_miss.constructs_miss",
            "glsl_nv.hit_object_record_miss.populates_miss",
            "glsl_ext.hit_object_record_miss.populates_miss",
        ),
        Construct::MakeNop | Construct::Default => (
            "ser.hit_object.make_nop.neither_hit_nor_miss",
            "glsl_nv.hit_object_record_empty.neither_hit_nor_miss",
            "glsl_ext.hit_object_record_empty.neither_hit_nor_miss",
        ),
        Construct::Copy(_) => (
            "ser.hit_object.type.value_semantics",
            "ser.hit_object.type.value_semantics",
            "ser.hit_object.type.value_semantics",
        ),
        Construct::FromRayQuery { .. } => (
            "ser.hit_object.from_ray_query.represents_committed_hit",
            "glsl_ext.hit_object_record_from_query.populates_hit",
            "glsl_ext.hit_object_record_from_query.populates_hit",
        ),
        Construct::MakeHit { index: None, .. } => (
            "glsl_nv.hit_object_record_hit.populates_hit",
            "glsl_nv.hit_object_record_hit.populates_hit",
            "glsl_nv.hit_object_record_hit.populates_hit",
        ),
        Construct::MakeHit { index: Some(_), .. } => (
            "glsl_nv.hit_object_record_hit_with_index.populates_hit",
            "glsl_nv.hit_object_record_hit_with_index.populates_hit",
            "glsl_nv.hit_object_record_hit_with_index.populates_hit",
        ),
    }
}

fn reorder(r: &Reorder) -> Clauses {
    match r {
        Reorder::Object(_) => (
            "ser.maybe_reorder_thread.reorder_point.introduces_reorder_point",
            "glsl_nv.reorder.hit_object.reorders_by_hit_object",
            "glsl_ext.reorder.hit_object.reorders_by_hit_object",
        ),
        Reorder::ObjectHint { .. } => (
            "ser.maybe_reorder_thread.reorder_point.introduces_reorder_point",
            "glsl_nv.reorder.hit_object_and_hint.reorders_by_both",
            "glsl_ext.reorder.hit_object_and_hint.reorders_by_both",
        ),
        Reorder::Hint { .. } => (
            "ser.maybe_reorder_thread.reorder_point.introduces_reorder_point",
            "glsl_nv.reorder.hint.reorders_by_hint",
            "glsl_ext.reorder.hint.reorders_by_hint",
        ),
    }
}

fn read(a: Accessor) -> Clauses {
    match a {
        Accessor::Barycentrics => (
            "ser.hit_object.get_attributes.returns_attributes",
            "glsl_nv.hit_object_get_attributes.extracts_attributes",
            "glsl_ext.hit_object_get_attributes.extracts_attributes",
        ),
        Accessor::Bool(_) => IS_HIT,
        Accessor::Uint("GetRayFlags") => (
            "ser.hit_object.type.encapsulates_hit_or_miss",
            "glsl_ext.hit_object_get_ray_flags.returns_ray_flags",
            "glsl_ext.hit_object_get_ray_flags.returns_ray_flags",
        ),
        Accessor::Uint("GetInstanceIndex") => (
            "ser.hit_object.type.encapsulates_hit_or_miss",
            "glsl_nv.hit_object_get_instance_id.returns_instance_index",
            "glsl_ext.hit_object_get_instance_id.returns_instance_index",
        ),
        Accessor::Uint("GetInstanceID") => (
            "ser.hit_object.type.encapsulates_hit_or_miss",
            "glsl_nv.hit_object_get_instance_custom_index.returns_custom_index",
            "glsl_ext.hit_object_get_instance_custom_index.returns_custom_index",
        ),
        Accessor::Uint("GetShaderTableIndex") => (
            "ser.hit_object.type.encapsulates_hit_or_miss",
            "glsl_nv.hit_object_get_sbt_record_index.returns_index",
            "glsl_ext.hit_object_get_sbt_record_index.returns_index",
        ),
        Accessor::Uint("GetHitKind") => (
            "ser.hit_object.type.encapsulates_hit_or_miss",
            "glsl_nv.hit_object_get_hit_kind.returns_hit_kind",
            "glsl_ext.hit_object_get_hit_kind.returns_hit_kind",
        ),
        _ => (
            "ser.hit_object.type.encapsulates_hit_or_miss",
            "glsl_nv.hit_object_trace_ray.traverses_and_records",
            "glsl_ext.hit_object_trace_ray.traverses_and_records",
        ),
    }
}
