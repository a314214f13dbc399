//! proptest strategies for [`Program`]s in a [`Dialect`]. Shrinking
//! removes statements, unwraps control flow (a smaller body), and moves
//! numbers towards 0, so a failing program shrinks to the few statements
//! that matter.
//!
//! Alternatives a dialect lacks are left out of each choice rather than
//! given weight 0: proptest shrinks a choice towards its earlier
//! alternatives whatever their weights, and must never shrink into a form
//! the backend cannot run.

use super::*;
use crate::dialect::{Dialect, Language};
use crate::ray;
use proptest::prelude::*;
use proptest::strategy::Union;

/// A weighted choice among the alternatives whose condition holds, in
/// order (earlier ones are simpler: shrinking moves towards them).
fn choose<T: std::fmt::Debug + 'static>(
    arms: Vec<(u32, bool, BoxedStrategy<T>)>,
) -> BoxedStrategy<T> {
    let arms: Vec<(u32, BoxedStrategy<T>)> = arms
        .into_iter()
        .filter(|(_, on, _)| *on)
        .map(|(w, _, s)| (w, s))
        .collect();
    Union::new_weighted(arms).boxed()
}

fn hit_object() -> impl Strategy<Value = u8> {
    0..HIT_OBJECTS
}

/// Record indices below [`RECORDS`]; hit-group indices with the high bits
/// of `SetShaderTableIndex`, which both masks drop.
fn record() -> impl Strategy<Value = u32> {
    0..RECORDS
}

/// A trace that always picks an existing record: a hit-group offset of at
/// most 2 (the scenes), contribution at most 1 and multiplier at most 2 over
/// geometry index at most 1 give at most 5; the miss index may carry bits
/// above the 16 that are used (`sbt.miss.index_equation`).
fn trace(rays: usize, micromap_2_state: bool) -> impl Strategy<Value = Trace> {
    (
        0..rays as u8,
        ray::flags(micromap_2_state),
        any::<u8>(),
        0u32..=1,
        0u32..=2,
        record(),
        prop::bool::weighted(0.2),
    )
        .prop_map(
            |(ray, flags, mask, contribution, multiplier, miss, high)| Trace {
                ray,
                flags,
                mask,
                contribution,
                multiplier,
                miss: miss | if high { 0x1_0000 } else { 0 },
            },
        )
}

/// Whether a record index carries bits above those HLSL keeps, which HLSL
/// drops (`ser.hit_object.make_miss.miss_index_low_16_bits`): never in
/// GLSL, whose texts keep an index "as encoded", so that such an index
/// refers to no record.
fn high_bits(d: Dialect) -> BoxedStrategy<bool> {
    if d.language.is_glsl() {
        Just(false).boxed()
    } else {
        prop::bool::weighted(0.2).boxed()
    }
}

/// An inline query. RAY_FLAG_SKIP_CLOSEST_HIT_SHADER is not allowed for
/// TraceRayInline (`dxr.ray_flags.skip_closest_hit.not_for_ray_query`).
fn query(rays: usize, sm69: bool) -> impl Strategy<Value = Query> {
    (0..rays as u8, ray::flags(sm69), any::<u8>(), any::<bool>()).prop_map(
        |(ray, flags, mask, triangles)| Query {
            ray,
            flags: flags & !ser_lang::names::ray_flag::SKIP_CLOSEST_HIT_SHADER,
            mask,
            triangles,
        },
    )
}

/// GL_NV's recorded hit: selectors resolved against the scene when
/// printed; an offset and stride of at most 1 over a geometry index of at
/// most 1 and an instance offset of at most 2 stay below [`RECORDS`].
fn make_hit(rays: usize) -> impl Strategy<Value = Construct> {
    (
        (any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>()),
        (0u32..=1, 0u32..=1, prop::option::of(record())),
        0..rays as u8,
        [0u8..=4, 0u8..=4],
    )
        .prop_map(
            |((instance, geometry, primitive, kind), (offset, stride, index), ray, attributes)| {
                Construct::MakeHit {
                    instance,
                    geometry,
                    primitive,
                    kind,
                    offset,
                    stride,
                    index,
                    ray,
                    attributes,
                }
            },
        )
}

fn construct(rays: usize, d: Dialect) -> BoxedStrategy<Construct> {
    let sm69 = d.sm69();
    let nv = d.language == Language::GlslNv;
    // NV's hitObjectRecordMissNV has no flags operand (cases pass 0).
    let miss_flags = if nv {
        Just(0).boxed()
    } else {
        ray::flags(sm69).boxed()
    };
    let r = 0..rays as u8;
    choose(vec![
        (
            4,
            true,
            trace(rays, sm69).prop_map(Construct::Trace).boxed(),
        ),
        (
            2,
            true,
            (miss_flags, record(), high_bits(d), r)
                .prop_map(|(flags, miss, high, ray)| Construct::MakeMiss {
                    // A valid combination of defined flags: unknown ones are
                    // undefined behaviour (`dxr.trace_ray.ray_flags.unknown_flags_undefined`).
                    flags,
                    miss: miss | if high { 0xF_0000 } else { 0 },
                    ray,
                })
                .boxed(),
        ),
        (1, true, Just(Construct::MakeNop).boxed()),
        (
            1,
            d.language.copies_hit_objects(),
            Just(Construct::Default).boxed(),
        ),
        (
            1,
            d.language.copies_hit_objects(),
            hit_object().prop_map(Construct::Copy).boxed(),
        ),
        (2, nv, make_hit(rays).boxed()),
        (
            2,
            d.from_ray_query && d.ray_query,
            (
                query(rays, sm69),
                prop::option::of([0u8..=4, 0u8..=4]),
                record(),
            )
                .prop_map(|(query, attributes, index)| Construct::FromRayQuery {
                    query,
                    attributes,
                    index,
                })
                .boxed(),
        ),
    ])
}

