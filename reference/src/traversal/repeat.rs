//! Candidates an implementation may report although the ray misses them,
//! and candidates whose processing it may repeat: the two freedoms that
//! make a traversal's candidate list longer than the scene's exact one.
//! Pipeline traces (`exec::trace`) and ray queries (`ray_query`) both ask
//! these functions.
//!
//! # The bound on repetition
//!
//! The chapter lets the processing of a candidate "be executed multiple
//! times for the same intersection candidate"
//! (`vk.confirmation.aabb.may_execute_multiple_times`,
//! `vk.confirmation.triangle.may_execute_multiple_times_unless_no_duplicate`)
//! and sets no bound. Suite's reading where the text is silent: the
//! reference explores a candidate processed once and twice
//! ([`processed_again`] is asked at most [`REPEATS`] times per candidate).
//! That never fails a correct implementation that repeats more often
//! wherever a further repetition changes nothing observable, which holds
//! when the processing is idempotent after its second run: an any-hit
//! shader (which the reference runs twice and, when the runs differ, treats
//! as run any number of times, `exec::trace`), an intersection shader
//! (whose writes are unspecified, and whose repeated reports of one hit are
//! ties at `t = tmax`), and the ray query cases, whose shaders set flags,
//! commit, or count with a saturating count (`min(n, 2)`). A case whose
//! result depends on a count beyond two would be judged too narrowly; the
//! control mutant `candidates_repeated_twice`, which repeats every such
//! candidate twice (three runs), must pass every case, so a case that does
//! fails the suite's own tests.

use super::Candidate;
use crate::choice::Chooser;
use crate::mutation::{self, Mutation};
use crate::scene::Scene;

/// How many times the reference lets an implementation repeat the
/// processing of one candidate (see the module doc).
pub const REPEATS: usize = 1;

/// How many repetitions to allow: [`REPEATS`], or one more under the
/// control mutant that shows the bound suffices.
pub fn repeats() -> usize {
    if mutation::active(Mutation::CandidatesRepeatedTwice) {
        REPEATS + 1
    } else {
        REPEATS
    }
}

/// Whether an implementation processes a candidate once more: "This
/// operation may: be executed multiple times for the same intersection
/// candidate" (`vk.confirmation.aabb.may_execute_multiple_times`,
/// `vk.confirmation.triangle.may_execute_multiple_times_unless_no_duplicate`).
/// The caller asks only where the rule allows it ([`confirmation_may_repeat`]
/// for triangle and generated candidates) and at most [`repeats`] times.
pub fn processed_again(chooser: &mut dyn Chooser, why: &'static str) -> bool {
    mutation::active(Mutation::CandidatesRepeatedTwice)
        || mutation::active(Mutation::NoDuplicateIgnored)
        || chooser.choose(2, why) == 1
}

/// Whether the confirmation of a triangle or generated candidate may be
/// executed more than once: "unless
/// ename:VK_GEOMETRY_NO_DUPLICATE_ANY_HIT_INVOCATION_BIT_KHR was specified
/// for the intersected geometry"
/// (`vk.confirmation.triangle.may_execute_multiple_times_unless_no_duplicate`).
/// The sentence closes the section that also says what a ray query does
/// with a non-opaque triangle candidate, so it governs `Proceed` returning
/// one again as it governs an any-hit shader running again.
pub fn confirmation_may_repeat(scene: &Scene, c: &Candidate) -> bool {
    if mutation::active(Mutation::NoDuplicateIgnored) {
        return true;
    }
    !scene
        .geometry(c.instance, c.geometry)
        .is_some_and(|g| g.no_duplicate_any_hit)
}

/// Whether an implementation enlarges a box the ray misses, so that it
/// becomes a candidate after all: implementations "may: increase their
/// size" (`vk.candidate.aabb.enlargement_may`), which "may: result in false
/// positive intersections being reported to the application"
/// (`vk.candidate.aabb.false_positives_may`). `observable`: whether
/// reporting the box could make a difference; where it cannot, the
/// reference explores only the box as given.
pub fn box_enlarged(observable: bool, chooser: &mut dyn Chooser) -> bool {
    mutation::active(Mutation::BoxesEnlarged)
        || observable
            && chooser.choose(
                2,
                "whether an implementation enlarges a box the ray misses so that it is reported",
            ) == 1
}
