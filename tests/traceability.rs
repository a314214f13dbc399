//! The traceability report: coverage numbers, the clause-by-backend matrix
//! with links from failing clauses to failing cases, and the three formats.

use ser_harness::load::{glsl_source, load_dir};
use ser_harness::spec_map::{Coverage, Registry};
use ser_harness::traceability::{
    build, BackendRun, CaseRecord, ClauseResult, ClauseStatus, TRACE_VERSION,
};
use std::collections::BTreeMap;

fn trace(runs: Vec<BackendRun>) -> ser_harness::traceability::Trace {
    let registry = Registry::load(&ser_tests::cases_dir().join("..").join("spec-map")).unwrap();
    let cases: Vec<_> = load_dir(&ser_tests::cases_dir())
        .into_iter()
        .filter_map(Result::ok)
        .collect();
    let glsl: Vec<_> = glsl_source::load_dir(&ser_tests::cases_dir())
        .into_iter()
        .filter_map(Result::ok)
        .collect();
    let cov = Coverage::of_cases(&registry, &cases, &glsl);
    build(&registry, &cov, runs)
}

/// A run with these verdicts; a failing case breaks the clauses after it.
fn run(label: &str, verdicts: &[(&str, &str, &[&str])]) -> BackendRun {
    BackendRun {
        label: label.into(),
        backend: label.into(),
        profile: "0027-maybereorderthread".into(),
        verdict: None,
        cases: verdicts
            .iter()
            .map(|(c, v, broken)| {
                let record = CaseRecord {
                    verdict: serde_json::from_value(serde_json::json!(v)).expect("a verdict"),
                    message: format!("{v} message"),
                    broken: broken.iter().map(|b| b.to_string()).collect(),
                    kept: Vec::new(),
                };
                (c.to_string(), record)
            })
            .collect::<BTreeMap<_, _>>(),
    }
}

fn result(row: &ser_harness::traceability::ClauseRow, run: usize) -> (ClauseStatus, Vec<String>) {
    let ClauseResult { status, cases } = row.results[run].clone();
    (status, cases)
}

#[test]
fn coverage_counts_add_up() {
    let t = trace(Vec::new());
    assert_eq!(t.version, TRACE_VERSION);
    let docs: usize = t.documents.iter().map(|d| d.tally.clauses).sum();
    assert_eq!(docs, t.clauses.len());
    assert_eq!(t.total.clauses, t.clauses.len());
    for d in &t.documents {
        let per_section: usize = d.sections.iter().map(|(_, s)| s.testable).sum();
        assert_eq!(per_section, d.tally.testable, "{}", d.document);
        assert!(d.tally.covered + d.tally.pending <= d.tally.testable);
    }
    assert!(t.total.covered > 100, "{}", t.total.covered);
}

#[test]
fn the_matrix_links_a_failing_clause_to_its_failing_case() {
    let case = "hit_object/nop/get_ray_tmin";
    let clause = "ser.hit_object.get_ray_tmin.nop_returns_zero";
    let good = run("good", &[(case, "pass", &[])]);
    let bad = run("bad", &[(case, "fail", &[clause])]);
    let outside = run("outside", &[(case, "not_applicable", &[])]);
    let declined = run("declined", &[(case, "not_supported", &[])]);
    let t = trace(vec![good, bad, outside, declined]);
    let row = t.clauses.iter().find(|r| r.id == clause).unwrap();
    assert!(row.cases.iter().any(|c| c == case));
    assert_eq!(result(row, 0).0, ClauseStatus::Pass);
    assert_eq!(
        result(row, 1),
        (ClauseStatus::Broken, vec![case.to_string()])
    );
    assert_eq!(result(row, 2).0, ClauseStatus::NotApplicable);
    assert_eq!(
        result(row, 3),
        (ClauseStatus::CitedByFailing, vec![case.to_string()])
    );
    // A clause none of whose cases ran.
    let other = t
        .clauses
        .iter()
        .find(|r| r.id == "ser.hit_object.get_ray_flags.nop_returns_zero")
        .unwrap();
    assert_eq!(result(other, 0).0, ClauseStatus::NotRun);
    let html = t.to_html();
    assert!(
        html.contains("<a href='#r1-hit_object-nop-get_ray_tmin'>hit_object/nop/get_ray_tmin</a>"),
        "the failing cell links to the case"
    );
    assert!(
        html.contains("<div class=failcase id='r1-hit_object-nop-get_ray_tmin'>"),
        "the case has an anchor"
    );
    let md = t.to_markdown();
    assert!(
        md.contains("❌ [hit_object/nop/get_ray_tmin](#r1-hit_object-nop-get_ray_tmin)"),
        "markdown links too"
    );
    let json = t.to_json();
    assert_eq!(json["version"], TRACE_VERSION);
    assert_eq!(json["runs"].as_array().unwrap().len(), 4);
    // Per-backend totals count clauses by status (the clause, and its
    // twins in the earlier revision and the final proposal).
    let broken = t.clause_totals(1);
    assert!(broken.contains(&(ClauseStatus::Broken, 3)), "{broken:?}");
}

