//! Malformed case files get errors that name the file, the place and what
//! was expected, and never stop the other cases.

use ser_harness::load::{load_dir, LoadError};
use std::path::Path;

const GOOD: &str = r#"{
  "name": "good",
  "description": "A well-formed case next to broken ones.",
  "clauses": ["ser.hit_object.get_ray_flags.nop_returns_zero"],
  "profiles": ["0027-maybereorderthread"],
  "library": ["RWStructuredBuffer<uint> Out : register(u0);", "[shader(\"raygeneration\")]", "void RayGen() { HitObject h; Out[0] = h.GetRayFlags(); }"],
  "dispatch": { "raygen": "RayGen" },
  "buffers": { "Out": { "elements": 1 } },
  "expect": { "buffers": { "Out": [0] } }
}"#;

/// The good case with `edit` applied to its JSON.
fn variant(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(GOOD).unwrap();
    edit(&mut v);
    v.to_string()
}

fn file_with(cases: &[String]) -> String {
    format!("{{ \"cases\": [{}] }}", cases.join(","))
}

/// Loads one file holding `cases` next to a good file; returns the errors.
fn errors_for(name: &str, contents: &str) -> Vec<LoadError> {
    let dir = ser_tests::scratch(name);
    std::fs::write(dir.join("bad.json"), contents).unwrap();
    std::fs::write(dir.join("ok.json"), file_with(&[GOOD.to_string()])).unwrap();
    let loaded = load_dir(&dir);
    assert!(
        loaded
            .iter()
            .any(|r| r.as_ref().is_ok_and(|c| c.id == "ok/good")),
        "the good case in another file must still load"
    );
    loaded.into_iter().filter_map(Result::err).collect()
}

fn one_error(name: &str, contents: &str) -> LoadError {
    let errs = errors_for(name, contents);
    assert_eq!(errs.len(), 1, "{errs:?}");
    let e = errs.into_iter().next().unwrap();
    assert!(e.file.ends_with(Path::new("bad.json")), "{e}");
    e
}

#[test]
fn invalid_json_names_line_and_column() {
    let e = one_error("syntax", "{ \"cases\": [ { \"name\": \"x\", } ] }");
    assert_eq!(e.location, "line 1, column 29", "{e}");
    assert!(e.message.contains("not valid JSON"), "{e}");
}

#[test]
fn unknown_field_is_an_error() {
    let e = one_error(
        "unknown_field",
        &file_with(&[variant(|v| v["colour"] = "red".into())]),
    );
    assert_eq!(e.location, "cases[0].colour", "{e}");
    assert!(
        e.message
            .contains("unknown field `colour`, expected one of `name`"),
        "{e}"
    );
    assert_eq!(e.case.as_deref(), Some("bad/good"));
}

#[test]
fn wrong_type_names_the_json_path() {
    let e = one_error(
        "wrong_type",
        &file_with(&[variant(|v| v["buffers"]["Out"]["elements"] = "four".into())]),
    );
    assert_eq!(e.location, "cases[0].buffers.Out.elements", "{e}");
    assert!(e.message.contains("expected u32"), "{e}");
}

#[test]
fn instance_mask_over_8_bits_is_rejected() {
    let e = one_error(
        "mask",
        &file_with(&[variant(
            |v| v["scene"] = serde_json::json!({"blas": [{"geometries": []}], "instances": [{"blas": 0, "mask": 256}]}),
        )]),
    );
    assert_eq!(e.location, "cases[0].scene.instances[0].mask", "{e}");
    assert!(e.message.contains("256"), "{e}");
}

#[test]
fn instance_id_over_24_bits_is_rejected() {
    let e = one_error(
        "id24",
        &file_with(&[variant(
            |v| v["scene"] = serde_json::json!({"blas": [{"geometries": []}], "instances": [{"blas": 0, "instance_id": 16777216}]}),
        )]),
    );
    assert_eq!(e.location, "cases[0].scene.instances[0].instance_id", "{e}");
    assert!(e.message.contains("24 bits"), "{e}");
}

#[test]
fn blas_index_out_of_range() {
    let e = one_error(
        "blas_index",
        &file_with(&[variant(|v| {
            v["scene"] = serde_json::json!({"blas": [], "instances": [{"blas": 3}]})
        })]),
    );
    assert_eq!(e.location, "cases[0].scene.instances[0].blas", "{e}");
    assert!(e.message.contains("not an index into scene.blas"), "{e}");
}

