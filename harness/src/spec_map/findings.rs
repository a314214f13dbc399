//! Findings for spec editors (`spec-map/findings.json`): where a text
//! contradicts itself, where two texts disagree, where a text is silent and
//! implementations differ, where a peer suite reads a text against its
//! words, and editing slips. Each names the clauses it rests on (their
//! quotes come from the registry, never from the finding), the smallest
//! case, what implementations did in recorded runs, what peer suites read,
//! what the suite requires, and a proposed wording.
//!
//! Checked like the clauses ([`Findings::check`]): ids unique and well
//! formed, every clause and text known, every case loaded by the runner,
//! every recorded verdict found in its run.

use super::{Problem, Registry};
use crate::verdict::Verdict;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The file of the findings in `spec-map/`.
pub const FINDINGS_FILE: &str = "findings.json";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    ContradictionWithinAText,
    DisagreementBetweenTexts,
    SilenceWhereImplementationsDiffer,
    PeerSuiteAgainstTheText,
    EditingSlip,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::ContradictionWithinAText,
        Kind::DisagreementBetweenTexts,
        Kind::SilenceWhereImplementationsDiffer,
        Kind::PeerSuiteAgainstTheText,
        Kind::EditingSlip,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::ContradictionWithinAText => "contradiction within a text",
            Kind::DisagreementBetweenTexts => "disagreement between texts",
            Kind::SilenceWhereImplementationsDiffer => "silence where implementations differ",
            Kind::PeerSuiteAgainstTheText => "peer suite against the text",
            Kind::EditingSlip => "editing slip",
        }
    }
}

/// What one implementation does, with where it was seen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Implementation {
    /// The implementation: driver, compiler, version, device.
    pub name: String,
    /// What it does.
    pub does: String,
    /// Where it was seen: a document of this repository, or a public one.
    pub source: String,
    /// A recorded run (a `--report` file, relative to the repository)
    /// whose verdict on [`Implementation::run_case`] shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// The case of the run, when the run names it otherwise than the
    /// finding's case (an older id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_case: Option<String>,
    /// The verdict the run records (given exactly when `run` is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
}

/// How a peer suite reads the text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeerReading {
    /// The suite, with its revision.
    pub suite: String,
    /// What its tests require.
    pub reading: String,
    /// Its tests, and where they were read.
    pub source: String,
}

/// A report already filed upstream about the same thing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Upstream {
    /// `owner/repository#number` or an address.
    pub report: String,
    pub says: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    /// Stable, `[a-z0-9_]` segments separated by dots.
    pub id: String,
    pub title: String,
    pub kind: Kind,
    /// The source documents (`spec-map/sources/` names) an editor files it
    /// against; each is the document of one of its clauses.
    pub texts: Vec<String>,
    /// The clauses it rests on (the registry holds their quotes).
    pub clauses: Vec<String>,
    /// What the texts say, and where they break.
    pub summary: String,
    /// The smallest case that shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case: Option<String>,
    /// Where no case shows it yet: what is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_case: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub implementations: Vec<Implementation>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub peers: Vec<PeerReading>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upstream: Vec<Upstream>,
    /// What the suite requires, and why.
    pub requires: String,
    /// The wording proposed to the editors.
    pub proposed_wording: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Findings {
    pub findings: Vec<Finding>,
}

impl Findings {
    /// Reads `spec-map/findings.json`; a folder without one has none.
    pub fn load(spec_map: &Path) -> Result<Findings, Problem> {
        let path = spec_map.join(FINDINGS_FILE);
        if !path.exists() {
            return Ok(Findings::default());
        }
        let problem = |message: String| Problem {
            file: path.clone(),
            clause: None,
            message,
        };
        let text = crate::files::read_text(&path, crate::files::MAX_DATA_FILE).map_err(problem)?;
        let json = crate::strict_json::parse(&text)
            .map_err(|e| problem(format!("{}: not valid JSON: {}", e.location, e.message)))?;
        serde_path_to_error::deserialize(json)
            .map_err(|e| problem(format!("{}: {}", e.path(), e.inner())))
    }

