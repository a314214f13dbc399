//! What may be a payload, as DXR's payload access qualifier sections state
//! it (errors: "must", "only"):
//! - "Any structure type used as payload must carry the `[raypayload]`
//!   type attribute" (`dxr.paq.syntax.raypayload_attribute_required`), and
//!   "only structs marked as payload" are `TraceRay` payloads and payload
//!   parameters of closesthit, anyhit and miss shaders
//!   (`dxr.paq.syntax.only_raypayload_structs_as_payload`). Since "it is
//!   legal to mix annotated and unannotated payloads"
//!   (`dxr.paq.availability.mix_annotated_and_unannotated`), the suite reads
//!   both as applying to a struct whose fields carry qualifiers: a plain
//!   struct stays an unannotated payload.
//! - Intersection shaders "cannot access payloads"
//!   (`dxr.paq.sequence.intersection_has_no_payload`): one that declares a
//!   payload parameter is an error.

use super::facts::payload_operand;
use super::{DiagCode, Validator};
use crate::payload::is_raypayload;
use crate::program::Stage;
use ser_lang::ast::{FunctionDecl, Item, Type};
use ser_lang::Span;

pub fn check(v: &mut Validator) {
    let program = v.program;
    for item in &program.library.items {
        let Item::Function(f) = item else { continue };
        match f.stage().and_then(Stage::from_name) {
            Some(Stage::AnyHit | Stage::ClosestHit | Stage::Miss) => {
                if let Some(p) = f.params.first() {
                    annotated(
                        v,
                        &p.ty,
                        f,
                        f.span,
                        "dxr.paq.syntax.only_raypayload_structs_as_payload",
                    );
                }
            }
            Some(Stage::Intersection) if !f.params.is_empty() => v.report(
                DiagCode::IntersectionPayload,
                "dxr.paq.sequence.intersection_has_no_payload",
                &f.name,
                f.span,
                format!(
                    "intersection shader `{}` declares a payload parameter; intersection shaders cannot access payloads",
                    f.name
                ),
            ),
            _ => {}
        }
        let facts = v.facts.function(f);
        let mut operands = Vec::new();
        for e in &facts.exprs {
            if let Some(t) = payload_operand(e).and_then(|p| facts.type_of(program, p)) {
                operands.push((t, e.span));
            }
        }
        for (t, span) in operands {
            annotated(
                v,
                &t,
                f,
                span,
                "dxr.paq.syntax.raypayload_attribute_required",
            );
        }
    }
}

/// A payload of a struct type whose fields carry qualifiers must be a
/// `[raypayload]` struct.
fn annotated(v: &mut Validator, t: &Type, f: &FunctionDecl, span: Span, clause: &str) {
    let Type::Struct(name) = t else { return };
    let qualified = v.program.library.items.iter().any(|i| {
        matches!(i, Item::Struct(s) if &s.name == name && !is_raypayload(s)
            && s.fields.iter().any(|f| !f.access.is_empty()))
    });
    if qualified {
        v.report(
            DiagCode::PayloadAttribute,
            clause,
            &f.name,
            span,
            format!("payload struct `{name}` carries payload access qualifiers but is not declared [raypayload]"),
        );
    }
}
