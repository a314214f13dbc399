//! Ray traversal (the Vulkan chapter "Ray Traversal", which
//! `HitObject::TraceRay` runs).
//!
//! Traversal is brute force: every primitive of every instance is tested.
//! This module holds the pure parts: candidate determination and culling
//! ([`candidates`]), the order in which candidates are processed
//! ([`next_candidate`]), closest-hit determination ([`closest`]) and the hit
//! a committed candidate makes ([`commit`]). Boxes an implementation may
//! report although the ray misses them, and candidates it may process more
//! than once, are [`repeat`]'s. The parts that run shaders (intersection
//! and any-hit) live in `exec::trace`.

pub mod culling;
pub mod geometry;
pub mod micromap;
pub mod motion;
pub mod repeat;
pub mod watertight;

use crate::choice::Chooser;
use crate::hit_object::{Hit, Matrix34};
use crate::mutation::{self, Mutation};
use crate::numeric::{traversal_error, Decision, TRAVERSAL_REL};
use crate::outcome::{Fault, FaultCode};
use crate::ray::{vec3_f64, Ray, TraceParams};
use crate::sbt::hit_group_record_index;
use crate::scene::{Primitives, Scene};
use crate::value::{Scalar, Value};
use culling::Facing;
use glam::{DMat3, DVec3};
use ser_lang::names::{
    instance_flag, ray_flag, HIT_KIND_TRIANGLE_BACK_FACE, HIT_KIND_TRIANGLE_FRONT_FACE,
};

/// The ray in the space of one instance: the world ray transformed as if
/// from the origin for each instance independently
/// (`vk.candidate.instance.transform_from_origin_per_instance`).
#[derive(Clone, Debug)]
pub struct InstanceSpace {
    pub object_to_world: Matrix34,
    pub world_to_object: Matrix34,
    pub origin: [Scalar; 3],
    pub direction: [Scalar; 3],
}

/// What kind of primitive a candidate is on.
#[derive(Clone, Debug, PartialEq)]
pub enum CandidateKind {
    Triangle {
        t: f64,
        t_err: f64,
        barycentrics: [f64; 2],
        front: bool,
    },
    /// The ray's parametric interval inside the box.
    Aabb { t0: f64, t1: f64, err: f64 },
}

/// An intersection candidate that survived culling.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub instance: usize,
    pub geometry: usize,
    pub primitive: usize,
    pub kind: CandidateKind,
    /// Opacity after the instance and ray overrides.
    pub opaque: bool,
    /// The hit-group record `R_offset + R_stride * G_ID + I_offset`.
    pub record: u32,
}

impl Candidate {
    pub fn is_triangle(&self) -> bool {
        matches!(self.kind, CandidateKind::Triangle { .. })
    }
}

/// The result of candidate determination for one ray.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Per instance, the ray in its space (`None` for masked-out instances).
    pub spaces: Vec<Option<InstanceSpace>>,
    pub candidates: Vec<Candidate>,
    /// Boxes the ray misses, which survive culling: an implementation may
    /// enlarge a box and report it anyway, running its intersection shader
    /// or returning it from `Proceed` (`vk.candidate.aabb.enlargement_may`,
    /// `vk.candidate.aabb.false_positives_may`, [`repeat::box_enlarged`]).
    /// Their interval is the ray's whole `[tmin, tmax]`: the enlarged bound
    /// is implementation-defined (`vk.candidate.bounds.aabb_implementation_defined`),
    /// so the point where the ray meets it may be anywhere on the ray.
    pub missed_boxes: Vec<Candidate>,
    /// Whether the ray meets, within its extents, a triangle whose opacity
    /// micromap is in effect: "an OMM is encountered during ray traversal"
    /// (`dxr.omm.trace_ray.flag_omitted_undefined`,
    /// `dxr.omm.inline.flag_omitted_undefined`). Suite's reading: a
    /// triangle skipped by the ray or pipeline flags, in an instance the
    /// mask excludes, or culled by facing, is not encountered.
    pub met_micromap: bool,
}

