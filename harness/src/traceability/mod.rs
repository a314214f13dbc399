//! The traceability report: which rules of the spec are checked, and by
//! what; and, given results of runs, how each backend fares on each rule.
//!
//! One data model ([`Trace`]) rendered three ways: JSON for tools
//! (versioned), Markdown ([`markdown`]) and a self-contained HTML page
//! ([`html`]).
//!
//! A clause is *broken* on a backend only where a failing case ties a
//! mismatching element to it (a case citing one clause ties everything to
//! it; see [`crate::load::ties`]); the other clauses of a failing case are
//! only *cited by a failing case*. A `should` clause a case's run does not
//! meet, where that is all it does wrong, is *not met* (a recommendation;
//! see [`crate::broken`]).

mod findings;
mod html;
mod markdown;
mod matrix;
mod page;
mod text;
mod write;

pub use findings::{views as finding_views, FindingView, QuotedClause};
pub use write::write_report;

use crate::load::LoadError;
use crate::report::thousands;
use crate::spec_map::{Clause, Counterpart, Coverage, Registry};
use crate::verdict::Verdict;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Version 3 has since gained fields, each an addition a version 3
/// reader may ignore: `findings` (for spec editors), and twins counted per
/// document and section (`twins`, `twins_covered`, `twins_of`).
pub const TRACE_VERSION: u32 = 3;

/// One case of a backend run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CaseRecord {
    pub verdict: Verdict,
    pub message: String,
    /// The clauses the failure shows broken (for a recommendation not met,
    /// the `should` clauses not met).
    pub broken: Vec<String>,
    /// The clauses a failing case still shows kept (by its ties).
    pub kept: Vec<String>,
}

impl CaseRecord {
    /// Whether the verdict counts against the backend (failing, declined
    /// inside its claim, or a known failure).
    pub fn failing(&self) -> bool {
        self.verdict.fails_run() || self.verdict == Verdict::ExpectedFail
    }

    /// Whether the case is listed with its message: it counts against the
    /// backend, or misses a recommendation.
    pub fn listed(&self) -> bool {
        self.failing() || self.verdict == Verdict::Warning
    }
}

/// One backend run, read from a `--report` file.
#[derive(Clone, Debug, Serialize)]
pub struct BackendRun {
    /// `backend (profile)`.
    pub label: String,
    pub backend: String,
    pub profile: String,
    /// The verdict line of the run, when the report has its summary.
    pub verdict: Option<String>,
    pub cases: BTreeMap<String, CaseRecord>,
}