    /// The findings, by kind, in [`Kind::ALL`] order.
    pub fn by_kind(&self) -> Vec<(Kind, usize)> {
        Kind::ALL
            .iter()
            .map(|k| (*k, self.findings.iter().filter(|f| f.kind == *k).count()))
            .collect()
    }

    /// Structural checks against the registry: ids unique and well
    /// formed, every clause and text known, each text one of the clauses'
    /// documents, the prose present, a case or the reason there is none,
    /// evidence from an implementation or a peer suite, a verdict exactly
    /// with a run.
    pub fn check(&self, registry: &Registry) -> Vec<Problem> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        for f in &self.findings {
            let mut bad = |message: String| {
                out.push(Problem {
                    file: PathBuf::from(FINDINGS_FILE),
                    clause: Some(f.id.clone()),
                    message,
                })
            };
            if !well_formed(&f.id) {
                bad("an id is dot-separated [a-z0-9_] segments".into());
            }
            if !seen.insert(f.id.as_str()) {
                bad("the id is used twice".into());
            }
            for (what, text) in [
                ("title", &f.title),
                ("summary", &f.summary),
                ("requires", &f.requires),
                ("proposed_wording", &f.proposed_wording),
            ] {
                if text.trim().is_empty() {
                    bad(format!("`{what}` is empty"));
                }
            }
            if f.clauses.is_empty() {
                bad("a finding rests on clauses".into());
            }
            let documents: BTreeSet<&str> = f
                .clauses
                .iter()
                .filter_map(|id| match document_of(registry, id) {
                    Some(d) => Some(d),
                    None => {
                        bad(format!("clause `{id}` is no clause of the spec-map"));
                        None
                    }
                })
                .collect();
            if f.texts.is_empty() {
                bad("`texts` names the documents to file it against".into());
            }
            for t in &f.texts {
                if !documents.contains(t.as_str()) {
                    bad(format!(
                        "text `{t}` is the document of none of the finding's clauses"
                    ));
                }
            }
            match (&f.case, &f.no_case) {
                (Some(_), None) => {}
                (None, Some(why)) if !why.trim().is_empty() => {}
                _ => bad(
                    "a finding names its smallest `case`, or says in `no_case` why there is none"
                        .into(),
                ),
            }
            if f.implementations.is_empty() && f.peers.is_empty() {
                bad("a finding shows what an implementation or a peer suite does".into());
            }
            for i in &f.implementations {
                if i.run.is_some() != i.verdict.is_some() {
                    bad(format!(
                        "implementation `{}`: a `verdict` is given exactly with its `run`",
                        i.name
                    ));
                }
                if i.run_case.is_some() && i.run.is_none() {
                    bad(format!(
                        "implementation `{}`: `run_case` without a `run`",
                        i.name
                    ));
                }
            }
        }
        out
    }

    /// Every case a finding names is one of `cases` (the ids the runner
    /// loads).
    pub fn check_cases(&self, cases: &BTreeSet<&str>) -> Vec<Problem> {
        self.findings
            .iter()
            .filter_map(|f| {
                let case = f.case.as_deref()?;
                (!cases.contains(case)).then(|| Problem {
                    file: PathBuf::from(FINDINGS_FILE),
                    clause: Some(f.id.clone()),
                    message: format!("case `{case}` is no case of the suite"),
                })
            })
            .collect()
    }

    /// Every verdict a finding quotes from a recorded run is the run's
    /// (`repo`: the folder the run paths are relative to).
    pub fn check_runs(&self, repo: &Path) -> Vec<Problem> {
        let mut out = Vec::new();
        for f in &self.findings {
            for i in &f.implementations {
                let (Some(run), Some(verdict)) = (&i.run, i.verdict) else {
                    continue;
                };
                let Some(case) = i.run_case.as_deref().or(f.case.as_deref()) else {
                    continue;
                };
                let recorded = recorded_verdict(&repo.join(run), case);
                if recorded.as_ref() != Ok(&Some(verdict)) {
                    out.push(Problem {
                        file: PathBuf::from(FINDINGS_FILE),
                        clause: Some(f.id.clone()),
                        message: format!(
                            "implementation `{}`: {run} records {} for `{case}`, not {}",
                            i.name,
                            match recorded {
                                Ok(Some(v)) => v.name().to_string(),
                                Ok(None) => "nothing".into(),
                                Err(e) => format!("nothing readable ({e})"),
                            },
                            verdict.name()
                        ),
                    });
                }
            }
        }
        out
    }
}