/// Determines every intersection candidate of a ray and culls it: primitive
/// type, mask, face and opacity (`vk.culling.phases_before_confirmation`).
/// Candidates are tested against the initial `[tmin, tmax]`; the caller
/// tests them again against the current `tmax` when it processes them.
pub fn candidates(
    scene: &Scene,
    ray: &Ray,
    params: &TraceParams,
    pipeline_flags: u32,
    chooser: &mut dyn Chooser,
) -> Result<Setup, Fault> {
    culling::validate_ray_flags(params.flags)?;
    // Pipeline skip flags act as if in every ray's flags
    // (`vk.culling.primitive.pipeline_skip_triangles`, `vk.culling.primitive.pipeline_skip_aabbs`).
    let mut flags = params.flags | pipeline_flags;
    if mutation::active(Mutation::PipelineSkipIgnored) {
        flags = params.flags;
    }
    let mut spaces = Vec::with_capacity(scene.instances.len());
    let mut out = Vec::new();
    let mut missed = Vec::new();
    let mut met_micromap = false;
    for (ii, inst) in scene.instances.iter().enumerate() {
        if culling::mask_culled(inst.mask, params.cull_mask) {
            spaces.push(None);
            continue;
        }
        let space = instance_space(scene, ii, ray)?;
        let found = Found {
            candidates: &mut out,
            missed_boxes: &mut missed,
            met_micromap: &mut met_micromap,
        };
        instance_candidates(scene, ii, &space, ray, params, flags, chooser, found);
        spaces.push(Some(space));
    }
    Ok(Setup {
        spaces,
        candidates: out,
        missed_boxes: missed,
        met_micromap,
    })
}

/// A triangle the ray meets, before culling.
struct TriangleProbe {
    geometry: usize,
    primitive: usize,
    vertices: [[f32; 3]; 3],
    hit: geometry::TriangleHit,
}

/// Where candidate determination puts what it finds.
struct Found<'a> {
    candidates: &'a mut Vec<Candidate>,
    missed_boxes: &'a mut Vec<Candidate>,
    met_micromap: &'a mut bool,
}

