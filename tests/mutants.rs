//! The suite tests itself: every bug mutant of the reference
//! (`ser_reference::mutation`) must fail at least one case, and every
//! control mutant must pass every case the reference passes. Each mutant
//! runs under its own profile, the mutants in parallel.
//! `ser-conformance mutants` prints the same as a table.

use ser_harness::mutants::{self, MutantVerdict};

#[test]
fn every_bug_mutant_is_killed_and_every_control_passes() {
    let results = mutants::run_dir(&ser_tests::cases_dir()).expect("the case files load");
    let wrong: Vec<String> = results
        .iter()
        .filter(|r| !r.verdict().ok())
        .map(|r| match r.verdict() {
            MutantVerdict::Survived => format!(
                "bug mutant `{}` ({}, clause {}) survived every case: add a case that kills it",
                r.mutation.name(),
                r.mutation.description(),
                r.mutation.clause()
            ),
            _ => format!(
                "control mutant `{}` ({}) failed {} case(s), which reject a legal implementation: {}",
                r.mutation.name(),
                r.mutation.description(),
                r.killing.len(),
                r.killing.join(", ")
            ),
        })
        .collect();
    let (killed, bugs) = mutants::score(&results);
    println!("mutation score: {killed}/{bugs}");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
