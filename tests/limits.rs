//! No case can take the runner down: each hostile input gets a located
//! load error or a verdict of its own, and every limit holds on both sides
//! of its bound (`cases/README.md`, "Limits"). These run on libtest's
//! 2 MiB threads, as the parser and the reference run on stacks of their
//! own.

mod hostile_cases;

use hostile_cases::{callable_chain, case, file, good, hostile};
use ser_harness::backend::{Backend, BackendError, Output};
use ser_harness::expect::MAX_BUFFER_ELEMENTS;
use ser_harness::load::{load_text, Case, LoadError};
use ser_harness::reference_backend::ReferenceBackend;
use ser_lang::nesting::MAX_NESTING;
use ser_reference::exec::{MAX_CALL_SHADER_DEPTH, MAX_EVALUATION_DEPTH};
use ser_reference::program::MAX_VALUE_SCALARS;
use ser_reference::Profile;
use serde_json::{json, Value};
use std::path::Path;

fn load(text: &str) -> Result<Case, LoadError> {
    let root = Path::new("limits");
    let mut loaded = load_text(root, &root.join("case.json"), text);
    assert_eq!(loaded.len(), 1);
    loaded.remove(0)
}

/// The load error of a one-case file: where, and what it says.
fn load_error(text: &str) -> (String, String) {
    let e = load(text).expect_err("loads");
    (e.location, e.message)
}

/// What the reference makes of a case that loads: its `Out` buffer, or
/// why it could not run the case.
fn run(case: Value) -> Result<Vec<u32>, String> {
    let case = load(&file(case)).unwrap_or_else(|e| panic!("{e}"));
    match ReferenceBackend::new(Profile::MaybeReorderThread0027).run(&case) {
        Ok(exec) => match exec.output {
            Output::Buffers(b) => Ok(b["Out"].clone()),
            other => Err(format!("{other:?}")),
        },
        Err(BackendError::Failed(m)) => Err(m),
        Err(other) => panic!("{other:?}"),
    }
}

fn r(s: &str, k: usize) -> String {
    s.repeat(k)
}

#[test]
fn every_hostile_case_gets_an_error_of_its_own() {
    for h in hostile() {
        let message = match load(&h.text) {
            Err(e) => {
                let location = match h.name {
                    "recursion" => "cases[0].library[1]",
                    "buffer" => "cases[0].buffers.Out.elements",
                    _ => "cases[0].library[2]",
                };
                assert_eq!(e.location, location, "{}: {e}", h.name);
                e.message
            }
            Ok(_) => run(serde_json::from_str::<Value>(&h.text).unwrap()["cases"][0].clone())
                .expect_err(h.name),
        };
        assert!(message.contains(h.names), "{}: {message}", h.name);
    }
    assert_eq!(run(good()), Ok(vec![0]));
}

#[test]
fn recursion_is_rejected_where_the_cycle_closes() {
    // Ten calls deep used to run and pass; any cycle is now an error.
    let direct = case(
        "direct",
        &["uint F(uint n) { if (n == 0) { return 0; } return F(n - 1); }"],
        "Out[0] = F(10);",
        |_| {},
    );
    let (at, message) = load_error(&file(direct));
    assert_eq!(at, "cases[0].library[1]");
    assert!(
        message.contains("line 2, column 51 (in `F`): recursion: `F` calls `F`"),
        "{message}"
    );
    let mutual = case(
        "mutual",
        &[
            "uint F(uint n) { return n == 0 ? 0 : G(n - 1); }",
            "uint G(uint n) { return F(n); }",
        ],
        "Out[0] = F(3);",
        |_| {},
    );
    let (at, message) = load_error(&file(mutual));
    assert_eq!(at, "cases[0].library[2]");
    assert!(
        message.contains("(in `G`): recursion: `F` → `G` → `F`"),
        "{message}"
    );
    // Calls that meet again without a cycle are fine.
    let diamond = case(
        "diamond",
        &[
            "uint K(uint n) { return n + 1; }",
            "uint G(uint n) { return K(n); }",
            "uint H(uint n) { return K(K(n)); }",
            "uint F(uint n) { return G(n) + H(n); }",
        ],
        "Out[0] = F(0) - 3;",
        |_| {},
    );
    assert_eq!(run(diamond), Ok(vec![0]));
}

