//! The forms of the language that only some profiles have (GL_NV-only and
//! GL_EXT-only functions, Shader Model 6.9's spellings): a case that uses
//! one lists only the profiles that have it.

use crate::ast::{ExprKind, Library};
use crate::names::{self, ProfileForm};
use crate::signatures;

/// The profile-limited forms a library uses, each once.
pub fn used(lib: &Library) -> Vec<&'static ProfileForm> {
    let mut out: Vec<&'static ProfileForm> = Vec::new();
    let mut add = |f: &'static ProfileForm| {
        if !out.iter().any(|g| std::ptr::eq(*g, f)) {
            out.push(f);
        }
    };
    if lib.dx_namespace {
        add(&names::DX_QUALIFIED);
    }
    if crate::visit::types(lib).any(|t| matches!(t, crate::ast::Type::RayQuery(_, Some(_)))) {
        add(&names::RAY_QUERY_FLAGS_PARAMETER);
    }
    let function = |name: &str| {
        names::PROFILE_FUNCTIONS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| f)
    };
    // An overload that is a form of its own (`FromRayQuery(q, hitKind,
    // attributes)`, `GetAttributes(out attributes)`), by its signature.
    let overload = |callee, name: &str, args: &[crate::ast::Expr], template: bool| {
        signatures::lookup(callee, name)
            .and_then(|b| b.overload(args.len(), template))
            .and_then(|o| o.form)
    };
    crate::visit::exprs(lib, &mut |e| match &e.kind {
        ExprKind::Call { name, .. } => {
            if let Some(f) = function(name) {
                add(f);
            }
        }
        ExprKind::StaticCall {
            method,
            args,
            template,
            ..
        } => {
            let callee = signatures::Callee::HitObjectStatic;
            if let Some(f) = overload(callee, method, args, template.is_some()) {
                add(f);
            }
            if let Some(f) = function(method) {
                add(f);
            }
        }
        ExprKind::MethodCall {
            method,
            args,
            template,
            ..
        } => {
            let callee = signatures::Callee::HitObjectMethod;
            if let Some(f) = overload(callee, method, args, template.is_some()) {
                add(f);
            }
            if let Some(f) = function(method) {
                add(f);
            }
        }
        _ => {}
    });
    out
}
