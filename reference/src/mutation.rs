//! Deliberate breaks of single rules, for the suite's tests of itself.
//!
//! A *mutant* is the reference with exactly one rule broken. The suite must
//! fail every mutant that breaks a rule the spec states (a *bug* mutant),
//! and must pass every mutant that only takes another legal path (a
//! *control* mutant: a variation the spec allows). The harness runs a
//! mutant as a backend (`--backend mutant:NAME`); the differential fuzzer
//! uses one to show that it finds planted bugs.
//!
//! A rule site asks [`active`] whether its mutation is on. Nothing is on
//! unless a caller runs the reference inside [`with`], so the reference's
//! own results never change. The switch is per thread: the reference runs
//! a case on the calling thread.

use std::cell::Cell;

/// Whether the suite must reject a mutant or accept it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Breaks a rule: some case must fail it.
    Bug,
    /// Takes another legal path: every case must pass it.
    Control,
}

/// Declares the mutations: variant, stable name, kind, the clause whose
/// rule it breaks (or whose freedom it uses), and what it does.
macro_rules! mutations {
    ($($variant:ident, $name:literal, $kind:ident, $clause:literal, $what:literal;)*) => {
        /// Every mutation the reference knows.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Mutation { $($variant),* }

        impl Mutation {
            pub const ALL: &'static [Mutation] = &[$(Mutation::$variant),*];

            /// The stable name (`--backend mutant:NAME`).
            pub fn name(self) -> &'static str {
                match self { $(Mutation::$variant => $name),* }
            }

            pub fn kind(self) -> Kind {
                match self { $(Mutation::$variant => Kind::$kind),* }
            }

            /// The spec-map clause of the rule it breaks or varies.
            pub fn clause(self) -> &'static str {
                match self { $(Mutation::$variant => $clause),* }
            }

            /// What the mutant does differently.
            pub fn description(self) -> &'static str {
                match self { $(Mutation::$variant => $what),* }
            }
        }
    };
}

mutations! {
    NopRayTminOne, "nop_ray_tmin_one", Bug, "ser.hit_object.get_ray_tmin.nop_returns_zero",
        "GetRayTMin on a NOP hit object returns 1 instead of 0";
}

impl Mutation {
    pub fn from_name(name: &str) -> Option<Mutation> {
        Mutation::ALL.iter().copied().find(|m| m.name() == name)
    }
}

thread_local! {
    static ACTIVE: Cell<Option<Mutation>> = const { Cell::new(None) };
}

/// Whether `m` is the mutation in force on this thread.
pub fn active(m: Mutation) -> bool {
    ACTIVE.with(|a| a.get() == Some(m))
}

/// Runs `f` with `m` in force on this thread (none for `None`), and puts
/// back what was in force before, also when `f` panics.
pub fn with<R>(m: Option<Mutation>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Mutation>);
    impl Drop for Restore {
        fn drop(&mut self) {
            ACTIVE.with(|a| a.set(self.0));
        }
    }
    let _restore = Restore(ACTIVE.with(|a| a.replace(m)));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        for m in Mutation::ALL {
            assert_eq!(Mutation::from_name(m.name()), Some(*m));
        }
        let mut names: Vec<&str> = Mutation::ALL.iter().map(|m| m.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Mutation::ALL.len());
    }

    #[test]
    fn a_mutation_is_in_force_only_inside_with() {
        let m = Mutation::NopRayTminOne;
        assert!(!active(m));
        assert!(with(Some(m), || active(m)));
        assert!(!active(m));
        let _ = std::panic::catch_unwind(|| with(Some(m), || panic!("inside")));
        assert!(
            !active(m),
            "a panic inside `with` leaves no mutation behind"
        );
    }
}
