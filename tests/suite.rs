//! The whole suite against the reference: every case loads, and passes
//! under every profile it applies to (including the cross-check of its
//! expectations against the reference's legal outcomes).

use ser_harness::load::load_dir;
use ser_harness::reference_backend::ReferenceBackend;
use ser_harness::verdict::{judge, Verdict};
use ser_reference::Profile;

#[test]
fn every_case_loads() {
    let loaded = load_dir(&ser_tests::cases_dir());
    let errors: Vec<String> = loaded
        .iter()
        .filter_map(|r| r.as_ref().err())
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "case files that do not load:\n{}",
        errors.join("\n")
    );
    assert!(
        loaded.len() >= 80,
        "the suite has {} cases; issue 2 asks for at least 80",
        loaded.len()
    );
}

#[test]
fn every_case_passes_on_the_reference_under_each_of_its_profiles() {
    let cases: Vec<_> = load_dir(&ser_tests::cases_dir())
        .into_iter()
        .filter_map(Result::ok)
        .collect();
    let mut failures = Vec::new();
    let mut runs = 0;
    for profile in Profile::ALL {
        let backend = ReferenceBackend::new(profile);
        for case in cases.iter().filter(|c| c.profiles.contains(&profile)) {
            runs += 1;
            let r = judge(case, &backend);
            if r.verdict != Verdict::Pass {
                failures.push(format!(
                    "{} [{profile}]: {}: {}",
                    case.id,
                    r.verdict.name(),
                    r.message
                ));
            }
        }
    }
    println!("{runs} case runs across profiles");
    assert!(
        failures.is_empty(),
        "{} case run(s) did not pass:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_case_names_a_clause_and_a_description() {
    for case in load_dir(&ser_tests::cases_dir())
        .into_iter()
        .filter_map(Result::ok)
    {
        assert!(!case.clauses.is_empty(), "{} names no clause", case.id);
        assert!(
            case.description.len() >= 20,
            "{} has no real description",
            case.id
        );
    }
}
