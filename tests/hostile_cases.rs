//! Case files that each used to take the whole `ser-conformance` process
//! down (a stack overflow, or an allocation the system refused), and a
//! good case to show that a run goes on past them. `tests/limits.rs` checks
//! what the loader and the reference make of each; `harness/tests/limits.rs`
//! runs the built binary over all of them (it includes this file).

use serde_json::{json, Value};

/// A case named `name`: a library of `helpers` lines and a raygeneration
/// shader `RayGen` with `raygen` as its body, one `Out` element expected to
/// be 0; `edit` changes its JSON.
pub fn case(name: &str, helpers: &[&str], raygen: &str, edit: impl FnOnce(&mut Value)) -> Value {
    let mut library = vec!["RWStructuredBuffer<uint> Out : register(u0);".to_string()];
    library.extend(helpers.iter().map(|l| l.to_string()));
    library.push("[shader(\"raygeneration\")]".into());
    library.push(format!("void RayGen() {{ {raygen} }}"));
    let mut c = json!({
        "name": name,
        "description": "A limit of the case language, the loader or the reference.",
        "clauses": ["ser.hit_object.get_ray_flags.nop_returns_zero"],
        "profiles": ["0027-maybereorderthread"],
        "library": library,
        "dispatch": {"raygen": "RayGen"},
        "buffers": {"Out": {"elements": 1}},
        "expect": {"buffers": {"Out": [0]}}
    });
    edit(&mut c);
    c
}

/// The text of a case file holding `case`.
pub fn file(case: Value) -> String {
    json!({ "cases": [case] }).to_string()
}

/// A callable shader that calls itself through shader-table record 0:
/// `calls` times, then stops; without a bound, forever. `Out[0]` gets the
/// number of calls the callable shaders made.
pub fn callable_chain(name: &str, calls: Option<u32>) -> Value {
    let body = match calls {
        Some(n) => format!("if (p.v < {n}) {{ p.v += 1; CallShader(0, p); }}"),
        None => "p.v += 1; CallShader(0, p);".to_string(),
    };
    let callable = format!("void Callable(inout Params p) {{ {body} }}");
    let helpers = [
        "struct Params { uint v; };",
        "[shader(\"callable\")]",
        &callable,
    ];
    let raygen = "Params p; p.v = 0; CallShader(0, p); Out[0] = p.v;";
    case(name, &helpers, raygen, |c| {
        c["shader_table"] = json!({"callable": [{"shader": "Callable"}]});
        c["expect"]["buffers"]["Out"] = json!([calls.unwrap_or(0)]);
    })
}

/// A hostile case file: its name, its text, what its error must name.
pub struct Hostile {
    pub name: &'static str,
    pub text: String,
    pub names: &'static str,
}

/// The six hostile inputs.
pub fn hostile() -> Vec<Hostile> {
    let r = |s: &str, k: usize| s.repeat(k);
    let nesting = "nesting deeper than 256 levels";
    let plain = |name, raygen: String, names| Hostile {
        name,
        text: file(case(name, &[], &raygen, |_| {})),
        names,
    };
    vec![
        Hostile {
            name: "recursion",
            text: file(case(
                "recursion",
                &["uint F(uint n) { if (n == 0) { return 0; } return F(n - 1); }"],
                "Out[0] = F(1000);",
                |_| {},
            )),
            names: "recursion: `F` calls `F`",
        },
        plain(
            "parentheses",
            format!("Out[0] = {}0{};", r("(", 10_000), r(")", 10_000)),
            nesting,
        ),
        plain(
            "ifs",
            format!("{}{{ Out[0] = 0; }}", r("if (true) ", 20_000)),
            nesting,
        ),
        plain(
            "chain",
            format!("Out[0] = 0{};", r(" + 0", 100_000)),
            nesting,
        ),
        Hostile {
            name: "buffer",
            text: file(case("buffer", &[], "Out[0] = 0;", |c| {
                c["buffers"]["Out"]["elements"] = json!(4_000_000_000u64);
                c["expect"]["buffers"]["Out"] = json!([{"repeat": 0, "count": 4_000_000_000u64}]);
            })),
            names: "a buffer has at most 65536",
        },
        Hostile {
            name: "callable",
            text: file(callable_chain("callable", None)),
            names: "call_shader_depth_exceeded",
        },
    ]
}

/// A well-formed case that passes.
pub fn good() -> Value {
    case(
        "good",
        &[],
        "HitObject h; Out[0] = h.GetRayFlags();",
        |_| {},
    )
}
