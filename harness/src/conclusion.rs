//! The run's last word: a verdict on the backend's claim, the numbers
//! behind it, and the exit status that goes with it.
//!
//! | standing | exit | when |
//! | --- | --- | --- |
//! | `CONFORMANT` | 0 | every applicable case passes, or misses only recommendations (`should` clauses; see [`crate::broken`]) |
//! | `NOT CONFORMANT, no change from the baseline` | 0 | every case that counts against the claim is a known failure the baseline lists |
//! | `NOT CONFORMANT` | 1 | a fail, error, timeout, crash, declined case inside the claim, unexpected pass, a stale baseline entry, or a protocol violation outside any case (a backend notice) |
//! | `NO VERDICT` | 3 | no case was judged against the claim |
//! | `NOT STARTED` | 2 | the run never started: a bad command line, a path that is not what its flag needs, a baseline refused, a backend that does not start |
//!
//! Exit status 4 is left to the outputs: the verdict was reached, but a
//! `--report`, `--junit` or stdout could not be written whole
//! ([`crate::output`]).

use crate::claim::Claim;
use crate::report::{thousands, Summary};
use crate::verdict::Verdict;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    Conformant,
    /// Not conformant, but every failure is one the baseline lists.
    NoChange,
    NotConformant,
    NoVerdict,
    /// The run never started (exit status 2): no case was run.
    NotStarted,
}

impl Standing {
    pub fn exit_code(self) -> u8 {
        match self {
            Standing::Conformant | Standing::NoChange => 0,
            Standing::NotConformant => 1,
            Standing::NoVerdict => 3,
            Standing::NotStarted => 2,
        }
    }
}

/// The conclusion of a run that never started, and why.
pub fn not_started(why: &str) -> Conclusion {
    Conclusion {
        standing: Standing::NotStarted,
        line: format!("NOT STARTED: {why}"),
        exit_code: Standing::NotStarted.exit_code(),
    }
}

/// Which cases the run covered.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Cases (and unloadable files) in the cases folder.
    pub suite: usize,
    /// Those a name filter, `--skip` or `--fraction` let through.
    pub selected: usize,
    /// The baseline file, when one is given.
    pub baseline: Option<String>,
    /// Baseline entries that name no case of the suite.
    pub stale: usize,
    /// Protocol violations no case's verdict shows (a process backend's
    /// second reply after the first had been judged): each fails the run.
    pub notices: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Conclusion {
    pub standing: Standing,
    /// The last line of the run, for people.
    pub line: String,
    pub exit_code: u8,
}

/// The verdict on `claim` from a run's counts.
pub fn conclude(claim: &Claim, summary: &Summary, scope: &Scope) -> Conclusion {
    let standing = if summary.applicable() == 0 {
        Standing::NoVerdict
    } else if !summary.ok() || scope.stale > 0 || scope.notices > 0 {
        Standing::NotConformant
    } else if summary.expected_fail > 0 {
        Standing::NoChange
    } else {
        Standing::Conformant
    };
    let head = match standing {
        Standing::Conformant => "CONFORMANT to",
        Standing::NoChange | Standing::NotConformant => "NOT CONFORMANT to",
        Standing::NoVerdict | Standing::NotStarted => "NO VERDICT on",
    };
    let mut line = format!("{head} {}", claim.describe());
    if standing == Standing::NoChange {
        let file = scope.baseline.as_deref().unwrap_or("the baseline");
        line.push_str(&format!(", no change from the baseline {file}"));
    }
    if scope.selected < scope.suite {
        line.push_str(&format!(
            ", on {} of {} cases (the rest filtered out)",
            thousands(scope.selected),
            thousands(scope.suite)
        ));
    }
    line.push_str(": ");
    line.push_str(&numbers(summary, scope, standing));
    Conclusion {
        standing,
        exit_code: standing.exit_code(),
        line,
    }
}

