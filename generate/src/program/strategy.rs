//! proptest strategies for [`Program`]s. Shrinking removes statements,
//! unwraps control flow (a smaller body), and moves numbers towards 0, so a
//! failing program shrinks to the few statements that matter.

use super::*;
use crate::ray;
use proptest::prelude::*;

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

fn construct(rays: usize, sm69: bool) -> impl Strategy<Value = Construct> {
    let r = 0..rays as u8;
    prop_oneof![
        4 => trace(rays, sm69).prop_map(Construct::Trace),
        2 => (ray::flags(sm69), record(), prop::bool::weighted(0.2), r.clone()).prop_map(
            |(flags, miss, high, ray)| Construct::MakeMiss {
                // A valid combination of defined flags: unknown ones are
                // undefined behaviour (`dxr.trace_ray.ray_flags.unknown_flags_undefined`).
                flags,
                miss: miss | if high { 0xF_0000 } else { 0 },
                ray
            }
        ),
        1 => Just(Construct::MakeNop),
        1 => Just(Construct::Default),
        1 => hit_object().prop_map(Construct::Copy),
        2 => (
            r,
            ray::flags(sm69),
            any::<u8>(),
            any::<bool>(),
            prop::option::of([0u8..=4, 0u8..=4])
        )
            .prop_map(|(ray, flags, mask, triangles, attributes)| Construct::FromRayQuery {
                ray,
                // RAY_FLAG_SKIP_CLOSEST_HIT_SHADER is not allowed for
                // TraceRayInline (`dxr.ray_flags.skip_closest_hit.not_for_ray_query`).
                flags: flags & !ser_lang::names::ray_flag::SKIP_CLOSEST_HIT_SHADER,
                mask,
                triangles,
                attributes
            }),
    ]
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

/// Statements without control flow.
fn simple(rays: usize, sm69: bool) -> impl Strategy<Value = Stmt> {
    prop_oneof![
        6 => (hit_object(), construct(rays, sm69)).prop_map(|(h, how)| Stmt::Construct { h, how }),
        2 => (hit_object(), record(), 0u32..=15).prop_map(|(h, index, high)| Stmt::SetIndex {
            h,
            index,
            high
        }),
        3 => hit_object().prop_map(Stmt::Invoke),
        2 => reorder().prop_map(Stmt::Reorder),
        1 => trace(rays, sm69).prop_map(Stmt::TraceRay),
        6 => (hit_object(), prop::sample::select(ACCESSORS))
            .prop_map(|(h, accessor)| Stmt::Read { h, accessor }),
        1 => (hit_object(), 0..CONSTANTS).prop_map(|(h, c)| Stmt::LoadConstant { h, offset: 4 * c }),
        2 => Just(Stmt::ReadPayload),
        1 => (0u32..100).prop_map(Stmt::SetPayload),
    ]
}

/// A statement, with control flow nested at most `depth` deep.
fn stmt(rays: usize, sm69: bool, depth: u32) -> BoxedStrategy<Stmt> {
    let leaf = simple(rays, sm69).boxed();
    if depth == 0 {
        return leaf;
    }
    let body = move || prop::collection::vec(stmt(rays, sm69, depth - 1), 0..=3);
    prop_oneof![
        8 => leaf,
        1 => (hit_object(), body(), body()).prop_map(|(h, then, otherwise)| Stmt::IfHit {
            h,
            then,
            otherwise
        }),
        1 => (0u32..=1, body()).prop_map(|(parity, then)| Stmt::IfThread { parity, then }),
        1 => (1u32..=2, body()).prop_map(|(times, body)| Stmt::Repeat { times, body }),
    ]
    .boxed()
}

/// A program: 1 to 4 threads, [`RAYS`] rays, up to `max_statements`
/// statements. `sm69` allows what only Shader Model 6.9 defines. No part
/// depends on another's value (no `prop_flat_map`), so shrinking one part
/// keeps the others.
pub fn program(max_statements: usize, sm69: bool) -> impl Strategy<Value = Program> {
    (
        1u32..=4,
        prop::collection::vec(ray::ray(), RAYS),
        prop::collection::vec(stmt(RAYS, sm69, 2), 1..=max_statements),
    )
        .prop_map(|(threads, rays, body)| Program {
            threads,
            rays,
            body,
        })
}
