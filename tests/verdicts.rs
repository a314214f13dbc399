//! Verdicts: a wrong expectation fails with the buffer, element, expected
//! and actual values; profiles and capabilities give "not supported"; a
//! crashing backend gives "error"; a run that misses only recommendations
//! (`should` clauses) is reported without failing; the report records all
//! of it.

use ser_harness::backend::{Backend, BackendError, Execution, Output};
use ser_harness::claim::Claim;
use ser_harness::conclusion::{conclude, Scope};
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
    let backend = ReferenceBackend::new(Profile::MaybeReorderThread0027);
    let claim = Claim::of(&backend);
    let report = Report::create(&path, "reference", &claim, &dir).unwrap();
    let r = judge(
        &case,
        &ReferenceBackend::new(Profile::MaybeReorderThread0027),
    );
    report.case(&r);
    // Written at once: readable before the run ends.
    let records = ser_harness::report::read(&path).unwrap();
    assert_eq!(records.len(), 2);
    let summary = Summary::of(std::slice::from_ref(&r));
    let scope = Scope {
        suite: 1,
        selected: 1,
        ..Scope::default()
    };
    report.summary(&summary, &conclude(&claim, &summary, &scope));
    let records = ser_harness::report::read(&path).unwrap();
    assert_eq!(records[0]["type"], "run");
    assert_eq!(records[0]["version"], 4);
    assert_eq!(records[0]["profile"], "0027-maybereorderthread");
    assert_eq!(
        records[0]["capabilities"].as_array().unwrap().len(),
        ser_harness::capability::CAPABILITIES.len()
    );
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
    assert_eq!(records[2]["applicable"], 1);
    assert_eq!(records[2]["verdict"]["standing"], "not_conformant");
    assert_eq!(records[2]["verdict"]["exit_code"], 1);
    assert!(records[2]["verdict"]["line"]
        .as_str()
        .unwrap()
        .starts_with(&format!(
            "NOT CONFORMANT to 0027-maybereorderthread with all {} capabilities: 0 of 1 applicable cases pass; 1 fail",
            ser_harness::capability::CAPABILITIES.len()
        )));
}

#[test]
fn a_case_for_another_profile_is_not_applicable() {
    let (_, case) = fixed_case("profile");
    let r = judge(&case, &ReferenceBackend::new(Profile::VulkanNv));
    assert_eq!(r.verdict, Verdict::NotApplicable);
    assert_eq!(r.outside_claim.as_deref(), Some("other profiles"));
    assert!(
        r.message
            .contains("applies to 0027-maybereorderthread; the backend implements vulkan-nv"),
        "{}",
        r.message
    );
    assert!(!r.verdict.fails_run() && !r.verdict.is_applicable());
}

