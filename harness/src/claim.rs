//! What a backend claims: the one profile it implements and the optional
//! capabilities it has. A verdict is about a claim. A case outside it (for
//! another profile, or needing a capability the backend does not claim) is
//! *not applicable* and says nothing either way; a case inside it that the
//! backend declines is a conformance gap (like a Vulkan CTS `NotSupported`
//! for a feature the device advertises) and counts against the verdict.
//!
//! A claim names the wave sizes the backend's device runs, where it has
//! one: a case with wave operations in waves of another size is not
//! applicable (a device's wave size is not the implementation's choice;
//! the Vulkan CTS likewise skips a subgroup size the device lacks).
//!
//! A claim also says how far the backend takes a case ([`Phase`]): a
//! compiler's backend may compile each program and stop. Its runtime cases
//! then pass when the program compiles, and say nothing of the values the
//! program computes; the verdict names the phase.

use crate::backend::Backend;
use crate::capability::CAPABILITIES;
use crate::expect::diagnostics::required_error;
use crate::load::Case;
use crate::load::Expected;
use schemars::JsonSchema;
use ser_reference::Profile;
use serde::{Deserialize, Serialize};

/// A backend's claim.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Claim {
    pub profile: Profile,
    /// In the order of [`CAPABILITIES`]; unknown names are dropped.
    pub capabilities: Vec<String>,
    /// The wave sizes the backend runs; empty: any.
    pub wave_sizes: Vec<u32>,
    pub phase: Phase,
}

/// How far a backend takes a case.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Compile the program and run the dispatch to its buffers.
    #[default]
    Run,
    /// Compile the program only: a runtime case passes when its program
    /// compiles (a valid program must), a negative case when it is
    /// rejected. Nothing is run.
    Compile,
}

/// Capabilities that make a kind of case rather than a feature of the
/// model: the first reason to count a case under.
const CASE_KINDS: [&str; 4] = [
    "validation",
    "sbt_layout",
    "undefined_behaviour_diagnosis",
    "schedule_control",
];

/// Why a case lies outside a claim.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outside {
    /// The case applies to other profiles only.
    Profile { profiles: Vec<Profile> },
    /// The case needs capabilities the backend does not claim.
    Capabilities { missing: Vec<String> },
    /// The case's wave operations run in waves of a size the backend's
    /// device does not have.
    WaveSize { size: u32, runs: Vec<u32> },
}

impl Outside {
    /// The reason in a word or two, for counting not-applicable cases:
    /// `other profiles`, or the one missing capability that says most (the
    /// kind of case first: a negative case needing `callable_shaders` too
    /// counts under `validation`).
    pub fn category(&self) -> String {
        match self {
            Outside::Profile { .. } => "other profiles".into(),
            Outside::WaveSize { .. } => "wave size".into(),
            Outside::Capabilities { missing } => {
                let rank = |c: &String| {
                    let kind = CASE_KINDS.iter().position(|k| k == c);
                    let order = CAPABILITIES.iter().position(|(n, _)| n == c);
                    kind.unwrap_or(CASE_KINDS.len() + order.unwrap_or(CAPABILITIES.len()))
                };
                missing
                    .iter()
                    .min_by_key(|c| rank(c))
                    .cloned()
                    .unwrap_or_default()
            }
        }
    }

    /// The reason as a sentence.
    pub fn message(&self, claim: &Claim) -> String {
        match self {
            Outside::Profile { profiles } => {
                let list: Vec<&str> = profiles.iter().map(|p| p.name()).collect();
                format!(
                    "the case applies to {}; the backend implements {}",
                    list.join(", "),
                    claim.profile
                )
            }
            Outside::Capabilities { missing } => {
                let what: Vec<String> = missing
                    .iter()
                    .map(|m| {
                        let meaning = CAPABILITIES
                            .iter()
                            .find(|(n, _)| n == m)
                            .map_or("", |(_, d)| *d);
                        format!("`{m}` ({meaning})")
                    })
                    .collect();
                format!(
                    "the case needs {}, which the backend does not claim",
                    what.join(", ")
                )
            }
            Outside::WaveSize { size, runs } => format!(
                "the case's wave operations run in waves of {size} lanes; the backend's device runs {}",
                lanes(runs)
            ),
        }
    }
}

