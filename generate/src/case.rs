//! Generated cases as case files (JSON), to be loaded by the ordinary
//! loader, so a generated case is as checked as a hand-written one and can
//! be written out as a regression case.

use crate::probe::{self, Trace};
use crate::program::{self, print, Accessor, Construct, Program, Stmt};
use crate::ray::Ray;
use crate::scene::HIT_GROUP_RECORDS;
use serde_json::{json, Value};

/// The case file for a scene, a ray and a probe program.
pub fn probe_file(name: &str, origin: &str, scene: &Value, ray: &Ray, trace: Trace) -> Value {
    let records: Vec<Value> = (0..HIT_GROUP_RECORDS)
        .map(|_| json!({"closest_hit": "CH", "intersection": "IS"}))
        .collect();
    let words: usize = probe::ACCESSOR_WORDS.iter().map(|(_, n)| n).sum();
    json!({"cases": [{
        "name": name,
        "description": format!("Generated: {origin}."),
        "clauses": ["ser.design.canonical_sequence.functionally_equivalent_to_trace_ray", "ser.hit_object.invoke.executes_closesthit_or_miss"],
        "profiles": ["0027-maybereorderthread", "sm69"],
        "scene": scene,
        "shader_table": {"hit_groups": records, "miss": [{"shader": "Miss"}]},
        "library": probe::library(ray, trace),
        "dispatch": {"raygen": "RayGen"},
        "buffers": {"Out": {"elements": 1}, "OutF": {"elements": words}},
        "expect": {"buffers": {"Out": ["unspecified"], "OutF": [{"repeat": "unspecified", "count": words}]}}
    }]})
}

/// The case for a scene and a random SER program. Its expectations are all
/// "unspecified": what a backend must write is the reference's legal
/// outcome, which the differential fuzzer computes (and writes into a
/// regression case when a backend disagrees).
pub fn program_case(name: &str, origin: &str, g: &Generated) -> Value {
    let (scene, program) = (&g.scene, &g.program);
    // Ray queries that may meet a micromap declare that they allow them,
    // which only Shader Model 6.9 can write.
    let query_micromaps = program.uses_ray_query() && has_micromaps(scene);
    let printed = print::print_with(program, query_micromaps);
    let (words, floats) = (
        program.threads * printed.slots,
        program.threads * printed.float_slots,
    );
    let profiles = if program.needs_sm69() || query_micromaps {
        json!(["sm69"])
    } else {
        // The earlier revision runs the same program with `ReorderThread`
        // for `MaybeReorderThread` (the profile renames the calls).
        json!(["0027-maybereorderthread", "0027-reorderthread", "sm69"])
    };
    json!({
        "name": name,
        "description": format!("Generated: {origin}."),
        "clauses": clauses(program),
        "profiles": profiles,
        "scene": scene,
        "shader_table": print::shader_table(),
        "library": printed.lines,
        "dispatch": {"raygen": "RayGen", "size": [program.threads, 1, 1]},
        "pipeline": {"flags": g.pipeline_flags},
        "buffers": {"Out": {"elements": words}, "OutF": {"elements": floats}},
        "expect": {"buffers": {
            "Out": [{"repeat": "unspecified", "count": words}],
            "OutF": [{"repeat": "unspecified", "count": floats}]
        }}
    })
}

/// Whether a scene has a geometry with an opacity micromap.
fn has_micromaps(scene: &Value) -> bool {
    scene["blas"].as_array().into_iter().flatten().any(|b| {
        b["geometries"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|g| g.get("opacity_micromap").is_some())
    })
}

/// A case file of one case.
pub fn file(case: Value) -> Value {
    json!({ "cases": [case] })
}

