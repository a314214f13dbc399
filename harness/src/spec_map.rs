//! The clause registry (`spec-map/`): every normative statement of the
//! spec documents with a stable ID, and the checks that keep it honest:
//! quotes found verbatim in their documents, IDs unique and well formed,
//! twins that exist, and every testable clause covered by a case or marked
//! pending. [`findings`] holds what the suite found about the texts
//! themselves, for spec editors.

pub mod findings;

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strength {
    Must,
    Should,
    May,
    ImplementationDefined,
    Informative,
}

impl Strength {
    pub fn name(self) -> &'static str {
        match self {
            Strength::Must => "must",
            Strength::Should => "should",
            Strength::May => "may",
            Strength::ImplementationDefined => "implementation-defined",
            Strength::Informative => "informative",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Testable {
    /// Observable in output buffers.
    Runtime,
    /// Diagnosed by a compiler or validator.
    Static,
    /// Not testable (the reason is in `untestable`).
    None,
}

impl Testable {
    pub fn name(self) -> &'static str {
        match self {
            Testable::Runtime => "runtime",
            Testable::Static => "static",
            Testable::None => "none",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clause {
    pub id: String,
    pub section: String,
    pub quote: String,
    pub strength: Strength,
    pub profiles: Vec<String>,
    pub testable: Testable,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub untestable: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// In a later or earlier form of the primary text (the `ReorderThread`
    /// revision, the final Shader Model 6.9 proposal): the primary clause
    /// stating the same rule in the same words; such a clause is covered
    /// wherever its twin is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_as: Option<String>,
    /// Where another document states the same rule (or its counterpart in
    /// another API): whether the two forms agree, and if not, how they
    /// differ. The traceability report shows both sides.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counterparts: Vec<Counterpart>,
    /// For a testable clause no case checks yet: what is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<String>,
}

/// A clause of another document that states the same rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counterpart {
    pub id: String,
    /// Whether the two forms require the same results.
    pub agrees: bool,
    /// When they do not: how they differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<String>,
}

impl Clause {
    /// Whether a case is owed: testable, and not covered through a twin.
    pub fn needs_case(&self) -> bool {
        self.testable != Testable::None && self.same_as.is_none()
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Document {
    /// The source document's file name in `spec-map/sources/`.
    pub document: String,
    pub clauses: Vec<Clause>,
}

/// The whole registry.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    pub documents: Vec<Document>,
}

pub const PROFILES: &[&str] = &[
    "0027-maybereorderthread",
    "0027-reorderthread",
    "sm69",
    "vulkan-nv",
    "vulkan-ext",
    "dxr",
    "optix",
];

/// The registry files, in the order the report lists them, with the ID
/// prefix of each.
pub const FILES: &[(&str, &str)] = &[
    ("ser-0027-maybereorderthread.json", "ser."),
    ("ser-0027-reorderthread.json", "ser_rt."),
    ("ser-0027-sm69-final.json", "sm69."),
    ("dxr-functional-spec.json", "dxr."),
    ("glsl-nv-shader-invocation-reorder.json", "glsl_nv."),
    ("glsl-ext-shader-invocation-reorder.json", "glsl_ext."),
    ("spv-ext-shader-invocation-reorder.json", "spv_ext."),
    ("spv-nv-shader-invocation-reorder.json", "spv_nv."),
    ("vulkan-ray-traversal.json", "vk."),
    ("vulkan-ray-tracing.json", "vk_rt."),
    ("sbt-three-ways.json", "sbt."),
    (
        "vk-ext-ray-tracing-invocation-reorder-proposal.json",
        "vk_ext_proposal.",
    ),
];

/// The registry files' text, built into the binary in [`FILES`] order, so
/// that the loader knows every clause ID wherever the runner is taken.
const EMBEDDED: [&str; 12] = [
    include_str!("../../spec-map/ser-0027-maybereorderthread.json"),
    include_str!("../../spec-map/ser-0027-reorderthread.json"),
    include_str!("../../spec-map/ser-0027-sm69-final.json"),
    include_str!("../../spec-map/dxr-functional-spec.json"),
    include_str!("../../spec-map/glsl-nv-shader-invocation-reorder.json"),
    include_str!("../../spec-map/glsl-ext-shader-invocation-reorder.json"),
    include_str!("../../spec-map/spv-ext-shader-invocation-reorder.json"),
    include_str!("../../spec-map/spv-nv-shader-invocation-reorder.json"),
    include_str!("../../spec-map/vulkan-ray-traversal.json"),
    include_str!("../../spec-map/vulkan-ray-tracing.json"),
    include_str!("../../spec-map/sbt-three-ways.json"),
    include_str!("../../spec-map/vk-ext-ray-tracing-invocation-reorder-proposal.json"),
];

/// The clauses of the built-in registry, by ID.
fn embedded() -> &'static BTreeMap<String, Clause> {
    static CLAUSES: std::sync::OnceLock<BTreeMap<String, Clause>> = std::sync::OnceLock::new();
    CLAUSES.get_or_init(|| {
        EMBEDDED
            .iter()
            .flat_map(|text| {
                serde_json::from_str::<Document>(text)
                    .expect("the built-in spec-map parses (tests/spec_map.rs)")
                    .clauses
            })
            .map(|c| (c.id.clone(), c))
            .collect()
    })
}

/// Whether `id` names a clause of the spec-map (the built-in copy).
pub fn is_known_clause(id: &str) -> bool {
    embedded().contains_key(id)
}

/// The clause `id` names in the built-in spec-map: what a verdict needs of
/// it (its strength, whether it is testable) wherever the runner is taken.
pub fn clause(id: &str) -> Option<&'static Clause> {
    embedded().get(id)
}

/// A problem found in the registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub file: PathBuf,
    pub clause: Option<String>,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(c) = &self.clause {
            write!(f, " [{c}]")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Runs of whitespace collapsed to one space, so that wrapped lines in a
/// document still match a quote.
pub fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Registry {
    /// Loads every registry file of `dir` (`spec-map/`).
    pub fn load(dir: &Path) -> Result<Registry, Vec<Problem>> {
        let mut documents = Vec::new();
        let mut problems = Vec::new();
        for (file, _) in FILES {
            let path = dir.join(file);
            let json = crate::files::read_text(&path, crate::files::MAX_DATA_FILE).and_then(|t| {
                crate::strict_json::parse(&t)
                    .map_err(|e| format!("{}: not valid JSON: {}", e.location, e.message))
            });
            let json = match json {
                Ok(j) => j,
                Err(message) => {
                    problems.push(Problem {
                        file: path,
                        clause: None,
                        message,
                    });
                    continue;
                }
            };
            match serde_path_to_error::deserialize::<_, Document>(json) {
                Ok(d) => documents.push(d),
                Err(e) => problems.push(Problem {
                    file: path,
                    clause: None,
                    message: format!("{}: {}", e.path(), e.inner()),
                }),
            }
        }
        if problems.is_empty() {
            Ok(Registry { documents })
        } else {
            Err(problems)
        }
    }

    pub fn clauses(&self) -> impl Iterator<Item = (&Document, &Clause)> {
        self.documents
            .iter()
            .flat_map(|d| d.clauses.iter().map(move |c| (d, c)))
    }

    pub fn get(&self, id: &str) -> Option<&Clause> {
        self.clauses().map(|(_, c)| c).find(|c| c.id == id)
    }

    pub fn ids(&self) -> BTreeSet<&str> {
        self.clauses().map(|(_, c)| c.id.as_str()).collect()
    }

    /// Structural checks: ID form and prefix, uniqueness, vocabularies,
    /// reasons for untestable clauses, twins that exist.
    pub fn check_structure(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        for (doc, c) in self.clauses() {
            let prefix = FILES
                .iter()
                .find(|(f, _)| {
                    f.trim_end_matches(".json")
                        == doc.document.rsplit_once('.').map_or("", |(s, _)| s)
                })
                .map(|(_, p)| *p);
            let mut bad = |m: String| {
                out.push(Problem {
                    file: PathBuf::from(&doc.document),
                    clause: Some(c.id.clone()),
                    message: m,
                })
            };
            let well_formed = c.id.split('.').count() >= 3
                && c.id.split('.').all(|s| {
                    !s.is_empty()
                        && s.chars()
                            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
                });
            if !well_formed {
                bad("an id is three or more dot-separated [a-z0-9_] segments".into());
            }
            if let Some(p) = prefix {
                if !c.id.starts_with(p) {
                    bad(format!("ids of this document start with `{p}`"));
                }
            }
            if !seen.insert(c.id.clone()) {
                bad("the id is used twice".into());
            }
            if c.quote.trim().is_empty() || c.section.trim().is_empty() {
                bad("a clause has a section and a quote".into());
            }
            if c.profiles.is_empty() || c.profiles.iter().any(|p| !PROFILES.contains(&p.as_str())) {
                bad(format!(
                    "profiles {:?}: expected some of {}",
                    c.profiles,
                    PROFILES.join(", ")
                ));
            }
            if c.testable == Testable::None
                && c.untestable.as_deref().is_none_or(|u| u.trim().is_empty())
            {
                bad("an untestable clause says why in `untestable`".into());
            }
            if c.testable != Testable::None && c.untestable.is_some() {
                bad("a testable clause has no `untestable` reason".into());
            }
            if let Some(twin) = &c.same_as {
                if self.get(twin).is_none_or(|t| t.same_as.is_some()) {
                    bad(format!("same_as `{twin}` is not a primary clause"));
                }
            }
            for other in &c.counterparts {
                if other.id == c.id || self.get(&other.id).is_none() {
                    bad(format!(
                        "counterpart `{}` is no other clause of the registry",
                        other.id
                    ));
                }
                let says_how = other
                    .difference
                    .as_deref()
                    .is_some_and(|d| !d.trim().is_empty());
                if other.agrees == says_how {
                    bad(format!(
                        "counterpart `{}`: `difference` says how the forms differ, exactly when they do not agree",
                        other.id
                    ));
                }
            }
        }
        out
    }

    /// Every quote must appear verbatim (up to whitespace) in its document
    /// under `sources`.
    pub fn check_quotes(&self, sources: &Path) -> Vec<Problem> {
        let mut out = Vec::new();
        for doc in &self.documents {
            let path = sources.join(&doc.document);
            let text = match crate::files::read_text(&path, crate::files::MAX_DATA_FILE) {
                Ok(t) => normalize(&t),
                Err(e) => {
                    out.push(Problem {
                        file: path,
                        clause: None,
                        message: format!("the source document: {e}"),
                    });
                    continue;
                }
            };
            for c in &doc.clauses {
                if !text.contains(&normalize(&c.quote)) {
                    out.push(Problem {
                        file: path.clone(),
                        clause: Some(c.id.clone()),
                        message: format!("the quote is not in the document: \"{}\"", c.quote),
                    });
                }
            }
        }
        out
    }
}

/// Which cases check which clause.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// Clause id to the ids of the cases naming it (directly, or through a
    /// twin for earlier-revision clauses).
    pub cases: BTreeMap<String, Vec<String>>,
    /// `(case id, clause id)` for clause IDs no registry entry has.
    pub unknown: Vec<(String, String, PathBuf)>,
}

impl Coverage {
    /// `cases`: `(case id, case file, clause ids)`.
    pub fn compute<'a>(
        registry: &Registry,
        cases: impl IntoIterator<Item = (&'a str, &'a Path, &'a [String])>,
    ) -> Coverage {
        let ids = registry.ids();
        let mut cov = Coverage::default();
        for (_, c) in registry.clauses() {
            cov.cases.insert(c.id.clone(), Vec::new());
        }
        for (case, file, clauses) in cases {
            for id in clauses {
                if ids.contains(id.as_str()) {
                    cov.cases
                        .get_mut(id)
                        .expect("every id has an entry")
                        .push(case.to_string());
                } else {
                    cov.unknown
                        .push((case.to_string(), id.clone(), file.to_path_buf()));
                }
            }
        }
        // An earlier-revision clause is covered where its twin is.
        for (_, c) in registry.clauses() {
            if let Some(twin) = &c.same_as {
                let via = cov.cases.get(twin).cloned().unwrap_or_default();
                cov.cases
                    .get_mut(&c.id)
                    .expect("every id has an entry")
                    .extend(via);
            }
        }
        cov
    }

    /// The coverage of a registry by loaded cases.
    /// The cases of the case language and the GLSL-source cases together.
    pub fn of_cases(
        registry: &Registry,
        cases: &[crate::load::Case],
        glsl: &[crate::load::glsl_source::GlslSourceCase],
    ) -> Coverage {
        Coverage::compute(
            registry,
            cases
                .iter()
                .map(|c| (c.id.as_str(), c.file.as_path(), c.clauses.as_slice()))
                .chain(
                    glsl.iter()
                        .map(|c| (c.id.as_str(), c.file.as_path(), c.clauses.as_slice())),
                ),
        )
    }

    pub fn covered(&self, id: &str) -> bool {
        self.cases.get(id).is_some_and(|c| !c.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_registry_is_the_spec_map_folder() {
        assert_eq!(EMBEDDED.len(), FILES.len());
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec-map");
        let registry = Registry::load(&dir).expect("the spec-map loads");
        let clauses: BTreeMap<String, Clause> = registry
            .clauses()
            .map(|(_, c)| (c.id.clone(), c.clone()))
            .collect();
        assert_eq!(&clauses, embedded());
        assert!(is_known_clause(
            "ser.hit_object.get_ray_flags.nop_returns_zero"
        ));
        assert!(!is_known_clause("ser.no.such_clause"));
    }
}
