//! Walking every expression of a library: scans (which features a case
//! uses) and rewrites (a profile's spelling of a function).
//!
//! One macro writes the walker twice, over shared and over mutable
//! references, so the two cannot drift apart.

use crate::ast::*;

macro_rules! walker {
    // The shared walker gives `f` references that live as long as the
    // library (`$lt`); the mutable one cannot.
    ($lib:ident, $block:ident, $stmt:ident, $expr:ident, $($lt:lifetime)?, $($m:ident)?) => {
        /// Calls `f` on every expression of every function, outermost first.
        pub fn $lib<$($lt)?>(lib: &$($lt)? $($m)? Library, f: &mut impl FnMut(&$($lt)? $($m)? Expr)) {
            for item in &$($m)? lib.items {
                if let Item::Function(func) = item {
                    $block(&$($m)? func.body, f);
                }
            }
        }

        fn $block<$($lt)?>(b: &$($lt)? $($m)? Block, f: &mut impl FnMut(&$($lt)? $($m)? Expr)) {
            for s in &$($m)? b.stmts {
                $stmt(s, f);
            }
        }

        fn $stmt<$($lt)?>(s: &$($lt)? $($m)? Stmt, f: &mut impl FnMut(&$($lt)? $($m)? Expr)) {
            match &$($m)? s.kind {
                StmtKind::Block(b) => $block(b, f),
                StmtKind::Decl(d) => {
                    if let Type::RayQuery(flags, query_flags) = &$($m)? d.ty {
                        $expr(flags, f);
                        if let Some(q) = query_flags {
                            $expr(q, f);
                        }
                    }
                    for dc in &$($m)? d.declarators {
                        if let Some(e) = &$($m)? dc.init {
                            $expr(e, f);
                        }
                    }
                }
                StmtKind::Expr(e) | StmtKind::Return(Some(e)) => $expr(e, f),
                StmtKind::If { cond, then_branch, else_branch } => {
                    $expr(cond, f);
                    $stmt(then_branch, f);
                    if let Some(e) = else_branch {
                        $stmt(e, f);
                    }
                }
                StmtKind::For { init, cond, step, body } => {
                    if let Some(i) = init {
                        $stmt(i, f);
                    }
                    if let Some(c) = cond {
                        $expr(c, f);
                    }
                    if let Some(s) = step {
                        $expr(s, f);
                    }
                    $stmt(body, f);
                }
                StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                    $expr(cond, f);
                    $stmt(body, f);
                }
                StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) | StmtKind::UsingDx => {}
            }
        }

        fn $expr<$($lt)?>(e: &$($lt)? $($m)? Expr, f: &mut impl FnMut(&$($lt)? $($m)? Expr)) {
            f(e);
            match &$($m)? e.kind {
                ExprKind::IntLit { .. } | ExprKind::FloatLit { .. } | ExprKind::BoolLit(_) | ExprKind::Ident(_) => {}
                ExprKind::Member(x, _) | ExprKind::Cast(_, x) | ExprKind::Unary(_, x) | ExprKind::IncDec { target: x, .. } => $expr(x, f),
                ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) => {
                    $expr(a, f);
                    $expr(b, f);
                }
                ExprKind::Call { args, .. } | ExprKind::StaticCall { args, .. } | ExprKind::Construct(_, args) => {
                    for a in args {
                        $expr(a, f);
                    }
                }
                ExprKind::MethodCall { receiver, args, .. } => {
                    $expr(receiver, f);
                    for a in args {
                        $expr(a, f);
                    }
                }
                ExprKind::Ternary(a, b, c) => {
                    $expr(a, f);
                    $expr(b, f);
                    $expr(c, f);
                }
            }
        }
    };
}

walker!(exprs, block, stmt, expr, 'a,);
walker!(exprs_mut, block_mut, stmt_mut, expr_mut, , mut);

/// Calls `f` on every expression of one function, outermost first.
pub fn function_exprs<'a>(func: &'a FunctionDecl, f: &mut impl FnMut(&'a Expr)) {
    block(&func.body, f);
}

/// Renames every call of the free function `from` to `to`.
pub fn rename_calls(lib: &mut Library, from: &str, to: &str) {
    exprs_mut(lib, &mut |e| {
        if let ExprKind::Call { name, .. } = &mut e.kind {
            if name == from {
                *name = to.to_string();
            }
        }
    });
}

/// Every type a function signature or a local declaration writes, in
/// order (for scans of forms that live in types, such as `RayQuery`'s
/// second template parameter).
pub fn types(lib: &Library) -> impl Iterator<Item = &Type> {
    lib.items.iter().flat_map(|item| match item {
        Item::Function(func) => function_types(func),
        _ => Vec::new(),
    })
}

/// The types one function's signature and local declarations write.
pub fn function_types(func: &FunctionDecl) -> Vec<&Type> {
    let mut out = vec![&func.return_type];
    out.extend(func.params.iter().map(|p| &p.ty));
    crate::nesting::statements(&func.body, |s| {
        if let StmtKind::Decl(d) = &s.kind {
            out.push(&d.ty);
        }
    });
    out
}
