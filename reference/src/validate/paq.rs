//! The static side of payload access qualifiers. DXR gives the rule: the
//! qualifiers "only affect stage transitions", so "the compiler does not
//! restrict how shaders may access the local working copy of the payload"
//! (`dxr.paq.local_copy.compiler_does_not_restrict`), but "will attempt to
//! warn whenever accesses are detected that could lead to undefined values
//! or ignored writes" (`dxr.paq.local_copy.compiler_attempts_to_warn`): a
//! closest-hit write without `write(closesthit)` is a "Legal write to the
//! local copy, but ignored on copy-back", and "it is not an error"
//! (`dxr.paq.examples.preservation.ex1_not_an_error`). What such accesses
//! do at run time is `crate::payload`'s copy-in and copy-back.
//!
//! So an access a stage's qualifiers do not allow is the warning
//! `payload_access`, reported for the payload parameter of every any-hit,
//! closest-hit and miss entry point whose type is a `[raypayload]` struct:
//! - `p.f` (and `p.f.x`, `p.f[i]`) on the left of `=` writes `f`;
//! - compound assignment and `++`/`--` read and write it;
//! - any other `p.f` reads it;
//! - assigning the whole payload writes every field.
//!
//! The caller's own variable is not checked, nor are helper functions or
//! whole-payload copies ("copying entire payload is OK"): the warning is
//! one the compiler "will attempt" to give, and these are the accesses it
//! can see in the entry point itself.

use super::{DiagCode, Validator};
use crate::mutation::{self, Mutation};
use crate::payload::{PaqStage, PayloadAccess};
use crate::program::Stage;
use ser_lang::ast::{Expr, ExprKind, FunctionDecl, Item, Type};
use ser_lang::Span;
use std::collections::HashSet;

/// Every payload access violation in the program's entry points.
pub fn check(v: &mut Validator) {
    let program = v.program;
    for item in &program.library.items {
        let Item::Function(f) = item else { continue };
        let stage = match f.stage().and_then(Stage::from_name) {
            Some(Stage::AnyHit) => PaqStage::AnyHit,
            Some(Stage::ClosestHit) => PaqStage::ClosestHit,
            Some(Stage::Miss) => PaqStage::Miss,
            _ => continue,
        };
        let Some(param) = f.params.first() else {
            continue;
        };
        let Type::Struct(ty) = &param.ty else {
            continue;
        };
        if let Some(access) = program.payload_access(ty) {
            check_function(v, f, &param.name, access, stage);
        }
    }
}

/// One access of a payload field in a shader body.
struct Access {
    field: String,
    write: bool,
    span: Span,
}

fn check_function(
    v: &mut Validator,
    f: &FunctionDecl,
    payload: &str,
    access: &PayloadAccess,
    stage: PaqStage,
) {
    let mut found = Vec::new();
    // Field nodes already counted as assignment targets.
    let mut targets: HashSet<*const Expr> = HashSet::new();
    for &e in &v.facts.function(f).exprs {
        match &e.kind {
            ExprKind::Assign(op, lhs, _) => {
                if let Some(node) = field_node(lhs, payload) {
                    targets.insert(node as *const Expr);
                    push_field(&mut found, node, true);
                    if op.is_some() {
                        push_field(&mut found, node, false);
                    }
                } else if is_ident(lhs, payload) {
                    for (name, _) in &access.fields {
                        found.push(Access {
                            field: name.clone(),
                            write: true,
                            span: lhs.span,
                        });
                    }
                }
            }
            ExprKind::IncDec { target, .. } => {
                if let Some(node) = field_node(target, payload) {
                    targets.insert(node as *const Expr);
                    push_field(&mut found, node, true);
                    push_field(&mut found, node, false);
                }
            }
            ExprKind::Member(base, _)
                if is_ident(base, payload) && !targets.contains(&(e as *const Expr)) =>
            {
                push_field(&mut found, e, false);
            }
            _ => {}
        }
    }
    for a in found {
        let Some(q) = access.field(&a.field) else {
            continue;
        };
        let (allowed, verb) = if a.write {
            (q.writes(stage), "write")
        } else {
            (q.reads(stage), "read")
        };
        if !allowed && !mutation::active(Mutation::ValidatorPayloadAccessUnchecked) {
            v.report(
                DiagCode::PayloadAccess,
                "dxr.paq.local_copy.compiler_attempts_to_warn",
                &f.name,
                a.span,
                format!(
                    "{} shader `{}` {verb}s payload field `{}`, which is not declared {verb}({})",
                    stage.name(),
                    f.name,
                    a.field,
                    stage.name()
                ),
            );
        }
    }
}

fn is_ident(e: &Expr, name: &str) -> bool {
    matches!(&e.kind, ExprKind::Ident(n) if n == name)
}

/// The `payload.field` node at the root of a place such as `p.f.x` or
/// `p.f[i]`.
fn field_node<'e>(mut e: &'e Expr, payload: &str) -> Option<&'e Expr> {
    loop {
        match &e.kind {
            ExprKind::Member(base, _) if is_ident(base, payload) => return Some(e),
            ExprKind::Member(base, _) | ExprKind::Index(base, _) => e = base,
            _ => return None,
        }
    }
}

fn push_field(found: &mut Vec<Access>, node: &Expr, write: bool) {
    if let ExprKind::Member(_, field) = &node.kind {
        found.push(Access {
            field: field.clone(),
            write,
            span: node.span,
        });
    }
}