/// The candidates within one instance.
#[allow(clippy::too_many_arguments)]
fn instance_candidates(
    scene: &Scene,
    ii: usize,
    space: &InstanceSpace,
    ray: &Ray,
    params: &TraceParams,
    flags: u32,
    chooser: &mut dyn Chooser,
    found: Found,
) {
    let out = found.candidates;
    let inst = &scene.instances[ii];
    let (o, d) = (vec3_f64(&space.origin), vec3_f64(&space.direction));
    let input_err = ray.input_error();
    let tmin = (ray.tmin.to_f64(), ray.tmin.err);
    let tmax = (ray.tmax.to_f64(), ray.tmax.err);
    let iflags = inst.flag_bits();
    let blas = &scene.blas[inst.blas];
    let record = |gi: usize| {
        hit_group_record_index(
            params.ray_contribution,
            params.multiplier,
            gi as u32,
            inst.hit_group_offset,
        )
    };
    let mut triangles = Vec::new();
    for (gi, geom) in blas.geometries.iter().enumerate() {
        let is_triangle = matches!(geom.primitives, Primitives::Triangles(_));
        if culling::primitive_culled(flags, is_triangle) {
            continue;
        }
        match &geom.primitives {
            Primitives::Triangles(tris) => {
                for (pi, tri) in tris.iter().enumerate() {
                    let verts = tri.map(|p| DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64));
                    if let Some(hit) = geometry::intersect_triangle(o, d, verts, input_err) {
                        triangles.push(TriangleProbe {
                            geometry: gi,
                            primitive: pi,
                            vertices: *tri,
                            hit,
                        });
                    }
                }
            }
            Primitives::Aabbs(boxes) => {
                // AABB opacity is the geometry's, with the instance and ray
                // overrides; opacity culling applies to the box.
                let opaque = culling::is_opaque(geom.opaque, iflags, flags);
                if culling::opacity_culled(opaque, flags) {
                    continue;
                }
                for (pi, b) in boxes.iter().enumerate() {
                    let lo = DVec3::from_array(b.min.map(f64::from));
                    let hi = DVec3::from_array(b.max.map(f64::from));
                    let met = geometry::intersect_aabb(o, d, lo, hi).and_then(|(t0, t1)| {
                        let err =
                            traversal_error(t0.abs().min(1e30) + t1.abs().min(1e30)) + input_err;
                        // A box near the interval joins the missed ones: an
                        // enlarged box may still be found (see `missed_boxes`).
                        let in_range = geometry::aabb_interval_in_range(t0, t1, err, tmin, tmax);
                        (in_range == Decision::True).then_some((t0, t1, err))
                    });
                    let (kind, list) = match met {
                        Some((t0, t1, err)) => (CandidateKind::Aabb { t0, t1, err }, &mut *out),
                        None => (
                            CandidateKind::Aabb {
                                t0: tmin.0,
                                t1: tmax.0,
                                err: 0.0,
                            },
                            &mut *found.missed_boxes,
                        ),
                    };
                    list.push(Candidate {
                        instance: ii,
                        geometry: gi,
                        primitive: pi,
                        kind,
                        opaque,
                        record: record(gi),
                    });
                }
            }
        }
    }
    // Triangles near an edge: exactly one of those sharing it is hit.
    let near: Vec<usize> = (0..triangles.len())
        .filter(|&i| triangles[i].hit.near.iter().any(|n| *n))
        .collect();
    let probes: Vec<watertight::NearEdge> = near
        .iter()
        .map(|&i| watertight::NearEdge {
            vertices: triangles[i].vertices.map(|p| p.map(f32::to_bits)),
            near: triangles[i].hit.near,
        })
        .collect();
    let kept = watertight::resolve(&probes, chooser);
    for (k, tri) in triangles.iter().enumerate() {
        if let Some(pos) = near.iter().position(|&i| i == k) {
            if !kept[pos] {
                continue;
            }
        }
        let geom = &blas.geometries[tri.geometry];
        let h = &tri.hit;
        let facing = culling::facing(h.area, iflags & instance_flag::TRIANGLE_FLIP_FACING != 0);
        if culling::face_culled(facing, flags, iflags) {
            continue;
        }
        if micromap::in_effect(geom, iflags)
            && geometry::triangle_t_in_range(h.t, h.t_err, tmin, tmax) != Decision::False
        {
            *found.met_micromap = true;
        }
        let Some(opaque) =
            triangle_opacity(geom, tri.primitive, h.barycentrics, iflags, flags, chooser)
        else {
            continue;
        };
        if culling::opacity_culled(opaque, flags) {
            continue;
        }
        let in_range = geometry::triangle_t_in_range(h.t, h.t_err, tmin, tmax);
        if !decide(
            in_range,
            chooser,
            "a triangle hit within implementation precision of tmin or tmax",
        ) {
            continue;
        }
        out.push(Candidate {
            instance: ii,
            geometry: tri.geometry,
            primitive: tri.primitive,
            kind: CandidateKind::Triangle {
                t: h.t,
                t_err: h.t_err,
                barycentrics: h.barycentrics,
                front: facing == Facing::Front,
            },
            opaque,
            record: record(tri.geometry),
        });
    }
}

/// The opacity of a triangle candidate: from its micromap when it has one
/// (`vk.culling.opacity.micromap_replaces_initial`), else from the geometry
/// flag, then overridden by the instance and the ray. `None` when the
/// micromap makes it ignored. Whether a force flag revives an ignored
/// micro-triangle the chapter does not say: both are explored.
fn triangle_opacity(
    geom: &crate::scene::Geometry,
    primitive: usize,
    barycentrics: [f64; 2],
    iflags: u32,
    flags: u32,
    chooser: &mut dyn Chooser,
) -> Option<bool> {
    let initial = match micromap::lookup(geom, primitive, barycentrics, iflags, flags, chooser) {
        None => geom.opaque,
        Some(micromap::MicroOpacity::Opaque) => true,
        Some(micromap::MicroOpacity::NonOpaque) => false,
        Some(micromap::MicroOpacity::Ignored) => {
            let forced = iflags & (instance_flag::FORCE_OPAQUE | instance_flag::FORCE_NON_OPAQUE)
                != 0
                || flags & (ray_flag::FORCE_OPAQUE | ray_flag::FORCE_NON_OPAQUE) != 0;
            // `vk.opacity_micromap.ignored_dropped`
            if !forced || chooser.choose(2, "whether an opacity force flag overrides a micromap's 'ignored' (the chapter does not say)") == 0 {
                return None;
            }
            geom.opaque
        }
    };
    Some(culling::is_opaque(initial, iflags, flags))
}

/// Resolves a three-way decision, asking the chooser when either outcome
/// is legal.
pub fn decide(d: Decision, chooser: &mut dyn Chooser, why: &'static str) -> bool {
    match d {
        Decision::True => true,
        Decision::False => false,
        Decision::Either => chooser.choose(2, why) == 0,
    }
}