/// The clauses a program exercises: one per kind of SER operation it uses.
fn clauses(program: &Program) -> Vec<&'static str> {
    let mut out = Vec::new();
    program::each_stmt(&program.body, &mut |s| {
        let c = match s {
            Stmt::Construct { how, .. } => match how {
                Construct::Trace(_) => {
                    "ser.hit_object.trace_ray.executes_traversal_returns_hit_object"
                }
                Construct::MakeMiss { .. } => "ser.hit_object.make_miss.constructs_miss",
                Construct::MakeNop => "ser.hit_object.make_nop.neither_hit_nor_miss",
                Construct::Default => "ser.hit_object.type.default_initialized_to_nop",
                Construct::Copy(_) => "ser.hit_object.type.value_semantics",
                Construct::FromRayQuery { .. } => {
                    "ser.hit_object.from_ray_query.represents_committed_hit"
                }
            },
            Stmt::SetIndex { .. } => "ser.hit_object.set_shader_table_index.sets_index",
            Stmt::Invoke(_) => "ser.hit_object.invoke.executes_closesthit_or_miss",
            Stmt::Reorder(_) => "ser.maybe_reorder_thread.reorder_point.introduces_reorder_point",
            Stmt::TraceRay(_) => {
                "ser.design.canonical_sequence.functionally_equivalent_to_trace_ray"
            }
            Stmt::Read {
                accessor: Accessor::Barycentrics,
                ..
            } => "ser.hit_object.get_attributes.returns_attributes",
            Stmt::Read { .. } => "ser.hit_object.type.encapsulates_hit_or_miss",
            Stmt::LoadConstant { .. } => {
                "ser.hit_object.load_local_root_table_constant.loads_from_shader_table"
            }
            Stmt::ReadPayload | Stmt::SetPayload(_) => {
                "ser.hit_object.invoke.executes_closesthit_or_miss"
            }
            Stmt::IfHit { .. } => "ser.hit_object.is_hit.true_for_hit",
            Stmt::IfThread { .. } | Stmt::Repeat { .. } => return,
        };
        if !out.contains(&c) {
            out.push(c);
        }
    });
    if out.is_empty() {
        out.push("ser.hit_object.type.encapsulates_hit_or_miss");
    }
    out.sort();
    out
}

/// A program's size, for a case's origin line.
pub fn describe(program: &Program) -> String {
    format!(
        "{} thread(s), {} statement(s)",
        program.threads,
        program.statements()
    )
}

/// Everything that makes a generated case: the scene, the program, and
/// the pipeline's skip flags (`skip_triangles`, `skip_procedural_primitives`,
/// which act as ray flags on every trace).
#[derive(Clone, Debug)]
pub struct Generated {
    pub scene: Value,
    pub program: Program,
    pub pipeline_flags: Vec<&'static str>,
}

impl Generated {
    /// A program over a scene, with no pipeline flags.
    pub fn new(scene: Value, program: Program) -> Self {
        Generated {
            scene,
            program,
            pipeline_flags: Vec::new(),
        }
    }
}

/// Pipeline skip flags, each one time in ten.
fn pipeline_flags() -> impl proptest::strategy::Strategy<Value = Vec<&'static str>> {
    use proptest::prelude::*;
    (prop::bool::weighted(0.1), prop::bool::weighted(0.1)).prop_map(|(t, p)| {
        let mut f = Vec::new();
        if t {
            f.push("skip_triangles");
        }
        if p {
            f.push("skip_procedural_primitives");
        }
        f
    })
}

/// The strategy of generated cases: a scene and a program of up to
/// `max_statements` statements. `sm69` allows what only Shader Model 6.9
/// defines.
pub fn generated(
    max_statements: usize,
    sm69: bool,
) -> impl proptest::strategy::Strategy<Value = Generated> {
    use proptest::strategy::Strategy;
    // The program first: shrinking works through a tuple in order, and the
    // program is what a reader of a regression case needs small.
    (
        program::strategy::program(max_statements, sm69),
        crate::scene::scene(),
        pipeline_flags(),
    )
        .prop_map(|(program, scene, pipeline_flags)| Generated {
            scene,
            program,
            pipeline_flags,
        })
}

/// Generated cases from raw bytes, for cargo-fuzz: the bytes seed the
/// generators' RNG (ChaCha), so every input gives a valid case from the
/// same strategies as `ser-conformance fuzz`. Proptest's pass-through RNG,
/// which would hand the bytes to the strategies directly, splits its data
/// between derived RNGs and then gives zeros, on which rejection sampling
/// never ends (found by the target's first run).
impl<'a> arbitrary::Arbitrary<'a> for Generated {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        use proptest::strategy::{Strategy, ValueTree};
        use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
        let mut seed = [0u8; 32];
        for (i, b) in u.bytes(u.len())?.iter().enumerate() {
            let at = i % 32;
            seed[at] = seed[at].wrapping_mul(31).wrapping_add(*b);
        }
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed);
        let mut runner = TestRunner::new_with_rng(Config::default(), rng);
        generated(8, true)
            .new_tree(&mut runner)
            .map(|t| t.current())
            .map_err(|_| arbitrary::Error::IncorrectFormat)
    }
}
