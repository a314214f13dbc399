//! Scenes: one to three instances over one or two bottom-level structures,
//! each of one geometry type (triangles or AABBs, as the APIs require),
//! with invertible transforms whose inverses are exact (rotations by
//! multiples of 90 degrees, scales by powers of two, integer
//! translations), random masks, instance IDs, hit-group offsets and flags.

use proptest::prelude::*;
use serde_json::{json, Value};

/// A 3x4 row-major transform: a signed axis permutation scaled by
/// `2^scale`, then translated.
fn transform() -> impl Strategy<Value = Value> {
    (
        0usize..6,
        prop::array::uniform3(any::<bool>()),
        -1i32..=1,
        prop::array::uniform3(-3i32..=3),
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

fn triangle() -> impl Strategy<Value = Value> {
    (coord(), coord(), coord(), 1i32..=4, 1i32..=4, any::<bool>()).prop_map(
        |(x, y, z, w, h, flip)| {
            let (a, b, c) = ([x, y, z], [x + w as f32, y, z], [x, y + h as f32, z]);
            if flip {
                json!([a, c, b])
            } else {
                json!([a, b, c])
            }
        },
    )
}

fn aabb() -> impl Strategy<Value = Value> {
    (coord(), coord(), coord(), 1i32..=3).prop_map(|(x, y, z, e)| {
        let e = e as f32;
        json!({"min": [x, y, z], "max": [x + e, y + e, z + e]})
    })
}

/// One geometry: triangles or AABBs, opaque or not.
fn geometry(boxes: bool) -> BoxedStrategy<Value> {
    let opaque = any::<bool>();
    if boxes {
        (prop::collection::vec(aabb(), 1..=1), opaque)
            .prop_map(|(b, o)| json!({"aabbs": b, "opaque": o}))
            .boxed()
    } else {
        (prop::collection::vec(triangle(), 1..=2), opaque)
            .prop_map(|(t, o)| json!({"triangles": t, "opaque": o}))
            .boxed()
    }
}

fn blas() -> impl Strategy<Value = Value> {
    any::<bool>()
        .prop_flat_map(|boxes| prop::collection::vec(geometry(boxes), 1..=2))
        .prop_map(|g| json!({"geometries": g}))
}

const INSTANCE_FLAGS: [&str; 4] = [
    "triangle_cull_disable",
    "triangle_flip_facing",
    "force_opaque",
    "force_non_opaque",
];

fn instance(blases: usize) -> impl Strategy<Value = Value> {
    (
        0..blases,
        transform(),
        0u32..=0xFF_FFFF,
        any::<u8>(),
        0u32..=2,
        prop::collection::vec(0usize..4, 0..=2),
    )
        .prop_map(|(blas, transform, id, mask, offset, flags)| {
            let mut f: Vec<&str> = flags.iter().map(|&i| INSTANCE_FLAGS[i]).collect();
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

/// A scene as the case format writes it.
pub fn scene() -> impl Strategy<Value = Value> {
    prop::collection::vec(blas(), 1..=2).prop_flat_map(|blases| {
        let n = blases.len();
        prop::collection::vec(instance(n), 1..=2)
            .prop_map(move |instances| json!({"blas": blases.clone(), "instances": instances}))
    })
}

/// The most hit-group records any of these scenes can index with a ray
/// contribution of 0 and a multiplier of 1: offset up to 2 plus geometry up
/// to 1.
pub const HIT_GROUP_RECORDS: usize = 4;