impl BackendRun {
    /// Reads a JSON Lines report written by `ser-conformance --report`.
    pub fn read(path: &Path) -> Result<BackendRun, String> {
        let records = crate::report::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let head = records.iter().find(|r| r["type"] == "run").ok_or_else(|| {
            format!(
                "{}: not a ser-conformance report (no run record)",
                path.display()
            )
        })?;
        let backend = head["backend"].as_str().unwrap_or("?").to_string();
        let profile = head["profile"].as_str().unwrap_or("?").to_string();
        let strings = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        };
        // Version 1 reports had one verdict for a case outside the claim
        // and a case declined inside it: `not_supported`. Neither said
        // anything against the backend then; read them as not applicable.
        let v1 = head["version"].as_u64() == Some(1);
        let cases = records
            .iter()
            .filter(|r| r["type"] == "case")
            .filter_map(|r| {
                let id = r["id"].as_str()?.to_string();
                let verdict = match serde_json::from_value(r["verdict"].clone()).ok()? {
                    Verdict::NotSupported if v1 => Verdict::NotApplicable,
                    v => v,
                };
                let record = CaseRecord {
                    verdict,
                    message: r["message"].as_str().unwrap_or("").to_string(),
                    broken: strings(&r["broken_clauses"]),
                    kept: strings(&r["kept_clauses"]),
                };
                Some((id, record))
            })
            .collect();
        let verdict = records
            .iter()
            .find(|r| r["type"] == "summary")
            .and_then(|s| s["verdict"]["line"].as_str())
            .map(str::to_string);
        Ok(BackendRun {
            label: format!("{backend} ({profile})"),
            backend,
            profile,
            verdict,
            cases,
        })
    }

    /// A column header: the backend's name without its device details,
    /// and the profile (`slang 2026.12 · 0027-reorderthread`).
    pub fn short_label(&self) -> String {
        let name = self.backend.split(" (").next().unwrap_or(&self.backend);
        if name == self.profile {
            name.to_string()
        } else {
            format!("{name} · {}", self.profile)
        }
    }

    /// Cases per verdict, in the order [`crate::report::ALL_VERDICTS`]
    /// names them.
    pub fn verdict_counts(&self) -> Vec<(Verdict, usize)> {
        crate::report::ALL_VERDICTS
            .iter()
            .map(|v| (*v, self.cases.values().filter(|r| r.verdict == *v).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// Cases that count against the backend, or miss a recommendation.
    pub fn listed(&self) -> impl Iterator<Item = (&String, &CaseRecord)> {
        self.cases.iter().filter(|(_, r)| r.listed())
    }
}

/// How a backend fares on one clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClauseStatus {
    /// A failing case ties a mismatching element to the clause.
    Broken,
    /// A case citing the clause counts against the backend, but nothing
    /// ties its failure to this clause.
    CitedByFailing,
    /// A `should` clause a case does not meet, where nothing counts
    /// against the backend: a recommendation not met.
    NotMet,
    /// Every case of the clause that ran passed.
    Pass,
    /// Its cases are outside the backend's claim.
    NotApplicable,
    /// No case of the clause was in the run.
    NotRun,
}

impl ClauseStatus {
    pub const ALL: [ClauseStatus; 6] = [
        ClauseStatus::Pass,
        ClauseStatus::Broken,
        ClauseStatus::CitedByFailing,
        ClauseStatus::NotMet,
        ClauseStatus::NotApplicable,
        ClauseStatus::NotRun,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ClauseStatus::Broken => "broken",
            ClauseStatus::CitedByFailing => "cited by a failing case",
            ClauseStatus::NotMet => "not met (should)",
            ClauseStatus::Pass => "pass",
            ClauseStatus::NotApplicable => "not applicable",
            ClauseStatus::NotRun => "not run",
        }
    }
}

