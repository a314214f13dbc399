//! Scenes: one to three instances over one or two bottom-level structures,
//! each of one geometry type (triangles or AABBs, as the APIs require),
//! with opacity micromaps and the no-duplicate-any-hit flag, and with
//! invertible transforms whose inverses are exact (rotations by
//! multiples of 90 degrees, scales by powers of two, integer
//! translations), random masks, instance IDs, hit-group offsets and every
//! instance flag.

use proptest::prelude::*;
use serde_json::{json, Value};

/// A 3x4 row-major transform: a signed axis permutation scaled by
/// `2^scale`, then translated.
fn transform() -> impl Strategy<Value = Value> {
    (
        // Mostly keeping object z as world z, so that triangles (which lie
        // in object xy planes) face the rays (mostly along z) rather than
        // show them an edge: generated rays should hit often.
        prop_oneof![3 => prop::sample::select(vec![0usize, 2]), 1 => 0usize..6],
        prop::array::uniform3(any::<bool>()),
        -1i32..=1,
        // Translations: small across the rays, larger along them.
        (-1i32..=1, -1i32..=1, -3i32..=3).prop_map(|(x, y, z)| [x, y, z]),
    )
        .prop_map(|(perm, signs, scale, t)| {
            const PERMS: [[usize; 3]; 6] = [
                [0, 1, 2],
                [0, 2, 1],
                [1, 0, 2],
                [1, 2, 0],
                [2, 0, 1],
                [2, 1, 0],
            ];
            let s = 2f32.powi(scale);
            let mut rows = Vec::new();
            for r in 0..3 {
                let mut row = vec![0.0f32; 4];
                row[PERMS[perm][r]] = if signs[r] { -s } else { s };
                row[3] = t[r] as f32;
                rows.push(row);
            }
            json!(rows)
        })
}

/// Coordinates on a coarse grid, so that hits are not grazing.
fn coord() -> impl Strategy<Value = f32> {
    (-8i32..=8).prop_map(|v| v as f32 * 0.5)
}

/// A right triangle in an xy plane, its corner near the origin and its
/// legs 2 to 6 long, so that rays near the z axis meet it often.
fn triangle() -> impl Strategy<Value = Value> {
    let corner = || (-6i32..=0).prop_map(|v| v as f32 * 0.5);
    (
        corner(),
        corner(),
        coord(),
        2i32..=6,
        2i32..=6,
        any::<bool>(),
    )
        .prop_map(|(x, y, z, w, h, flip)| {
            let (a, b, c) = ([x, y, z], [x + w as f32, y, z], [x, y + h as f32, z]);
            if flip {
                json!([a, c, b])
            } else {
                json!([a, b, c])
            }
        })
}

fn aabb() -> impl Strategy<Value = Value> {
    (coord(), coord(), coord(), 1i32..=3).prop_map(|(x, y, z, e)| {
        let e = e as f32;
        json!({"min": [x, y, z], "max": [x + e, y + e, z + e]})
    })
}

/// An opacity micromap for `triangles` triangles: level 0 or 1, 2- or
/// 4-state, each triangle a special index or its micro-triangles' states
/// (`vk.opacity_micromap.*`).
fn micromap(triangles: usize) -> impl Strategy<Value = Value> {
    (0u8..=1, any::<bool>()).prop_flat_map(move |(level, four)| {
        let states = 4usize.pow(level as u32);
        let max = if four { 3u8 } else { 1 };
        let entry = prop_oneof![
            prop::sample::select(vec![
                "fully_transparent",
                "fully_opaque",
                "fully_unknown_transparent",
                "fully_unknown_opaque",
            ])
            .prop_map(|s| json!(s)),
            prop::collection::vec(0..=max, states).prop_map(|v| json!(v)),
        ];
        prop::collection::vec(entry, triangles).prop_map(move |entries| {
            json!({"format": if four { "4_state" } else { "2_state" },
                   "subdivision_level": level, "triangles": entries})
        })
    })
}

/// One geometry: triangles (sometimes with an opacity micromap, where
/// `micromaps` allows them) or AABBs, opaque or not, with or without
/// `no_duplicate_any_hit`.
fn geometry(boxes: bool, micromaps: bool) -> BoxedStrategy<Value> {
    let flags = (any::<bool>(), any::<bool>());
    if boxes {
        // Mostly without duplicate intersection-shader runs: each run
        // again is a choice the reference explores.
        let flags = (any::<bool>(), prop::bool::weighted(0.8));
        (prop::collection::vec(aabb(), 1..=1), flags)
            .prop_map(|(b, (o, d))| json!({"aabbs": b, "opaque": o, "no_duplicate_any_hit": d}))
            .boxed()
    } else {
        (prop::collection::vec(triangle(), 1..=3), flags)
            .prop_flat_map(move |(t, (o, d))| {
                let n = t.len();
                let map = if micromaps {
                    prop::option::weighted(0.25, micromap(n)).boxed()
                } else {
                    Just(None).boxed()
                };
                map.prop_map(move |map| {
                    let mut g =
                        json!({"triangles": t.clone(), "opaque": o, "no_duplicate_any_hit": d});
                    if let Some(m) = map {
                        g["opacity_micromap"] = m;
                    }
                    g
                })
            })
            .boxed()
    }
}