#[test]
fn nesting_counts_through_calls() {
    // `Out[0] = F(0);` calls F at depth 3 (statement, assignment, call);
    // F's body nests k + 2 levels (return, k operators, the operand).
    let program = |k: usize| {
        let helper = format!("uint F(uint x) {{ return {}x; }}", r("~", k));
        case("through_calls", &[&helper], "Out[0] = F(0);", |c| {
            c["expect"]["buffers"]["Out"] = json!(["0xFFFFFFFF"]);
        })
    };
    let k = MAX_NESTING - 5;
    assert_eq!(run(program(k)), Ok(vec![0xFFFF_FFFF]));
    let (at, message) = load_error(&file(program(k + 1)));
    assert_eq!(at, "cases[0].library[3]");
    assert!(
        message.contains(&format!(
            "(in `RayGen`): `F`, called at depth 3, nests {} levels",
            k + 3
        )),
        "{message}"
    );
}

#[test]
fn the_deepest_programs_run_on_a_test_thread() {
    // Each program reaches the limit exactly, through the costliest frames
    // of the interpreter: `Out[0] = ...` puts its right-hand side at depth
    // 3; the `if`s add the block, its statement and the assignment's
    // operands below them.
    let k = MAX_NESTING - 3;
    for (name, raygen) in [
        (
            "calls",
            format!("Out[0] = {}1u{};", r("max(0u, ", k), r(")", k)),
        ),
        ("binary", format!("Out[0] = 1{};", r(" + 0", k))),
        (
            "ifs",
            format!("{}{{ Out[0] = 1; }}", r("if (true) ", k - 2)),
        ),
    ] {
        let c = case(name, &[], &raygen, |c| {
            c["expect"]["buffers"]["Out"] = json!([1]);
        });
        assert_eq!(run(c), Ok(vec![1]), "{name}");
    }
}

#[test]
fn buffer_sizes_are_checked_before_anything_is_allocated() {
    let sized = |elements: u64, expect: Value| {
        file(case("sized", &[], "Out[0] = 0;", |c| {
            c["buffers"]["Out"]["elements"] = json!(elements);
            c["expect"]["buffers"]["Out"] = expect;
        }))
    };
    let max = u64::from(MAX_BUFFER_ELEMENTS);
    let all = |n| json!([{"repeat": 0, "count": n}]);
    load(&sized(max, all(max))).expect("the largest buffer loads");
    let (at, message) = load_error(&sized(max + 1, all(max + 1)));
    assert_eq!(at, "cases[0].buffers.Out.elements");
    assert_eq!(
        message,
        "65537 elements; a buffer has at most 65536 (the case format's limit, see cases/README.md)"
    );
    // A repeat count is checked against the buffer before any entry is made.
    let (at, message) = load_error(&sized(1, all(4_000_000_000)));
    assert_eq!(at, "cases[0].expect.buffers.Out");
    assert_eq!(message, "4000000000 element(s) expected, the buffer has 1");
    let init = file(case("init", &[], "Out[0] = 0;", |c| {
        c["buffers"]["Out"]["init"] = all(u64::MAX);
    }));
    let (at, message) = load_error(&init);
    assert_eq!(at, "cases[0].buffers.Out.init");
    assert_eq!(
        message,
        format!("{} initial element(s) given, the buffer has 1", u64::MAX)
    );
}

#[test]
fn call_shader_nesting_is_a_limit_of_the_reference() {
    let deepest = MAX_CALL_SHADER_DEPTH as u32 - 1;
    assert_eq!(
        run(callable_chain("deepest", Some(deepest))),
        Ok(vec![deepest])
    );
    let message = run(callable_chain("deeper", Some(deepest + 1))).unwrap_err();
    assert!(
        message.contains(&format!(
            "call_shader_depth_exceeded: `CallShader` nested more than {MAX_CALL_SHADER_DEPTH} deep"
        )),
        "{message}"
    );
    assert!(message.contains("at `Callable` line 4"), "{message}");
}

