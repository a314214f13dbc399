//! The forms of the language that only some profiles have (GL_NV-only and
//! GL_EXT-only functions, Shader Model 6.9's spellings): a case that uses
//! one lists only the profiles that have it.

use crate::ast::{ExprKind, Library};
use crate::names::{self, ProfileForm};

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
    crate::visit::exprs(lib, &mut |e| match &e.kind {
        ExprKind::Call { name, .. } => {
            if let Some(f) = function(name) {
                add(f);
            }
        }
        ExprKind::StaticCall { method, args, .. } => {
            if method == "FromRayQuery" && args.len() == 3 {
                add(&names::FROM_RAY_QUERY_HIT_KIND);
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
            if method == "GetAttributes" && args.len() == 1 && template.is_none() {
                add(&names::GET_ATTRIBUTES_OUT);
            }
            if let Some(f) = function(method) {
                add(f);
            }
        }
        _ => {}
    });
    out
}
