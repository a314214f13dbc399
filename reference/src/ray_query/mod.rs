//! The minimal inline `RayQuery` that `HitObject::FromRayQuery` relies on:
//! trace, proceed through candidates the shader must decide on, commit, and
//! read the committed hit.
//!
//! Opaque triangles are committed by `Proceed` itself; non-opaque triangles
//! and procedural primitives are returned to the shader
//! (`vk.confirmation.triangle.ray_query_proceed_returns_true`,
//! `vk.confirmation.aabb.ray_query_proceed_returns_true`).
//!
//! `Proceed` may also return what the scene alone would not give it,
//! for ray queries as for pipeline traces ([`crate::traversal::repeat`]):
//!
//! - a box the ray misses, as an enlarged box
//!   (`vk.candidate.aabb.enlargement_may`,
//!   `vk.candidate.aabb.false_positives_may`,
//!   `vk.confirmation.aabb.no_guarantee_ray_hits_bounds`,
//!   `dxr.ray_query.control_flow.proceed_may_enumerate_others`): every
//!   such box that survives culling is explored as reported and not
//!   ([`false_positives`]), and so is a box the ray meets only beyond the
//!   `tmax` a commit has lowered ([`box_returned`]). A procedural candidate
//!   has no `t` a shader can read (`CandidateTriangleRayT` is the
//!   triangles' only), so what it sees of a false positive is the box's
//!   instance, geometry and primitive and the ray in its space; a missed
//!   box's interval is the ray's whole `[tmin, tmax]`, so it may come at any
//!   point of the search, and a hit the shader commits for it is the
//!   shader's own `t`, which must still lie within `[RayTMin,
//!   CommittedRayT]` ([`RayQuery::commit_procedural`]);
//! - a candidate the shader has processed, again, later in the search
//!   ([`QueryState::return_again`]): a box always
//!   (`vk.confirmation.aabb.may_execute_multiple_times`), a non-opaque
//!   triangle unless its geometry is `no_duplicate_any_hit`
//!   (`vk.confirmation.triangle.may_execute_multiple_times_unless_no_duplicate`).
//!   The text sets no bound; the reference explores a candidate returned
//!   once and twice, and says why that suffices where the suite uses it in
//!   [`crate::traversal::repeat`]. Opaque triangles are committed by
//!   `Proceed` itself: confirming one again, at `t` equal to the current
//!   `tmax`, changes nothing the shader can see, so it is not explored.
//!
//! A `RayQuery` variable holds a [`Handle`]: assigning it or passing it to a
//! function shares one state machine. Which methods each state supports,
//! and what the others do (undefined), is [`states`]; the values the
//! methods read of the ray, the candidate and the committed hit are
//! [`system_values`].

mod states;
mod system_values;

pub use states::unavailable;

use crate::choice::Chooser;
use crate::hit_object::{Hit, HitObject};
use crate::numeric::Decision;
use crate::outcome::{Fault, FaultCode};
use crate::profile::Profile;
use crate::ray::{Ray, TraceParams};
use crate::scene::Scene;
use crate::traversal::{self, geometry, Candidate, CandidateKind, Committed, Setup};
use crate::value::{Scalar, Value};
use ser_lang::names::{ray_flag, ray_query_flag};
use std::cell::{RefCell, RefMut};
use std::rc::Rc;

/// The attributes of a procedural hit made by `FromRayQuery` without the
/// attributes overload: the proposal does not say what `GetAttributes`
/// returns then, so it is unspecified.
pub const NO_ATTRIBUTES: &str = "<attributes not given to FromRayQuery>";

/// `COMMITTED_*` statuses.
pub const COMMITTED_NOTHING: u32 = 0;
pub const COMMITTED_TRIANGLE_HIT: u32 = 1;
pub const COMMITTED_PROCEDURAL_PRIMITIVE_HIT: u32 = 2;
/// `CANDIDATE_*` types.
pub const CANDIDATE_NON_OPAQUE_TRIANGLE: u32 = 0;
pub const CANDIDATE_PROCEDURAL_PRIMITIVE: u32 = 1;