fn well_formed(id: &str) -> bool {
    id.split('.').all(|s| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    })
}

/// The source document of clause `id`.
fn document_of<'a>(registry: &'a Registry, id: &str) -> Option<&'a str> {
    registry
        .clauses()
        .find(|(_, c)| c.id == id)
        .map(|(d, _)| d.document.as_str())
}

/// The verdict a `--report` file records for `case`.
fn recorded_verdict(path: &Path, case: &str) -> Result<Option<Verdict>, String> {
    let records = crate::report::read(path)?;
    Ok(records
        .iter()
        .find(|r| r["type"] == "case" && r["id"] == case)
        .and_then(|r| serde_json::from_value(r["verdict"].clone()).ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> Registry {
        Registry::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec-map"))
            .expect("the spec-map loads")
    }

    fn finding() -> Finding {
        Finding {
            id: "nv.sample".into(),
            title: "t".into(),
            kind: Kind::EditingSlip,
            texts: vec!["glsl-nv-shader-invocation-reorder.txt".into()],
            clauses: vec![
                "glsl_nv.hit_object_record_hit_with_index.sbt_record_index_low_4_bits".into(),
            ],
            summary: "s".into(),
            case: Some("hit_object/glsl/record_hit/with_index_low_4_bits".into()),
            no_case: None,
            implementations: Vec::new(),
            peers: vec![PeerReading {
                suite: "p".into(),
                reading: "r".into(),
                source: "s".into(),
            }],
            upstream: Vec::new(),
            requires: "r".into(),
            proposed_wording: "w".into(),
        }
    }

    fn messages(f: Findings, r: &Registry) -> Vec<String> {
        f.check(r).into_iter().map(|p| p.message).collect()
    }

    #[test]
    fn a_well_formed_finding_passes() {
        let r = registry();
        let f = Findings {
            findings: vec![finding()],
        };
        assert_eq!(messages(f, &r), Vec::<String>::new());
    }

    #[test]
    fn unknown_clauses_foreign_texts_twice_used_ids_and_no_evidence_are_refused() {
        let r = registry();
        let mut bad = finding();
        bad.clauses.push("glsl_nv.no_such.clause".into());
        bad.texts.push("dxr-functional-spec.md".into());
        bad.peers.clear();
        bad.case = None;
        let f = Findings {
            findings: vec![bad, finding()],
        };
        let m = messages(f, &r);
        let has = |s: &str| m.iter().any(|x| x.contains(s));
        assert!(has("`glsl_nv.no_such.clause` is no clause"), "{m:?}");
        assert!(has("text `dxr-functional-spec.md` is the document of none"));
        assert!(has("an implementation or a peer suite"));
        assert!(has("smallest `case`"));
        assert!(has("the id is used twice"));
    }

    #[test]
    fn a_case_must_be_loaded_and_a_verdict_must_be_recorded() {
        let mut f = finding();
        f.implementations.push(Implementation {
            name: "NVIDIA".into(),
            does: "d".into(),
            source: "s".into(),
            run: Some("docs/backends/results/vulkan-nvidia-h100.jsonl".into()),
            run_case: None,
            verdict: Some(Verdict::Pass),
        });
        let all = Findings { findings: vec![f] };
        let cases: BTreeSet<&str> = BTreeSet::new();
        assert_eq!(all.check_cases(&cases).len(), 1);
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let problems = all.check_runs(&repo);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].message.contains("records expected fail"),
            "{}",
            problems[0].message
        );
    }
}
