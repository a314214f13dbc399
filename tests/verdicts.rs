//! Verdicts: a wrong expectation fails with the buffer, element, expected
//! and actual values; profiles and capabilities give "not supported"; a
//! crashing backend gives "error"; the report records all of it.

use ser_harness::backend::{Backend, BackendError, Execution, Output};
use ser_harness::load::{load_dir, Case};
use ser_harness::reference_backend::ReferenceBackend;
use ser_harness::report::{Report, Summary};
use ser_harness::verdict::{judge, judge_within, Verdict};
use ser_reference::Profile;
use std::collections::BTreeMap;

const CASE: &str = r#"{ "cases": [ {
  "name": "wrong",
  "description": "A scratch case whose expectation is deliberately wrong.",
  "clauses": ["ser.hit_object.get_ray_tcurrent.miss_returns_tmax"],
  "profiles": ["0027-maybereorderthread"],
  "library": [
    "RWStructuredBuffer<float> Out : register(u0);",
    "[shader(\"raygeneration\")]",
    "void RayGen() {",
    "    RayDesc r; r.Origin = float3(0, 0, 0); r.Direction = float3(0, 0, 1); r.TMin = 0.5; r.TMax = 42.0;",
    "    HitObject h = HitObject::MakeMiss(RAY_FLAG_NONE, 0, r);",
    "    Out[0] = h.GetRayTCurrent();",
    "    Out[1] = h.GetRayTMin();",
    "}",
    "[shader(\"miss\")]",
    "void Miss(inout P p) { }",
    "struct P { uint v; };"
  ],
  "shader_table": { "miss": [ { "shader": "Miss" } ] },
  "dispatch": { "raygen": "RayGen" },
  "buffers": { "Out": { "elements": 2 } },
  "expect": { "buffers": { "Out": [41.0, 0.5] } }
} ] }"#;

fn scratch_case(name: &str, text: &str) -> (std::path::PathBuf, Case) {
    let dir = ser_tests::scratch(name);
    std::fs::write(dir.join("scratch.json"), text).unwrap();
    let case = load_dir(&dir)
        .into_iter()
        .next()
        .unwrap()
        .unwrap_or_else(|e| panic!("{e}"));
    (dir, case)
}

fn fixed_case(name: &str) -> (std::path::PathBuf, Case) {
    // The struct must come before the miss shader that uses it.
    let text = CASE.replace(
        "    \"[shader(\\\"miss\\\")]\",\n    \"void Miss(inout P p) { }\",\n    \"struct P { uint v; };\"",
        "    \"struct P { uint v; };\",\n    \"[shader(\\\"miss\\\")]\",\n    \"void Miss(inout P p) { }\"",
    );
    scratch_case(name, &text)
}

#[test]
fn wrong_expectation_fails_showing_buffer_element_expected_and_actual() {
    let (_, case) = fixed_case("wrong_expectation");
    let r = judge(
        &case,
        &ReferenceBackend::new(Profile::MaybeReorderThread0027),
    );
    assert_eq!(r.verdict, Verdict::Fail, "{}", r.message);
    assert!(
        r.message.contains(
            "buffer `Out`, element 0: expected 41.0 (0x42240000), actual 42.0 (0x42280000)"
        ),
        "{}",
        r.message
    );
    assert_eq!(r.mismatches.len(), 1);
    // The case also disagrees with the reference's legal outcome, and says so.
    assert_eq!(
        r.reference_disagreements.len(),
        1,
        "{:?}",
        r.reference_disagreements
    );
    assert!(
        r.message.contains("the reference allows 42.0"),
        "{}",
        r.message
    );
}

#[test]
fn report_records_every_case_as_it_finishes() {
    let (dir, case) = fixed_case("report");
    let path = dir.join("report.jsonl");
    let report = Report::create(&path, "reference", "0027-maybereorderthread", &dir).unwrap();
    let r = judge(
        &case,
        &ReferenceBackend::new(Profile::MaybeReorderThread0027),
    );
    report.case(&r);
    // Written at once: readable before the run ends.
    let records = ser_harness::report::read(&path).unwrap();
    assert_eq!(records.len(), 2);
    let mut summary = Summary::default();
    summary.add(r.verdict);
    report.summary(&summary);
    let records = ser_harness::report::read(&path).unwrap();
    assert_eq!(records[0]["type"], "run");
    assert_eq!(records[0]["version"], 1);
    assert_eq!(records[1]["type"], "case");
    assert_eq!(records[1]["id"], "scratch/wrong");
    assert_eq!(records[1]["verdict"], "fail");
    assert_eq!(records[1]["mismatches"][0]["buffer"], "Out");
    assert_eq!(records[1]["mismatches"][0]["element"], 0);
    assert_eq!(records[1]["mismatches"][0]["expected"], "41.0 (0x42240000)");
    assert_eq!(records[1]["mismatches"][0]["actual"], "42.0 (0x42280000)");
    assert!(records[1]["duration_ms"].as_f64().is_some());
    assert_eq!(records[2]["type"], "summary");
    assert_eq!(records[2]["fail"], 1);
}