#[test]
fn a_blas_mixing_triangles_and_boxes_is_rejected() {
    let e = one_error(
        "mixed_blas",
        &file_with(&[variant(|v| {
            v["scene"] = serde_json::json!({"blas": [{"geometries": [
                {"triangles": [[[0, 0, 5], [1, 0, 5], [0, 1, 5]]]},
                {"aabbs": [{"min": [0, 0, 0], "max": [1, 1, 1]}]}
            ]}]})
        })]),
    );
    assert_eq!(e.location, "cases[0].scene.blas[0].geometries", "{e}");
    assert!(
        e.message.contains("one type per bottom-level structure"),
        "{e}"
    );
}

/// A scene with one matrix motion instance whose transform at time 1.0 is `t1`.
fn motion_scene(t1: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"blas": [{"geometries": []}], "instances": [{"blas": 0, "transform_t1": t1}]})
}

#[test]
fn a_motion_instance_outside_the_vulkan_profiles_is_rejected() {
    let e = one_error(
        "motion_profile",
        &file_with(&[variant(|v| {
            v["scene"] = motion_scene(serde_json::json!([
                [1, 0, 0, 4],
                [0, 1, 0, 0],
                [0, 0, 1, 0]
            ]))
        })]),
    );
    assert_eq!(
        e.location, "cases[0].scene.instances[0].transform_t1",
        "{e}"
    );
    assert!(
        e.message
            .contains("only in the profiles vulkan-nv and vulkan-ext")
            && e.message.contains("0027-maybereorderthread"),
        "{e}"
    );
}

#[test]
fn a_motion_instance_needs_an_invertible_3x4_end_transform() {
    let singular = one_error(
        "motion_singular",
        &file_with(&[variant(|v| {
            v["profiles"] = serde_json::json!(["vulkan-nv"]);
            v["scene"] = motion_scene(serde_json::json!([
                [0, 0, 0, 4],
                [0, 1, 0, 0],
                [0, 0, 1, 0]
            ]))
        })]),
    );
    assert_eq!(
        singular.location, "cases[0].scene.instances[0].transform_t1",
        "{singular}"
    );
    assert!(singular.message.contains("invertible"), "{singular}");
    let short = one_error(
        "motion_shape",
        &file_with(&[variant(|v| {
            v["profiles"] = serde_json::json!(["vulkan-nv"]);
            v["scene"] = motion_scene(serde_json::json!([[1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]))
        })]),
    );
    assert!(
        short
            .location
            .starts_with("cases[0].scene.instances[0].transform_t1"),
        "{short}"
    );
}

#[test]
fn shader_parse_error_names_the_line_and_column() {
    let e = one_error(
        "parse",
        &file_with(&[variant(|v| {
            v["library"][2] = "void RayGen() { HitObject h; Out[0] = h.GetRayFlags() +; }".into();
        })]),
    );
    assert_eq!(e.location, "cases[0].library[2]", "{e}");
    assert!(e.message.contains("line 3, column 56"), "{e}");
    assert!(e.message.contains("(in `RayGen`)"), "{e}");
}

#[test]
fn undeclared_name_in_a_shader() {
    let e = one_error(
        "undeclared",
        &file_with(&[variant(|v| {
            v["library"][2] = "void RayGen() { Out[0] = missing; }".into()
        })]),
    );
    assert!(e.message.contains("`missing` is not declared"), "{e}");
}

#[test]
fn unknown_shader_in_the_table() {
    let e = one_error(
        "unknown_shader",
        &file_with(&[variant(|v| {
            v["shader_table"] = serde_json::json!({"miss": [{"shader": "Nowhere"}]})
        })]),
    );
    assert_eq!(e.location, "cases[0].shader_table.miss[0].shader", "{e}");
}

#[test]
fn expectation_count_must_match_the_buffer() {
    let e = one_error(
        "count",
        &file_with(&[variant(|v| {
            v["expect"]["buffers"]["Out"] = serde_json::json!([0, 1])
        })]),
    );
    assert_eq!(e.location, "cases[0].expect.buffers.Out", "{e}");
    assert!(
        e.message
            .contains("2 element(s) expected, the buffer has 1"),
        "{e}"
    );
}

#[test]
fn malformed_expectation_value() {
    let e = one_error(
        "expect_value",
        &file_with(&[variant(|v| {
            v["expect"]["buffers"]["Out"] = serde_json::json!([{"approx": 1}])
        })]),
    );
    assert_eq!(e.location, "cases[0].expect.buffers.Out[0]", "{e}");
}

#[test]
fn unknown_profile_and_capability() {
    let e = one_error(
        "profile",
        &file_with(&[variant(|v| v["profiles"] = serde_json::json!(["dxr-2"]))]),
    );
    assert_eq!(e.location, "cases[0].profiles[0]", "{e}");
    let e = one_error(
        "capability",
        &file_with(&[variant(|v| v["requires"] = serde_json::json!(["teleport"]))]),
    );
    assert_eq!(e.location, "cases[0].requires[0]", "{e}");
    assert!(e.message.contains("unknown capability `teleport`"), "{e}");
}

#[test]
fn errors_from_defaults_name_the_defaults() {
    let contents =
        r#"{ "defaults": { "dispatch": { "raygen": 7 } }, "cases": [ { "name": "a" } ] }"#;
    let e = one_error("defaults", contents);
    assert_eq!(e.location, "defaults.dispatch.raygen", "{e}");
}

#[test]
fn one_bad_case_does_not_hide_its_neighbours_in_the_same_file() {
    let bad = variant(|v| v["name"] = "Bad Name".into());
    let good2 = variant(|v| v["name"] = "second".into());
    let dir = ser_tests::scratch("neighbours");
    std::fs::write(dir.join("mixed.json"), file_with(&[bad, good2])).unwrap();
    let loaded = load_dir(&dir);
    assert_eq!(loaded.len(), 2);
    assert!(loaded[0].is_err());
    assert_eq!(loaded[1].as_ref().unwrap().id, "mixed/second");
}

#[test]
fn duplicate_ids_are_errors() {
    let dir = ser_tests::scratch("duplicates");
    std::fs::write(
        dir.join("twice.json"),
        file_with(&[GOOD.to_string(), GOOD.to_string()]),
    )
    .unwrap();
    let loaded = load_dir(&dir);
    assert!(loaded[0].is_ok());
    let e = loaded[1].as_ref().unwrap_err();
    assert!(e.message.contains("already used"), "{e}");
}

/// A payload access qualifier that does not parse is a located load error;
/// one that parses but breaks DXR's declaration rules loads, so that a
/// negative case can name the validator's code for it
/// (`payload_qualifier_missing`, `payload_qualifier`, ...).
#[test]
fn payload_qualifiers_are_parsed_then_validated() {
    let with_struct = |line: &'static str| {
        variant(move |v| {
            let lib = v["library"].as_array_mut().unwrap();
            lib.insert(0, line.into());
        })
    };
    let e = one_error(
        "paq_syntax",
        &file_with(&[with_struct(
            "struct [raypayload] P { uint a : read(caller : write(caller); };",
        )]),
    );
    assert!(e.location.contains("library"), "{e}");
    assert!(e.message.contains("`)`"), "{e}");
    for (name, line) in [
        ("paq_missing", "struct [raypayload] P { uint a; };"),
        (
            "paq_stage",
            "struct [raypayload] P { uint a : read(caller, intersection) : write(caller); };",
        ),
    ] {
        let dir = ser_tests::scratch(name);
        std::fs::write(dir.join("ok.json"), file_with(&[with_struct(line)])).unwrap();
        assert!(load_dir(&dir)[0].is_ok(), "{line}");
    }
}

