//! Memory coherence across reorder points
//! (`ser.memory.reordercoherent.steps_required_for_cross_reorder_reads`).
//!
//! A thread that writes a UAV word (a store or an atomic) on one side of a
//! reorder point and reads it with a non-atomic read on the other side is
//! guaranteed to see its write only when it followed one of the spec's
//! recipes between the write and the reorder point:
//! - the buffer is `[reordercoherent]` and the writer issued
//!   `Barrier(UAV_MEMORY, REORDER_SCOPE)`
//!   (`ser.memory.reordercoherent.required_for_cross_reorder_reads`,
//!   `ser.memory.reordercoherent.barrier_reorder_scope_before_reorder_point`),
//!   in the primary revision and Shader Model 6.9, which have the reorder
//!   scope;
//! - the buffer is `[globallycoherent]` and the writer issued
//!   `DeviceMemoryBarrier`, which HLSL defines as
//!   `Barrier(UAV_MEMORY, DEVICE_SCOPE)` (either spelling) (`ser.memory.globallycoherent.uav_declared_globallycoherent`,
//!   `ser.memory.globallycoherent.device_memory_barrier_before_reorder_point`;
//!   in the earlier revision the only recipe,
//!   `ser_rt.memory.globallycoherent.required_for_cross_reorder_reads`).
//!
//! The text calls the reorder scope "insufficient" for communication
//! between dispatch indices and offers global coherency "instead"; the
//! suite reads the global scope as the wider one, containing the reorder
//! scope, consistently: a `[globallycoherent]` buffer is coherent at the
//! reorder scope too, and a device-scope barrier publishes at the reorder
//! scope too. So the global recipe makes a write visible within one
//! dispatch index, and so do the mixed recipes (a `[reordercoherent]`
//! buffer with a device-scope barrier, a `[globallycoherent]` buffer with a
//! reorder-scope barrier), where the profile has the reorder scope.
//!
//! Otherwise the value read is unspecified; so is it when any write of the
//! thread to the word before a reorder point it passed went without the
//! recipe, even if the thread wrote the word again since (a store on one
//! side, a read on the other, as the rule says). Atomic reads are outside
//! the rule (it names non-atomic reads) and see the thread's writes.

use crate::mutation::{self, Mutation};
use crate::profile::Profile;

/// A coherence scope a buffer can be declared for and a barrier can reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `[reordercoherent]` with `Barrier(UAV_MEMORY, REORDER_SCOPE)`.
    Reorder,
    /// `[globallycoherent]` with `DeviceMemoryBarrier`.
    Global,
}

impl Scope {
    fn bit(self) -> u8 {
        match self {
            Scope::Reorder => 1,
            Scope::Global => 2,
        }
    }
}

/// The scopes a buffer is declared coherent for, under a profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scopes(u8);

impl Scopes {
    /// From a buffer's storage classes. `[reordercoherent]` exists only
    /// where the reorder scope does (`ser.memory.reordercoherent.storage_class`);
    /// `[globallycoherent]` reaches it too (the wider scope, above).
    pub fn declared(storage: &[String], profile: Profile) -> Scopes {
        let mut s = Scopes::default();
        for class in storage {
            match class.as_str() {
                "reordercoherent" => s.add_within(Scope::Reorder, profile),
                "globallycoherent" => s.add_within(Scope::Global, profile),
                _ => {}
            }
        }
        s
    }

    pub fn add(&mut self, scope: Scope) {
        self.0 |= scope.bit();
    }

    /// Adds `scope` and the narrower scope it contains where `profile` has
    /// one: the global scope contains the reorder scope, which exists only
    /// in the profiles that define `REORDER_SCOPE`.
    fn add_within(&mut self, scope: Scope, profile: Profile) {
        if scope == Scope::Global {
            self.add(Scope::Global);
        }
        if profile.has_reorder_scope() {
            self.add(Scope::Reorder);
        }
    }

