//! Which of a case's clauses a failure breaks, and whether it breaks only
//! recommendations.
//!
//! One place decides both what the traceability report shows *broken* and
//! whether a run of a case whose buffers differ from its expectations is a
//! `fail` or a *recommendation not met* ([`Verdict::Warning`]): a
//! mismatching element breaks the clauses the case ties it to (a case
//! citing one clause ties everything to it; see [`crate::load::ties`]).
//!
//! A clause of strength `should` recommends and does not require:
//! "Implementations should: not double-hit or miss when a ray intersects a
//! shared edge" (`vk.watertight.no_double_hit_shared_edge`). A run whose
//! every mismatching element is decided by such clauses alone is reported,
//! as the Vulkan CTS reports a `QualityWarning`, and not counted against
//! conformance. Definitions and other untestable clauses decide no element
//! (`vk.watertight.shared_edge_def`); an element nothing ties may be
//! decided by any clause the case cites.

use crate::expect::Mismatch;
use crate::load::ties::{self, Tie};
use crate::load::Case;
use crate::spec_map::{self, Strength, Testable};
use crate::verdict::Verdict;
use ser_reference::Profile;
use std::collections::BTreeSet;

/// The clauses a case cites and the elements it ties to them, as a run
/// under one profile reads them: a clause that does not hold under the
/// profile decides nothing there (DXR's `must` on a shared edge decides
/// under the HLSL profiles; under the Vulkan profiles only the traversal
/// chapter's `should` does).
#[derive(Clone, Copy, Debug)]
pub struct Citation<'a> {
    pub clauses: &'a [String],
    pub ties: &'a [Tie],
    pub profile: Profile,
}

impl<'a> Citation<'a> {
    pub fn of(case: &'a Case, profile: Profile) -> Citation<'a> {
        Citation {
            clauses: &case.clauses,
            ties: &case.ties,
            profile,
        }
    }

    /// Whether clause `id` holds under the run's profile (an unknown one is
    /// taken to hold).
    fn holds(&self, id: &str) -> bool {
        spec_map::clause(id).is_none_or(|c| c.profiles.iter().any(|p| p == self.profile.name()))
    }

    /// The clauses a mismatching element breaks: the case's one clause, or
    /// those its ties bind to the element; `None` where nothing ties it.
    pub fn breaks(&self, m: &Mismatch) -> Option<Vec<&'a str>> {
        if let [only] = self.clauses {
            return Some(vec![only.as_str()]);
        }
        let tied: Vec<&str> = ties::clauses_of(self.ties, &m.buffer, m.element)
            .into_iter()
            .filter(|id| self.holds(id))
            .collect();
        (!tied.is_empty()).then_some(tied)
    }

    /// The clauses that decide a mismatching element: those it breaks, or,
    /// where nothing ties it, every testable clause of the case (any of
    /// them may be the one). Untestable clauses decide nothing.
    fn deciding(&self, m: &Mismatch) -> Vec<(&'a str, Strength)> {
        let ids = self.breaks(m).unwrap_or_else(|| {
            self.clauses
                .iter()
                .map(String::as_str)
                .filter(|id| self.holds(id))
                .collect()
        });
        ids.into_iter()
            .filter_map(|id| spec_map::clause(id).map(|c| (id, c)))
            .filter(|(_, c)| c.testable != Testable::None)
            .map(|(id, c)| (id, c.strength))
            .collect()
    }