/// Closest-hit shaders that trace again while the payload's count is below
/// `traces`, each from `ifs` nested `if` statements.
fn recursive_trace(traces: u32, ifs: usize) -> Value {
    let ch = format!(
        "void CH(inout Payload p, in BuiltInTriangleIntersectionAttributes a) {{ {}{{ Out[0] = p.v + 1; if (p.v < {traces}) {{ Payload q; q.v = p.v + 1; TraceRay(Scene, RAY_FLAG_NONE, 0xFF, 0, 1, 0, Ray(), q); }} }} }}",
        r("if (true) ", ifs)
    );
    let helpers = [
        "struct Payload { uint v; };",
        "RaytracingAccelerationStructure Scene : register(t0);",
        "RayDesc Ray() { RayDesc r; r.Origin = float3(0, 0, 0); r.Direction = float3(0, 0, 1); r.TMin = 0.0; r.TMax = 100.0; return r; }",
        "[shader(\"closesthit\")]",
        &ch,
    ];
    let raygen = "Payload p; p.v = 0; TraceRay(Scene, RAY_FLAG_NONE, 0xFF, 0, 1, 0, Ray(), p);";
    case("recursive_trace", &helpers, raygen, |c| {
        c["scene"] = json!({
            "blas": [{"geometries": [{"triangles": [[[-1, -1, 5], [3, -1, 5], [-1, 3, 5]]], "opaque": true}]}],
            "instances": [{"blas": 0}]
        });
        c["shader_table"] = json!({"hit_groups": [{"closest_hit": "CH"}]});
        c["pipeline"] = json!({"max_recursion_depth": 31});
        c["expect"]["buffers"]["Out"] = json!([traces + 1]);
    })
}

#[test]
fn evaluation_depth_is_a_limit_of_the_reference() {
    // Each closest-hit shader nests 200 `if`s and a few levels more: two
    // stay within the reference's depth, three go past it.
    const { assert!(3 * 200 > MAX_EVALUATION_DEPTH && 2 * 210 < MAX_EVALUATION_DEPTH) };
    assert_eq!(run(recursive_trace(1, 200)), Ok(vec![2]));
    let message = run(recursive_trace(2, 200)).unwrap_err();
    assert!(
        message.contains(&format!(
            "evaluation_depth_exceeded: statements and expressions nested more than {MAX_EVALUATION_DEPTH} levels deep"
        )),
        "{message}"
    );
    assert!(message.contains("at `CH` line 6"), "{message}");
}

#[test]
fn values_are_bounded_in_size_and_depth() {
    let local = |n: u64| {
        file(case(
            "local",
            &[],
            &format!("uint a[{n}]; Out[0] = 0;"),
            |_| {},
        ))
    };
    load(&local(MAX_VALUE_SCALARS)).expect("the largest array loads");
    for n in [MAX_VALUE_SCALARS + 1, 4_000_000_000] {
        let (at, message) = load_error(&local(n));
        assert_eq!(at, "cases[0].library[2]");
        assert!(
            message.contains(&format!("a value of this type holds {n} scalars")),
            "{message}"
        );
    }
    // Structs of arrays of structs multiply.
    let structs = [
        "struct A { uint a[64]; };",
        "struct B { A a[64]; };",
        "struct C { B b; uint x; };",
    ];
    let (at, message) = load_error(&file(case("product", &structs, "Out[0] = 0;", |_| {})));
    assert_eq!(at, "cases[0].library[3]");
    assert!(
        message.contains("(in `C`): a value of this type holds 4097 scalars"),
        "{message}"
    );
    // A chain of structs, each holding the one before: `S{i}` is i + 2 deep.
    let chain: Vec<String> = (0..MAX_NESTING)
        .map(|i| match i {
            0 => "struct S0 { uint a; };".to_string(),
            _ => format!("struct S{i} {{ S{} a; }};", i - 1),
        })
        .collect();
    let lines: Vec<&str> = chain.iter().map(String::as_str).collect();
    let deepest = MAX_NESTING - 2;
    load(&file(case(
        "chain",
        &lines[..=deepest],
        "Out[0] = 0;",
        |_| {},
    )))
    .expect("loads");
    let (at, message) = load_error(&file(case("chain", &lines, "Out[0] = 0;", |_| {})));
    assert_eq!(at, format!("cases[0].library[{}]", deepest + 2));
    assert!(
        message.contains("structs and arrays nested 257 deep"),
        "{message}"
    );
}
