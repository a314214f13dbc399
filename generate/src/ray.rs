//! Rays: an origin on a grid in front of the scene's region, a direction
//! mostly along +z, TMin/TMax that include or exclude parts of it, and ray
//! flags: any combination the traversal chapter allows (at most one of each
//! mutually exclusive group, `vk.culling.opacity.flags_exclusive`,
//! `vk.culling.face.cull_flags_exclusive`,
//! `vk.culling.primitive.skip_triangles_skip_aabbs_exclusive`,
//! `vk.culling.primitive.skip_triangles_cull_facing_exclusive`).

use proptest::prelude::*;
use ser_lang::names::ray_flag::*;

#[derive(Clone, Debug, PartialEq)]
pub struct Ray {
    pub origin: [f32; 3],
    pub direction: [f32; 3],
    pub tmin: f32,
    pub tmax: f32,
    pub flags: u32,
    pub mask: u8,
}

/// Ray flags with their HLSL names, in bit order.
pub const FLAG_NAMES: [(u32, &str); 11] = [
    (FORCE_OPAQUE, "RAY_FLAG_FORCE_OPAQUE"),
    (FORCE_NON_OPAQUE, "RAY_FLAG_FORCE_NON_OPAQUE"),
    (
        ACCEPT_FIRST_HIT_AND_END_SEARCH,
        "RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH",
    ),
    (SKIP_CLOSEST_HIT_SHADER, "RAY_FLAG_SKIP_CLOSEST_HIT_SHADER"),
    (
        CULL_BACK_FACING_TRIANGLES,
        "RAY_FLAG_CULL_BACK_FACING_TRIANGLES",
    ),
    (
        CULL_FRONT_FACING_TRIANGLES,
        "RAY_FLAG_CULL_FRONT_FACING_TRIANGLES",
    ),
    (CULL_OPAQUE, "RAY_FLAG_CULL_OPAQUE"),
    (CULL_NON_OPAQUE, "RAY_FLAG_CULL_NON_OPAQUE"),
    (SKIP_TRIANGLES, "RAY_FLAG_SKIP_TRIANGLES"),
    (
        SKIP_PROCEDURAL_PRIMITIVES,
        "RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES",
    ),
    (
        FORCE_OPACITY_MICROMAP_2_STATE,
        "RAY_FLAG_FORCE_OPACITY_MICROMAP_2_STATE",
    ),
];

/// Flags as an HLSL expression: names joined with `|`.
pub fn flags_expr(flags: u32) -> String {
    let names: Vec<&str> = FLAG_NAMES
        .iter()
        .filter(|(bit, _)| flags & bit != 0)
        .map(|(_, n)| *n)
        .collect();
    if names.is_empty() {
        "RAY_FLAG_NONE".into()
    } else {
        names.join(" | ")
    }
}

/// One of a group of mutually exclusive flags, or none.
fn one_of(group: &'static [u32]) -> impl Strategy<Value = u32> {
    prop::option::weighted(0.3, prop::sample::select(group)).prop_map(|f| f.unwrap_or(0))
}

/// A valid combination of ray flags. `micromap_2_state` allows
/// `RAY_FLAG_FORCE_OPACITY_MICROMAP_2_STATE`, which only Shader Model 6.9
/// defines.
pub fn flags(micromap_2_state: bool) -> impl Strategy<Value = u32> {
    (
        one_of(&[FORCE_OPAQUE, FORCE_NON_OPAQUE, CULL_OPAQUE, CULL_NON_OPAQUE]),
        one_of(&[CULL_BACK_FACING_TRIANGLES, CULL_FRONT_FACING_TRIANGLES]),
        one_of(&[SKIP_TRIANGLES, SKIP_PROCEDURAL_PRIMITIVES]),
        one_of(&[ACCEPT_FIRST_HIT_AND_END_SEARCH]),
        one_of(&[SKIP_CLOSEST_HIT_SHADER]),
        prop::bool::weighted(if micromap_2_state { 0.2 } else { 0.0 }),
    )
        .prop_map(|(opacity, face, skip, first, skip_ch, omm)| {
            // Face culling and SKIP_TRIANGLES exclude each other.
            let face = if skip == SKIP_TRIANGLES { 0 } else { face };
            let omm = if omm {
                FORCE_OPACITY_MICROMAP_2_STATE
            } else {
                0
            };
            opacity | face | skip | first | skip_ch | omm
        })
}

pub fn ray() -> impl Strategy<Value = Ray> {
    ray_with(flags(false))
}

pub fn ray_with(flags: impl Strategy<Value = u32>) -> impl Strategy<Value = Ray> {
    (
        prop::array::uniform2(-6i32..=6),
        -20i32..=-10,
        prop::array::uniform2(-1i32..=1),
        prop::sample::select(vec![0.0f32, 0.5, 4.0]),
        prop::sample::select(vec![100.0f32, 1000.0, 30.0, 12.375]),
        flags,
        any::<u8>(),
    )
        .prop_map(|(xy, z, d, tmin, tmax, flags, mask)| Ray {
            // Off the scene's 0.5 grid, so that rays rarely graze edges.
            origin: [
                xy[0] as f32 * 0.25 + 0.0625,
                xy[1] as f32 * 0.25 + 0.09375,
                z as f32,
            ],
            direction: [d[0] as f32 * 0.125, d[1] as f32 * 0.125, 1.0],
            tmin,
            tmax,
            flags,
            mask: mask | 1,
        })
}

impl Ray {
    /// `RayDesc` construction as HLSL-subset statements into `name`; the
    /// origin moves by `spread` in x per dispatch index in `thread` (an
    /// expression), so that threads trace different rays.
    pub fn desc(&self, name: &str) -> String {
        self.desc_spread(name, None)
    }

    pub fn desc_spread(&self, name: &str, thread: Option<&str>) -> String {
        let v = |a: [f32; 3]| format!("float3({:?}, {:?}, {:?})", a[0], a[1], a[2]);
        let origin = match thread {
            Some(t) => format!("{} + float3((float){t} * 0.5, 0.0, 0.0)", v(self.origin)),
            None => v(self.origin),
        };
        format!(
            "RayDesc {name}; {name}.Origin = {origin}; {name}.Direction = {}; {name}.TMin = {:?}; {name}.TMax = {:?};",
            v(self.direction),
            self.tmin,
            self.tmax
        )
    }

    /// Whether the ray uses a flag that only Shader Model 6.9 defines.
    pub fn needs_sm69(&self) -> bool {
        self.flags & FORCE_OPACITY_MICROMAP_2_STATE != 0
    }
}
