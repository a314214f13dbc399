//! Rays: the `RayDesc` a shader passes, and the parameters of a trace.

use crate::outcome::{Fault, FaultCode};
use crate::value::{Scalar, Value};
use glam::DVec3;

/// A ray as the hit object records it: the flags and the `RayDesc` fields,
/// passed through unchanged, and the time of a motion trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Ray {
    pub flags: u32,
    pub origin: [Scalar; 3],
    pub tmin: Scalar,
    pub direction: [Scalar; 3],
    pub tmax: Scalar,
    pub time: RayTime,
}

/// The `currentTime` operand of the motion functions of the GLSL texts
/// (`hitObjectTraceRayMotionNV`, `hitObjectRecordHitMotionNV`, ...), or
/// none. How it acts on a motion scene: `crate::traversal::motion`.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum RayTime {
    /// No time operand (`OpTraceRayKHR`, `hitObjectTraceRayNV`, a ray query,
    /// a recorded hit or miss).
    #[default]
    None,
    /// The time of a motion trace, which the hit object encodes
    /// (`glsl_nv.hit_object_get_current_time.returns_time`).
    Traced(Scalar),
    /// The time of a hit or miss recorded without tracing
    /// (`glsl_nv.hit_object_record_hit_motion.current_time`): the hit's
    /// instance is placed at it, but `hitObjectGetCurrentTime*` is "Only
    /// applicable if hit object was constructed for hitObjectTraceRayMotionNV"
    /// (`glsl_nv.hit_object_get_current_time.motion_trace_only`).
    Recorded(Scalar),
}

impl Ray {
    /// The ray with no flags and every field zero (mutants make NOP hit
    /// objects into misses of it, see [`crate::mutation`]).
    pub fn zero() -> Ray {
        let zero = || Scalar::float(0.0);
        Ray {
            flags: 0,
            origin: [zero(), zero(), zero()],
            tmin: zero(),
            direction: [zero(), zero(), zero()],
            tmax: zero(),
            time: RayTime::None,
        }
    }

    /// Reads a `RayDesc` value (fields `Origin`, `TMin`, `Direction`,
    /// `TMax`, in that order).
    pub fn from_desc(flags: u32, desc: &Value) -> Result<Ray, Fault> {
        let Value::Struct { name, fields } = desc else {
            return Err(Fault::new(FaultCode::Unsupported, "expected a RayDesc"));
        };
        let vec3 = |v: &Value| -> Option<[Scalar; 3]> {
            match v {
                Value::Vector(c) if c.len() == 3 => {
                    Some([c[0].clone(), c[1].clone(), c[2].clone()])
                }
                _ => None,
            }
        };
        let bad = || {
            Fault::new(
                FaultCode::Unsupported,
                format!("expected a RayDesc, found `{name}`"),
            )
        };
        if &**name != "RayDesc" || fields.len() != 4 {
            return Err(bad());
        }
        Ok(Ray {
            flags,
            origin: vec3(&fields[0]).ok_or_else(bad)?,
            tmin: fields[1].as_scalar().cloned().ok_or_else(bad)?,
            direction: vec3(&fields[2]).ok_or_else(bad)?,
            tmax: fields[3].as_scalar().cloned().ok_or_else(bad)?,
            time: RayTime::None,
        })
    }

    /// The largest error bound among the ray's floats: the geometry the
    /// reference tests is known only this precisely.
    pub fn input_error(&self) -> f64 {
        self.origin
            .iter()
            .chain(self.direction.iter())
            .chain([&self.tmin, &self.tmax])
            .map(|s| s.err)
            .fold(0.0, f64::max)
    }

    /// The first reason any float of the ray is unspecified.
    pub fn unspecified(&self) -> Option<&str> {
        self.origin
            .iter()
            .chain(self.direction.iter())
            .chain([&self.tmin, &self.tmax])
            .find_map(|s| s.unspecified.as_deref())
    }
}

pub fn vec3_f64(v: &[Scalar; 3]) -> DVec3 {
    DVec3::new(v[0].to_f64(), v[1].to_f64(), v[2].to_f64())
}

/// The integer parameters of `TraceRay` and `HitObject::TraceRay`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceParams {
    pub flags: u32,
    /// Only the low 8 bits are compared with instance masks
    /// (`ser.dxil.hitobject_traceray.warn_instance_mask_8_bits`).
    pub cull_mask: u32,
    pub ray_contribution: u32,
    pub multiplier: u32,
    pub miss_index: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_error_is_the_largest_bound_of_any_field() {
        let mut ray = Ray::zero();
        assert_eq!(ray.input_error(), 0.0);
        ray.direction[1].err = 0.25;
        ray.tmax.err = 0.125;
        assert_eq!(ray.input_error(), 0.25);
    }
}
