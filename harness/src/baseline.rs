//! Expectation baselines: a backend's known failures, so that a run shows
//! what changed. A listed case that fails again is an *expected fail*; one
//! that passes is an *unexpected pass* and fails the run, so the file
//! cannot go stale. `--bless` rewrites the file from a run.
//!
//! ```json
//! { "version": 1, "backend": "my-driver", "profile": "sm69",
//!   "known_failures": [ { "id": "hit_object/miss/get_ray_tcurrent", "reason": "..." } ] }
//! ```

use crate::verdict::{CaseResult, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

pub const BASELINE_VERSION: u32 = 1;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Format version (1).
    pub version: u32,
    /// The backend the file is for: a run of another backend refuses it.
    #[serde(default)]
    pub backend: String,
    /// The profile it is for: a run under another profile refuses it.
    #[serde(default)]
    pub profile: String,
    pub known_failures: Vec<KnownFailure>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KnownFailure {
    /// The case id.
    pub id: String,
    /// Why it fails, for people (a bug number, a missing feature).
    pub reason: String,
}

impl Baseline {
    /// Reads a baseline. Every error names the file and the place.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let at = |m: String| format!("{}: {m}", path.display());
        let text = crate::files::read_text(path, crate::files::MAX_DATA_FILE).map_err(at)?;
        let json = crate::strict_json::parse(&text)
            .map_err(|e| at(format!("{}: not valid JSON: {}", e.location, e.message)))?;
        let b: Baseline = serde_path_to_error::deserialize(json).map_err(|e| {
            at(format!(
                "{}: {}; expected {{\"version\": 1, \"known_failures\": [{{\"id\": ..., \"reason\": ...}}]}}",
                e.path(),
                e.inner()
            ))
        })?;
        if b.version != BASELINE_VERSION {
            return Err(at(format!(
                "version: {} is not a known version; expected {BASELINE_VERSION}",
                b.version
            )));
        }
        let mut seen = BTreeSet::new();
        for (i, k) in b.known_failures.iter().enumerate() {
            if !seen.insert(&k.id) {
                return Err(at(format!(
                    "known_failures[{i}].id: `{}` is listed twice",
                    k.id
                )));
            }
        }
        Ok(b)
    }

    /// Whether the file is for this backend and profile (an empty field
    /// matches any); otherwise why not.
    pub fn check_for(&self, backend: &str, profile: &str) -> Result<(), String> {
        let differs = |what: &str, file: &str, run: &str| {
            (!file.is_empty() && file != run)
                .then(|| format!("it is for {what} `{file}`, the run's is `{run}`"))
        };
        let wrong: Vec<String> = [
            differs("backend", &self.backend, backend),
            differs("profile", &self.profile, profile),
        ]
        .into_iter()
        .flatten()
        .collect();
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{}; a baseline lists the known failures of one backend under one profile",
                wrong.join(" and ")
            ))
        }
    }

    pub fn reason(&self, id: &str) -> Option<&str> {
        self.known_failures
            .iter()
            .find(|k| k.id == id)
            .map(|k| k.reason.as_str())
    }

    /// Entries naming no case of the suite: stale, they fail the run.
    pub fn unknown_ids<'a>(&'a self, ids: &BTreeSet<String>) -> Vec<&'a str> {
        self.known_failures
            .iter()
            .filter(|k| !ids.contains(&k.id))
            .map(|k| k.id.as_str())
            .collect()
    }

    /// The baseline a run implies: cases that ran and failed are listed
    /// (keeping their reasons), cases that ran and passed are not, cases
    /// that did not run (filtered out, not supported) keep their entries,
    /// and entries naming no case of the suite go.
    pub fn blessed(&self, results: &[CaseResult], ids: &BTreeSet<String>) -> Baseline {
        let ran: BTreeMap<&str, &CaseResult> = results.iter().map(|r| (r.id.as_str(), r)).collect();
        let mut out: BTreeMap<String, String> = BTreeMap::new();
        for k in &self.known_failures {
            let keep = match ran.get(k.id.as_str()) {
                Some(r) => raw(r).counts_against(),
                None => true,
            };
            if keep && ids.contains(&k.id) {
                out.insert(k.id.clone(), k.reason.clone());
            }
        }
        for r in results {
            if raw(r).counts_against() && !out.contains_key(&r.id) {
                let first = r.message.lines().next().unwrap_or("");
                out.insert(r.id.clone(), format!("{}: {first}", raw(r).name()));
            }
        }
        Baseline {
            version: BASELINE_VERSION,
            backend: self.backend.clone(),
            profile: self.profile.clone(),
            known_failures: out
                .into_iter()
                .map(|(id, reason)| KnownFailure { id, reason })
                .collect(),
        }
    }

    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a baseline serializes");
        std::fs::write(path, text + "\n")
    }
}