/// A clause on one backend: its status and the cases behind it (the
/// failing ones, for broken and cited; those that do not meet it, for not
/// met).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClauseResult {
    pub status: ClauseStatus,
    pub cases: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ClauseRow {
    pub id: String,
    pub document: String,
    pub section: String,
    pub strength: String,
    pub testable: String,
    pub quote: String,
    pub cases: Vec<String>,
    /// Whether a case is owed (testable, not a twin).
    pub needs_case: bool,
    pub pending: Option<String>,
    pub untestable: Option<String>,
    pub same_as: Option<String>,
    /// Clauses of other documents stating the same rule, both the links
    /// this clause makes and those made to it.
    pub counterparts: Vec<Counterpart>,
    /// Per backend run (in `runs` order).
    pub results: Vec<ClauseResult>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Tally {
    pub clauses: usize,
    /// Clauses a case is owed.
    pub testable: usize,
    pub covered: usize,
    pub pending: usize,
    /// Clauses of a later or earlier form of the primary text stating its
    /// rule in its words (`same_as`): covered through their twin.
    pub twins: usize,
    /// Twins whose primary clause has cases.
    pub twins_covered: usize,
}

impl Tally {
    fn add(&mut self, row: &ClauseRow) {
        self.clauses += 1;
        if row.same_as.is_some() && row.testable != "none" {
            self.twins += 1;
            if !row.cases.is_empty() {
                self.twins_covered += 1;
            }
        }
        if row.needs_case {
            self.testable += 1;
            if !row.cases.is_empty() {
                self.covered += 1;
            } else if row.pending.is_some() {
                self.pending += 1;
            }
        }
    }

    pub fn percent(&self) -> f64 {
        if self.testable == 0 {
            100.0
        } else {
            100.0 * self.covered as f64 / self.testable as f64
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct DocumentTrace {
    pub document: String,
    pub tally: Tally,
    /// The documents its twins' primary clauses are in.
    pub twins_of: Vec<String>,
    /// Per section, in document order.
    pub sections: Vec<(String, Tally)>,
}

/// A case file or case that did not load.
#[derive(Clone, Debug, Serialize)]
pub struct LoadProblem {
    pub case: Option<String>,
    pub file: String,
    pub location: String,
    pub message: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Trace {
    pub version: u32,
    pub documents: Vec<DocumentTrace>,
    pub total: Tally,
    pub clauses: Vec<ClauseRow>,
    pub runs: Vec<BackendRun>,
    /// `(case id, clause id)` for cases naming clause IDs the registry
    /// lacks (such cases do not load).
    pub unknown_clause_ids: Vec<(String, String)>,
    /// Cases and files that did not load.
    pub load_errors: Vec<LoadProblem>,
    /// What the suite found about the texts, for spec editors
    /// (`spec-map/findings.json`), with their clauses' quotes.
    pub findings: Vec<FindingView>,
}

fn status(run: &BackendRun, clause: &Clause, cases: &[String]) -> ClauseResult {
    let records: Vec<(&String, &CaseRecord)> = cases
        .iter()
        .filter_map(|c| run.cases.get(c).map(|r| (c, r)))
        .collect();
    let names = |keep: &dyn Fn(&CaseRecord) -> bool| -> Vec<String> {
        records
            .iter()
            .filter(|(_, r)| keep(r))
            .map(|(c, _)| c.to_string())
            .collect()
    };
    // A twin (earlier-revision) clause is broken or kept where its
    // primary is.
    let here = |list: &[String]| {
        list.iter()
            .any(|b| *b == clause.id || Some(b) == clause.same_as.as_ref())
    };
    let broken = names(&|r| r.failing() && here(&r.broken));
    if !broken.is_empty() {
        return ClauseResult {
            status: ClauseStatus::Broken,
            cases: broken,
        };
    }
    // What counts against the backend comes first; then a recommendation
    // not met. Every other clause of a case that only misses
    // recommendations is kept (no mismatch is decided by it).
    let warned = |r: &CaseRecord| r.verdict == Verdict::Warning;
    let kept = |r: &CaseRecord| {
        r.verdict == Verdict::Pass
            || (warned(r) && !here(&r.broken))
            || (r.failing() && here(&r.kept))
    };
    let cited = names(&|r| r.failing() && !here(&r.kept));
    let not_met = names(&|r| warned(r) && here(&r.broken));
    let (status, cases) = if !cited.is_empty() {
        (ClauseStatus::CitedByFailing, cited)
    } else if !not_met.is_empty() {
        (ClauseStatus::NotMet, not_met)
    } else if records.iter().any(|(_, r)| kept(r)) {
        (ClauseStatus::Pass, Vec::new())
    } else if !records.is_empty() {
        (ClauseStatus::NotApplicable, Vec::new())
    } else {
        (ClauseStatus::NotRun, Vec::new())
    };
    ClauseResult { status, cases }
}

/// Builds the report data.
pub fn build(registry: &Registry, coverage: &Coverage, runs: Vec<BackendRun>) -> Trace {
    let links = counterparts(registry);
    let document_of: BTreeMap<&str, &str> = registry
        .clauses()
        .map(|(d, c)| (c.id.as_str(), d.document.as_str()))
        .collect();
    let mut clauses = Vec::new();
    let mut documents = Vec::new();
    let mut total = Tally::default();
    for doc in &registry.documents {
        let mut tally = Tally::default();
        let mut sections: Vec<(String, Tally)> = Vec::new();
        for c in &doc.clauses {
            let mut row = row(doc.document.as_str(), c, coverage, &runs);
            row.counterparts = links.get(&c.id).cloned().unwrap_or_default();
            tally.add(&row);
            total.add(&row);
            let top = c.section.split(" > ").next().unwrap_or("").to_string();
            match sections.iter_mut().find(|(s, _)| *s == top) {
                Some((_, t)) => t.add(&row),
                None => {
                    let mut t = Tally::default();
                    t.add(&row);
                    sections.push((top, t));
                }
            }
            clauses.push(row);
        }
        let mut twins_of: Vec<String> = doc
            .clauses
            .iter()
            .filter_map(|c| c.same_as.as_deref())
            .filter_map(|twin| document_of.get(twin).map(|d| d.to_string()))
            .collect();
        twins_of.sort();
        twins_of.dedup();
        documents.push(DocumentTrace {
            document: doc.document.clone(),
            tally,
            twins_of,
            sections,
        });
    }
    Trace {
        version: TRACE_VERSION,
        documents,
        total,
        clauses,
        runs,
        unknown_clause_ids: coverage
            .unknown
            .iter()
            .map(|(case, id, _)| (case.clone(), id.clone()))
            .collect(),
        load_errors: Vec::new(),
        findings: Vec::new(),
    }
}

/// Every clause's counterparts, the links it makes and those made to it.
fn counterparts(registry: &Registry) -> BTreeMap<String, Vec<Counterpart>> {
    let mut out: BTreeMap<String, Vec<Counterpart>> = BTreeMap::new();
    for (_, c) in registry.clauses() {
        for link in &c.counterparts {
            out.entry(c.id.clone()).or_default().push(link.clone());
            out.entry(link.id.clone()).or_default().push(Counterpart {
                id: c.id.clone(),
                ..link.clone()
            });
        }
    }
    for links in out.values_mut() {
        links.sort_by(|a, b| a.id.cmp(&b.id));
        links.dedup_by(|a, b| a.id == b.id);
    }
    out
}

fn row(document: &str, c: &Clause, coverage: &Coverage, runs: &[BackendRun]) -> ClauseRow {
    let cases = coverage.cases.get(&c.id).cloned().unwrap_or_default();
    ClauseRow {
        id: c.id.clone(),
        document: document.to_string(),
        section: c.section.clone(),
        strength: c.strength.name().to_string(),
        testable: c.testable.name().to_string(),
        quote: c.quote.clone(),
        needs_case: c.needs_case(),
        pending: c.pending.clone(),
        untestable: c.untestable.clone(),
        same_as: c.same_as.clone(),
        counterparts: Vec::new(),
        results: runs.iter().map(|r| status(r, c, &cases)).collect(),
        cases,
    }
}

impl Trace {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the report serializes")
    }

    /// Adds the cases that did not load (and the unknown clause IDs among
    /// them).
    pub fn with_load_errors(mut self, errors: &[&LoadError]) -> Trace {
        for e in errors {
            if let (Some(case), Some(id)) = (&e.case, &e.unknown_clause) {
                self.unknown_clause_ids.push((case.clone(), id.clone()));
            }
            self.load_errors.push(LoadProblem {
                case: e.case.clone(),
                file: e.file.display().to_string(),
                location: e.location.clone(),
                message: e.message.clone(),
            });
        }
        self
    }

    fn uncovered(&self) -> impl Iterator<Item = &ClauseRow> {
        self.clauses
            .iter()
            .filter(|r| r.needs_case && r.cases.is_empty())
    }

    /// Clauses with cases.
    fn with_cases(&self) -> impl Iterator<Item = &ClauseRow> {
        self.clauses.iter().filter(|r| !r.cases.is_empty())
    }

    /// Clauses with cases that some backend breaks, fails a case of, or
    /// does not meet.
    fn troubled(&self) -> impl Iterator<Item = &ClauseRow> {
        self.with_cases().filter(|r| {
            r.results.iter().any(|c| {
                matches!(
                    c.status,
                    ClauseStatus::Broken | ClauseStatus::CitedByFailing | ClauseStatus::NotMet
                )
            })
        })
    }

    /// Per run, how many clauses (with cases) have each status.
    pub fn clause_totals(&self, run: usize) -> Vec<(ClauseStatus, usize)> {
        ClauseStatus::ALL
            .iter()
            .map(|s| {
                let n = self
                    .with_cases()
                    .filter(|r| r.results.get(run).map(|c| c.status) == Some(*s))
                    .count();
                (*s, n)
            })
            .collect()
    }

    /// The counts in one line.
    pub fn headline(&self) -> String {
        let t = &self.total;
        format!(
            "{} clauses · {} testable (a case is owed) · {} covered ({:.1}%) · {} pending · {} uncovered without a pending note",
            thousands(t.clauses),
            thousands(t.testable),
            thousands(t.covered),
            t.percent(),
            thousands(t.pending),
            thousands(t.testable - t.covered - t.pending)
        )
    }
}

/// An HTML/Markdown anchor for an id.
fn anchor(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect()
}
