//! Rays: an origin on a grid in front of the scene's region, a direction
//! mostly along +z, with TMin/TMax that include or exclude parts of it, and
//! the ray flags that change traversal without conflicting.

use proptest::prelude::*;

#[derive(Clone, Debug)]
pub struct Ray {
    pub origin: [f32; 3],
    pub direction: [f32; 3],
    pub tmin: f32,
    pub tmax: f32,
    /// `RAY_FLAG_*` names joined with `|` (or `RAY_FLAG_NONE`).
    pub flags: String,
    pub mask: u8,
}

const FLAGS: [&str; 6] = [
    "RAY_FLAG_FORCE_OPAQUE",
    "RAY_FLAG_FORCE_NON_OPAQUE",
    "RAY_FLAG_CULL_BACK_FACING_TRIANGLES",
    "RAY_FLAG_CULL_FRONT_FACING_TRIANGLES",
    "RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH",
    "RAY_FLAG_SKIP_CLOSEST_HIT_SHADER",
];

pub fn ray() -> impl Strategy<Value = Ray> {
    (
        prop::array::uniform2(-12i32..=12),
        -20i32..=-10,
        prop::array::uniform2(-2i32..=2),
        prop::sample::select(vec![0.0f32, 0.5, 4.0]),
        prop::sample::select(vec![100.0f32, 12.0, 1000.0]),
        prop::option::of(0usize..FLAGS.len()),
        any::<u8>(),
    )
        .prop_map(|(xy, z, d, tmin, tmax, flag, mask)| Ray {
            origin: [xy[0] as f32 * 0.25, xy[1] as f32 * 0.25, z as f32],
            direction: [d[0] as f32 * 0.125, d[1] as f32 * 0.125, 1.0],
            tmin,
            tmax,
            flags: flag.map_or("RAY_FLAG_NONE".to_string(), |i| FLAGS[i].to_string()),
            mask: mask | 1,
        })
}

impl Ray {
    /// `RayDesc` construction as HLSL-subset statements into `name`.
    pub fn desc(&self, name: &str) -> String {
        let v = |a: [f32; 3]| format!("float3({:?}, {:?}, {:?})", a[0], a[1], a[2]);
        format!(
            "RayDesc {name}; {name}.Origin = {}; {name}.Direction = {}; {name}.TMin = {:?}; {name}.TMax = {:?};",
            v(self.origin),
            v(self.direction),
            self.tmin,
            self.tmax
        )
    }
}
