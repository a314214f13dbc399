//! Hit objects cannot be copied in GLSL: `hitObjectNV`/`hitObjectEXT` "is
//! declared and behaves like above described opaque types"
//! (`glsl_nv.types.hit_object.behaves_like_opaque_types`,
//! `glsl_ext.types.hit_object.behaves_like_opaque_types`), and GLSL's
//! opaque types are no l-values: they cannot be assigned, be `out` or
//! `inout` parameters or be returned. SPIR-V has no instruction for the copy
//! either (`spv_*.memory.no_load_store`, `no_copy_memory`). So under the
//! Vulkan profiles a hit object takes its value only from the built-in that
//! records it, and goes to a function only as an `in` parameter. (HLSL's
//! HitObject "supports assignment (by-value copy)": the rule is the Vulkan
//! profiles' only.)

use super::{DiagCode, Validator};
use crate::profile::Profile;
use ser_lang::ast::{ExprKind, FunctionDecl, Item, ParamMode, StmtKind};

/// Copies of a hit object or an array of them ([`ser_lang::ast::Type::
/// is_hit_object_or_array`]). (A struct with a hit object member is no
/// GLSL at all: "members of a structure cannot be declared with this type",
/// which the GLSL-source cases check.)
pub fn check(v: &mut Validator) {
    let clause = match v.profile {
        Profile::VulkanNv => "glsl_nv.types.hit_object.behaves_like_opaque_types",
        Profile::VulkanExt => "glsl_ext.types.hit_object.behaves_like_opaque_types",
        _ => return,
    };
    let program = v.program;
    for item in &program.library.items {
        let Item::Function(f) = item else { continue };
        signature(v, f, clause);
        let facts = v.facts.function(f);
        let mut copies = Vec::new();
        for e in &facts.exprs {
            if let ExprKind::Assign(None, target, value) = &e.kind {
                let holds = facts
                    .type_of(program, target)
                    .is_some_and(|t| t.is_hit_object_or_array());
                if holds && !records(&value.kind) {
                    copies.push((e.span, "an assignment of a hit object".to_string()));
                }
            }
        }
        ser_lang::nesting::statements(&f.body, |s| {
            if let StmtKind::Decl(d) = &s.kind {
                if !d.ty.is_hit_object_or_array() {
                    return;
                }
                for dc in &d.declarators {
                    if dc.init.as_ref().is_some_and(|i| !records(&i.kind)) {
                        copies.push((
                            s.span,
                            format!("`{}` initialised from another hit object", dc.name),
                        ));
                    }
                }
            }
        });
        for (span, what) in copies {
            v.report(
                DiagCode::HitObjectCopy,
                clause,
                &f.name,
                span,
                format!("{what}: a hit object is an opaque type, which cannot be copied"),
            );
        }
    }
}

/// A function that returns a hit object, or takes one `out` or `inout`.
fn signature(v: &mut Validator, f: &FunctionDecl, clause: &str) {
    if f.return_type.is_hit_object_or_array() {
        v.report(
            DiagCode::HitObjectCopy,
            clause,
            &f.name,
            f.span,
            format!("`{}` returns a hit object, an opaque type", f.name),
        );
    }
    for p in &f.params {
        if p.mode != ParamMode::Default && p.mode != ParamMode::In && p.ty.is_hit_object_or_array()
        {
            v.report(
                DiagCode::HitObjectCopy,
                clause,
                &f.name,
                f.span,
                format!(
                    "`{}` takes the hit object `{}` out or inout, which an opaque type cannot be",
                    f.name, p.name
                ),
            );
        }
    }
}

/// A value a hit object may take: what a built-in records (`HitObject::
/// TraceRay`, `MakeMiss`, `MakeNop`, `FromRayQuery`, `HitObject()`), not
/// another hit object.
fn records(e: &ExprKind) -> bool {
    matches!(e, ExprKind::StaticCall { .. } | ExprKind::Construct(..))
}