#[test]
fn a_case_for_another_profile_is_not_supported() {
    let (_, case) = fixed_case("profile");
    let r = judge(&case, &ReferenceBackend::new(Profile::VulkanNv));
    assert_eq!(r.verdict, Verdict::NotSupported);
    assert!(
        r.message.contains("not to profile vulkan-nv"),
        "{}",
        r.message
    );
}

/// A backend that has no capabilities, panics, or fails, as told.
struct Stub {
    mode: &'static str,
}

impl Backend for Stub {
    fn name(&self) -> &str {
        "stub"
    }
    fn profile(&self) -> Profile {
        Profile::MaybeReorderThread0027
    }
    fn capabilities(&self) -> Vec<String> {
        Vec::new()
    }
    fn run(&self, _: &Case) -> Result<Execution, BackendError> {
        match self.mode {
            "panic" => panic!("the stub backend crashed"),
            "fail" => Err(BackendError::Failed("rejected the shader".into())),
            "hang" => loop {
                std::thread::sleep(std::time::Duration::from_secs(60));
            },
            _ => Ok(Execution {
                output: Output::Buffers(BTreeMap::from([(
                    "Out".to_string(),
                    vec![42.0f32.to_bits(), 0.5f32.to_bits()],
                )])),
                legal: None,
            }),
        }
    }
}

#[test]
fn missing_capability_is_named() {
    let dir = ser_tests::scratch("capability");
    std::fs::write(dir.join("c.json"), CASE.replace("\"profiles\"", "\"requires\": [\"ray_query\"], \"profiles\"").replace(
        "    \"[shader(\\\"miss\\\")]\",\n    \"void Miss(inout P p) { }\",\n    \"struct P { uint v; };\"",
        "    \"struct P { uint v; };\",\n    \"[shader(\\\"miss\\\")]\",\n    \"void Miss(inout P p) { }\"",
    ))
    .unwrap();
    let case = load_dir(&dir)
        .into_iter()
        .next()
        .unwrap()
        .unwrap_or_else(|e| panic!("{e}"));
    let r = judge(&case, &Stub { mode: "ok" });
    assert_eq!(r.verdict, Verdict::NotSupported);
    assert!(
        r.message.contains("capability `ray_query`"),
        "{}",
        r.message
    );
}

#[test]
fn crashing_failing_and_hanging_in_process_backends_get_their_verdicts() {
    let (_, case) = fixed_case("crash");
    let r = judge(&case, &Stub { mode: "panic" });
    assert_eq!(r.verdict, Verdict::Crash);
    assert!(
        r.message.contains("panicked: the stub backend crashed"),
        "{}",
        r.message
    );
    let r = judge(&case, &Stub { mode: "fail" });
    assert_eq!(r.verdict, Verdict::Error);
    assert!(r.message.contains("rejected the shader"), "{}", r.message);
    // An in-process backend cannot be stopped: the runner stops waiting.
    let case = std::sync::Arc::new(case);
    let hang: std::sync::Arc<dyn Backend> = std::sync::Arc::new(Stub { mode: "hang" });
    let limit = std::time::Duration::from_millis(200);
    let r = judge_within(&case, &hang, Some(limit));
    assert_eq!(r.verdict, Verdict::Timeout, "{}", r.message);
    assert!(r.message.contains("within 0.2 s"), "{}", r.message);
    let ok: std::sync::Arc<dyn Backend> = std::sync::Arc::new(Stub { mode: "panic" });
    assert_eq!(
        judge_within(&case, &ok, Some(limit)).verdict,
        Verdict::Crash
    );
}

#[test]
fn a_backend_matching_the_expectation_passes() {
    let (_, mut case) = fixed_case("stub_pass");
    // Expect what the stub writes: 42.0 and 0.5.
    if let ser_harness::load::Expected::Buffers(b) = &mut case.expect {
        b.get_mut("Out").unwrap().words[0] = ser_harness::expect::Expect::Exact(42.0f32.to_bits());
    }
    let r = judge(&case, &Stub { mode: "ok" });
    assert_eq!(r.verdict, Verdict::Pass, "{}", r.message);
}