/// A name filter cannot match the cases of a file that fails to load before
/// naming them, so the run reports the file anyway: a filtered run never
/// calls the suite conformant while a case file is broken.
#[test]
fn a_filtered_run_still_reports_a_file_that_does_not_load() {
    use ser_harness::reference_backend::ReferenceBackend;
    use ser_harness::runner::{run, Config};
    use ser_harness::verdict::Verdict;
    use std::sync::Arc;
    let dir = ser_tests::scratch("filtered_run");
    std::fs::write(dir.join("ok.json"), file_with(&[GOOD.to_string()])).unwrap();
    std::fs::write(dir.join("broken.json"), "{ \"cases\": [ {").unwrap();
    let backend = Arc::new(ReferenceBackend::new(
        ser_reference::Profile::MaybeReorderThread0027,
    ));
    let mut config = Config::new(dir, backend);
    config.args.filter = Some("good".into());
    config.args.quiet = true;
    let summary = run(config).expect("not a listing");
    let verdicts: Vec<(String, Verdict)> = summary
        .results
        .iter()
        .map(|r| (r.id.clone(), r.verdict))
        .collect();
    assert!(
        verdicts.contains(&("ok/good".into(), Verdict::Pass)),
        "{verdicts:?}"
    );
    assert!(
        verdicts
            .iter()
            .any(|(id, v)| id.contains("broken.json") && *v == Verdict::Error),
        "the broken file is reported although the filter does not name it: {verdicts:?}"
    );
}