    pub fn contains(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    /// Whether the two sets share a scope.
    pub fn meets(self, other: Scopes) -> bool {
        self.0 & other.0 != 0
    }
}

/// The scopes a barrier call publishes writes in, for the spec's recipes:
/// global for `DeviceMemoryBarrier()` or `Barrier` with `UAV_MEMORY` and
/// `DEVICE_SCOPE`; reorder for `Barrier` with `UAV_MEMORY` and
/// `REORDER_SCOPE` (`ser.memory.reorder_scope.semantic_flag_value`).
pub fn barrier_scopes(name: &str, args: &[u32], profile: Profile) -> Scopes {
    use ser_lang::names::constant;
    let flag = |n| constant(n).expect("a known constant");
    let mut s = Scopes::default();
    match (name, args) {
        ("DeviceMemoryBarrier", []) if mutation::active(Mutation::DeviceBarrierNotPublished) => {}
        ("DeviceMemoryBarrier", []) => s.add_within(Scope::Global, profile),
        ("Barrier", [memory, semantics]) if memory & flag("UAV_MEMORY") != 0 => {
            if semantics & flag("DEVICE_SCOPE") != 0 {
                s.add_within(Scope::Global, profile);
            }
            if profile.has_reorder_scope()
                && semantics & flag("REORDER_SCOPE") != 0
                && !mutation::active(Mutation::ReorderScopeNotPublished)
            {
                s.add(Scope::Reorder);
            }
        }
        _ => {}
    }
    s
}

/// Why a read across a reorder point is unspecified.
pub fn unpublished_reason(profile: Profile) -> &'static str {
    if profile.has_reorder_scope() {
        "reads, across a reorder point, a word the thread wrote without making it coherent ([reordercoherent] and Barrier(UAV_MEMORY, REORDER_SCOPE), or [globallycoherent] and DeviceMemoryBarrier, between the write and the reorder point)"
    } else {
        "reads, across a reorder point, a word the thread wrote without making it coherent ([globallycoherent] and DeviceMemoryBarrier between the write and the reorder point)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_recipes_publish() {
        let p = Profile::MaybeReorderThread0027;
        let one = |scope| {
            let mut s = Scopes::default();
            s.add(scope);
            s
        };
        let reorder = one(Scope::Reorder);
        let mut global = one(Scope::Global);
        global.add(Scope::Reorder);
        assert_eq!(
            barrier_scopes("DeviceMemoryBarrier", &[], p),
            global,
            "the device scope contains the reorder scope"
        );
        assert_eq!(
            barrier_scopes("Barrier", &[0x2, 0x4], p),
            global,
            "HLSL's DeviceMemoryBarrier"
        );
        assert_eq!(
            barrier_scopes("DeviceMemoryBarrier", &[], Profile::ReorderThread0027),
            one(Scope::Global),
            "no reorder scope in the earlier revision"
        );
        assert_eq!(barrier_scopes("Barrier", &[0x2, 0x8], p), reorder);
        let both = barrier_scopes("Barrier", &[0x2, 0xC], p);
        assert!(both.contains(Scope::Global) && both.contains(Scope::Reorder));
        assert_eq!(
            barrier_scopes("Barrier", &[0x2, 0x2], p),
            Scopes::default(),
            "group scope"
        );
        assert_eq!(
            barrier_scopes("Barrier", &[0x1, 0x8], p),
            Scopes::default(),
            "not UAV memory"
        );
        // The earlier revision has no reorder scope.
        assert_eq!(
            barrier_scopes("Barrier", &[0x2, 0x8], Profile::ReorderThread0027),
            Scopes::default()
        );
        let storage = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let declared = Scopes::declared(&storage(&["globallycoherent", "reordercoherent"]), p);
        assert!(declared.contains(Scope::Global) && declared.contains(Scope::Reorder));
        let earlier = Scopes::declared(&storage(&["reordercoherent"]), Profile::ReorderThread0027);
        assert!(!earlier.contains(Scope::Reorder));
        let wide = Scopes::declared(&storage(&["globallycoherent"]), p);
        assert!(
            wide.contains(Scope::Reorder),
            "a globally coherent buffer is reorder coherent"
        );
    }
}
