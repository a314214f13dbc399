//! Generated cases as case files (JSON), to be loaded by the ordinary
//! loader, so a generated case is as checked as a hand-written one and can
//! be written out as a regression case.

use crate::dialect::{Dialect, Language};
use crate::probe::{self, Trace};
use crate::program::{self, print, Program};
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

/// The case for a scene and a random program. Its expectations are all
/// "unspecified": what a backend must write is the reference's legal
/// outcome, which the differential fuzzer computes (and writes into a
/// regression case when a backend disagrees).
pub fn program_case(name: &str, origin: &str, g: &Generated) -> Value {
    let (scene, program) = (&g.scene, &g.program);
    // HLSL ray queries that may meet a micromap declare that they allow
    // them, which only Shader Model 6.9 can write; Vulkan's queries need no
    // such flag.
    let query_micromaps =
        !g.dialect.language.is_glsl() && program.uses_ray_query() && has_micromaps(scene);
    let facts = crate::scene::Facts::of(scene);
    let printed = print::print(
        program,
        &print::Context {
            dialect: g.dialect,
            scene: &facts,
            query_micromaps,
        },
    );
    let (words, floats) = (
        program.threads * printed.slots,
        program.threads * printed.float_slots,
    );
    // The scene is a JSON value already: copied, not serialized again.
    let mut case = json!({
        "name": name,
        "description": format!("Generated: {origin}."),
        "clauses": clauses(program, g.dialect),
        "profiles": g.dialect.profiles(program.needs_sm69() || query_micromaps),
        "shader_table": print::shader_table(),
        "library": printed.lines,
        "dispatch": {"raygen": "RayGen", "size": [program.threads, 1, 1]},
        "pipeline": {"flags": g.pipeline_flags},
        "buffers": {"Out": {"elements": words}, "OutF": {"elements": floats}},
        "expect": {"buffers": {
            "Out": [{"repeat": "unspecified", "count": words}],
            "OutF": [{"repeat": "unspecified", "count": floats}]
        }}
    });
    case["scene"] = scene.clone();
    case
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
    // Built, not `json!`: that would serialize `case` into a copy.
    Value::Object(
        [("cases".to_string(), Value::Array(vec![case]))]
            .into_iter()
            .collect(),
    )
}

/// The clauses a program exercises: one per kind of operation it uses,
/// from the text its dialect answers to.
fn clauses(program: &Program, dialect: Dialect) -> Vec<&'static str> {
    let mut out = Vec::new();
    program::each_stmt(&program.body, &mut |s| {
        if let Some(c) = crate::clauses::of(s, dialect) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    });
    if !program.waves.is_empty() {
        // Which threads share a wave is no text's: the results are those
        // of every packing.
        out.push("dxr.wave_intrinsics.allowed_for_tools");
    }
    if out.is_empty() {
        out.push(crate::clauses::fallback(dialect));
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
    /// What the program may use, which decides how it is printed.
    pub dialect: Dialect,
}

impl Generated {
    /// A program over a scene in `dialect`, with no pipeline flags.
    pub fn new(scene: Value, program: Program, dialect: Dialect) -> Self {
        Generated {
            scene,
            program,
            pipeline_flags: Vec::new(),
            dialect,
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

/// The strategy of generated cases in `dialect`: a scene and a program of
/// up to `max_statements` statements.
pub fn generated(
    max_statements: usize,
    dialect: Dialect,
) -> impl proptest::strategy::Strategy<Value = Generated> {
    use proptest::strategy::Strategy;
    // The program first: shrinking works through a tuple in order, and the
    // program is what a reader of a regression case needs small.
    (
        program::strategy::program(max_statements, dialect),
        crate::scene::scene(dialect.micromaps),
        pipeline_flags(),
    )
        .prop_map(move |(program, scene, pipeline_flags)| Generated {
            scene,
            program,
            pipeline_flags,
            dialect,
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
        generated(8, Dialect::full(Language::Hlsl { sm69: true }))
            .new_tree(&mut runner)
            .map(|t| t.current())
            .map_err(|_| arbitrary::Error::IncorrectFormat)
    }
}