/// `239 of 239 applicable cases pass; 1,026 not applicable (722 other
/// profiles, ...)`, with what went wrong when something did.
fn numbers(summary: &Summary, scope: &Scope, standing: Standing) -> String {
    let mut parts = Vec::new();
    if standing == Standing::NoVerdict {
        parts.push(if scope.suite == 0 {
            "the cases folder holds no case".to_string()
        } else if scope.selected == 0 {
            "no case was selected".to_string()
        } else {
            "no case applies, so none was judged".to_string()
        });
    } else {
        parts.push(format!(
            "{} of {} applicable cases pass",
            thousands(summary.pass),
            thousands(summary.applicable())
        ));
        // Every other verdict of an applicable case, those that count
        // against the claim first.
        let others: Vec<String> = [
            (Verdict::Fail, ""),
            (Verdict::NotSupported, " (declined inside the claim)"),
            (Verdict::Error, ""),
            (Verdict::Timeout, ""),
            (Verdict::Crash, ""),
            (Verdict::UnexpectedPass, ""),
            (
                Verdict::ExpectedFail,
                " (known failures the baseline lists)",
            ),
            (Verdict::Warning, " (should)"),
        ]
        .iter()
        .filter(|(v, _)| summary.count(*v) > 0)
        .map(|(v, note)| format!("{}{note}", v.counted(summary.count(*v))))
        .collect();
        if !others.is_empty() {
            parts.push(others.join(", "));
        }
        if scope.stale > 0 {
            parts.push(format!(
                "{} stale baseline entr{} (naming no case)",
                scope.stale,
                if scope.stale == 1 { "y" } else { "ies" }
            ));
        }
        if scope.notices > 0 {
            parts.push(format!(
                "{} protocol violation{} outside any case (backend notices above)",
                scope.notices,
                if scope.notices == 1 { "" } else { "s" }
            ));
        }
    }
    if summary.not_applicable > 0 {
        parts.push(format!(
            "{} not applicable ({})",
            thousands(summary.not_applicable),
            summary.not_applicable_reasons()
        ));
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ser_reference::Profile;

    fn summary(pass: usize, na: &[(&str, usize)]) -> Summary {
        let mut s = Summary {
            pass,
            ..Summary::default()
        };
        for (why, n) in na {
            s.not_applicable += n;
            s.not_applicable_by.insert(why.to_string(), *n);
        }
        s
    }

    fn scope(n: usize) -> Scope {
        Scope {
            suite: n,
            selected: n,
            ..Scope::default()
        }
    }

    #[test]
    fn a_conformant_run_names_the_claim_and_the_numbers() {
        let claim = Claim::new(
            Profile::VulkanNv,
            &["callable_shaders".into(), "wave_operations".into()],
        );
        let s = summary(239, &[("other profiles", 722), ("validation", 175)]);
        let c = conclude(&claim, &s, &scope(1136));
        assert_eq!(c.standing, Standing::Conformant);
        assert_eq!(c.exit_code, 0);
        assert_eq!(
            c.line,
            "CONFORMANT to vulkan-nv with {callable_shaders, wave_operations}: 239 of 239 applicable cases pass; 897 not applicable (722 other profiles, 175 validation)"
        );
    }

    #[test]
    fn declined_cases_inside_the_claim_are_gaps() {
        let claim = Claim::new(Profile::MaybeReorderThread0027, &[]);
        let mut s = summary(8, &[("other profiles", 10)]);
        s.not_supported = 530;
        let c = conclude(&claim, &s, &scope(548));
        assert_eq!(c.standing, Standing::NotConformant);
        assert_eq!(c.exit_code, 1);
        assert!(
            c.line.starts_with("NOT CONFORMANT to 0027-maybereorderthread with no optional capability: 8 of 538 applicable cases pass; 530 not supported (declined inside the claim); 10 not applicable"),
            "{}",
            c.line
        );
    }

    #[test]
    fn recommendations_not_met_are_shown_and_do_not_count_against_the_claim() {
        let claim = Claim::new(Profile::VulkanExt, &[]);
        let mut s = summary(5, &[]);
        s.warning = 7;
        let c = conclude(&claim, &s, &scope(12));
        assert_eq!(c.standing, Standing::Conformant);
        assert_eq!(c.exit_code, 0);
        assert_eq!(
            c.line,
            "CONFORMANT to vulkan-ext with no optional capability: 5 of 12 applicable cases pass; 7 recommendations not met (should)"
        );
        s.fail = 1;
        s.warning = 1;
        let c = conclude(&claim, &s, &scope(7));
        assert_eq!(c.standing, Standing::NotConformant);
        assert!(
            c.line.ends_with(
                "5 of 7 applicable cases pass; 1 fail, 1 recommendation not met (should)"
            ),
            "{}",
            c.line
        );
    }

    #[test]
    fn nothing_judged_is_no_verdict() {
        let claim = Claim::new(Profile::Sm69, &[]);
        let c = conclude(&claim, &summary(0, &[("other profiles", 5)]), &scope(5));
        assert_eq!(c.standing, Standing::NoVerdict);
        assert_eq!(c.exit_code, 3);
        assert!(c.line.contains("no case applies"), "{}", c.line);
        let empty = conclude(&claim, &Summary::default(), &scope(0));
        assert!(empty.line.contains("holds no case"), "{}", empty.line);
        let filtered = Scope {
            suite: 9,
            ..Scope::default()
        };
        let none = conclude(&claim, &Summary::default(), &filtered);
        assert!(none.line.contains("no case was selected"), "{}", none.line);
        assert!(none.line.contains("on 0 of 9 cases"), "{}", none.line);
    }

    #[test]
    fn known_failures_only_are_no_change_and_stale_entries_are_not() {
        let claim = Claim::new(Profile::Sm69, &[]);
        let mut s = summary(3, &[]);
        s.expected_fail = 2;
        let mut sc = scope(5);
        sc.baseline = Some("b.json".into());
        let c = conclude(&claim, &s, &sc);
        assert_eq!(c.standing, Standing::NoChange);
        assert_eq!(c.exit_code, 0);
        assert!(c.line.starts_with("NOT CONFORMANT to sm69 with no optional capability, no change from the baseline b.json: 3 of 5 applicable cases pass; 2 expected fail"), "{}", c.line);
        sc.stale = 1;
        let c = conclude(&claim, &s, &sc);
        assert_eq!(c.standing, Standing::NotConformant);
        assert!(c.line.contains("1 stale baseline entry"), "{}", c.line);
    }
}