/// At most one wave operation, in a third of the programs of a dialect
/// with waves: each multiplies the runs the reference explores.
fn waves(d: Dialect) -> BoxedStrategy<Vec<Wave>> {
    if !d.waves {
        return Just(Vec::new()).boxed();
    }
    let wave = prop::sample::select(vec![
        Wave::CountEvenThreads,
        Wave::ParityAllEqual,
        Wave::FirstThread,
        Wave::IsFirstLane,
    ]);
    prop::option::weighted(0.3, wave)
        .prop_map(|w| w.into_iter().collect())
        .boxed()
}

fn reorder() -> impl Strategy<Value = Reorder> {
    // Hints of any width with up to 32 bits taken into account
    // (`ser.dxil.maybereorderthread.warn_num_bits_le_32`).
    let hint = (any::<u32>(), 0u32..=32);
    prop_oneof![
        hit_object().prop_map(Reorder::Object),
        (hit_object(), hint.clone()).prop_map(|(h, (hint, bits))| Reorder::ObjectHint {
            h,
            hint,
            bits
        }),
        hint.prop_map(|(hint, bits)| Reorder::Hint { hint, bits }),
    ]
}

/// The accessors a dialect has.
pub fn accessors(d: Dialect) -> Vec<Accessor> {
    ACCESSORS
        .iter()
        .copied()
        .filter(|a| d.get_ray_flags || *a != Accessor::Uint("GetRayFlags"))
        .collect()
}

/// Statements without control flow.
fn simple(rays: usize, d: Dialect) -> BoxedStrategy<Stmt> {
    let (sm69, ser) = (d.sm69(), d.ser);
    choose(vec![
        (
            6,
            ser,
            (hit_object(), construct(rays, d))
                .prop_map(|(h, how)| Stmt::Construct { h, how })
                .boxed(),
        ),
        (
            2,
            ser && d.set_index,
            (hit_object(), record(), high_bits(d), 0u32..=15)
                .prop_map(|(h, index, high, bits)| Stmt::SetIndex {
                    h,
                    index,
                    high: if high { bits } else { 0 },
                })
                .boxed(),
        ),
        (3, ser, hit_object().prop_map(Stmt::Invoke).boxed()),
        (2, ser, reorder().prop_map(Stmt::Reorder).boxed()),
        // Without hit objects, tracing is what a program does.
        (
            if ser { 1 } else { 6 },
            true,
            trace(rays, sm69).prop_map(Stmt::TraceRay).boxed(),
        ),
        (
            6,
            ser,
            (hit_object(), prop::sample::select(accessors(d)))
                .prop_map(|(h, accessor)| Stmt::Read { h, accessor })
                .boxed(),
        ),
        (
            1,
            ser && d.load_constant,
            (hit_object(), 0..CONSTANTS)
                .prop_map(|(h, c)| Stmt::LoadConstant { h, offset: 4 * c })
                .boxed(),
        ),
        (2, true, Just(Stmt::ReadPayload).boxed()),
        (1, true, (0u32..100).prop_map(Stmt::SetPayload).boxed()),
        (
            if ser { 1 } else { 3 },
            d.ray_query,
            query(rays, sm69).prop_map(Stmt::Query).boxed(),
        ),
    ])
}

/// A statement, with control flow nested at most `depth` deep.
fn stmt(rays: usize, d: Dialect, depth: u32) -> BoxedStrategy<Stmt> {
    let leaf = simple(rays, d);
    if depth == 0 {
        return leaf;
    }
    let body = move || prop::collection::vec(stmt(rays, d, depth - 1), 0..=3);
    choose(vec![
        (8, true, leaf),
        (
            1,
            d.ser,
            (hit_object(), body(), body())
                .prop_map(|(h, then, otherwise)| Stmt::IfHit { h, then, otherwise })
                .boxed(),
        ),
        (
            1,
            true,
            (0u32..=1, body())
                .prop_map(|(parity, then)| Stmt::IfThread { parity, then })
                .boxed(),
        ),
        (
            1,
            true,
            (1u32..=2, body())
                .prop_map(|(times, body)| Stmt::Repeat { times, body })
                .boxed(),
        ),
    ])
}

/// A program in dialect `d`: 1 to 4 threads, [`RAYS`] rays, up to
/// `max_statements` statements. No part depends on another's value (no
/// `prop_flat_map`), so shrinking one part keeps the others.
pub fn program(max_statements: usize, d: Dialect) -> impl Strategy<Value = Program> {
    (
        1u32..=4,
        prop::collection::vec(ray::ray(), RAYS),
        waves(d),
        prop::collection::vec(stmt(RAYS, d, 2), 1..=max_statements),
    )
        .prop_map(|(threads, rays, waves, body)| Program {
            threads,
            rays,
            waves,
            body,
        })
}