#[test]
fn a_recursion_depth_past_what_a_pipeline_may_declare_is_rejected() {
    let at = |depth: u32| {
        errors_for(
            "recursion_depth",
            &file_with(&[variant(|v| {
                v["pipeline"] = serde_json::json!({"max_recursion_depth": depth})
            })]),
        )
    };
    assert!(at(31).is_empty(), "31 is the largest D3D12 allows");
    let errs = at(32);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].location, "cases[0].pipeline.max_recursion_depth");
    assert!(
        errs[0]
            .message
            .contains("32 is past the largest a pipeline may declare, 31"),
        "{}",
        errs[0]
    );
}

#[test]
fn a_runtime_case_with_no_specified_word_is_rejected() {
    let e = one_error(
        "all_unspecified",
        &file_with(&[variant(|v| {
            v["expect"]["buffers"]["Out"] = serde_json::json!(["unspecified"])
        })]),
    );
    assert_eq!(e.location, "cases[0].expect.buffers", "{e}");
    assert!(
        e.message
            .contains("every expected word is `unspecified`, so any implementation passes"),
        "{e}"
    );
    // One specified word among unspecified ones is a case that can fail.
    let ok = variant(|v| {
        v["buffers"]["Out"]["elements"] = 2.into();
        v["expect"]["buffers"]["Out"] = serde_json::json!([0, "unspecified"]);
    });
    assert!(errors_for("one_specified", &file_with(&[ok])).is_empty());
}

/// The good case with its raygeneration shader's body replaced by `body`.
fn with_raygen(body: &str) -> String {
    variant(|v| {
        v["library"] = serde_json::json!([
            "struct P { uint v; };",
            "RaytracingAccelerationStructure Scene : register(t0);",
            "RWStructuredBuffer<uint> Out : register(u0);",
            "[shader(\"raygeneration\")]",
            format!("void RayGen() {{ {body} }}"),
        ])
    })
}

#[test]
fn a_built_in_call_must_fit_one_of_its_overloads() {
    let ray = "RayDesc r; r.Origin = float3(0, 0, 0); r.Direction = float3(0, 0, 1); r.TMin = 0; r.TMax = 1;";
    for (name, body, says) in [
        (
            "make_miss_two",
            format!("{ray} HitObject h = HitObject::MakeMiss(0, r); Out[0] = 0;"),
            "`HitObject::MakeMiss` takes 3 operand(s): (RayFlags, MissShaderIndex, Ray); 2 given",
        ),
        (
            "tmin_operand",
            "HitObject h; Out[0] = asuint(h.GetRayTMin(3));".to_string(),
            "`HitObject's GetRayTMin` takes 0 operand(s): (); 1 given",
        ),
        (
            "miss_operand_kinds",
            format!("{ray} HitObject h = HitObject::MakeMiss(0, r, 1); Out[0] = 0;"),
            "operand 2 of `HitObject::MakeMiss` (MissShaderIndex) is a RayDesc; expected a number (a scalar)",
        ),
        (
            "reorder_hit_is_no_hint",
            format!("{ray} HitObject h; MaybeReorderThread(r, 1); Out[0] = 0;"),
            "operand 1 of `MaybeReorderThread` (CoherenceHint) is a RayDesc; expected a number",
        ),
        (
            "reorder_four",
            "HitObject h; MaybeReorderThread(h, 1, 2, 3); Out[0] = 0;".to_string(),
            "`MaybeReorderThread` takes 1, 2 or 3 operand(s)",
        ),
        (
            "method_on_a_number",
            "uint x = 1; Out[0] = x.GetRayFlags();".to_string(),
            "`.GetRayFlags()` is called on a uint; expected a HitObject",
        ),
        (
            "template_missing",
            "HitObject h; P p = h.GetAttributes(); Out[0] = p.v;".to_string(),
            "`HitObject's GetAttributes` with 0 operand(s) takes a type argument",
        ),
    ] {
        let e = one_error(name, &file_with(&[with_raygen(&body)]));
        assert_eq!(e.location, "cases[0].library[4]", "{name}: {e}");
        assert!(e.message.contains(says), "{name}: {e}");
    }
    // The validator's rules stay the validator's: an operand that is not an
    // acceleration structure loads, and the negative case expects the
    // diagnostic.
    let ok = with_raygen(&format!(
        "{ray} P p; p.v = 0; HitObject h = HitObject::TraceRay(Out, 0, 0xFF, 0, 0, 0, r, p); Out[0] = 0;"
    ));
    assert!(errors_for("ruled_operand", &file_with(&[ok])).is_empty());
}
