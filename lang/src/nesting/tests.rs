//! Both sides of the bound, for every place where the grammar nests: the
//! deepest text the limit allows parses (and, where it writes no
//! parentheses, its tree is exactly [`MAX_NESTING`] deep), and one level
//! more is a located error.

use super::*;
use crate::parse;

/// The ways of nesting: a name, the body of `uint F(uint x)` nested `k`
/// times, and the levels the body adds around the nesting (its deepest
/// level is `k` plus those).
type Kind = (&'static str, fn(usize) -> String, usize);

fn r(s: &str, k: usize) -> String {
    s.repeat(k)
}

#[rustfmt::skip]
const KINDS: &[Kind] = &[
    ("blocks", |k| format!("{}{}", r("{ ", k), r("} ", k)), 0),
    ("if", |k| format!("{}{{}}", r("if (x) ", k)), 1),
    ("else", |k| format!("{}{{}}", r("if (x) {} else ", k)), 1),
    ("for", |k| format!("{}{{}}", r("for (;;) ", k)), 1),
    ("while", |k| format!("{}{{}}", r("while (x) ", k)), 1),
    ("do", |k| format!("{}{{}}{}", r("do ", k), r(" while (x);", k)), 1),
    ("parentheses", |k| format!("return {}x{};", r("(", k), r(")", k)), 2),
    ("prefix operator", |k| format!("return {}x;", r("~", k)), 2),
    ("prefix increment", |k| format!("return {}x;", r("++", k)), 2),
    ("cast", |k| format!("return {}x;", r("(uint)", k)), 2),
    ("ternary branch", |k| format!("return {}x;", r("x ? x : ", k)), 2),
    ("ternary condition", |k| format!("return {}x ? x : x;", r("~", k)), 3),
    ("assignment chain", |k| format!("return {}x;", r("x = ", k)), 2),
    ("assignment target", |k| format!("return {}x = x;", r("~", k)), 3),
    ("call arguments", |k| format!("return {}x{};", r("asuint(", k), r(")", k)), 2),
    ("constructor arguments", |k| format!("return {}x{};", r("uint(", k), r(")", k)), 2),
    ("method arguments", |k| format!("return {}x{};", r("h.LoadLocalRootTableConstant(", k), r(")", k)), 2),
    ("index expressions", |k| format!("return {}0{};", r("x[", k), r("]", k)), 2),
    ("binary operators", |k| format!("return x{};", r(" + x", k)), 2),
    ("member chain", |k| format!("return x{};", r(".x", k)), 2),
    ("index chain", |k| format!("return x{};", r("[0]", k)), 2),
    ("postfix increments", |k| format!("return x{};", r("++", k)), 2),
    ("RayQuery flags", |k| format!("RayQuery<{}0> q; return x;", r("~", k)), 2),
    ("for initializer", |k| format!("for (x = {}x;;) {{}}", r("~", k)), 4),
    ("declaration initializer", |k| format!("uint y = {}x; return y;", r("~", k)), 2),
];

fn library(body: &str) -> String {
    format!("uint F(uint x) {{\n{body}\n}}\n")
}

fn function_body(lib: &Library) -> &Block {
    match &lib.items[0] {
        Item::Function(f) => &f.body,
        other => panic!("not a function: {other:?}"),
    }
}

#[test]
fn the_limit_is_reached_and_not_passed_at_every_nesting_point() {
    for &(name, body, around) in KINDS {
        let k = MAX_NESTING - around;
        let lib = parse(&library(&body(k))).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (depth, _) = deepest(function_body(&lib));
        if name == "parentheses" {
            // Counted by the parser, not kept in the tree.
            assert_eq!(depth, 2, "{name}");
        } else {
            assert_eq!(depth, MAX_NESTING, "{name}: the tree's depth");
        }
        let err =
            parse(&library(&body(k + 1))).expect_err(&format!("{name}: one level more parses"));
        assert_eq!(err.message, too_deep(Span::default()).message, "{name}");
        assert_eq!(err.span.line, 2, "{name}: {err}");
        assert_eq!(err.within.as_deref(), Some("F"), "{name}");
    }
}

#[test]
fn the_error_points_at_the_level_that_goes_too_deep() {
    // `return` is at depth 1 and the first `(` (column 8) at 2: what
    // follows the last `(`, at column 7 + MAX, is one level too deep.
    let text = library(&format!(
        "return {}x{};",
        r("(", MAX_NESTING - 1),
        r(")", MAX_NESTING - 1)
    ));
    let err = parse(&text).unwrap_err();
    assert_eq!(
        (err.span.line, err.span.column),
        (2, 7 + MAX_NESTING as u32)
    );
    // In a chain of `+`, the operator that would push the first operand
    // one level too deep.
    let text = library(&format!("return x{};", r(" + x", MAX_NESTING - 1)));
    let err = parse(&text).unwrap_err();
    let column = 10 + 4 * (MAX_NESTING as u32 - 2);
    assert_eq!((err.span.line, err.span.column), (2, column), "{err}");
}

#[test]
fn hostile_nesting_is_an_error_not_a_crash() {
    for body in [
        format!("return {}x{};", r("(", 10_000), r(")", 10_000)),
        format!("{}{{}}", r("if (true) ", 20_000)),
        format!("return 0{};", r(" + 0", 100_000)),
        format!("return x{};", r(".x", 100_000)),
        format!("return {}x;", r("-", 100_000)),
    ] {
        let err = parse(&library(&body)).unwrap_err();
        let limit = format!("nesting deeper than {MAX_NESTING} levels");
        assert!(err.message.starts_with(&limit), "{err}");
    }
}

#[test]
fn the_walk_sees_every_level_without_recursing() {
    let text = library("if (x) { return x + (x * x); } else { x = ~x; }");
    let lib = parse(&text).unwrap();
    let mut seen = Vec::new();
    walk(function_body(&lib), |node, depth| {
        if let Node::Expr(e) = node {
            if matches!(e.kind, ExprKind::Ident(_)) {
                seen.push(depth);
            }
        }
    });
    // `if` at 1, its condition at 2; the blocks at 2, their statements
    // at 3, the operators at 4.
    assert_eq!(seen, [2, 5, 6, 6, 5, 6]);
}

#[test]
fn a_thread_with_stack_enough_runs_nested_calls_in_place() {
    let outer = on_stack("outer", 8 << 20, || {
        let id = std::thread::current().id();
        let same = on_stack("inner", 4 << 20, || std::thread::current().id()).unwrap();
        let bigger = on_stack("inner", 16 << 20, || std::thread::current().id()).unwrap();
        (id, same, bigger)
    })
    .unwrap();
    assert_eq!(outer.0, outer.1, "8 MiB left: a 4 MiB call runs in place");
    assert_ne!(outer.0, outer.2, "a 16 MiB call gets a thread of its own");
    assert_ne!(outer.0, std::thread::current().id());
}

#[test]
fn stack_in_use_counts_against_a_nested_call() {
    fn deep(levels: usize, want: usize) -> bool {
        // About a KiB a frame, kept from being folded away.
        let pad = std::hint::black_box([0u8; 1024]);
        if levels == 0 {
            let here = std::thread::current().id();
            return on_stack("inner", want, || std::thread::current().id()).unwrap() == here
                && pad[0] == 0;
        }
        deep(levels - 1, want) && pad[1] == 0
    }
    // 2 MiB used of 4: another 3 MiB no longer fits in place.
    let (shallow, used) =
        on_stack("outer", 4 << 20, || (deep(0, 3 << 20), deep(2048, 3 << 20))).unwrap();
    assert!(shallow, "3 MiB of 4 fits at the top");
    assert!(!used, "not below 2 MiB of frames");
}

#[test]
fn a_call_asking_for_the_threads_own_stack_runs_in_place() {
    let (outer, inner) = on_stack("outer", 8 << 20, || {
        let inner = on_stack("inner", 8 << 20, || std::thread::current().id()).unwrap();
        (std::thread::current().id(), inner)
    })
    .unwrap();
    assert_eq!(outer, inner);
}

#[test]
fn statements_are_the_walks_statements_in_its_order() {
    let lib = parse(&library(
        "uint a = 1; if (x) { uint b = a; } else while (x) { x = x + 1; } \
         for (uint i = 0; i < 2; i++) { do { return x; } while (x); } return a;",
    ))
    .expect("parses");
    let body = function_body(&lib);
    let mut walked = Vec::new();
    walk(body, |node, _| {
        if let Node::Stmt(s) = node {
            walked.push(s as *const Stmt);
        }
    });
    let mut statements = Vec::new();
    super::statements(body, |s| statements.push(s as *const Stmt));
    assert_eq!(statements, walked);
    assert_eq!(statements.len(), 14);
}