#[test]
fn a_failing_case_breaks_only_the_clauses_it_ties_the_failure_to() {
    // A case citing several clauses: the failure is tied to one of them.
    let t = trace(Vec::new());
    let row = t
        .clauses
        .iter()
        .find(|r| {
            r.cases.len() > 1
                && t.clauses
                    .iter()
                    .filter(|o| o.cases.contains(&r.cases[0]))
                    .count()
                    >= 3
        })
        .expect("a case citing three clauses or more");
    let case = row.cases[0].clone();
    let cited: Vec<String> = t
        .clauses
        .iter()
        .filter(|r| r.cases.contains(&case))
        .map(|r| r.id.clone())
        .collect();
    let t = trace(vec![run("gpu", &[(&case, "fail", &[&cited[0]])])]);
    let status = |id: &str| {
        let r = t.clauses.iter().find(|r| r.id == id).unwrap();
        result(r, 0).0
    };
    assert_eq!(status(&cited[0]), ClauseStatus::Broken, "{case}");
    // The other clauses are only cited, but for twins of the broken one.
    let twin_of_broken = |id: &str| {
        t.clauses
            .iter()
            .any(|r| r.id == id && r.same_as.as_deref() == Some(&cited[0]))
    };
    for other in cited[1..].iter().filter(|id| !twin_of_broken(id)) {
        assert_eq!(status(other), ClauseStatus::CitedByFailing, "{other}");
    }
    // A clause whose tied elements all matched is kept, failing case or not.
    let mut kept = run("gpu", &[(&case, "fail", &[&cited[0]])]);
    kept.cases.get_mut(&case).unwrap().kept = vec![cited[1].clone()];
    let t = trace(vec![kept]);
    let r = t.clauses.iter().find(|r| r.id == cited[1]).unwrap();
    assert_eq!(result(r, 0).0, ClauseStatus::Pass, "{}", cited[1]);
}

#[test]
fn html_is_self_contained() {
    let html = trace(Vec::new()).to_html();
    assert!(html.starts_with("<!doctype html>"));
    assert!(
        !html.contains("<script src") && !html.contains("<link "),
        "no external resources"
    );
    assert!(html.contains("class=bar"), "coverage bars");
}

#[test]
fn backend_results_are_read_from_report_files() {
    let dir = ser_tests::scratch("trace_results");
    let path = dir.join("r.jsonl");
    std::fs::write(
        &path,
        "{\"type\":\"run\",\"version\":1,\"backend\":\"gpu\",\"profile\":\"vulkan-nv\"}\n{\"type\":\"case\",\"id\":\"a/b\",\"verdict\":\"fail\",\"message\":\"m\"}\n",
    )
    .unwrap();
    let r = BackendRun::read(&path).unwrap();
    assert_eq!(r.label, "gpu (vulkan-nv)");
    assert_eq!(r.cases["a/b"].verdict, ser_harness::verdict::Verdict::Fail);
    assert!(r.cases["a/b"].broken.is_empty());
    assert_eq!(r.verdict, None);
    std::fs::write(&path, "not a report\n").unwrap();
    assert!(BackendRun::read(&path)
        .unwrap_err()
        .contains("not a ser-conformance report"));
}