/// A backend that claims hit objects (`shader_execution_reorder`, which
/// the scratch case's shaders use) and nothing else, and panics, fails,
/// declines, or answers with buffers of the wrong shape, as told.
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
        vec!["shader_execution_reorder".into()]
    }
    fn run(&self, _: &Case) -> Result<Execution, BackendError> {
        match self.mode {
            "panic" => panic!("the stub backend crashed"),
            "fail" => Err(BackendError::Failed("rejected the shader".into())),
            "decline" => Err(BackendError::NotSupported("no such feature here".into())),
            "short" => buffers(&[("Out", 1)]),
            "missing" => buffers(&[]),
            "extra" => buffers(&[("Out", 2), ("Stray", 3)]),
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

/// Buffers of these names and lengths, every word 0.
fn buffers(shape: &[(&str, usize)]) -> Result<Execution, BackendError> {
    Ok(Execution {
        output: Output::Buffers(
            shape
                .iter()
                .map(|(n, len)| (n.to_string(), vec![0; *len]))
                .collect(),
        ),
        legal: None,
    })
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
    assert_eq!(r.verdict, Verdict::NotApplicable);
    assert_eq!(r.outside_claim.as_deref(), Some("ray_query"));
    assert!(r.message.contains("needs `ray_query`"), "{}", r.message);
}

#[test]
fn a_case_inside_the_claim_that_the_backend_declines_counts_against_it() {
    let (_, case) = fixed_case("declined");
    let r = judge(&case, &Stub { mode: "decline" });
    assert_eq!(r.verdict, Verdict::NotSupported);
    assert!(r.verdict.fails_run());
    assert!(
        r.message.contains("declined a case inside its claim (0027-maybereorderthread with {shader_execution_reorder}): no such feature here"),
        "{}",
        r.message
    );
}

#[test]
fn buffers_of_the_wrong_shape_are_a_protocol_error_naming_them() {
    let (_, case) = fixed_case("shape");
    for (mode, says) in [
        ("short", "buffer `Out` has 1 words, the case declares 2"),
        ("missing", "no buffer `Out` (2 words declared)"),
        (
            "extra",
            "an unknown buffer `Stray` (the case declares `Out`)",
        ),
    ] {
        let r = judge(&case, &Stub { mode });
        assert_eq!(r.verdict, Verdict::Error, "{mode}: {}", r.message);
        assert!(r.message.contains("broke the protocol"), "{}", r.message);
        assert!(r.message.contains(says), "{mode}: {}", r.message);
        assert!(r.mismatches.is_empty(), "{mode}: no element is compared");
    }
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

/// The wrong case citing two clauses, with `ties` (JSON) laid over it.
fn two_clause_case(name: &str, ties: &str) -> Case {
    let text = CASE
        .replace(
            "\"clauses\": [\"ser.hit_object.get_ray_tcurrent.miss_returns_tmax\"],",
            &format!("\"clauses\": [\"ser.hit_object.get_ray_tcurrent.miss_returns_tmax\", \"ser.hit_object.get_ray_tmin.returns_tmin\"], \"ties\": {ties},"),
        )
        .replace(
            "    \"[shader(\\\"miss\\\")]\",\n    \"void Miss(inout P p) { }\",\n    \"struct P { uint v; };\"",
            "    \"struct P { uint v; };\",\n    \"[shader(\\\"miss\\\")]\",\n    \"void Miss(inout P p) { }\"",
        );
    scratch_case(name, &text).1
}

#[test]
fn a_failure_breaks_the_clause_its_element_is_tied_to_and_only_cites_the_rest() {
    let reference = ReferenceBackend::new(Profile::MaybeReorderThread0027);
    // Out[0] (GetRayTCurrent) is wrong; it decides the tcurrent clause.
    let tied = two_clause_case(
        "tied",
        r#"{"ser.hit_object.get_ray_tcurrent.miss_returns_tmax": ["Out[0]"], "ser.hit_object.get_ray_tmin.returns_tmin": ["Out[1..2]"]}"#,
    );
    let r = judge(&tied, &reference);
    assert_eq!(r.verdict, Verdict::Fail);
    assert_eq!(
        r.broken_clauses,
        vec!["ser.hit_object.get_ray_tcurrent.miss_returns_tmax".to_string()]
    );
    // Out[1] (GetRayTMin) matched: the case still shows that clause kept.
    assert_eq!(
        r.kept_clauses,
        vec!["ser.hit_object.get_ray_tmin.returns_tmin".to_string()]
    );
    // Without ties a failure of a case citing two clauses breaks neither.
    let untied = two_clause_case("untied", "{}");
    let r = judge(&untied, &reference);
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(r.broken_clauses.is_empty(), "{:?}", r.broken_clauses);
    assert!(r.kept_clauses.is_empty(), "{:?}", r.kept_clauses);
    // A case citing one clause ties everything to it.
    let (_, one) = fixed_case("one_clause");
    assert_eq!(
        judge(&one, &reference).broken_clauses,
        vec!["ser.hit_object.get_ray_tcurrent.miss_returns_tmax".to_string()]
    );
}

#[test]
fn ties_must_name_the_case_s_clauses_and_buffers() {
    for (ties, says) in [
        (
            r#"{"ser.hit_object.get_ray_flags.nop_returns_zero": ["Out"]}"#,
            "is not among the case's clauses",
        ),
        (
            r#"{"ser.hit_object.get_ray_tmin.returns_tmin": ["Nope[0]"]}"#,
            "`Nope` is no buffer of the case",
        ),
        (
            r#"{"ser.hit_object.get_ray_tmin.returns_tmin": ["Out[2]"]}"#,
            "elements 2..3 of a buffer of 2",
        ),
        (
            r#"{"ser.hit_object.get_ray_tmin.returns_tmin": ["Out[x]"]}"#,
            "expected BUFFER, BUFFER[i] or BUFFER[i..j]",
        ),
    ] {
        let dir = ser_tests::scratch("bad_ties");
        let text = CASE.replace(
            "\"clauses\": [\"ser.hit_object.get_ray_tcurrent.miss_returns_tmax\"],",
            &format!("\"clauses\": [\"ser.hit_object.get_ray_tcurrent.miss_returns_tmax\", \"ser.hit_object.get_ray_tmin.returns_tmin\"], \"ties\": {ties},"),
        );
        std::fs::write(dir.join("t.json"), text).unwrap();
        let e = load_dir(&dir).into_iter().next().unwrap().unwrap_err();
        assert!(e.location.starts_with("cases[0].ties."), "{e}");
        assert!(e.message.contains(says), "{ties}: {e}");
    }
}

#[test]
fn a_case_naming_an_unknown_clause_does_not_load() {
    let dir = ser_tests::scratch("unknown_clause");
    let text = CASE.replace(
        "\"clauses\": [\"ser.hit_object.get_ray_tcurrent.miss_returns_tmax\"],",
        "\"clauses\": [\"ser.hit_object.get_ray_tcurrent.miss_returns_tmax\", \"ser.hit_object.no_such.rule\"],",
    );
    std::fs::write(dir.join("u.json"), text).unwrap();
    let e = load_dir(&dir).into_iter().next().unwrap().unwrap_err();
    assert_eq!(e.location, "cases[0].clauses[1]", "{e}");
    assert!(
        e.message
            .contains("`ser.hit_object.no_such.rule` is no clause of the spec-map"),
        "{e}"
    );
    assert_eq!(
        e.unknown_clause.as_deref(),
        Some("ser.hit_object.no_such.rule")
    );
    assert_eq!(e.case.as_deref(), Some("u/wrong"));
}

/// A copy of `cases/traversal/watertight.json` in a scratch folder, so that
/// its cases keep their ids (`traversal/watertight/...`).
fn watertight_cases(name: &str) -> std::path::PathBuf {
    let dir = ser_tests::scratch(name);
    std::fs::create_dir_all(dir.join("traversal")).unwrap();
    std::fs::copy(
        ser_tests::cases_dir().join("traversal/watertight.json"),
        dir.join("traversal/watertight.json"),
    )
    .unwrap();
    dir
}

const SHARED_EDGE: &str = "vk.watertight.no_double_hit_shared_edge";
const NO_DUPLICATE: &str =
    "vk.confirmation.triangle.may_execute_multiple_times_unless_no_duplicate";

/// A backend that double-hits every shared edge and closed-fan vertex, as
/// Mesa's lavapipe double-hits shared edges: the reference with its
/// `watertight_double_hit` mutation. "Implementations should: not
/// double-hit" is a recommendation: the cases are reported, with their
/// mismatches, and the backend stays conformant.
#[test]
fn a_backend_that_double_hits_shared_edges_misses_a_recommendation_and_stays_conformant() {
    use ser_harness::conclusion::Standing;
    use ser_harness::mutant_backend::MutantBackend;
    use ser_harness::runner::{run, Config};
    use ser_reference::mutation::Mutation;
    let dir = watertight_cases("double_hit");
    let backend = std::sync::Arc::new(MutantBackend::new(
        Mutation::WatertightDoubleHit,
        Profile::VulkanExt,
    ));
    let mut config = Config::new(dir.clone(), backend);
    config.args.quiet = true;
    config.report = vec![Report::open(&dir.join("run.jsonl")).unwrap()];
    config.junit = Some(Report::open(&dir.join("junit.xml")).unwrap());
    let run = run(config).expect("not a listing");
    let warned: Vec<&str> = run
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Warning)
        .map(|r| r.id.trim_start_matches("traversal/watertight/"))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        warned,
        [
            "closed_fan_across_geometries",
            "closed_fan_four",
            "closed_fan_six",
            "closed_fan_three",
            "shared_edge_different_geometries",
            "shared_edge_exactly_one",
            "shared_edge_oblique_ray",
            "shared_edge_oblique_ray_in_a_turned_instance",
            "shared_edge_opposite_direction",
            "shared_edge_rotated_instance",
            "shared_edge_steep",
        ]
    );
    let others: Vec<(&str, Verdict)> = run
        .results
        .iter()
        .filter(|r| r.verdict != Verdict::Warning)
        .map(|r| (r.id.as_str(), r.verdict))
        .collect();
    assert!(
        others.iter().all(|(_, v)| *v == Verdict::Pass),
        "{others:?}"
    );
    assert_eq!(run.conclusion.standing, Standing::Conformant);
    assert_eq!(run.conclusion.exit_code, 0);
    assert!(
        run.conclusion
            .line
            .ends_with(": 6 of 17 applicable cases pass; 11 recommendations not met (should)"),
        "{}",
        run.conclusion.line
    );
    // The report has each one with its mismatches and the clause not met.
    let records = ser_harness::report::read(&dir.join("run.jsonl")).unwrap();
    let one = records
        .iter()
        .find(|r| r["id"] == "traversal/watertight/shared_edge_exactly_one")
        .unwrap();
    assert_eq!(one["verdict"], "warning");
    assert_eq!(
        one["mismatches"],
        serde_json::json!([{"buffer": "Out", "element": 0, "component": null,
            "expected": "1 (0x00000001)", "actual": "2 (0x00000002)"}])
    );
    assert_eq!(one["broken_clauses"], serde_json::json!([SHARED_EDGE]));
    assert_eq!(one["kept_clauses"], serde_json::json!([NO_DUPLICATE]));
    let summary = records.last().unwrap();
    assert_eq!(summary["warning"], 11);
    assert_eq!(summary["verdict"]["standing"], "conformant");
    let junit = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
    assert!(
        junit.contains("failures=\"0\" errors=\"0\" skipped=\"11\""),
        "{junit}"
    );
    assert!(
        junit.contains("<skipped message=\"recommendation not met: "),
        "{junit}"
    );
}

/// A backend that writes fixed words to `Out`, under a profile.
struct Writes(Vec<u32>, Profile);

impl Backend for Writes {
    fn name(&self) -> &str {
        "writes"
    }
    fn profile(&self) -> Profile {
        self.1
    }
    fn capabilities(&self) -> Vec<String> {
        Vec::new()
    }
    fn run(&self, _: &Case) -> Result<Execution, BackendError> {
        Ok(Execution {
            output: Output::Buffers(BTreeMap::from([("Out".to_string(), self.0.clone())])),
            legal: None,
        })
    }
}

/// The watertight cases tie their elements so that only the double hit and
/// the miss the recommendation speaks of are recommendations: the same
/// count from one primitive's any-hit run twice breaks the no-duplicate
/// rule, and a ray that misses a transformed instance may break the
/// instance transform, both runtime rules that fail the case.
#[test]
fn a_duplicate_any_hit_or_a_misplaced_ray_still_fails_a_watertight_case() {
    let dir = watertight_cases("watertight_ties");
    let cases = load_dir(&dir);
    let case = |name: &str| {
        cases
            .iter()
            .flatten()
            .find(|c| c.id == format!("traversal/watertight/{name}"))
            .unwrap()
    };
    const MISS: u32 = 0xDEAD_BEEF;
    for (name, out, verdict, broken) in [
        // count 2 from T0 and T1: a double hit.
        (
            "shared_edge_exactly_one",
            [2, 1, 0],
            Verdict::Warning,
            vec![SHARED_EDGE],
        ),
        // No candidate at a shared edge: a miss, the same recommendation.
        (
            "shared_edge_exactly_one",
            [0, MISS, 0],
            Verdict::Warning,
            vec![SHARED_EDGE],
        ),
        // count 2 from T0's any-hit run twice: a duplicate.
        (
            "shared_edge_exactly_one",
            [2, 0, 1],
            Verdict::Fail,
            vec![NO_DUPLICATE, SHARED_EDGE],
        ),
        (
            "shared_edge_rotated_instance",
            [0, MISS, 0],
            Verdict::Fail,
            vec![
                "vk.candidate.instance.ray_transformed_into_instance_space",
                SHARED_EDGE,
            ],
        ),
        (
            "shared_edge_rotated_instance",
            [2, 0, 0],
            Verdict::Warning,
            vec![SHARED_EDGE],
        ),
    ] {
        let r = judge(case(name), &Writes(out.to_vec(), Profile::VulkanExt));
        assert_eq!(r.verdict, verdict, "{name} {out:?}: {}", r.message);
        assert_eq!(r.broken_clauses, broken, "{name} {out:?}");
    }
}

/// Under the HLSL profiles DXR requires what Vulkan recommends: "A single
/// ray striking an edge in a scene must report an intersection with only
/// one of the incident triangles." A double hit or a miss at a shared edge
/// fails there, breaking DXR's clauses as well as citing Vulkan's.
#[test]
fn a_double_hit_fails_under_the_hlsl_profiles() {
    let dir = watertight_cases("watertight_hlsl");
    let cases = load_dir(&dir);
    let case = cases
        .iter()
        .flatten()
        .find(|c| c.id == "traversal/watertight/shared_edge_exactly_one")
        .unwrap();
    for profile in [
        Profile::MaybeReorderThread0027,
        Profile::ReorderThread0027,
        Profile::Sm69,
    ] {
        for out in [[2, 1, 0], [0, 0xDEAD_BEEF, 0]] {
            let r = judge(case, &Writes(out.to_vec(), profile));
            assert_eq!(r.verdict, Verdict::Fail, "{profile} {out:?}: {}", r.message);
            assert_eq!(
                r.broken_clauses,
                [
                    "dxr.triangle_intersection.edge_one_incident_triangle",
                    "dxr.triangle_intersection.watertight_no_gaps",
                    SHARED_EDGE
                ],
                "{profile} {out:?}"
            );
        }
    }
    for profile in [Profile::VulkanNv, Profile::VulkanExt] {
        let r = judge(case, &Writes(vec![2, 1, 0], profile));
        assert_eq!(r.verdict, Verdict::Warning, "{profile}: {}", r.message);
    }
}

/// A compiler's backend that answers every case with one output.
struct Answers(Output, Profile);

impl Backend for Answers {
    fn name(&self) -> &str {
        "answers"
    }
    fn profile(&self) -> Profile {
        self.1
    }
    fn capabilities(&self) -> Vec<String> {
        vec!["validation".into(), "shader_execution_reorder".into()]
    }
    fn run(&self, _: &Case) -> Result<Execution, BackendError> {
        Ok(Execution {
            output: self.0.clone(),
            legal: None,
        })
    }
}

fn suite_case(id: &str) -> Case {
    load_dir(&ser_tests::cases_dir())
        .into_iter()
        .flatten()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no case {id}"))
}

/// A diagnostic that only `should` clauses require (DXIL's validation
/// warnings: "If num coherence hint bits from LSB is constant, validate
/// that it is less than or equal to 32") is a recommendation: a compiler
/// that stays silent has not met it, which does not count against it, and
/// `compiled` is judged as `diagnostics: []`. A required error missing, or
/// a diagnostic the case does not expect, still fails.
#[test]
fn a_missing_should_diagnostic_is_a_recommendation_and_compiled_is_no_diagnostics() {
    use ser_reference::validate::{DiagCode, Diagnostic, Severity};
    let warning = suite_case("validate/operands/hint_bits_literal_over");
    let silent = [
        Output::Diagnostics(Vec::new()),
        Output::Compiled {
            output: "module".into(),
            invalid: None,
        },
    ];
    for output in silent.clone() {
        let r = judge(&warning, &Answers(output, Profile::MaybeReorderThread0027));
        assert_eq!(r.verdict, Verdict::Warning, "{}", r.message);
        assert_eq!(
            r.broken_clauses,
            ["ser.dxil.maybereorderthread.warn_num_bits_le_32"]
        );
        assert!(
            r.message.contains("missing warning `hint_bits`"),
            "{}",
            r.message
        );
    }
    let other = Diagnostic {
        code: DiagCode::PayloadType,
        severity: Severity::Error,
        clause: String::new(),
        message: "x".into(),
        within: "RayGen".into(),
        span: Default::default(),
    };
    let r = judge(
        &warning,
        &Answers(
            Output::Diagnostics(vec![other]),
            Profile::MaybeReorderThread0027,
        ),
    );
    assert_eq!(r.verdict, Verdict::Fail, "{}", r.message);
    let error = suite_case("validate/stages/hit_object_array_variable_in_anyhit");
    for output in silent {
        let r = judge(&error, &Answers(output, Profile::MaybeReorderThread0027));
        assert_eq!(r.verdict, Verdict::Fail, "{}", r.message);
    }
    // A control whose warning is optional passes either way.
    let optional = suite_case("validate/operands/trace_ray_flags_skip_triangles_cull_front_sm69");
    for output in [
        Output::Diagnostics(Vec::new()),
        Output::Compiled {
            output: "module".into(),
            invalid: None,
        },
    ] {
        let r = judge(&optional, &Answers(output, Profile::Sm69));
        assert_eq!(r.verdict, Verdict::Pass, "{}", r.message);
    }
}
