//! The spec-map checks: the registry is well formed, every quote is in its
//! document, every clause a case names exists, every testable clause is
//! covered or says what is missing, and every clause the reference cites
//! exists.

use ser_harness::load::glsl_source::{self, GlslSourceCase};
use ser_harness::load::{load_dir, Case};
use ser_harness::spec_map::{normalize, Coverage, Registry};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn registry() -> Registry {
    Registry::load(&repo().join("spec-map")).unwrap_or_else(|ps| {
        panic!(
            "{}",
            ps.iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

fn cases() -> Vec<Case> {
    load_dir(&ser_tests::cases_dir())
        .into_iter()
        .filter_map(Result::ok)
        .collect()
}

fn glsl_cases() -> Vec<GlslSourceCase> {
    glsl_source::load_dir(&ser_tests::cases_dir())
        .into_iter()
        .filter_map(Result::ok)
        .collect()
}

fn fail_on(problems: Vec<String>, what: &str) {
    assert!(
        problems.is_empty(),
        "{} {what}:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn registry_is_well_formed() {
    let r = registry();
    fail_on(
        r.check_structure().iter().map(|p| p.to_string()).collect(),
        "structural problems",
    );
    for (file, _) in ser_harness::spec_map::FILES {
        let doc = r
            .documents
            .iter()
            .find(|d| file.starts_with(d.document.rsplit_once('.').unwrap().0));
        assert!(
            doc.is_some_and(|d| !d.clauses.is_empty()),
            "{file} registers nothing"
        );
    }
}

#[test]
fn every_quote_is_in_its_document() {
    let r = registry();
    fail_on(
        r.check_quotes(&repo().join("spec-map").join("sources"))
            .iter()
            .map(|p| p.to_string())
            .collect(),
        "quotes not found verbatim",
    );
}

#[test]
fn the_quoted_copies_match_the_shared_documents() {
    let shared = repo().join("..").join("shared").join("spec");
    if !shared.is_dir() {
        println!("../shared/spec is not here: the copies in spec-map/sources are checked against themselves only");
        return;
    }
    for entry in std::fs::read_dir(&shared).unwrap() {
        let p = entry.unwrap().path();
        let copy = repo()
            .join("spec-map")
            .join("sources")
            .join(p.file_name().unwrap());
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            std::fs::read_to_string(&copy).unwrap_or_default(),
            "spec-map/sources/{} differs from {}",
            p.file_name().unwrap().to_string_lossy(),
            p.display()
        );
    }
}

#[test]
fn every_clause_a_case_names_exists() {
    let r = registry();
    let cases = cases();
    let cov = Coverage::of_cases(&r, &cases, &glsl_cases());
    fail_on(
        cov.unknown
            .iter()
            .map(|(case, id, file)| {
                format!(
                    "{}: case `{case}` names unknown clause `{id}`",
                    file.display()
                )
            })
            .collect(),
        "unknown clause IDs",
    );
}

#[test]
fn every_case_profile_is_held_by_a_clause_it_names() {
    let r = registry();
    let mut problems = Vec::new();
    for case in cases() {
        for profile in &case.profiles {
            let held = case
                .clauses
                .iter()
                .filter_map(|id| r.get(id))
                .any(|c| c.profiles.iter().any(|p| p == profile.name()));
            if !held {
                problems.push(format!(
                    "{} ({}): applies to {profile} but none of its clauses holds there",
                    case.id,
                    case.file.display()
                ));
            }
        }
    }
    fail_on(problems, "cases whose profiles no named clause holds in");
}

#[test]
fn primary_clauses_hold_in_the_earlier_revision_exactly_when_it_has_a_twin() {
    let r = registry();
    let twins: std::collections::BTreeSet<&str> = r
        .clauses()
        .filter(|(_, c)| c.id.starts_with("ser_rt."))
        .filter_map(|(_, c)| c.same_as.as_deref())
        .collect();
    let mut problems = Vec::new();
    for (doc, c) in r.clauses() {
        if !c.id.starts_with("ser.") {
            continue;
        }
        let listed = c.profiles.iter().any(|p| p == "0027-reorderthread");
        if listed != twins.contains(c.id.as_str()) {
            problems.push(format!(
                "{} [{}]: lists 0027-reorderthread: {listed}, has an earlier-revision twin: {}",
                doc.document, c.id, !listed
            ));
        }
    }
    fail_on(problems, "profile mismatches with the earlier revision");
}

#[test]
fn every_testable_clause_is_covered_or_pending() {
    let r = registry();
    let cases = cases();
    let cov = Coverage::of_cases(&r, &cases, &glsl_cases());
    let mut problems = Vec::new();
    let mut pending = 0;
    let mut testable = 0;
    for (doc, c) in r.clauses() {
        if !c.needs_case() {
            continue;
        }
        testable += 1;
        match (cov.covered(&c.id), &c.pending) {
            (true, Some(_)) => problems.push(format!(
                "{} [{}]: covered by a case but still marked pending: remove the note",
                doc.document, c.id
            )),
            (false, None) => problems.push(format!(
                "{} [{}]: testable ({}) but no case names it and it has no `pending` note",
                doc.document,
                c.id,
                c.testable.name()
            )),
            (false, Some(p)) if p.trim().is_empty() => problems.push(format!(
                "{} [{}]: an empty pending note",
                doc.document, c.id
            )),
            (false, Some(_)) => pending += 1,
            (true, None) => {}
        }
    }
    println!("{pending} of {testable} testable clauses are pending");
    fail_on(problems, "testable clauses neither covered nor pending");
}

/// Clause IDs the reference cites in backticks in its sources.
fn cited_ids(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            cited_ids(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            for piece in text.split('`').skip(1).step_by(2) {
                let looks_like_id = ["ser.", "ser_rt.", "vk.", "sbt."]
                    .iter()
                    .any(|pre| piece.starts_with(pre))
                    && piece.split('.').count() >= 3
                    && piece.chars().all(|c| {
                        c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.'
                    });
                if looks_like_id {
                    out.push((p.clone(), piece.to_string()));
                }
            }
            // Clause IDs passed to `.clause("...")`.
            for piece in text.split(".clause(\"").skip(1) {
                if let Some(id) = piece.split('"').next() {
                    out.push((p.clone(), id.to_string()));
                }
            }
        }
    }
}

#[test]
fn every_clause_the_reference_cites_exists() {
    let r = registry();
    let mut cited = Vec::new();
    cited_ids(&repo().join("reference").join("src"), &mut cited);
    assert!(
        cited.len() > 100,
        "the reference cites only {} clauses",
        cited.len()
    );
    fail_on(
        cited
            .iter()
            .filter(|(_, id)| r.get(id).is_none())
            .map(|(f, id)| format!("{} cites unknown clause `{id}`", f.display()))
            .collect(),
        "unknown clause citations in the reference",
    );
}

#[test]
fn normalize_collapses_whitespace_only() {
    assert_eq!(normalize("a  b\n\tc "), "a b c");
    assert_eq!(normalize("`x`, y."), "`x`, y.");
}
