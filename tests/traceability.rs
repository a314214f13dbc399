//! The traceability report: coverage numbers, the clause-by-backend matrix
//! with links from failing clauses to failing cases, and the three formats.

use ser_harness::load::load_dir;
use ser_harness::spec_map::{Coverage, Registry};
use ser_harness::traceability::{build, BackendRun, ClauseStatus, TRACE_VERSION};
use std::collections::BTreeMap;

fn trace(runs: Vec<BackendRun>) -> ser_harness::traceability::Trace {
    let registry = Registry::load(&ser_tests::cases_dir().join("..").join("spec-map")).unwrap();
    let cases: Vec<_> = load_dir(&ser_tests::cases_dir())
        .into_iter()
        .filter_map(Result::ok)
        .collect();
    let cov = Coverage::of_cases(&registry, &cases);
    build(&registry, &cov, runs)
}

fn run(label: &str, verdicts: &[(&str, &str)]) -> BackendRun {
    BackendRun {
        label: label.into(),
        backend: label.into(),
        profile: "0027-maybereorderthread".into(),
        verdicts: verdicts
            .iter()
            .map(|(c, v)| (c.to_string(), (v.to_string(), format!("{v} message"))))
            .collect::<BTreeMap<_, _>>(),
    }
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
    let good = run("good", &[(case, "pass")]);
    let bad = run("bad", &[(case, "fail")]);
    let lacking = run("lacking", &[(case, "not_supported")]);
    let t = trace(vec![good, bad, lacking]);
    let row = t
        .clauses
        .iter()
        .find(|r| r.id == "ser.hit_object.get_ray_tmin.nop_returns_zero")
        .unwrap();
    assert!(row.cases.iter().any(|c| c == case));
    assert_eq!(row.results[0].0, ClauseStatus::Pass);
    assert_eq!(row.results[1], (ClauseStatus::Fail, vec![case.to_string()]));
    assert_eq!(row.results[2].0, ClauseStatus::NotSupported);
    // A clause none of whose cases ran.
    let other = t
        .clauses
        .iter()
        .find(|r| r.id == "ser.hit_object.get_ray_flags.nop_returns_zero")
        .unwrap();
    assert_eq!(other.results[0].0, ClauseStatus::NotRun);
    let html = t.to_html();
    assert!(
        html.contains("<a href='#hit_object-nop-get_ray_tmin'>hit_object/nop/get_ray_tmin</a>"),
        "the failing cell links to the case"
    );
    assert!(
        html.contains("<div class=failcase id='hit_object-nop-get_ray_tmin'>"),
        "the case has an anchor"
    );
    let md = t.to_markdown();
    assert!(
        md.contains("❌ [hit_object/nop/get_ray_tmin](#hit_object-nop-get_ray_tmin)"),
        "markdown links too"
    );
    let json = t.to_json();
    assert_eq!(json["version"], TRACE_VERSION);
    assert_eq!(json["runs"].as_array().unwrap().len(), 3);
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
    assert_eq!(r.verdicts["a/b"].0, "fail");
    std::fs::write(&path, "not a report\n").unwrap();
    assert!(BackendRun::read(&path)
        .unwrap_err()
        .contains("not a ser-conformance report"));
}