/// The value of a `RayQuery` variable: a reference to a query's state
/// machine. "If a variable of type `RayQuery` is assigned to another [...],
/// a reference to the original is passed (rather than a clone), so they are
/// both now operating on the same shared state machine"
/// (`dxr.ray_query.type.assignment_shares_state`), and a `RayQuery` passed
/// to a function "is passed by reference"
/// (`dxr.ray_query.type.parameter_by_reference`): cloning a handle shares
/// the query, and only a declaration makes a new one. The texts of the
/// Vulkan profiles say nothing of copying a ray query; the reference shares
/// under every profile, and the cases that show it list the HLSL ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Handle(Rc<RefCell<RayQuery>>);

impl Handle {
    /// A new query, as a declaration `RayQuery<FLAGS, QFLAGS> q;` makes.
    pub fn new(template_flags: u32, query_flags: u32) -> Handle {
        Handle(Rc::new(RefCell::new(RayQuery {
            template_flags,
            query_flags,
            state: None,
        })))
    }

    pub fn get(&self) -> RefMut<'_, RayQuery> {
        self.0.borrow_mut()
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RayQuery {
    /// The `RayQuery<FLAGS, ...>` template ray flags.
    pub template_flags: u32,
    /// The `RayQuery<..., RAYQUERY_FLAGS>` flags (Shader Model 6.9; 0 when
    /// not given, `RAYQUERY_FLAG_NONE`).
    pub query_flags: u32,
    pub state: Option<Box<QueryState>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct QueryCommit {
    pub candidate: Candidate,
    pub t: f64,
    pub t_err: f64,
}

#[derive(Clone, Debug)]
pub struct QueryState {
    /// The ray, with the template flags OR'd into the `TraceRayInline` flags.
    pub ray: Ray,
    pub setup: Setup,
    pub remaining: Vec<Candidate>,
    pub candidate: Option<Candidate>,
    pub committed: Option<QueryCommit>,
    pub tmax: (f64, f64),
    /// Candidates `Proceed` has put back to return again, once per
    /// repetition.
    pub repeated: Vec<Candidate>,
    pub done: bool,
    /// The ray meets a triangle with an opacity micromap in effect, and the
    /// query may not meet one (see [`RayQuery::trace`]).
    pub micromap_not_allowed: bool,
}

impl PartialEq for QueryState {
    fn eq(&self, other: &Self) -> bool {
        self.ray == other.ray
            && self.remaining == other.remaining
            && self.candidate == other.candidate
            && self.committed == other.committed
            && self.repeated == other.repeated
    }
}

/// The boxes the ray misses that `TraceRayInline` reports anyway, as an
/// implementation that enlarged them would
/// ([`traversal::repeat::box_enlarged`]). Unlike a pipeline trace's
/// intersection shader, what the calling shader does with such a candidate
/// cannot be probed ahead, so every box is explored both ways.
fn false_positives(missed: &[Candidate], chooser: &mut dyn Chooser) -> Vec<Candidate> {
    missed
        .iter()
        .filter(|_| traversal::repeat::box_enlarged(true, chooser))
        .cloned()
        .collect()
}

/// Whether `Proceed` returns a box candidate when it comes up: one the ray
/// meets within the current `[tmin, tmax]` it must
/// (`vk.confirmation.aabb.ray_query_proceed_returns_true`,
/// `dxr.ray_query.control_flow.proceed_enumerates_intersected`); any other
/// (met only beyond the `tmax` a commit has lowered, or within
/// implementation precision of it) it may, as the box an implementation
/// bounds may be larger than the one given
/// (`vk.candidate.bounds.aabb_implementation_defined`,
/// [`traversal::repeat::box_enlarged`]): "If a primitive is not intersected
/// by the ray or is outside the current ray extents, it may or may not be
/// enumerated" (`dxr.ray_query.control_flow.proceed_may_enumerate_others`).
fn box_returned(in_range: Decision, chooser: &mut dyn Chooser) -> bool {
    in_range == Decision::True || traversal::repeat::box_enlarged(true, chooser)
}

/// Whether `Proceed` may return a candidate again once the shader has
/// processed it. For a box, returning it to the shader is the processing
/// that "may: be executed multiple times for the same intersection
/// candidate" (`vk.confirmation.aabb.may_execute_multiple_times`), with no
/// exception: a hit the shader commits for it skips generated-candidate
/// confirmation (`vk.confirmation.aabb.ray_query_generated_skips_confirmation`),
/// so the flag that keeps confirmation from repeating does not reach it
/// (unlike a pipeline trace's reports, see `exec::trace`). For a
/// non-opaque triangle, unless its geometry is `no_duplicate_any_hit`
/// ([`traversal::repeat::confirmation_may_repeat`]).
fn may_return_again(scene: &Scene, c: &Candidate) -> bool {
    match c.kind {
        CandidateKind::Aabb { .. } => true,
        CandidateKind::Triangle { .. } => traversal::repeat::confirmation_may_repeat(scene, c),
    }
}

impl QueryState {
    /// Puts a candidate the shader has processed back among those left,
    /// where the implementation returns it again
    /// ([`may_return_again`]): at any later point of the search, tested
    /// again against the current `tmax` as every candidate is, and at most
    /// [`traversal::repeat::repeats`] times.
    fn return_again(&mut self, scene: &Scene, c: Candidate, chooser: &mut dyn Chooser) {
        let times = self.repeated.iter().filter(|r| **r == c).count();
        if times < traversal::repeat::repeats()
            && may_return_again(scene, &c)
            && traversal::repeat::processed_again(
                chooser,
                "whether Proceed returns a candidate again later in the search",
            )
        {
            self.repeated.push(c.clone());
            self.remaining.push(c);
        }
    }
}

impl RayQuery {
    /// `TraceRayInline`: determines and culls every candidate, with the
    /// false positives an implementation may add ([`false_positives`]). Under the
    /// HLSL profiles a query declared without
    /// `RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS` may not meet a triangle with
    /// a micromap (`dxr.ray_query.flags.allow_omm.cleared_undefined`); the
    /// Vulkan texts have no such flag.
    pub fn trace(
        &mut self,
        scene: &Scene,
        flags: u32,
        cull_mask: u32,
        ray: Ray,
        profile: Profile,
        chooser: &mut dyn Chooser,
    ) -> Result<(), Fault> {
        // The chapter says what OpTraceRayKHR does with a motion structure
        // (`vk.candidate.motion.trace_ray_khr_time_zero`), not a ray query.
        if scene.has_motion() {
            return Err(Fault::new(
                FaultCode::Unsupported,
                "a ray query on a motion scene: the texts say what OpTraceRayKHR does with a motion acceleration structure, not a ray query",
            ));
        }
        let flags = flags | self.template_flags;
        let params = TraceParams {
            flags,
            cull_mask,
            ray_contribution: 0,
            multiplier: 0,
            miss_index: 0,
        };
        let ray = Ray { flags, ..ray };
        if profile.is_hlsl() {
            traversal::micromap::check_disable_allowed(
                scene,
                "dxr.omm.inline.disable_needs_build_flag",
            )?;
        }
        // Pipeline flags govern pipeline trace instructions, not ray queries.
        let setup = traversal::candidates(scene, &ray, &params, 0, chooser)?;
        let tmax = (ray.tmax.to_f64(), ray.tmax.err);
        let micromap_not_allowed = setup.met_micromap
            && profile.is_hlsl()
            && self.query_flags & ray_query_flag::ALLOW_OPACITY_MICROMAPS == 0;
        let mut remaining = setup.candidates.clone();
        remaining.extend(false_positives(&setup.missed_boxes, chooser));
        self.state = Some(Box::new(QueryState {
            micromap_not_allowed,
            remaining,
            repeated: Vec::new(),
            setup,
            ray,
            candidate: None,
            committed: None,
            tmax,
            done: false,
        }));
        Ok(())
    }

    /// The state after `TraceRayInline`: a new query supports nothing else
    /// (`dxr.ray_query.intrinsics.unsupported_call_undefined`).
    fn state(&mut self) -> Result<&mut QueryState, Fault> {
        self.state
            .as_deref_mut()
            .ok_or_else(|| unavailable("a method other than TraceRayInline on a new RayQuery"))
    }

    /// `Proceed`: commits opaque triangles itself and stops at the next
    /// candidate the shader must decide on; `false` when none is left, and
    /// from then on (`dxr.ray_query.abort.finished_state`). The candidate
    /// the last call returned may come back later
    /// ([`QueryState::return_again`]).
    pub fn proceed(&mut self, scene: &Scene, chooser: &mut dyn Chooser) -> Result<bool, Fault> {
        let st = self.state()?;
        let processed = st.candidate.take();
        if st.done {
            return Ok(false);
        }
        if st.micromap_not_allowed {
            return Err(Fault::new(
                FaultCode::OpacityMicromapsNotAllowed,
                "a RayQuery without RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS meets a triangle with an opacity micromap",
            )
            .clause("dxr.omm.inline.flag_omitted_undefined"));
        }
        if let Some(c) = processed {
            st.return_again(scene, c, chooser);
        }
        let tmin = (st.ray.tmin.to_f64(), st.ray.tmin.err);
        let order_matters = traversal::order_matters(
            &st.remaining,
            |_| true,
            st.ray.flags & ray_flag::ACCEPT_FIRST_HIT_AND_END_SEARCH != 0,
        );
        while let Some(c) = traversal::next_candidate(&mut st.remaining, order_matters, chooser) {
            match c.kind {
                CandidateKind::Triangle { t, t_err, .. } => {
                    let in_range = geometry::triangle_t_in_range(t, t_err, tmin, st.tmax);
                    if !traversal::decide(
                        in_range,
                        chooser,
                        "a triangle hit within implementation precision of the current tmax",
                    ) {
                        continue;
                    }
                    if !c.opaque {
                        st.candidate = Some(c);
                        return Ok(true);
                    }
                    Self::commit(st, c, t, t_err, chooser);
                    if st.done {
                        return Ok(false);
                    }
                }
                CandidateKind::Aabb { t0, t1, err } => {
                    let in_range = geometry::aabb_interval_in_range(t0, t1, err, tmin, st.tmax);
                    if box_returned(in_range, chooser) {
                        st.candidate = Some(c);
                        return Ok(true);
                    }
                }
            }
        }
        st.done = true;
        Ok(false)
    }

    fn current(&mut self) -> Result<(&mut QueryState, Candidate), Fault> {
        let st = self.state()?;
        let c = st.candidate.clone().ok_or_else(|| {
            unavailable("a candidate method when Proceed has not returned TRUE for a candidate")
        })?;
        Ok((st, c))
    }

    /// `CandidateType`: `CANDIDATE_NON_OPAQUE_TRIANGLE` or `CANDIDATE_PROCEDURAL_PRIMITIVE`.
    pub fn candidate_type(&mut self) -> Result<u32, Fault> {
        let (_, c) = self.current()?;
        Ok(if c.is_triangle() {
            CANDIDATE_NON_OPAQUE_TRIANGLE
        } else {
            CANDIDATE_PROCEDURAL_PRIMITIVE
        })
    }

    pub fn candidate_triangle_t(&mut self) -> Result<Scalar, Fault> {
        match self.current()?.1.kind {
            CandidateKind::Triangle { t, t_err, .. } => Ok(Scalar::float_approx(t, t_err)),
            _ => Err(unavailable(
                "CandidateTriangleRayT on a procedural candidate",
            )),
        }
    }

    pub fn candidate_procedural_non_opaque(&mut self) -> Result<bool, Fault> {
        let (_, c) = self.current()?;
        if c.is_triangle() {
            return Err(unavailable(
                "CandidateProceduralPrimitiveNonOpaque on a triangle candidate",
            ));
        }
        Ok(!c.opaque)
    }

    /// `CommitNonOpaqueTriangleHit`.
    pub fn commit_triangle(&mut self, chooser: &mut dyn Chooser) -> Result<(), Fault> {
        let (st, c) = self.current()?;
        let CandidateKind::Triangle { t, t_err, .. } = c.kind else {
            return Err(unavailable(
                "CommitNonOpaqueTriangleHit on a procedural candidate",
            ));
        };
        Self::commit(st, c, t, t_err, chooser);
        Ok(())
    }

    /// `CommitProceduralPrimitiveHit(t)`: `t` must lie within
    /// `[TMin, current TMax]` (DXR's "RayQuery CommitProceduralPrimitiveHit":
    /// the shader "must only commit hit(s) when it manually determines that
    /// a given hit being reported satisfies TMin <= t <= TMax"), for a false
    /// positive as for a box the ray meets.
    pub fn commit_procedural(
        &mut self,
        t: &Scalar,
        chooser: &mut dyn Chooser,
    ) -> Result<(), Fault> {
        let (st, c) = self.current()?;
        if c.is_triangle() {
            return Err(unavailable(
                "CommitProceduralPrimitiveHit on a triangle candidate",
            ));
        }
        let tv = t.to_f64();
        if tv < st.ray.tmin.to_f64() || tv > st.tmax.0 {
            return Err(Fault::new(
                FaultCode::InvalidValue,
                format!("CommitProceduralPrimitiveHit({tv}) outside [TMin, current TMax]"),
            ));
        }
        Self::commit(st, c, tv, t.err, chooser);
        Ok(())
    }

    fn commit(st: &mut QueryState, c: Candidate, t: f64, t_err: f64, chooser: &mut dyn Chooser) {
        let take = traversal::becomes_closest(t, t_err, st.tmax, chooser);
        if take {
            st.tmax = (t, t_err);
            st.committed = Some(QueryCommit {
                candidate: c,
                t,
                t_err,
            });
            if st.ray.flags & ray_flag::ACCEPT_FIRST_HIT_AND_END_SEARCH != 0 {
                st.done = true;
            }
        }
    }

    /// `Abort`: no further candidates.
    pub fn abort(&mut self) -> Result<(), Fault> {
        let st = self.state()?;
        st.done = true;
        st.candidate = None;
        Ok(())
    }

    /// `CommittedStatus`.
    pub fn committed_status(&mut self) -> Result<u32, Fault> {
        Ok(match &self.state()?.committed {
            None => COMMITTED_NOTHING,
            Some(c) if c.candidate.is_triangle() => COMMITTED_TRIANGLE_HIT,
            Some(_) => COMMITTED_PROCEDURAL_PRIMITIVE_HIT,
        })
    }

    /// `CommittedRayT`: the committed `t`, or `TMax` with nothing committed.
    pub fn committed_t(&mut self) -> Result<Scalar, Fault> {
        let st = self.state()?;
        Ok(match &st.committed {
            Some(c) => Scalar::float_approx(c.t, c.t_err),
            None => st.ray.tmax.clone(),
        })
    }

    pub fn committed_candidate(&mut self) -> Result<Option<Candidate>, Fault> {
        Ok(self
            .state()?
            .committed
            .as_ref()
            .map(|c| c.candidate.clone()))
    }

    /// `HitObject::FromRayQuery`: the committed hit, without a shader table
    /// record (`ser.hit_object.from_ray_query.represents_committed_hit`), or
    /// a NOP when nothing is committed
    /// (`ser.hit_object.from_ray_query.no_committed_hit_returns_nop`).
    /// Custom attributes count only for a procedural hit
    /// (`ser.hit_object.from_ray_query.attributes_ignored_unless_procedural`).
    /// `HitObject::FromRayQuery` (`record` `None`: not bound to a shader
    /// table record) and GLSL's `hitObjectRecordFromQueryEXT` (`record` the
    /// given `sbtRecordIndex`). For a procedural hit, `hit_kind` and
    /// `attributes` are the caller's; for a triangle they are ignored
    /// (`sm69.hit_object.from_ray_query.hit_kind_and_attributes_ignored_unless_procedural`,
    /// `glsl_ext.hit_object_record_from_query.triangle_attributes_from_query`).
    pub fn to_hit_object(
        &mut self,
        scene: &Scene,
        hit_kind: Option<u32>,
        attributes: Option<Value>,
        record: Option<u32>,
    ) -> Result<HitObject, Fault> {
        let st = self.state()?;
        let Some(c) = st.committed.clone() else {
            return Ok(HitObject::Nop);
        };
        let (hit_kind, attributes) = match c.candidate.kind {
            CandidateKind::Triangle {
                barycentrics,
                front,
                ..
            } => (
                Scalar::uint(traversal::triangle_hit_kind(front)),
                traversal::triangle_attributes(barycentrics),
            ),
            CandidateKind::Aabb { .. } => (
                hit_kind.map(Scalar::uint).unwrap_or_else(|| {
                    Scalar::unspecified(
                        ser_lang::ast::ScalarType::Uint,
                        "no hit kind is given for a procedural hit committed in a RayQuery",
                    )
                }),
                attributes.unwrap_or_else(|| Value::Struct {
                    name: NO_ATTRIBUTES.into(),
                    fields: Vec::new(),
                }),
            ),
        };
        let mut hit: Hit = traversal::commit(
            scene,
            &st.setup,
            &st.ray,
            Committed {
                candidate: c.candidate,
                t: Scalar::float_approx(c.t, c.t_err),
                hit_kind,
                attributes,
            },
        );
        hit.index = record;
        hit.from_query = record.is_some();
        Ok(HitObject::Hit(Box::new(hit)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::ChoiceLog;
    use crate::scene::{Aabb, Blas, Geometry, Instance, Primitives, IDENTITY};
    use std::collections::BTreeSet;

    fn scene(primitives: Primitives, no_duplicate_any_hit: bool) -> Scene {
        Scene {
            blas: vec![Blas {
                geometries: vec![Geometry {
                    primitives,
                    opaque: false,
                    no_duplicate_any_hit,
                    opacity_micromap: None,
                }],
                allow_disable_opacity_micromaps: false,
            }],
            instances: vec![Instance {
                blas: 0,
                transform: IDENTITY,
                instance_id: 0,
                mask: 0xFF,
                hit_group_offset: 0,
                flags: vec![],
                transform_t1: None,
            }],
        }
    }

    /// The ray from the origin along +z, `t` in `[0.5, 100]`.
    fn ray() -> Ray {
        let f = Scalar::float;
        Ray {
            origin: [f(0.0), f(0.0), f(0.0)],
            direction: [f(0.0), f(0.0), f(1.0)],
            tmin: f(0.5),
            tmax: f(100.0),
            ..Ray::zero()
        }
    }

    /// How many candidates `Proceed` returns to a shader that commits
    /// none, on every path of choices.
    fn counts(scene: &Scene) -> BTreeSet<usize> {
        let mut log = ChoiceLog::default();
        let mut seen = BTreeSet::new();
        loop {
            log.start_run();
            let mut q = RayQuery::default();
            q.trace(scene, 0, 0xFF, ray(), Profile::VulkanExt, &mut log)
                .unwrap();
            let mut n = 0;
            while q.proceed(scene, &mut log).unwrap() {
                n += 1;
            }
            seen.insert(n);
            if !log.advance() {
                return seen;
            }
        }
    }

    fn triangle() -> Primitives {
        Primitives::Triangles(vec![[
            [-1.0, -1.0, 5.0],
            [3.0, -1.0, 5.0],
            [-1.0, 3.0, 5.0],
        ]])
    }

    fn aabb(x: f32) -> Primitives {
        Primitives::Aabbs(vec![Aabb {
            min: [x - 1.0, -1.0, 4.0],
            max: [x + 1.0, 1.0, 6.0],
        }])
    }

    #[test]
    fn a_box_the_ray_misses_comes_never_once_or_twice() {
        assert_eq!(counts(&scene(aabb(10.0), true)), BTreeSet::from([0, 1, 2]));
    }

    #[test]
    fn a_box_the_ray_meets_comes_once_or_twice_whatever_the_flag() {
        for flag in [false, true] {
            assert_eq!(counts(&scene(aabb(0.0), flag)), BTreeSet::from([1, 2]));
        }
    }

    #[test]
    fn a_non_opaque_triangle_comes_again_unless_no_duplicate_any_hit() {
        assert_eq!(counts(&scene(triangle(), false)), BTreeSet::from([1, 2]));
        assert_eq!(counts(&scene(triangle(), true)), BTreeSet::from([1]));
    }
}