#[test]
fn the_report_names_cases_with_unknown_clause_ids() {
    let dir = ser_tests::scratch("trace_unknown");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    std::fs::write(
        cases.join("a.json"),
        r#"{"cases": [{"name": "stray", "description": "Names a clause the spec-map lacks.",
            "clauses": ["ser.no_such.clause_here"], "profiles": ["sm69"],
            "library": ["RWStructuredBuffer<uint> Out : register(u0);", "[shader(\"raygeneration\")]", "void RayGen() { Out[0] = 0; }"],
            "dispatch": {"raygen": "RayGen"}, "buffers": {"Out": {"elements": 1}}, "expect": {"buffers": {"Out": [0]}}}]}"#,
    )
    .unwrap();
    let out = dir.join("out");
    let spec_map = ser_tests::cases_dir().join("..").join("spec-map");
    let summary = ser_harness::traceability::write_report(&spec_map, &cases, &[], &out).unwrap();
    assert!(
        summary.contains(
            "case `a/stray` names `ser.no_such.clause_here`, which is no clause of the spec-map"
        ),
        "{summary}"
    );
    let md = std::fs::read_to_string(out.join("traceability.md")).unwrap();
    assert!(md.contains("## Cases that do not load"), "{md}");
    assert!(md.contains("`a/stray`"));
    let html = std::fs::read_to_string(out.join("traceability.html")).unwrap();
    assert!(html.contains("<code>ser.no_such.clause_here</code> in <code>a/stray</code>"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("traceability.json")).unwrap())
            .unwrap();
    assert_eq!(
        json["unknown_clause_ids"][0],
        serde_json::json!(["a/stray", "ser.no_such.clause_here"])
    );
}

#[test]
fn the_html_folds_long_case_lists_and_totals_each_backend() {
    let case = "hit_object/nop/get_ray_tmin";
    let t = trace(vec![run("gpu", &[(case, "pass", &[])])]);
    let html = t.to_html();
    // Every clause with more than three cases shows its count, folded.
    for r in t.clauses.iter().filter(|r| r.cases.len() > 3) {
        assert!(
            html.contains(&format!(
                "<details class=fold><summary>{} cases</summary>",
                ser_harness::report::thousands(r.cases.len())
            )),
            "{}",
            r.id
        );
    }
    assert!(html.contains("<table class=totals>"), "per-backend totals");
    assert!(
        html.contains("<col class=q>"),
        "the quote column has its share"
    );
    assert!(html.contains("<details class=doc><summary><b>ser-0027-maybereorderthread.txt</b>"));
}

/// A case that misses only a recommendation shows its `should` clause not
/// met, links it to the case, and keeps its other clauses; nothing of it
/// counts against the backend.
#[test]
fn a_recommendation_not_met_shows_its_should_clause_not_met() {
    let case = "traversal/watertight/shared_edge_exactly_one";
    let should = "vk.watertight.no_double_hit_shared_edge";
    let may = "vk.confirmation.triangle.may_execute_multiple_times_unless_no_duplicate";
    let t = trace(vec![run("lavapipe", &[(case, "warning", &[should])])]);
    let status = |id: &str| result(t.clauses.iter().find(|r| r.id == id).unwrap(), 0);
    assert_eq!(
        status(should),
        (ClauseStatus::NotMet, vec![case.to_string()])
    );
    assert_eq!(status(may).0, ClauseStatus::Pass);
    assert!(t.runs[0].cases[case].listed() && !t.runs[0].cases[case].failing());
    let md = t.to_markdown();
    assert!(
        md.contains(&format!(
            "| `{should}` | 🔶 [{case}](#r0-traversal-watertight-shared_edge_exactly_one) |"
        )),
        "{md}"
    );
    assert!(
        md.contains(
            "**traversal/watertight/shared_edge_exactly_one** on lavapipe (recommendation not met)"
        ),
        "the case is listed with its message"
    );
    let html = t.to_html();
    assert!(html.contains("<td class='st notmet'>not met: <a href='#r0-traversal-watertight-shared_edge_exactly_one'>"));
    assert!(html.contains(&format!(" does not meet <code>{should}</code>")));
    // A failing case citing the clause counts against the backend first.
    let t = trace(vec![run(
        "gpu",
        &[
            (case, "warning", &[should]),
            ("traversal/watertight/shared_edge_steep", "fail", &[]),
        ],
    )]);
    let r = t.clauses.iter().find(|r| r.id == should).unwrap();
    assert_eq!(result(r, 0).0, ClauseStatus::CitedByFailing);
}
