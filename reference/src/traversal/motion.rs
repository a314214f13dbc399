//! Motion: "For a motion primitive or a motion instance, the positions for
//! intersection are evaluated at the time specified in the code:time
//! parameter to code:OpTraceRayMotionNV by interpolating between the two
//! endpoints as specified for the given motion type"
//! (`vk.candidate.motion.positions_at_time`).
//!
//! The scene model has one motion type, the matrix motion instance
//! (`Instance::transform_t1`). How it interpolates is
//! VK_NV_ray_tracing_motion_blur's, which is not among the texts: the suite
//! reads it as the linear interpolation of the two 3x4 matrices, element by
//! element (the clause's note says so). The texts give no precision for the
//! interpolation and say nothing of times outside [0, 1], so the reference
//! runs a motion instance only at times in [0, 1] where every interpolated
//! element is exact in binary32 (as `(1 - t) * a + t * b` and as
//! `a + t * (b - a)`), and declines the rest.

use crate::mutation::{self, Mutation};
use crate::outcome::{Fault, FaultCode};
use crate::ray::{Ray, RayTime};
use crate::scene::{Instance, Transform};

/// The time at which a ray meets a motion scene: its `currentTime`, or 0.0
/// for a ray traced without one: "If a motion acceleration structure is
/// traced with code:OpTraceRayKHR, it behaves as a code:OpTraceRayMotionNV
/// with code:time of 0.0" (`vk.candidate.motion.trace_ray_khr_time_zero`).
/// `hitObjectTraceRayNV` takes its parameters from `traceRayEXT`
/// (OpTraceRayKHR), so the suite reads it the same way.
pub fn time_of(ray: &Ray) -> Result<f32, Fault> {
    let t = match &ray.time {
        RayTime::None if mutation::active(Mutation::UntimedTraceAtEnd) => return Ok(1.0),
        RayTime::None => return Ok(0.0),
        _ if mutation::active(Mutation::MotionTimeIgnored) => return Ok(0.0),
        RayTime::Traced(t) | RayTime::Recorded(t) => t,
    };
    if let Some(why) = &t.unspecified {
        return Err(declined(format!(
            "the time of a motion trace is unspecified ({why})"
        )));
    }
    let v = t.f32();
    if t.err != 0.0 || !(0.0..=1.0).contains(&v) {
        return Err(declined(format!(
            "time {v} (error bound {}): the texts say nothing of a time outside [0, 1], and the reference runs motion only at exact times",
            t.err
        )));
    }
    Ok(v)
}

/// The object-to-world transform of instance `index` for `ray`: its
/// transform, or for a motion instance the two endpoints interpolated at
/// the ray's time (`vk.candidate.motion.positions_at_time`).
pub fn transform_at(inst: &Instance, index: usize, ray: &Ray) -> Result<Transform, Fault> {
    let Some(t1) = &inst.transform_t1 else {
        return Ok(inst.transform);
    };
    let time = time_of(ray)?;
    let mut out = inst.transform;
    for (r, row) in out.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = lerp_exact(*v, t1[r][c], time).ok_or_else(|| {
                declined(format!(
                    "instance {index}: element [{r}][{c}] of the transform at time {time} is not exact in binary32 (the texts give no precision for motion interpolation)"
                ))
            })?;
        }
    }
    Ok(out)
}

/// `a` and `b` interpolated at `t`, when both usual formulas give it
/// exactly in binary32.
fn lerp_exact(a: f32, b: f32, t: f32) -> Option<f32> {
    let (a, b, t) = (a as f64, b as f64, t as f64);
    let steps = [
        1.0 - t,
        (1.0 - t) * a,
        t * b,
        (1.0 - t) * a + t * b,
        b - a,
        t * (b - a),
        a + t * (b - a),
    ];
    let exact = steps.iter().all(|v| (*v as f32) as f64 == *v);
    (exact && steps[3] == steps[6]).then_some(steps[3] as f32)
}

fn declined(message: String) -> Fault {
    Fault::new(FaultCode::Unsupported, message).clause("vk.candidate.motion.positions_at_time")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Scalar;

    fn moving(dx: f32) -> Instance {
        let mut t1 = crate::scene::IDENTITY;
        t1[0][3] = dx;
        Instance {
            blas: 0,
            transform: crate::scene::IDENTITY,
            instance_id: 0,
            mask: 0xFF,
            hit_group_offset: 0,
            flags: vec![],
            transform_t1: Some(t1),
        }
    }

    fn at(time: f32) -> Ray {
        Ray {
            time: RayTime::Traced(Scalar::float(time)),
            ..Ray::zero()
        }
    }

    #[test]
    fn interpolates_between_the_endpoints() {
        let inst = moving(4.0);
        for (time, x) in [(0.0, 0.0), (0.25, 1.0), (0.5, 2.0), (1.0, 4.0)] {
            let m = transform_at(&inst, 0, &at(time)).unwrap();
            assert_eq!(m[0][3], x, "time {time}");
            assert_eq!(m[0][0], 1.0);
        }
    }

    #[test]
    fn a_trace_without_time_is_at_zero() {
        let m = transform_at(&moving(4.0), 0, &Ray::zero()).unwrap();
        assert_eq!(m[0][3], 0.0);
    }

    #[test]
    fn inexact_or_out_of_range_times_are_declined() {
        let inst = moving(1.0);
        assert!(transform_at(&inst, 0, &at(0.1)).is_err());
        assert!(transform_at(&inst, 0, &at(1.5)).is_err());
        assert!(transform_at(&inst, 0, &at(-0.25)).is_err());
    }
}
