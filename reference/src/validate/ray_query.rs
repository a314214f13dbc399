//! `RayQuery`'s template arguments: ray flags "that are inline/literal at
//! compile time" and Shader Model 6.9's optional RayQuery flags
//! (`dxr.ray_query.type.template_parameters`), and the one ray flag a ray
//! query may not carry: `RAY_FLAG_SKIP_CLOSEST_HIT_SHADER` "is not allowed
//! (makes no sense for) RayQuery::TraceRayInline() or RayQuery's template
//! parameter" (`dxr.ray_flags.skip_closest_hit.not_for_ray_query`),
//! diagnosable in a template argument and in a constant `TraceRayInline`
//! flags operand (a dynamic one is undefined behaviour at run time).

use super::facts::Facts;
use super::{DiagCode, Validator};
use ser_lang::ast::{Expr, ExprKind, FunctionDecl, Item, Type};
use ser_lang::names::ray_flag::SKIP_CLOSEST_HIT_SHADER;

const SKIP_CLOSEST_HIT: &str = "dxr.ray_flags.skip_closest_hit.not_for_ray_query";

pub fn check(v: &mut Validator) {
    let program = v.program;
    for item in &program.library.items {
        let Item::Function(f) = item else { continue };
        let facts = v.facts.function(f);
        for ty in ser_lang::visit::function_types(f) {
            let mut t = ty;
            while let Type::Array(element, _) = t {
                t = element;
            }
            if let Type::RayQuery(flags, query_flags) = t {
                template_argument(v, f, facts, flags, true);
                if let Some(q) = query_flags {
                    template_argument(v, f, facts, q, false);
                }
            }
        }
        for e in &facts.exprs {
            if let ExprKind::MethodCall { method, args, .. } = &e.kind {
                if method == "TraceRayInline" {
                    if let Some(flags) = args.get(1) {
                        if let Some(value) = facts.constant(flags) {
                            skip_closest_hit(v, f, flags, value, "TraceRayInline's flags");
                        }
                    }
                }
            }
        }
    }
}

/// A template argument must be constant; the ray flags must not skip the
/// closest-hit shader.
fn template_argument(v: &mut Validator, f: &FunctionDecl, facts: &Facts<'_>, e: &Expr, ray: bool) {
    match facts.constant(e) {
        None => v.report(
            DiagCode::RayQueryTemplate,
            "dxr.ray_query.type.template_parameters",
            &f.name,
            e.span,
            "a RayQuery template argument is not a compile-time constant".into(),
        ),
        Some(value) if ray => skip_closest_hit(v, f, e, value, "RayQuery's template flags"),
        Some(_) => {}
    }
}

fn skip_closest_hit(v: &mut Validator, f: &FunctionDecl, e: &Expr, flags: u32, what: &str) {
    if flags & SKIP_CLOSEST_HIT_SHADER != 0 {
        v.report(
            DiagCode::RayQuerySkipClosestHit,
            SKIP_CLOSEST_HIT,
            &f.name,
            e.span,
            format!("{what} {flags:#x} include RAY_FLAG_SKIP_CLOSEST_HIT_SHADER"),
        );
    }
}