fn blas(micromaps: bool) -> impl Strategy<Value = Value> {
    // Boxes one time in four: every box a ray misses is a choice the
    // reference explores (an implementation may enlarge boxes,
    // `vk.candidate.aabb.enlargement_may`), and choices multiply.
    prop::bool::weighted(0.25)
        .prop_flat_map(move |boxes| prop::collection::vec(geometry(boxes, micromaps), 1..=2))
        // Every instance may disable micromaps: the build allows it
        // (`dxr.omm.trace_ray.disable_needs_build_flag`).
        .prop_map(move |g| {
            if micromaps {
                json!({"geometries": g, "allow_disable_opacity_micromaps": true})
            } else {
                json!({ "geometries": g })
            }
        })
}

const INSTANCE_FLAGS: [&str; 6] = [
    "triangle_cull_disable",
    "triangle_flip_facing",
    "force_opaque",
    "force_non_opaque",
    "force_opacity_micromap_2_state",
    "disable_opacity_micromaps",
];

/// The instance flags that need opacity micromaps.
const MICROMAP_FLAGS: [&str; 2] = [
    "force_opacity_micromap_2_state",
    "disable_opacity_micromaps",
];

fn instance(blases: usize, micromaps: bool) -> impl Strategy<Value = Value> {
    (
        0..blases,
        transform(),
        0u32..=0xFF_FFFF,
        any::<u8>(),
        0u32..=2,
        prop::collection::vec(0..INSTANCE_FLAGS.len(), 0..=3),
    )
        .prop_map(move |(blas, transform, id, mask, offset, flags)| {
            let mut f: Vec<&str> = flags.iter().map(|&i| INSTANCE_FLAGS[i]).collect();
            if !micromaps {
                f.retain(|x| !MICROMAP_FLAGS.contains(x));
            }
            f.sort();
            f.dedup();
            // force_opaque and force_non_opaque exclude each other.
            if f.contains(&"force_opaque") && f.contains(&"force_non_opaque") {
                f.retain(|x| *x != "force_non_opaque");
            }
            json!({"blas": blas, "transform": transform, "instance_id": id, "mask": mask | 1,
                   "hit_group_offset": offset, "flags": f})
        })
}

/// A scene as the case format writes it; `micromaps`: with opacity
/// micromaps and the flags about them (capability `opacity_micromaps`).
pub fn scene(micromaps: bool) -> impl Strategy<Value = Value> {
    prop::collection::vec(blas(micromaps), 1..=2).prop_flat_map(move |blases| {
        let n = blases.len();
        prop::collection::vec(instance(n, micromaps), 1..=3)
            .prop_map(move |instances| json!({"blas": blases.clone(), "instances": instances}))
    })
}

/// The most hit-group records any of these scenes can index with a ray
/// contribution of 0 and a multiplier of 1: offset up to 2 plus geometry up
/// to 1.
pub const HIT_GROUP_RECORDS: usize = 4;

/// What a program needs to know of a scene to name a primitive in it: for
/// each instance, its structure's geometries as (triangles?, primitives).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts {
    instances: Vec<Vec<(bool, u32)>>,
}

/// A primitive of a scene, by its indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Primitive {
    pub instance: u32,
    pub geometry: u32,
    pub primitive: u32,
    pub triangles: bool,
}

impl Facts {
    /// The facts of a scene in the case format.
    pub fn of(scene: &Value) -> Facts {
        // Borrowed: only the lengths are needed.
        fn list(v: &Value) -> &[Value] {
            v.as_array().map_or(&[], Vec::as_slice)
        }
        let blases: Vec<Vec<(bool, u32)>> = list(&scene["blas"])
            .iter()
            .map(|b| {
                list(&b["geometries"])
                    .iter()
                    .map(|g| match g.get("triangles") {
                        Some(t) => (true, list(t).len() as u32),
                        None => (false, list(&g["aabbs"]).len() as u32),
                    })
                    .collect()
            })
            .collect();
        let instances = list(&scene["instances"])
            .iter()
            .map(|i| {
                let b = i["blas"].as_u64().unwrap_or(0) as usize;
                blases.get(b).cloned().unwrap_or_default()
            })
            .collect();
        Facts { instances }
    }

    /// The primitive the selectors pick (each modulo its count). Every
    /// generated scene has an instance, and every geometry a primitive;
    /// an empty scene gives instance 0, geometry 0, primitive 0.
    pub fn pick(&self, instance: u8, geometry: u8, primitive: u8) -> Primitive {
        let at = |sel: u8, n: usize| (sel as usize % n.max(1)) as u32;
        let i = at(instance, self.instances.len());
        let geometries = self.instances.get(i as usize).cloned().unwrap_or_default();
        let g = at(geometry, geometries.len());
        let (triangles, primitives) = geometries.get(g as usize).copied().unwrap_or((true, 1));
        Primitive {
            instance: i,
            geometry: g,
            primitive: at(primitive, primitives as usize),
            triangles,
        }
    }
}
