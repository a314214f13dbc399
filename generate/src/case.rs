//! A generated case as a case file, loaded by the ordinary loader (so a
//! generated case is as checked as a hand-written one, and can be written
//! out as a regression case).

use crate::program::{self, Trace};
use crate::ray::Ray;
use crate::scene::HIT_GROUP_RECORDS;
use ser_harness::load::{load_text, Case};
use serde_json::{json, Value};
use std::path::Path;

/// The case file for a scene, a ray and a way of tracing.
pub fn file(name: &str, origin: &str, scene: &Value, ray: &Ray, trace: Trace) -> Value {
    let records: Vec<Value> = (0..HIT_GROUP_RECORDS)
        .map(|_| json!({"closest_hit": "CH", "intersection": "IS"}))
        .collect();
    let words: usize = program::ACCESSOR_WORDS.iter().map(|(_, n)| n).sum();
    json!({"cases": [{
        "name": name,
        "description": format!("Generated: {origin}."),
        "clauses": ["ser.design.canonical_sequence.functionally_equivalent_to_trace_ray", "ser.hit_object.invoke.executes_closesthit_or_miss"],
        "profiles": ["0027-maybereorderthread", "sm69"],
        "scene": scene,
        "shader_table": {"hit_groups": records, "miss": [{"shader": "Miss"}]},
        "library": program::library(ray, trace),
        "dispatch": {"raygen": "RayGen"},
        "buffers": {"Out": {"elements": 1}, "OutF": {"elements": words}},
        "expect": {"buffers": {"Out": ["unspecified"], "OutF": [{"repeat": "unspecified", "count": words}]}}
    }]})
}

/// Loads a generated case file; a generator that makes a case the loader
/// rejects is a bug of the generator, reported with the loader's message.
pub fn load(file: &Value) -> Result<Case, String> {
    let text = serde_json::to_string_pretty(file).expect("JSON serializes");
    let mut loaded = load_text(
        Path::new("generated"),
        Path::new("generated/case.json"),
        &text,
    );
    match loaded.pop() {
        Some(Ok(c)) => Ok(c),
        Some(Err(e)) => Err(format!("{e}\n{text}")),
        None => Err("no case".into()),
    }
}
