//! Ray intersection candidate determination (`vk.candidate.*`): where a ray
//! meets a triangle or an AABB, computed in f64 from the f32 inputs.
//!
//! Results within the precision an implementation is allowed of a boundary
//! (an edge, `tmin`, `tmax`) are reported as [`Decision::Either`], and the
//! caller explores both outcomes.

use crate::mutation::{self, Mutation};
use crate::numeric::{less, traversal_error, Decision};
use glam::{DMat3, DVec3};

/// The rotation taking the unnormalized ray direction `d` to the axis
/// `k = (0, 0, -1)`, as the chapter writes it (`vk.candidate.ray_space.transform`,
/// `vk.candidate.ray_space.rotation_axis`, `vk.candidate.ray_space.rotation_angle`,
/// `vk.candidate.ray_space.k_axis`).
pub fn ray_space_rotation(d: DVec3) -> DMat3 {
    let k = DVec3::new(0.0, 0.0, -1.0);
    let cross = d.cross(k);
    let a = if cross.length() != 0.0 {
        cross / cross.length()
    } else {
        DVec3::new(0.0, 1.0, 0.0)
    };
    let c = d.dot(k) / d.length();
    let s = (1.0 - c * c).max(0.0).sqrt();
    let (x, y, z) = (a.x, a.y, a.z);
    // Rows of the chapter's matrix; glam stores columns, so transpose.
    DMat3::from_cols_array(&[
        x * x * (1.0 - c) + c,
        x * y * (1.0 - c) - s * z,
        x * z * (1.0 - c) + s * y,
        x * y * (1.0 - c) + s * z,
        y * y * (1.0 - c) + c,
        y * z * (1.0 - c) - s * x,
        x * z * (1.0 - c) - s * y,
        y * z * (1.0 - c) + s * x,
        z * z * (1.0 - c) + c,
    ])
    .transpose()
}

/// Where a ray meets a triangle's plane inside (or on) its edges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleHit {
    /// Parametric distance `t = -z_r / |d|` (`vk.candidate.condition.on_ray_and_t_defined`).
    pub t: f64,
    /// Error bound of `t`.
    pub t_err: f64,
    /// The `b` and `c` barycentric coordinates (`vk.candidate.barycentrics.available`).
    pub barycentrics: [f64; 2],
    /// The signed area `a` in ray space, whose sign gives the face
    /// (`vk.culling.face.area_sign_in_ray_space`).
    pub area: f64,
    /// For the edge opposite each vertex: whether the ray passes within
    /// implementation precision of it, where an implementation may or may
    /// not find the candidate (see [`super::watertight`]).
    pub near: [bool; 3],
}

/// Tests a ray (object space, origin `o`, unnormalized direction `d`)
/// against a triangle's bounds: the points of its plane within its edges
/// (`vk.candidate.bounds.triangle`). Returns `None` when the ray clearly
/// misses.
pub fn intersect_triangle(
    o: DVec3,
    d: DVec3,
    v: [DVec3; 3],
    input_err: f64,
) -> Option<TriangleHit> {
    let rot = ray_space_rotation(d);
    let r: [DVec3; 3] = v.map(|p| rot * (p - o));
    // Twice the sub-areas opposite each vertex, with the ray at (0, 0).
    let cross2 = |a: DVec3, b: DVec3| a.x * b.y - a.y * b.x;
    let w = [cross2(r[1], r[2]), cross2(r[2], r[0]), cross2(r[0], r[1])];
    let mag = |a: DVec3, b: DVec3| (a.x * b.y).abs() + (a.y * b.x).abs();
    let scale = r.iter().map(|p| p.length()).fold(0.0, f64::max);
    // Each ray-space coordinate is computed from a vertex and the origin,
    // so its error scales with their magnitudes, not with the coordinate: a
    // ray exactly through an edge has coordinates that only round near 0.
    let vertex = v.iter().map(|p| p.length()).fold(0.0, f64::max);
    let coord_err = traversal_error(vertex + o.length());
    let tol =
        |a: DVec3, b: DVec3| traversal_error(mag(a, b)) + 2.0 * (input_err + coord_err) * scale;
    let tols = [tol(r[1], r[2]), tol(r[2], r[0]), tol(r[0], r[1])];
    let sum: f64 = w.iter().sum();
    // The area in the chapter's form, a = -1/2 * sum(x_i y_i+1 - x_i+1 y_i).
    let area = -0.5 * sum;
    if sum == 0.0 {
        // The ray sees the triangle edge-on (or the triangle is degenerate):
        // there is no face, and face culling drops it unconditionally.
        return Some(TriangleHit {
            t: 0.0,
            t_err: 0.0,
            barycentrics: [0.0, 0.0],
            area: 0.0,
            near: [false; 3],
        });
    }
    let sign = sum.signum();
    let mut near = [false; 3];
    for i in 0..3 {
        let s = w[i] * sign;
        if s < -tols[i] {
            return None;
        }
        near[i] = s.abs() <= tols[i];
    }
    let (b, c) = (w[1] / sum, w[2] / sum);
    let a0 = w[0] / sum;
    let z = a0 * r[0].z + b * r[1].z + c * r[2].z;
    let dl = d.length();
    let t = -z / dl;
    let t_err = traversal_error(t.abs() + scale / dl)
        + input_err * (1.0 + t.abs()) / dl.max(f64::MIN_POSITIVE);
    Some(TriangleHit {
        t,
        t_err,
        barycentrics: [b, c],
        area,
        near,
    })
}

