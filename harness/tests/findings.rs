//! `spec-map/findings.json`, checked like the clauses: well formed against
//! the registry, every case one the runner loads, every verdict quoted from
//! a recorded run the run's; and rendered, grouped by text, in the three
//! formats of the traceability report.

use ser_harness::load::{glsl_source, load_dir};
use ser_harness::spec_map::findings::{Findings, Kind};
use ser_harness::spec_map::{Problem, Registry};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn registry() -> Registry {
    Registry::load(&repo().join("spec-map")).expect("the spec-map loads")
}

fn findings() -> Findings {
    Findings::load(&repo().join("spec-map")).unwrap_or_else(|p| panic!("{p}"))
}

fn fail_on(problems: Vec<Problem>, what: &str) {
    assert!(
        problems.is_empty(),
        "{} {what}:\n{}",
        problems.len(),
        problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn findings_are_well_formed_against_the_registry() {
    let f = findings();
    fail_on(f.check(&registry()), "problems in spec-map/findings.json");
    assert!(f.findings.len() >= 10, "{} findings", f.findings.len());
    let kinds: Vec<String> = f
        .by_kind()
        .iter()
        .map(|(k, n)| format!("{n} {}", k.name()))
        .collect();
    println!("{} findings: {}", f.findings.len(), kinds.join(", "));
}

#[test]
fn every_case_a_finding_names_is_loaded_by_the_runner() {
    let cases = repo().join("cases");
    let loaded: Vec<String> = load_dir(&cases)
        .into_iter()
        .filter_map(Result::ok)
        .map(|c| c.id)
        .chain(
            glsl_source::load_dir(&cases)
                .into_iter()
                .filter_map(Result::ok)
                .map(|c| c.id),
        )
        .collect();
    let ids: BTreeSet<&str> = loaded.iter().map(String::as_str).collect();
    fail_on(findings().check_cases(&ids), "unknown cases");
}

#[test]
fn every_verdict_a_finding_quotes_is_the_recorded_runs() {
    fail_on(findings().check_runs(&repo()), "verdicts not in their runs");
}

#[test]
fn every_finding_shows_an_implementation_or_a_peer_suite() {
    for f in findings().findings {
        assert!(
            !f.implementations.is_empty() || !f.peers.is_empty(),
            "{}",
            f.id
        );
    }
}

/// The report renders every finding under each text it is filed against,
/// with the quotes of its clauses from the registry.
#[test]
fn the_report_renders_findings_grouped_by_text_in_three_formats() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("findings_report");
    let _ = std::fs::remove_dir_all(&out);
    let summary = ser_harness::traceability::write_report(
        &repo().join("spec-map"),
        &repo().join("cases"),
        &[],
        &out,
    )
    .expect("the report is written");
    let f = findings();
    assert!(
        summary.contains(&format!("{} findings", f.findings.len())),
        "{summary}"
    );
    let md = std::fs::read_to_string(out.join("findings.md")).unwrap();
    let html = std::fs::read_to_string(out.join("traceability.html")).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("traceability.json")).unwrap())
            .unwrap();
    let registry = registry();
    let first = &f.findings[0];
    let clause = registry.get(&first.clauses[0]).unwrap();
    assert!(md.contains(&format!("### {}", first.title)), "{md}");
    assert!(
        md.contains(&clause.quote),
        "the quote comes from the registry"
    );
    assert!(html.contains(&format!("id='finding-{}'", first.id)));
    let rendered = json["findings"].as_array().expect("findings in the JSON");
    assert_eq!(rendered.len(), f.findings.len());
    assert_eq!(rendered[0]["clauses"][0]["quote"], clause.quote.as_str());
    // Grouped by text: a finding filed against two texts is under both.
    let two = f.findings.iter().find(|x| x.texts.len() > 1).unwrap();
    for text in &two.texts {
        let section = md
            .split(&format!("## Filed against {text}"))
            .nth(1)
            .unwrap_or_else(|| panic!("no section for {text}"));
        let section = section.split("\n## ").next().unwrap();
        assert!(section.contains(&two.title), "{} under {text}", two.id);
    }
    for kind in Kind::ALL {
        if f.findings.iter().any(|x| x.kind == kind) {
            assert!(md.contains(kind.name()), "{}", kind.name());
        }
    }
}
