//! The calls between a library's functions: the case language allows no
//! recursion, and counts nesting through calls.
//!
//! HLSL and GLSL have no recursive functions (DXC inlines every call), so
//! neither has the case language (`cases/README.md`, "Limits"): the
//! reference inlines calls as it runs, and a call that never ends would
//! only end when the machine stack does. For the same reason a call counts
//! as if its callee's body were written in its place: a statement of the
//! callee is one level deeper than the call, and the nesting limit of the
//! language ([`MAX_NESTING`]) holds through every chain of calls.
//! Both checks walk with explicit stacks, so a library of any shape cannot
//! overflow them.

use super::{err, ProgramError};
use ser_lang::ast::*;
use ser_lang::nesting::{self, Node, MAX_NESTING};
use ser_lang::Span;
use std::collections::BTreeMap;

/// A call of a library function: the callee's item index, where, and the
/// call's depth in the caller.
struct Call {
    callee: usize,
    span: Span,
    depth: usize,
}

/// What one function's body holds: its calls, and its deepest node.
#[derive(Default)]
struct Body {
    calls: Vec<Call>,
    deepest: usize,
    deepest_span: Span,
}

fn body(f: &FunctionDecl, functions: &BTreeMap<String, usize>) -> Body {
    let mut b = Body::default();
    nesting::walk(&f.body, |node, depth| {
        if depth > b.deepest {
            (b.deepest, b.deepest_span) = (depth, node.span());
        }
        if let Node::Expr(Expr {
            kind: ExprKind::Call { name, .. },
            span,
        }) = node
        {
            if let Some(&callee) = functions.get(name) {
                b.calls.push(Call {
                    callee,
                    span: *span,
                    depth,
                });
            }
        }
    });
    b
}

fn name(items: &[Item], i: usize) -> &str {
    items[i].name()
}

/// Checks that no function of the library calls itself, directly or
/// through others, and that no chain of calls nests deeper than
/// [`MAX_NESTING`]. `functions` maps names to item indices.
pub(super) fn check(
    library: &Library,
    functions: &BTreeMap<String, usize>,
) -> Result<(), ProgramError> {
    let items = &library.items;
    let bodies: BTreeMap<usize, Body> = functions
        .values()
        .map(|&i| match &items[i] {
            Item::Function(f) => (i, body(f, functions)),
            _ => unreachable!("`functions` holds functions"),
        })
        .collect();
    // Depth-first over the call graph, in declaration order: a callee met
    // again while it is on the path is a cycle; a function's inlined depth
    // is known once all its callees' are.
    let mut on_path = vec![false; items.len()];
    let mut inlined: Vec<Option<usize>> = vec![None; items.len()];
    for &root in bodies.keys() {
        if inlined[root].is_some() {
            continue;
        }
        let mut path = vec![(root, 0usize)];
        on_path[root] = true;
        while let Some((f, next)) = path.last_mut() {
            let (f, b) = (*f, &bodies[f]);
            if let Some(call) = b.calls.get(*next) {
                *next += 1;
                if on_path[call.callee] {
                    let start = path
                        .iter()
                        .position(|(g, _)| *g == call.callee)
                        .expect("on the path");
                    let cycle: Vec<&str> = path[start..]
                        .iter()
                        .map(|(g, _)| name(items, *g))
                        .chain([name(items, call.callee)])
                        .collect();
                    return Err(recursion(&cycle, call.span, name(items, f)));
                }
                if inlined[call.callee].is_none() {
                    on_path[call.callee] = true;
                    path.push((call.callee, 0));
                }
                continue;
            }
            inlined[f] = Some(inlined_depth(items, f, b, &inlined)?);
            on_path[f] = false;
            path.pop();
        }
    }
    Ok(())
}

/// The depth of `f`'s deepest node with every call inlined, its callees'
/// already known.
fn inlined_depth(
    items: &[Item],
    f: usize,
    b: &Body,
    inlined: &[Option<usize>],
) -> Result<usize, ProgramError> {
    let within = Some(name(items, f));
    if b.deepest > MAX_NESTING {
        let message = nesting::too_deep(b.deepest_span).message;
        return Err(err(b.deepest_span, within, message));
    }
    let mut deepest = b.deepest;
    for call in &b.calls {
        let callee = inlined[call.callee].expect("callees first");
        let depth = call.depth + callee;
        if depth > MAX_NESTING {
            let message = format!(
                "`{}`, called at depth {}, nests {callee} levels: {depth} with the call \
                 counted as inlined, deeper than the case language's limit of {MAX_NESTING} \
                 (see cases/README.md)",
                name(items, call.callee),
                call.depth,
            );
            return Err(err(call.span, within, message));
        }
        deepest = deepest.max(depth);
    }
    Ok(deepest)
}

/// The error for a cycle of calls (its first function named again at its
/// end), at the call that closes it.
fn recursion(cycle: &[&str], span: Span, within: &str) -> ProgramError {
    let names: Vec<String> = cycle.iter().map(|n| format!("`{n}`")).collect();
    let what = match names.as_slice() {
        [f, g] => format!("{f} calls {g}"),
        _ => names.join(" → "),
    };
    let message = format!(
        "recursion: {what}; the case language has no recursive functions, as HLSL and GLSL \
         have none (see cases/README.md)"
    );
    err(span, Some(within), message)
}