fn raw(r: &CaseResult) -> Verdict {
    r.raw_verdict.unwrap_or(r.verdict)
}

/// Applies the baseline to a case's result.
pub fn apply(baseline: &Baseline, r: &mut CaseResult) {
    let Some(reason) = baseline.reason(&r.id) else {
        return;
    };
    let new = match r.verdict {
        v if v.counts_against() => Verdict::ExpectedFail,
        // A recommendation not met no longer counts against the backend:
        // the entry is as stale as for a pass.
        Verdict::Pass | Verdict::Warning => Verdict::UnexpectedPass,
        _ => return,
    };
    r.known_failure = Some(reason.to_string());
    r.raw_verdict = Some(r.verdict);
    r.message = if new == Verdict::UnexpectedPass {
        let how = match r.verdict {
            Verdict::Warning => "it met every requirement (only a recommendation not met)",
            _ => "it passed",
        };
        format!(
            "the baseline lists it as a known failure ({reason}), and {how}; remove the entry or run with --bless"
        )
    } else {
        format!(
            "known failure ({reason}); it failed again: {}: {}",
            r.verdict.name(),
            r.message
        )
    };
    r.verdict = new;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str, v: Verdict) -> CaseResult {
        CaseResult::bare(id.into(), String::new(), v, "why\nmore".into())
    }

    fn baseline(ids: &[&str]) -> Baseline {
        Baseline {
            version: 1,
            backend: String::new(),
            profile: String::new(),
            known_failures: ids
                .iter()
                .map(|i| KnownFailure {
                    id: i.to_string(),
                    reason: format!("bug {i}"),
                })
                .collect(),
        }
    }

    #[test]
    fn a_listed_failure_is_expected_and_a_listed_pass_is_not() {
        let b = baseline(&["a", "b"]);
        let mut a = result("a", Verdict::Timeout);
        apply(&b, &mut a);
        assert_eq!(a.verdict, Verdict::ExpectedFail);
        assert_eq!(a.raw_verdict, Some(Verdict::Timeout));
        assert!(!a.verdict.fails_run());
        let mut p = result("b", Verdict::Pass);
        apply(&b, &mut p);
        assert_eq!(p.verdict, Verdict::UnexpectedPass);
        assert!(p.verdict.fails_run());
        let mut c = result("c", Verdict::Fail);
        apply(&b, &mut c);
        assert_eq!(c.verdict, Verdict::Fail);
        // A listed case that only misses a recommendation no longer counts
        // against the backend: the entry is stale.
        let b = baseline(&["w"]);
        let mut w = result("w", Verdict::Warning);
        apply(&b, &mut w);
        assert_eq!(w.verdict, Verdict::UnexpectedPass);
        assert!(
            w.message.contains("only a recommendation not met"),
            "{}",
            w.message
        );
        // A declined case inside the claim is a gap a baseline can list.
        let b = baseline(&["gap", "na"]);
        let mut gap = result("gap", Verdict::NotSupported);
        apply(&b, &mut gap);
        assert_eq!(gap.verdict, Verdict::ExpectedFail);
        let mut na = result("na", Verdict::NotApplicable);
        apply(&b, &mut na);
        assert_eq!(na.verdict, Verdict::NotApplicable);
    }

    #[test]
    fn a_baseline_is_for_one_backend_and_profile() {
        let mut b = baseline(&[]);
        assert!(b.check_for("any", "sm69").is_ok());
        b.backend = "ser-vulkan".into();
        b.profile = "vulkan-nv".into();
        assert!(b.check_for("ser-vulkan", "vulkan-nv").is_ok());
        let e = b.check_for("reference", "vulkan-nv").unwrap_err();
        assert!(
            e.contains("backend `ser-vulkan`, the run's is `reference`"),
            "{e}"
        );
        let e = b.check_for("reference", "sm69").unwrap_err();
        assert!(e.contains("and it is for profile `vulkan-nv`"), "{e}");
    }

    #[test]
    fn blessing_follows_the_run_and_keeps_what_did_not_run() {
        let b = baseline(&["a", "b", "gone", "skipped"]);
        let ids: BTreeSet<String> = ["a", "b", "c", "skipped"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut a = result("a", Verdict::Fail);
        apply(&b, &mut a);
        let mut bb = result("b", Verdict::Pass);
        apply(&b, &mut bb);
        let c = result("c", Verdict::Crash);
        let blessed = b.blessed(&[a, bb, c], &ids);
        let listed: Vec<(&str, &str)> = blessed
            .known_failures
            .iter()
            .map(|k| (k.id.as_str(), k.reason.as_str()))
            .collect();
        assert_eq!(
            listed,
            vec![
                ("a", "bug a"),
                ("c", "crash: why"),
                ("skipped", "bug skipped")
            ]
        );
    }
}
