//! Probe programs over a generated scene and ray, for the properties of
//! the reference (fixed shapes, unlike `program`). The shaders
//! around them are fixed: a closest-hit shader that writes which instance,
//! geometry and primitive it saw into the payload, a miss shader that
//! writes 7, an intersection shader that reports one hit at `TMin + 1`.

use crate::ray::Ray;

/// How the raygeneration shader traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trace {
    /// `TraceRay(...)`.
    TraceRay,
    /// `HitObject::TraceRay(...)` then `HitObject::Invoke` (the spec's
    /// equivalent of `TraceRay`).
    HitObjectThenInvoke,
    /// `HitObject::TraceRay(...)`, then the hit object's transforms and
    /// rays into `OutF` (no shading).
    Accessors,
}

/// The words of `OutF` that `Trace::Accessors` writes, in order.
pub const ACCESSOR_WORDS: [(&str, usize); 6] = [
    ("GetObjectToWorld3x4", 12),
    ("GetObjectToWorld4x3", 12),
    ("GetWorldToObject3x4", 12),
    ("GetWorldToObject4x3", 12),
    ("GetObjectRayOrigin", 3),
    ("GetObjectRayDirection", 3),
];

const SHADERS: &[&str] = &[
    "struct Payload { uint v; };",
    "RaytracingAccelerationStructure Scene : register(t0);",
    "RWStructuredBuffer<uint> Out : register(u0);",
    "RWStructuredBuffer<float> OutF : register(u1);",
    "[shader(\"closesthit\")]",
    "void CH(inout Payload p, BuiltInTriangleIntersectionAttributes a) { p.v = 1000 + InstanceIndex() * 100 + GeometryIndex() * 10 + PrimitiveIndex(); }",
    "[shader(\"miss\")]",
    "void Miss(inout Payload p) { p.v = 7; }",
    "[shader(\"intersection\")]",
    "void IS() { BuiltInTriangleIntersectionAttributes a = (BuiltInTriangleIntersectionAttributes)0; ReportHit(RayTMin() + 1.0, 3, a); }",
];

/// The library, as lines.
pub fn library(ray: &Ray, trace: Trace) -> Vec<String> {
    let args = format!(
        "Scene, {}, {}, 0, 1, 0, r, p",
        crate::ray::flags_expr(ray.flags),
        ray.mask
    );
    let body = match trace {
        Trace::TraceRay => format!("TraceRay({args}); Out[0] = p.v;"),
        Trace::HitObjectThenInvoke => {
            format!(
                "HitObject h = HitObject::TraceRay({args}); HitObject::Invoke(h, p); Out[0] = p.v;"
            )
        }
        Trace::Accessors => {
            let mut s = format!("HitObject h = HitObject::TraceRay({args}); uint k = 0;");
            for (name, n) in ACCESSOR_WORDS {
                match n {
                    12 => {
                        let (rows, cols) = if name.ends_with("3x4") { (3, 4) } else { (4, 3) };
                        s += &format!(" {{ float{rows}x{cols} m = h.{name}();");
                        for r in 0..rows {
                            for c in 0..cols {
                                s += &format!(" OutF[k] = m[{r}][{c}]; k++;");
                            }
                        }
                        s += " }";
                    }
                    _ => s += &format!(" {{ float3 v = h.{name}(); OutF[k] = v.x; OutF[k + 1] = v.y; OutF[k + 2] = v.z; k += 3; }}"),
                }
            }
            s
        }
    };
    let mut lines: Vec<String> = SHADERS.iter().map(|s| s.to_string()).collect();
    lines.push("[shader(\"raygeneration\")]".into());
    lines.push(format!(
        "void RayGen() {{ {} Payload p; p.v = 0; {body} }}",
        ray.desc("r")
    ));
    lines
}
