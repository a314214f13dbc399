//! Where a HitObject may not live. The primary text: "HitObject cannot be
//! stored in memory buffers, in groupshared memory, in ray payloads, or in
//! intersection attributes" (`ser.hit_object.type.storage_restrictions`).
//! The earlier revision names fewer places: "HitObject cannot be stored in
//! structured buffers. Ray payload structs must not have members of
//! HitObject type" (`ser_rt.hit_object.type.storage_restrictions_structured_buffers_payload_structs`),
//! so under it groupshared memory and attributes are not diagnosed.

use super::facts::{operands, payload_operand};
use super::{DiagCode, Validator};
use crate::mutation::{self, Mutation};
use crate::profile::Profile;
use crate::program::typing::{describe, Ty};
use crate::program::Stage;
use ser_lang::ast::{ExprKind, Item, Type};
use ser_lang::signatures::Operand;

pub fn check(v: &mut Validator) {
    let program = v.program;
    let earlier = v.profile == Profile::ReorderThread0027;
    let clause = if earlier {
        "ser_rt.hit_object.type.storage_restrictions_structured_buffers_payload_structs"
    } else {
        "ser.hit_object.type.storage_restrictions"
    };
    let mut payloads: Vec<Type> = Vec::new();
    let mut attributes: Vec<Type> = Vec::new();
    for item in &program.library.items {
        match item {
            Item::Resource(r) => {
                storage_class(v, &r.name, r.span, &r.storage, r.kind.is_uav());
                // The earlier revision names structured buffers only.
                let counts = !earlier || r.kind.type_name().ends_with("StructuredBuffer");
                if counts
                    && r.kind
                        .element()
                        .is_some_and(|t| program.holds_hit_object(t))
                {
                    v.report(
                        DiagCode::HitObjectStorage,
                        clause,
                        &r.name,
                        r.span,
                        format!(
                            "{} `{}` holds HitObject elements",
                            r.kind.type_name(),
                            r.name
                        ),
                    );
                }
            }
            // A constant buffer is a memory buffer; so is `$Globals`, the
            // constant buffer HLSL puts a non-static file-scope variable in.
            Item::CBuffer(c) if !earlier => {
                for f in c.fields.iter().filter(|f| program.holds_hit_object(&f.ty)) {
                    v.report(
                        DiagCode::HitObjectStorage,
                        clause,
                        &c.name,
                        f.span,
                        format!(
                            "constant buffer `{}` holds a HitObject in `{}`",
                            c.name, f.name
                        ),
                    );
                }
            }
            Item::Global(g) => {
                storage_class(v, &g.name, g.span, &g.storage, false);
                if !earlier && !g.is_static() && program.holds_hit_object(&g.ty) {
                    v.report(
                        DiagCode::HitObjectStorage,
                        clause,
                        &g.name,
                        g.span,
                        format!(
                            "`{}`, a non-static file-scope variable, is a constant of the $Globals constant buffer and holds a HitObject",
                            g.name
                        ),
                    );
                }
            }
            Item::GroupShared(g)
                if !earlier
                    && program.holds_hit_object(&g.ty)
                    && !mutation::active(Mutation::ValidatorHitObjectGroupshared) =>
            {
                v.report(
                    DiagCode::HitObjectStorage,
                    clause,
                    &g.name,
                    g.span,
                    format!("groupshared `{}` holds a HitObject", g.name),
                )
            }
            Item::Struct(s) if program.payload_access(&s.name).is_some() => {
                payloads.push(Type::Struct(s.name.clone()));
            }
            Item::Function(f) => {
                storage_class(v, &f.name, f.span, &f.qualifiers, false);
                for p in &f.params {
                    storage_class(v, &p.name, f.span, &p.qualifiers, false);
                }
                let stage = f.stage().and_then(Stage::from_name);
                let param = |i: usize| f.params.get(i).map(|p| p.ty.clone());
                if matches!(stage, Some(Stage::AnyHit | Stage::ClosestHit | Stage::Miss)) {
                    payloads.extend(param(0));
                }
                if matches!(stage, Some(Stage::AnyHit | Stage::ClosestHit)) {
                    attributes.extend(param(1));
                }
                let facts = v.facts.function(f);
                let ty =
                    |e: Option<&ser_lang::ast::Expr>| e.and_then(|e| facts.type_of(program, e));
                for e in &facts.exprs {
                    // By the built-in's signature: its payload and its
                    // attributes operands, wherever they stand.
                    if let Some(p) = payload_operand(e) {
                        payloads.extend(ty(Some(p)));
                    }
                    for a in operands(e, Operand::Attributes) {
                        attributes.extend(ty(Some(a)));
                    }
                    if let ExprKind::MethodCall {
                        method,
                        template: Some(t),
                        receiver,
                        ..
                    } = &e.kind
                    {
                        if method == "GetAttributes" {
                            attributes.push(t.clone());
                        }
                        // A templated load or store of a byte address
                        // buffer: the type is one the buffer holds.
                        let bab = matches!(
                            program.file_scope(receiver_name(receiver)),
                            Some(Ty::Resource(k)) if k.type_name().ends_with("ByteAddressBuffer")
                        );
                        if bab && !earlier && program.holds_hit_object(t) {
                            v.report(
                                DiagCode::HitObjectStorage,
                                clause,
                                &f.name,
                                e.span,
                                format!(
                                    "`{method}<{}>` keeps a HitObject in a byte address buffer",
                                    describe(t)
                                ),
                            );
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let report = |v: &mut Validator, t: &Type, what: &str| {
        let Type::Struct(name) = t else { return };
        if !program.holds_hit_object(t) {
            return;
        }
        let span = program
            .library
            .items
            .iter()
            .find_map(|i| match i {
                Item::Struct(s) if &s.name == name => Some(s.span),
                _ => None,
            })
            .unwrap_or_default();
        v.report(
            DiagCode::HitObjectStorage,
            clause,
            name,
            span,
            format!("struct `{name}`, used as {what}, holds a HitObject"),
        );
    };
    for t in &payloads {
        if program.holds_hit_object(t) && mutation::active(Mutation::ValidatorHitObjectInPayload) {
            continue;
        }
        report(v, t, "a ray payload");
    }
    if !earlier {
        for t in &attributes {
            report(v, t, "intersection attributes");
        }
    }
}

/// "A new [reordercoherent] storage class for UAVs"
/// (`ser.memory.reordercoherent.storage_class`): the text does not say
/// that it is an error on another resource; like `[globallycoherent]`, the
/// careful reading diagnoses it (the spec-map says so), on a resource that
/// is not a UAV as on a variable, a parameter or a result that is no
/// resource at all.
fn storage_class(
    v: &mut Validator,
    name: &str,
    span: ser_lang::Span,
    storage: &[String],
    uav: bool,
) {
    if !uav
        && storage.iter().any(|s| s == "reordercoherent")
        && !mutation::active(Mutation::ValidatorReordercoherentNonUav)
    {
        v.report(
            DiagCode::ReorderCoherentResource,
            "ser.memory.reordercoherent.storage_class",
            name,
            span,
            format!("`{name}` is not a UAV; [reordercoherent] is a storage class for UAVs"),
        );
    }
}

/// The name an expression is, if it is a bare name.
fn receiver_name(e: &ser_lang::ast::Expr) -> &str {
    match &e.kind {
        ExprKind::Ident(n) => n,
        _ => "",
    }
}