/// A matrix is monomial when each row has one non-zero entry (an axis
/// permutation with scaling): products with it need no rounding.
fn monomial(m: &DMat3) -> bool {
    (0..3).all(|r| (0..3).filter(|&c| m.col(c)[r] != 0.0).count() == 1)
}

/// The ray transformed into an instance's space
/// (`vk.candidate.instance.ray_transformed_into_instance_space`). The
/// transform must be invertible (`vk.candidate.instance.transform_must_be_invertible`).
/// A motion instance is placed at the ray's time (`motion::transform_at`).
pub fn instance_space(scene: &Scene, index: usize, ray: &Ray) -> Result<InstanceSpace, Fault> {
    let transform = motion::transform_at(&scene.instances[index], index, ray)?;
    let (w2o_l, w2o_t) = crate::scene::inverse(&transform).ok_or_else(|| {
        Fault::new(
            FaultCode::InvalidValue,
            format!("instance {index}: the transform is not invertible"),
        )
        .clause("vk.candidate.instance.transform_must_be_invertible")
    })?;
    let exact_inverse = monomial(&w2o_l) && {
        let all: Vec<f64> = w2o_l
            .to_cols_array()
            .into_iter()
            .chain(w2o_t.to_array())
            .collect();
        all.iter().all(|v| (*v as f32) as f64 == *v)
    };
    let object_to_world = transform.map(|row| row.map(Scalar::float));
    let m_err = if exact_inverse {
        0.0
    } else {
        traversal_error(1.0)
    };
    let world_to_object: Matrix34 = std::array::from_fn(|r| {
        std::array::from_fn(|c| {
            let v = if c < 3 { w2o_l.col(c)[r] } else { w2o_t[r] };
            Scalar::float_approx(v, m_err * v.abs().max(1.0))
        })
    });
    let transform = |v: &[Scalar; 3], point: bool| -> [Scalar; 3] {
        let x = vec3_f64(v);
        let exact = exact_inverse && v.iter().all(Scalar::is_exact);
        std::array::from_fn(|r| {
            let terms = [
                w2o_l.col(0)[r] * x.x,
                w2o_l.col(1)[r] * x.y,
                w2o_l.col(2)[r] * x.z,
                if point { w2o_t[r] } else { 0.0 },
            ];
            let value: f64 = terms.iter().sum();
            let magnitude: f64 = terms.iter().map(|t| t.abs()).sum();
            let needs_rounding = (value as f32) as f64 != value;
            let input_err: f64 = v.iter().map(|s| s.err).sum::<f64>()
                * (0..3).map(|c| w2o_l.col(c)[r].abs()).sum::<f64>();
            let err = if exact && !needs_rounding {
                0.0
            } else {
                TRAVERSAL_REL * magnitude + input_err
            };
            Scalar::float_approx(value, err).taint_from(&v.iter().collect::<Vec<_>>())
        })
    };
    let (origin, direction) = if mutation::active(Mutation::InstanceRayNotTransformed) {
        (ray.origin.clone(), ray.direction.clone())
    } else {
        (
            transform(&ray.origin, true),
            transform(&ray.direction, false),
        )
    };
    Ok(InstanceSpace {
        object_to_world,
        world_to_object,
        origin,
        direction,
    })
}

/// Whether the order candidates are processed in can change the result:
/// when a shader runs for one of them (an intersection shader, or an any-hit
/// shader for a non-opaque candidate), or when the search ends at the first
/// confirmed hit. Otherwise the closest hit is the same in every order.
pub fn order_matters(
    candidates: &[Candidate],
    any_hit: impl Fn(&Candidate) -> bool,
    terminate_on_first_hit: bool,
) -> bool {
    candidates.len() > 1
        && (terminate_on_first_hit
            || candidates
                .iter()
                .any(|c| !c.is_triangle() || (!c.opaque && any_hit(c))))
}