    /// The recommendations a run with these mismatches does not meet, when
    /// that is all it does wrong: every mismatching element is decided by
    /// `should` clauses alone (at least one). `None` when there is no
    /// mismatch, or one may break a clause of another strength (`must`,
    /// `may`, ...): then the run fails.
    pub fn only_recommendations(&self, mismatches: &[Mismatch]) -> Option<Vec<&'a str>> {
        let mut not_met = BTreeSet::new();
        for m in mismatches {
            let deciding = self.deciding(m);
            if deciding.is_empty() || deciding.iter().any(|(_, s)| *s != Strength::Should) {
                return None;
            }
            not_met.extend(deciding.into_iter().map(|(id, _)| id));
        }
        (!not_met.is_empty()).then(|| not_met.into_iter().collect())
    }

    /// Of `ids` (the clauses that require something the run missed), those
    /// that decide under the run's profile, when they are all `should`
    /// clauses (at least one); `None` when one of them is of another
    /// strength.
    pub fn only_should(&self, ids: &[String]) -> Option<Vec<String>> {
        let deciding: Vec<(&String, Strength)> = ids
            .iter()
            .filter(|id| self.holds(id))
            .filter_map(|id| spec_map::clause(id).map(|c| (id, c)))
            .filter(|(_, c)| c.testable != Testable::None)
            .map(|(id, c)| (id, c.strength))
            .collect();
        let all_should =
            !deciding.is_empty() && deciding.iter().all(|(_, s)| *s == Strength::Should);
        all_should.then(|| deciding.into_iter().map(|(id, _)| id.clone()).collect())
    }

    /// What a run with this verdict shows of the case's clauses: those it
    /// breaks and those its ties still show kept (bound only to matching
    /// elements). A `fail` breaks the case's one clause, or the clauses its
    /// ties bind to a mismatching element (its other clauses are only
    /// *cited* by a failing case); a recommendation not met breaks the
    /// `should` clauses that decide its mismatches. Other verdicts show
    /// nothing.
    pub fn shown(&self, verdict: Verdict, mismatches: &[Mismatch]) -> (Vec<String>, Vec<String>) {
        let broken: BTreeSet<&str> = match verdict {
            Verdict::Fail => match self.clauses {
                [only] => BTreeSet::from([only.as_str()]),
                _ => mismatches
                    .iter()
                    .filter_map(|m| self.breaks(m))
                    .flatten()
                    .collect(),
            },
            Verdict::Warning => self
                .only_recommendations(mismatches)
                .unwrap_or_default()
                .into_iter()
                .collect(),
            _ => return (Vec::new(), Vec::new()),
        };
        let kept: BTreeSet<&str> = self
            .ties
            .iter()
            .map(|t| t.clause.as_str())
            .filter(|c| !broken.contains(c) && self.holds(c))
            .collect();
        let owned = |set: BTreeSet<&str>| set.into_iter().map(str::to_string).collect();
        (owned(broken), owned(kept))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shared edges: "Implementations should: not double-hit or miss".
    const SHOULD: &str = "vk.watertight.no_double_hit_shared_edge";
    /// "... unless NO_DUPLICATE_ANY_HIT was specified": runtime, `may`.
    const MAY: &str = "vk.confirmation.triangle.may_execute_multiple_times_unless_no_duplicate";
    /// A definition: untestable, it decides no element.
    const DEFINITION: &str = "vk.watertight.shared_edge_def";
    const MUST: &str = "vk.candidate.bounds.triangle";

    #[test]
    fn the_clauses_used_here_have_the_strengths_the_tests_assume() {
        let of = |id| {
            let c = spec_map::clause(id).expect("a clause of the spec-map");
            (c.strength, c.testable != Testable::None)
        };
        assert_eq!(of(SHOULD), (Strength::Should, true));
        assert_eq!(of(MAY), (Strength::May, true));
        assert_eq!(of(DEFINITION), (Strength::Must, false));
        assert_eq!(of(MUST), (Strength::Must, true));
    }

    fn clauses(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    fn tie(clause: &str, elements: std::ops::Range<usize>) -> Tie {
        Tie {
            clause: clause.into(),
            buffer: "Out".into(),
            elements,
        }
    }

    fn at(element: usize) -> Mismatch {
        Mismatch {
            buffer: "Out".into(),
            element,
            component: None,
            expected: "1".into(),
            actual: "2".into(),
        }
    }

    #[test]
    fn a_mismatch_tied_to_a_should_clause_only_is_a_recommendation_not_met() {
        let cited = clauses(&[SHOULD, DEFINITION, MAY]);
        let ties = [tie(SHOULD, 0..2), tie(MAY, 2..3)];
        let c = Citation {
            clauses: &cited,
            ties: &ties,
            profile: Profile::VulkanExt,
        };
        assert_eq!(c.only_recommendations(&[at(0)]), Some(vec![SHOULD]));
        assert_eq!(c.only_recommendations(&[at(0), at(1)]), Some(vec![SHOULD]));
        let (broken, kept) = c.shown(Verdict::Warning, &[at(0)]);
        assert_eq!((broken, kept), (clauses(&[SHOULD]), clauses(&[MAY])));
        // Nothing wrong is no recommendation not met.
        assert_eq!(c.only_recommendations(&[]), None);
    }

    #[test]
    fn a_mismatch_tied_to_another_strength_too_fails() {
        let cited = clauses(&[SHOULD, MUST, MAY]);
        let ties = [tie(SHOULD, 0..2), tie(MUST, 1..2), tie(MAY, 2..3)];
        let c = Citation {
            clauses: &cited,
            ties: &ties,
            profile: Profile::VulkanExt,
        };
        // Element 1 decides the must clause as well.
        assert_eq!(c.only_recommendations(&[at(0), at(1)]), None);
        // Element 2 decides a `may` clause alone (a runtime rule, not a
        // recommendation).
        assert_eq!(c.only_recommendations(&[at(0), at(2)]), None);
        assert_eq!(c.shown(Verdict::Fail, &[at(1)]).0, clauses(&[MUST, SHOULD]));
    }

    #[test]
    fn an_untied_mismatch_of_a_case_citing_a_must_and_a_should_fails() {
        let cited = clauses(&[SHOULD, MUST]);
        let c = Citation {
            clauses: &cited,
            ties: &[],
            profile: Profile::VulkanExt,
        };
        assert_eq!(c.breaks(&at(0)), None);
        assert_eq!(c.only_recommendations(&[at(0)]), None);
        // Untestable clauses decide nothing: a case citing a should clause
        // and definitions recommends only, tied or not.
        let cited = clauses(&[SHOULD, DEFINITION]);
        let c = Citation {
            clauses: &cited,
            ties: &[],
            profile: Profile::VulkanExt,
        };
        assert_eq!(c.only_recommendations(&[at(0)]), Some(vec![SHOULD]));
        // An element tied to a definition alone is decided by nothing
        // that recommends: it fails.
        let ties = [tie(DEFINITION, 0..1)];
        let c = Citation {
            clauses: &cited,
            ties: &ties,
            profile: Profile::VulkanExt,
        };
        assert_eq!(c.only_recommendations(&[at(0)]), None);
    }

    #[test]
    fn a_case_citing_one_clause_ties_everything_to_it() {
        for (id, recommends) in [(SHOULD, true), (MUST, false)] {
            let cited = clauses(&[id]);
            let c = Citation {
                clauses: &cited,
                ties: &[],
                profile: Profile::VulkanExt,
            };
            assert_eq!(c.breaks(&at(3)), Some(vec![id]));
            assert_eq!(c.only_recommendations(&[at(3)]).is_some(), recommends);
        }
    }

    #[test]
    fn a_clause_decides_only_under_the_profiles_it_holds_in() {
        // DXR requires one triangle on a shared edge; Vulkan recommends it.
        const DXR_MUST: &str = "dxr.triangle_intersection.edge_one_incident_triangle";
        let cited = clauses(&[SHOULD, DXR_MUST]);
        let ties = [tie(SHOULD, 0..2), tie(DXR_MUST, 0..2)];
        let under = |profile| Citation {
            clauses: &cited,
            ties: &ties,
            profile,
        };
        let vulkan = under(Profile::VulkanNv);
        assert_eq!(vulkan.only_recommendations(&[at(0)]), Some(vec![SHOULD]));
        assert_eq!(vulkan.breaks(&at(0)), Some(vec![SHOULD]));
        let sm69 = under(Profile::Sm69);
        assert_eq!(sm69.only_recommendations(&[at(0)]), None);
        assert_eq!(
            sm69.shown(Verdict::Fail, &[at(0)]).0,
            clauses(&[DXR_MUST, SHOULD])
        );
    }
}
