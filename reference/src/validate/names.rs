//! Where SER's names are declared, and in which shader model.
//!
//! * Shader Model 6.9 declares them in namespace `dx`: "all new SER types
//!   and intrinsics are added to `namespace dx`"
//!   (`sm69.solution.namespace_dx.types_and_intrinsics_in_dx`). A case whose
//!   names are taken as written ([`Library::names_as_written`]) has an
//!   unqualified `HitObject` or `MaybeReorderThread` outside a `using
//!   namespace dx;` undeclared. (Other cases are written as the texts'
//!   examples are, with an implicit `using namespace dx`:
//!   `sm69.solution.namespace_dx.implicit_using_namespace_in_text`.)
//! * SER is Shader Model 6.9's ("Planned Version: SM 6.9",
//!   `sm69.header.planned_version_sm69`): a library compiled for an earlier
//!   model has none of its names, `[reordercoherent]` or `REORDER_SCOPE`
//!   (the suite's reading, stated on the clause).

use super::{DiagCode, Validator};
use ser_lang::ast::{shader_model_version, ExprKind, Item, Library};
use ser_lang::Span;

const NAMESPACE_CLAUSE: &str = "sm69.solution.namespace_dx.types_and_intrinsics_in_dx";
const MODEL_CLAUSE: &str = "sm69.header.planned_version_sm69";

pub fn check(v: &mut Validator) {
    let lib = &v.program.library;
    if lib.names_as_written {
        for u in lib
            .name_uses
            .iter()
            .filter(|u| !u.qualified && !u.in_using_scope)
        {
            v.report(
                DiagCode::SerNameUndeclared,
                NAMESPACE_CLAUSE,
                &u.name,
                u.span,
                format!(
                    "`{}` is declared in namespace dx: write `dx::{}`, or `using namespace dx;` before it",
                    u.name, u.name
                ),
            );
        }
    }
    if let Some(model) = lib.shader_model.as_deref().filter(|m| before_6_9(m)) {
        for (what, span) in ser_features(lib) {
            v.report(
                DiagCode::ShaderModel,
                MODEL_CLAUSE,
                &what,
                span,
                format!("{what} is Shader Model 6.9's; the library is compiled for {model}"),
            );
        }
    }
}

/// Whether `major.minor` is below 6.9 (the loader refuses any other form;
/// one that comes another way is taken as below).
pub fn before_6_9(model: &str) -> bool {
    shader_model_version(model).is_none_or(|v| v < (6, 9))
}

/// Every use of what Shader Model 6.9 adds: SER's names, the
/// `reordercoherent` storage class, `REORDER_SCOPE`.
fn ser_features(lib: &Library) -> Vec<(String, Span)> {
    let mut out: Vec<(String, Span)> = lib
        .name_uses
        .iter()
        .map(|u| (format!("`{}`", u.name), u.span))
        .collect();
    let reordercoherent = |words: &[String]| words.iter().any(|w| w == "reordercoherent");
    for item in &lib.items {
        let marked = match item {
            Item::Resource(r) => reordercoherent(&r.storage),
            Item::Global(g) => reordercoherent(&g.storage),
            Item::Function(f) => {
                reordercoherent(&f.qualifiers)
                    || f.params.iter().any(|p| reordercoherent(&p.qualifiers))
            }
            _ => false,
        };
        if marked {
            out.push(("`reordercoherent`".into(), item.span()));
        }
    }
    ser_lang::visit::exprs(lib, &mut |e| {
        if matches!(&e.kind, ExprKind::Ident(n) if n == "REORDER_SCOPE") {
            out.push(("`REORDER_SCOPE`".into(), e.span));
        }
    });
    out
}