/// The lanes a wave may have: a case's `dispatch.wave_size` and a device's
/// wave sizes alike.
pub const WAVE_LANES: std::ops::RangeInclusive<u32> = 1..=128;

/// Checks what a backend states about itself (a process backend's hello):
/// every capability one the suite knows (a misspelt one would otherwise
/// shrink the claim without a word), every wave size one a wave can have.
pub fn check_stated(capabilities: &[String], wave_sizes: &[u32]) -> Result<(), String> {
    let unknown: Vec<String> = capabilities
        .iter()
        .filter(|c| !CAPABILITIES.iter().any(|(n, _)| n == c))
        .map(|c| format!("`{}`", c.escape_debug()))
        .collect();
    if !unknown.is_empty() {
        let known: Vec<&str> = CAPABILITIES.iter().map(|(n, _)| *n).collect();
        return Err(format!(
            "it claims {}, which {} no capability the suite knows; expected some of {} (`ser-conformance capabilities`)",
            unknown.join(", "),
            if unknown.len() == 1 { "is" } else { "are" },
            known.join(", ")
        ));
    }
    if let Some(bad) = wave_sizes.iter().find(|w| !WAVE_LANES.contains(w)) {
        return Err(format!(
            "its wave_sizes hold {bad}, which no wave has; expected sizes of {} to {} lanes",
            WAVE_LANES.start(),
            WAVE_LANES.end()
        ));
    }
    Ok(())
}

impl Claim {
    pub fn new(profile: Profile, capabilities: &[String]) -> Claim {
        Claim {
            profile,
            capabilities: CAPABILITIES
                .iter()
                .map(|(n, _)| n.to_string())
                .filter(|n| capabilities.contains(n))
                .collect(),
            wave_sizes: Vec::new(),
            phase: Phase::Run,
        }
    }

    /// What `backend` claims.
    pub fn of(backend: &dyn Backend) -> Claim {
        Claim {
            phase: backend.phase(),
            wave_sizes: backend.wave_sizes(),
            ..Claim::new(backend.profile(), &backend.capabilities())
        }
    }

    pub fn has(&self, capability: &str) -> bool {
        self.capabilities.iter().any(|c| c == capability)
    }

    /// Why `case` is outside the claim, if it is.
    pub fn outside(&self, case: &Case) -> Option<Outside> {
        if !case.profiles.contains(&self.profile) {
            return Some(Outside::Profile {
                profiles: case.profiles.clone(),
            });
        }
        let missing: Vec<String> = case
            .requires
            .iter()
            .filter(|r| {
                let met = self.has(r) || (*r == "validation" && self.rejection_judges(case));
                !met
            })
            .cloned()
            .collect();
        if !missing.is_empty() {
            return Some(Outside::Capabilities { missing });
        }
        let size = case.dispatch.wave_size;
        let waves = case.requires.iter().any(|r| r == "wave_operations");
        (waves && !self.runs_waves_of(size)).then(|| Outside::WaveSize {
            size,
            runs: self.wave_sizes.clone(),
        })
    }

    /// Whether the backend's device runs waves of `size` lanes (any size,
    /// where the claim names none).
    pub fn runs_waves_of(&self, size: u32) -> bool {
        self.wave_sizes.is_empty() || self.wave_sizes.contains(&size)
    }

    /// Whether a negative case is judged by rejection under this claim:
    /// the backend claims `rejection` but not `validation`.
    pub fn judges_by_rejection(&self) -> bool {
        self.has("rejection") && !self.has("validation")
    }

    /// Whether `rejection` stands in for `validation` on a negative case:
    /// it does when the case expects an error (which a rejection shows) or
    /// nothing required (a control, which must be accepted, or may be
    /// rejected where it allows an optional error); a case that requires
    /// warnings cannot be judged by rejection.
    fn rejection_judges(&self, case: &Case) -> bool {
        if !self.has("rejection") {
            return false;
        }
        match &case.expect {
            Expected::Diagnostics(list) => {
                list.iter().all(|e| e.optional) || required_error(list).is_some()
            }
            _ => false,
        }
    }