/// Takes the next candidate to process. There is no ordering guarantee
/// between candidates (`vk.candidate.no_ordering_between_candidates`): when
/// the order matters, every order is explored; otherwise the nearest goes
/// first, and among equally near ones each may (`vk.closest_hit.t_equal_tmax_either`).
pub fn next_candidate(
    remaining: &mut Vec<Candidate>,
    order_matters: bool,
    chooser: &mut dyn Chooser,
) -> Option<Candidate> {
    if remaining.is_empty() {
        return None;
    }
    if mutation::active(Mutation::CandidatesReversed) {
        return remaining.pop();
    }
    if order_matters {
        let i = if remaining.len() > 1 {
            chooser.choose(
                remaining.len(),
                "the order in which intersection candidates are processed",
            )
        } else {
            0
        };
        return Some(remaining.remove(i));
    }
    let key = |c: &Candidate| match c.kind {
        CandidateKind::Triangle { t, .. } => t,
        CandidateKind::Aabb { t0, .. } => t0,
    };
    let best = remaining.iter().map(key).fold(f64::INFINITY, f64::min);
    let tied: Vec<usize> = (0..remaining.len())
        .filter(|&i| key(&remaining[i]) == best)
        .collect();
    let i = if tied.len() > 1 {
        tied[chooser.choose(
            tied.len(),
            "which of several candidates at the same t is the closest hit",
        )]
    } else {
        tied[0]
    };
    Some(remaining.remove(i))
}

/// Closest-hit determination (`vk.closest_hit.compare_t_with_tmax`): whether
/// a confirmed candidate at `t` becomes the closest hit. `t < tmax` does
/// (`vk.closest_hit.t_less_than_tmax_commits`), `t > tmax` is dropped
/// (`vk.closest_hit.t_greater_than_tmax_dropped`), and at `t = tmax` (or
/// within implementation precision of it) either is legal
/// (`vk.closest_hit.t_equal_tmax_either`).
pub fn becomes_closest(t: f64, t_err: f64, tmax: (f64, f64), chooser: &mut dyn Chooser) -> bool {
    let either = match crate::numeric::less(t, t_err, tmax.0, tmax.1) {
        Decision::True => return true,
        Decision::Either => true,
        Decision::False => crate::numeric::equal(t, t_err, tmax.0, tmax.1) != Decision::False,
    };
    if either && mutation::active(Mutation::TmaxTieDropped) {
        return false;
    }
    either && chooser.choose(2, "a confirmed hit at exactly the current tmax") == 0
}

/// The hit kind of a triangle hit (`vk.culling.face.hit_kind`).
pub fn triangle_hit_kind(front: bool) -> u32 {
    if front {
        HIT_KIND_TRIANGLE_FRONT_FACE
    } else {
        HIT_KIND_TRIANGLE_BACK_FACE
    }
}

/// The built-in triangle attributes: the barycentrics `b` and `c`
/// (`vk.candidate.barycentrics.hit_attribute_storage`).
pub fn triangle_attributes(barycentrics: [f64; 2]) -> Value {
    Value::Struct {
        name: "BuiltInTriangleIntersectionAttributes".into(),
        fields: vec![barycentrics_value(barycentrics)],
    }
}

/// A triangle hit's barycentrics `(b, c)` as a `float2`, within the
/// traversal's precision.
pub fn barycentrics_value(barycentrics: [f64; 2]) -> Value {
    let err = traversal_error(4.0);
    Value::Vector(
        barycentrics
            .iter()
            .map(|b| Scalar::float_approx(*b, err))
            .collect(),
    )
}

/// The hit a committed candidate makes.
pub struct Committed {
    pub candidate: Candidate,
    pub t: Scalar,
    pub hit_kind: Scalar,
    pub attributes: Value,
}

/// Builds the hit object's view of a committed hit.
pub fn commit(scene: &Scene, setup: &Setup, ray: &Ray, c: Committed) -> Hit {
    let inst = &scene.instances[c.candidate.instance];
    let space = setup.spaces[c.candidate.instance]
        .as_ref()
        .expect("a candidate's instance has a space");
    Hit {
        ray: ray.clone(),
        t: c.t,
        instance_index: c.candidate.instance as u32,
        instance_id: inst.instance_id,
        geometry_index: c.candidate.geometry as u32,
        primitive_index: c.candidate.primitive as u32,
        hit_kind: c.hit_kind,
        object_to_world: space.object_to_world.clone(),
        world_to_object: space.world_to_object.clone(),
        object_origin: space.origin.clone(),
        object_direction: space.direction.clone(),
        attributes: c.attributes,
        index: Some(c.candidate.record),
        from_query: false,
    }
}
