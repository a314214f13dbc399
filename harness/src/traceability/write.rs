//! `ser-conformance report`: loads the registry, its findings, the cases
//! and the results of runs, and writes the report's files.

use super::{build, BackendRun, Trace};
use crate::load::LoadError;
use crate::spec_map::findings::Findings;
use crate::spec_map::{Coverage, Problem, Registry};
use std::path::{Path, PathBuf};

/// Loads the registry, the findings, the cases and the results, and
/// writes `traceability.{md,html,json}` and `findings.md` into `out`.
/// Returns a one-paragraph summary. A registry or findings file with
/// problems is an error, named with every problem.
pub fn write_report(
    spec_map: &Path,
    cases_dir: &Path,
    results: &[PathBuf],
    out: &Path,
) -> Result<String, String> {
    let registry = Registry::load(spec_map).map_err(|ps| lines(&ps))?;
    let loaded = crate::load::load_dir(cases_dir);
    let cases: Vec<crate::load::Case> = loaded
        .iter()
        .filter_map(|r| r.as_ref().ok().cloned())
        .collect();
    let glsl_loaded = crate::load::glsl_source::load_dir(cases_dir);
    let glsl: Vec<_> = glsl_loaded
        .iter()
        .filter_map(|r| r.as_ref().ok().cloned())
        .collect();
    let errors: Vec<&LoadError> = loaded
        .iter()
        .filter_map(|r| r.as_ref().err())
        .chain(glsl_loaded.iter().filter_map(|r| r.as_ref().err()))
        .collect();
    // Its cases are checked by the tests (harness/tests/findings.rs), not
    // here: `--cases` may name another folder than the suite's.
    let findings = Findings::load(spec_map).map_err(|p| p.to_string())?;
    let problems = findings.check(&registry);
    if !problems.is_empty() {
        return Err(lines(&problems));
    }
    let coverage = Coverage::of_cases(&registry, &cases, &glsl);
    let runs = results
        .iter()
        .map(|p| BackendRun::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let trace = build(&registry, &coverage, runs)
        .with_load_errors(&errors)
        .with_findings(super::finding_views(&registry, &findings));
    write_files(&trace, out)?;
    let t = &trace.total;
    let mut summary = format!(
        "{} clauses, {} testable, {} covered ({:.1}%), {} pending; {} cases and {} GLSL-source cases ({} failed to load); {} backend run(s); {}.\nwrote {}/traceability.{{md,html,json}} and {}/findings.md",
        t.clauses,
        t.testable,
        t.covered,
        t.percent(),
        t.pending,
        cases.len(),
        glsl.len(),
        errors.len(),
        trace.runs.len(),
        trace.findings_line(),
        out.display(),
        out.display()
    );
    for (case, id) in &trace.unknown_clause_ids {
        summary.push_str(&format!(
            "\ncase `{case}` names `{id}`, which is no clause of the spec-map"
        ));
    }
    Ok(summary)
}

fn write_files(trace: &Trace, out: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let write = |name: &str, text: String| {
        std::fs::write(out.join(name), text)
            .map_err(|e| format!("{}: {e}", out.join(name).display()))
    };
    write("traceability.md", trace.to_markdown())?;
    write("traceability.html", trace.to_html())?;
    write(
        "traceability.json",
        serde_json::to_string_pretty(&trace.to_json()).expect("serializes") + "\n",
    )?;
    write(
        "findings.md",
        format!(
            "# Findings for spec editors\n\n{}. Each is filed against the texts it names, under each of them whole; the quotes come from the spec-map (`spec-map/findings.json`, `spec-map/README.md`).\n\n{}",
            trace.findings_line(),
            trace.findings_markdown(2)
        ),
    )
}

fn lines(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}