    /// `vulkan-nv with {callable_shaders, wave_operations}`, and `, compile
    /// only` for a compile-only claim.
    pub fn describe(&self) -> String {
        let caps = if self.capabilities.len() == CAPABILITIES.len() {
            format!("all {} capabilities", CAPABILITIES.len())
        } else if self.capabilities.is_empty() {
            "no optional capability".to_string()
        } else {
            format!("{{{}}}", self.capabilities.join(", "))
        };
        let waves = if self.wave_sizes.is_empty() {
            String::new()
        } else {
            format!(", {}", lanes(&self.wave_sizes))
        };
        let phase = match self.phase {
            Phase::Run => "",
            Phase::Compile => ", compile only",
        };
        format!("{} with {caps}{waves}{phase}", self.profile)
    }
}

/// `waves of 8 lanes`, `waves of 32 or 64 lanes`.
fn lanes(sizes: &[u32]) -> String {
    let list: Vec<String> = sizes.iter().map(u32::to_string).collect();
    format!("waves of {} lanes", list.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_the_claim_in_capability_order() {
        let c = Claim::new(
            Profile::VulkanNv,
            &[
                "wave_operations".into(),
                "nonsense".into(),
                "callable_shaders".into(),
            ],
        );
        assert_eq!(
            c.describe(),
            "vulkan-nv with {callable_shaders, wave_operations}"
        );
        assert_eq!(
            Claim::new(Profile::Sm69, &[]).describe(),
            "sm69 with no optional capability"
        );
    }

    #[test]
    fn a_stated_claim_names_only_known_capabilities_and_possible_waves() {
        let caps = |c: &[&str]| c.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(check_stated(&caps(&["ray_query"]), &[32, 64]), Ok(()));
        let e = check_stated(&caps(&["shader_execution_reorder", "ray_querry"]), &[]).unwrap_err();
        assert!(e.starts_with("it claims `ray_querry`, which is no capability the suite knows; expected some of shader_execution_reorder,"), "{e}");
        let e = check_stated(&[], &[0, 4294967295]).unwrap_err();
        assert_eq!(
            e,
            "its wave_sizes hold 0, which no wave has; expected sizes of 1 to 128 lanes"
        );
        assert!(check_stated(&[], &[4294967295]).is_err());
    }

    #[test]
    fn categories_name_the_reason() {
        let p = Outside::Profile {
            profiles: vec![Profile::Sm69],
        };
        assert_eq!(p.category(), "other profiles");
        let c = Outside::Capabilities {
            missing: vec!["hit_object_from_ray_query".into(), "ray_query".into()],
        };
        assert_eq!(c.category(), "ray_query");
        let negative = Outside::Capabilities {
            missing: vec!["callable_shaders".into(), "validation".into()],
        };
        assert_eq!(negative.category(), "validation");
        let claim = Claim::new(Profile::VulkanNv, &[]);
        assert!(p
            .message(&claim)
            .contains("applies to sm69; the backend implements vulkan-nv"));
        assert!(c
            .message(&claim)
            .contains("`ray_query` (inline ray tracing"));
    }

    #[test]
    fn a_case_in_waves_the_device_lacks_is_outside_the_claim() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let cases = crate::load::load_file(&root, &root.join("wave/packing.json"));
        let in_32 = cases
            .into_iter()
            .map(Result::unwrap)
            .find(|c| {
                c.dispatch.wave_size == 32 && c.requires.iter().any(|r| r == "wave_operations")
            })
            .expect("a packing case in waves of 32");
        let caps = ["wave_operations".to_string()];
        let any = Claim::new(Profile::VulkanExt, &caps);
        assert_eq!(any.outside(&in_32), None, "a claim naming no size runs any");
        let eight = Claim {
            wave_sizes: vec![8],
            ..any.clone()
        };
        let outside = eight.outside(&in_32).expect("waves of 8 only");
        assert_eq!(outside.category(), "wave size");
        assert!(outside
            .message(&eight)
            .contains("waves of 32 lanes; the backend's device runs waves of 8 lanes"));
        assert_eq!(
            eight.describe(),
            "vulkan-ext with {wave_operations}, waves of 8 lanes"
        );
        let both = Claim {
            wave_sizes: vec![32, 64],
            ..any
        };
        assert_eq!(both.outside(&in_32), None);
    }
}