/// The parametric interval where a ray is inside a box, by slabs, or `None`
/// when it clearly misses. The bounds include the box itself, so a ray that
/// starts inside meets it (`vk.candidate.bounds.aabb_origin_inside_hits`).
pub fn intersect_aabb(o: DVec3, d: DVec3, min: DVec3, max: DVec3) -> Option<(f64, f64)> {
    let (mut t0, mut t1) = (f64::NEG_INFINITY, f64::INFINITY);
    for axis in 0..3 {
        let (oa, da, lo, hi) = (o[axis], d[axis], min[axis], max[axis]);
        if da == 0.0 {
            if oa < lo || oa > hi {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo - oa) / da, (hi - oa) / da);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    (t0 <= t1).then_some((t0, t1))
}

/// `tmin < t < tmax` for triangles (`vk.candidate.triangle_t_open_interval`).
pub fn triangle_t_in_range(t: f64, t_err: f64, tmin: (f64, f64), tmax: (f64, f64)) -> Decision {
    if mutation::active(Mutation::TriangleTminIgnored) {
        return less(t, t_err, tmax.0, tmax.1);
    }
    both(
        less(tmin.0, tmin.1, t, t_err),
        less(t, t_err, tmax.0, tmax.1),
    )
}

/// `tmin <= t <= tmax` for AABBs and the `t` an intersection shader reports
/// (`vk.candidate.aabb_t_closed_interval`): the box's interval must overlap
/// `[tmin, tmax]`. An implementation may enlarge a box but never shrink it
/// (`vk.candidate.bounds.aabb_implementation_defined`), so an exact overlap
/// is always found; one within precision of the bounds may be.
pub fn aabb_interval_in_range(
    t0: f64,
    t1: f64,
    err: f64,
    tmin: (f64, f64),
    tmax: (f64, f64),
) -> Decision {
    if mutation::active(Mutation::AabbIntervalOpen) {
        return Decision::from_bool(t1 > tmin.0 && t0 < tmax.0);
    }
    if t1 >= tmin.0 && t0 <= tmax.0 {
        return Decision::True;
    }
    let not = |d: Decision| match d {
        Decision::True => Decision::False,
        Decision::False => Decision::True,
        Decision::Either => Decision::Either,
    };
    both(
        not(less(t1, err, tmin.0, tmin.1)),
        not(less(tmax.0, tmax.1, t0, err)),
    )
}

fn both(a: Decision, b: Decision) -> Decision {
    match (a, b) {
        (Decision::False, _) | (_, Decision::False) => Decision::False,
        (Decision::True, Decision::True) => Decision::True,
        _ => Decision::Either,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64, z: f64) -> DVec3 {
        DVec3::new(x, y, z)
    }

    #[test]
    fn ray_space_maps_direction_to_minus_z() {
        for d in [
            v(0.0, 0.0, -1.0),
            v(0.0, 0.0, 1.0),
            v(1.0, 2.0, 3.0),
            v(-3.0, 0.5, 0.0),
        ] {
            let r = ray_space_rotation(d) * d;
            assert!(
                (r - v(0.0, 0.0, -d.length())).length() < 1e-12,
                "{d:?} -> {r:?}"
            );
        }
    }

    #[test]
    fn triangle_hit_distance_barycentrics_and_face() {
        let tri = [v(-1.0, -1.0, -5.0), v(3.0, -1.0, -5.0), v(-1.0, 3.0, -5.0)];
        let h = intersect_triangle(v(0.0, 0.0, 0.0), v(0.0, 0.0, -2.0), tri, 0.0).unwrap();
        assert!((h.t - 2.5).abs() < 1e-12);
        assert!(
            (h.barycentrics[0] - 0.25).abs() < 1e-12 && (h.barycentrics[1] - 0.25).abs() < 1e-12
        );
        assert!(
            h.area < 0.0,
            "counter-clockwise seen from the ray is the front face"
        );
        assert_eq!(h.near, [false; 3]);
        assert!(intersect_triangle(v(5.0, 0.0, 0.0), v(0.0, 0.0, -1.0), tri, 0.0).is_none());
    }

    /// Fuzz finding vulkan_nv_seed100_case132 (H200): an oblique ray exactly
    /// through a lone edge. Its ray-space coordinates round to about 1e-14,
    /// not 0, so a tolerance scaled by them alone judged it a definite hit;
    /// it is near the edge (hit or not, `vk.watertight`).
    #[test]
    fn an_oblique_ray_exactly_through_an_edge_is_near_it() {
        let tri = [v(-1.5, -2.5, -2.5), v(-1.5, -0.5, -2.5), v(3.5, -2.5, -2.5)];
        let (o, d) = (v(0.90625, -0.4375, 14.0), v(0.0, -0.125, -1.0));
        let h = intersect_triangle(o, d, tri, 0.0).expect("on the edge, not clearly missed");
        assert!((h.t - 16.5).abs() < 1e-9);
        assert_eq!(
            h.near,
            [false, true, false],
            "the edge y = -2.5, opposite vertex 1"
        );
    }

    #[test]
    fn aabb_from_inside_and_outside() {
        let (lo, hi) = (v(-1.0, -1.0, -1.0), v(1.0, 1.0, 1.0));
        assert_eq!(
            intersect_aabb(v(0.0, 0.0, 0.0), v(0.0, 0.0, 1.0), lo, hi),
            Some((-1.0, 1.0))
        );
        assert_eq!(
            intersect_aabb(v(0.0, 0.0, -5.0), v(0.0, 0.0, 2.0), lo, hi),
            Some((2.0, 3.0))
        );
        assert_eq!(
            intersect_aabb(v(2.0, 0.0, -5.0), v(0.0, 0.0, 1.0), lo, hi),
            None
        );
    }
}
