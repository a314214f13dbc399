//! The packing of a dispatch's threads into waves: an implementation choice.
//!
//! No document says how the threads of a dispatch are packed into waves.
//! DXR allows wave intrinsics in ray tracing shaders "with the intent that
//! they are for tools (PIX) logging", not blocking applications "in case
//! they might find safe use" (`dxr.wave_intrinsics.allowed_for_tools`), and
//! bounds their validity by repacking points "as well as the start/end of
//! the shader" (`dxr.wave_intrinsics.validity_bounded_by_repacking_points`):
//! it says what ends a wave result's validity, never which threads share a
//! wave at the start. The SER texts speak of "threads that were inactive at
//! the start of the wave" (`ser.divergence.inactive_or_exited_lanes_replaceable`),
//! so a wave may start with empty lanes; the GLSL extension texts say
//! nothing of subgroups beyond their repack functions
//! (`glsl_ext.functions.invocation_repack_functions`). So every packing is
//! legal: any threads of the dispatch may share a wave (at most
//! `WaveGetLaneCount()` of them), in any order, each in any lane below the
//! wave size; and at reorder points arriving threads may move again
//! (`ser.reorder_point.definition.migration_targets`), while threads that
//! do not arrive keep their lane
//! (`ser.divergence.non_arriving_threads_do_not_migrate`).
//!
//! The reference does not enumerate packings (for `n` threads there are
//! Bell(n) partitions into waves, times the lane orders, times the lane
//! numbers). It runs the threads as one group, so that the threads that
//! execute a wave operation at one dynamic position are all resolved
//! together (`P`), and gives each thread `t` the set of results the
//! operation has over every wave `t` could be in: every subset `G` of `P`
//! holding `t`, of at most `wave_size` threads, in any lane order. The
//! thread then takes each distinct result as an implementation choice
//! ([`crate::choice`]), so code that branches on it is explored both ways,
//! and a result every packing agrees on stays exact:
//!
//! | operation | results for thread `t` |
//! | --- | --- |
//! | `WaveActiveCountBits(b)` | `b_t + j`, `j` from 0 to the other voters (at most `wave_size - 1`) |
//! | `WaveActiveSum(x)` (integers) | `x_t` plus the sum of any `wave_size - 1` or fewer others |
//! | `WaveActiveAllEqual(x)` | `true`; also `false` when another thread's `x` differs |
//! | `WaveReadLaneFirst(x)` | any `x_u` of `P` |
//! | `WaveIsFirstLane()` | `true`; also `false` when `P` has another thread |
//! | `WaveGetLaneIndex()` | the thread's lane: chosen once among `0..wave_size`, kept until it arrives at a reorder point, unspecified after |
//! | `WaveActiveBallot(b)` | the thread's own bit at its lane; unspecified where another thread votes true (its lane is not known) |
//!
//! What this does not keep: each operation's result is chosen on its own,
//! so two operations of one thread are not tied to one packing (two
//! `WaveActiveCountBits(true)` in a row may differ here), nor are two
//! threads' results tied to each other; the legal outcomes are a superset,
//! never a subset. A set of more than [`MAX_RESULTS`] results, a float sum
//! over several threads, and a ballot with another voter are unspecified.

use super::wave::{self, WaveOp};
use crate::mutation::{self, Mutation};
use crate::value::{self, Scalar, Value};
use ser_lang::ast::ScalarType;
use std::collections::BTreeSet;

/// The most results of one wave operation a thread explores; beyond it the
/// result is unspecified (a generated case has a budget of 32 runs).
pub const MAX_RESULTS: usize = 32;

/// Why a thread's wave result is a choice, for reports.
pub const WHY: &str = "which threads share a wave, in which lanes (the packing of a dispatch into waves is not specified)";

/// A thread executing a wave operation at one dynamic position.
pub struct Participant {
    /// Its operand.
    pub value: Value,
    /// Its lane, where it is known: chosen before any reorder point, `None`
    /// once it arrived at one.
    pub lane: Option<u32>,
}

/// The legal results of `op` for participant `me` of `group` (every
/// thread at this position), distinct, never empty.
pub fn results(op: WaveOp, me: usize, group: &[Participant], wave_size: u32) -> Vec<Value> {
    let scalar = |p: &Participant| {
        p.value
            .as_scalar()
            .cloned()
            .unwrap_or_else(|| Scalar::uint(0))
    };
    let mine = scalar(&group[me]);
    let others: Vec<Scalar> = group
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != me)
        .map(|(_, p)| scalar(p))
        .collect();
    // Threads that may share `me`'s wave besides itself.
    let room = (wave_size as usize).saturating_sub(1).min(others.len());
    let taint = std::iter::once(&mine)
        .chain(&others)
        .find_map(|s| s.unspecified.clone());
    let tainted = |s: Scalar| Scalar {
        unspecified: s.unspecified.or_else(|| taint.clone()),
        ..s
    };
    let alone = || wave::execute(op, &[(0, group[me].value.clone())], wave_size as usize);
    let unspecified = |why: &str| vec![value::unspecify(alone().remove(0), why)];
    let set = |values: Vec<Value>| -> Vec<Value> {
        let mut out: Vec<Value> = Vec::new();
        for v in values {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        if out.len() > MAX_RESULTS {
            return vec![value::unspecify(
                out.swap_remove(0),
                "a wave result with more legal values (over the packings of the dispatch into waves) than the reference explores",
            )];
        }
        out
    };
    match op {
        WaveOp::CountBits => {
            let ignores = mutation::active(Mutation::WaveCountBitsIgnoresVote);
            let votes = |s: &Scalar| s.bits != 0 || ignores;
            let voters = others.iter().filter(|s| votes(s)).count().min(room) as u32;
            let own = votes(&mine) as u32;
            set((0..=voters)
                .map(|j| Value::Scalar(tainted(Scalar::uint(own + j))))
                .collect())
        }
        WaveOp::Sum if mine.ty == ScalarType::Float => {
            if room == 0 {
                alone()
            } else {
                unspecified("a float wave sum over lanes the packing of the dispatch into waves decides")
            }
        }
        WaveOp::Sum => match subset_sums(&others, room) {
            Some(sums) => set(sums
                .into_iter()
                .map(|s| Value::Scalar(tainted(Scalar::new(mine.ty, mine.bits.wrapping_add(s)))))
                .collect()),
            None => unspecified("a wave sum with more legal values (over the packings of the dispatch into waves) than the reference explores"),
        },
        WaveOp::AllEqual => {
            let differs = room > 0 && others.iter().any(|s| s.bits != mine.bits);
            let mut v = vec![Value::Scalar(tainted(Scalar::boolean(true)))];
            if differs {
                v.push(Value::Scalar(tainted(Scalar::boolean(false))));
            }
            v
        }
        WaveOp::ReadLaneFirst => {
            let mut v = vec![group[me].value.clone()];
            if room > 0 {
                v.extend(
                    group
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i != me)
                        .map(|(_, p)| p.value.clone()),
                );
            }
            set(v)
        }
        WaveOp::IsFirstLane => {
            let mut v = vec![Value::boolean(true)];
            if room > 0 {
                v.push(Value::boolean(false));
            }
            v
        }
        WaveOp::LaneIndex => match group[me].lane {
            Some(lane) => vec![Value::uint(lane)],
            None => vec![value::unspecify(
                Value::uint(0),
                "the lane of a thread that arrived at a reorder point",
            )],
        },
        WaveOp::Ballot => {
            let own = mine.bits != 0;
            let other_voters = room > 0 && others.iter().any(|s| s.bits != 0);
            let words = |lane: Option<u32>| {
                let mut w = [0u32; 4];
                if let Some(l) = lane.filter(|l| own && *l < 128) {
                    w[l as usize / 32] |= 1 << (l % 32);
                }
                Value::Vector(w.iter().map(|x| tainted(Scalar::uint(*x))).collect())
            };
            match (own, group[me].lane) {
                _ if other_voters => vec![value::unspecify(
                    words(group[me].lane),
                    "a ballot with votes from lanes the packing of the dispatch into waves decides",
                )],
                (false, _) => vec![words(None)],
                (true, Some(lane)) => vec![words(Some(lane))],
                (true, None) => vec![value::unspecify(
                    words(None),
                    "a ballot of a thread that arrived at a reorder point, whose lane is not known",
                )],
            }
        }
    }
}

/// Every sum of at most `room` of `values` (wrapping), or `None` when there
/// are more than [`MAX_RESULTS`].
fn subset_sums(values: &[Scalar], room: usize) -> Option<BTreeSet<u32>> {
    // by_count[k]: the sums of exactly k of the values seen so far.
    let mut by_count: Vec<BTreeSet<u32>> = vec![BTreeSet::from([0])];
    for v in values {
        let next: Vec<BTreeSet<u32>> = (0..=room.min(by_count.len()))
            .map(|k| {
                let mut s = by_count.get(k).cloned().unwrap_or_default();
                if k > 0 {
                    s.extend(by_count[k - 1].iter().map(|x| x.wrapping_add(v.bits)));
                }
                s
            })
            .collect();
        if next.iter().map(BTreeSet::len).sum::<usize>() > MAX_RESULTS * (room + 1) {
            return None;
        }
        by_count = next;
    }
    let all: BTreeSet<u32> = by_count.into_iter().flatten().collect();
    (all.len() <= MAX_RESULTS).then_some(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(values: &[u32]) -> Vec<Participant> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| Participant {
                value: Value::uint(*v),
                lane: Some(i as u32 + 5),
            })
            .collect()
    }

    fn uints(v: &[Value]) -> Vec<u32> {
        v.iter()
            .map(|v| {
                let s = v.as_scalar().expect("scalar");
                assert!(s.unspecified.is_none(), "{v:?}");
                s.bits
            })
            .collect()
    }

    fn unspecified(v: &[Value]) -> bool {
        v.len() == 1 && matches!(&v[0], Value::Scalar(s) if s.unspecified.is_some())
            || matches!(v, [Value::Vector(w)] if w.iter().any(|s| s.unspecified.is_some()))
    }

    #[test]
    fn count_of_votes_is_every_wave_size_a_packing_allows() {
        let g = group(&[1, 1, 0, 1]);
        assert_eq!(uints(&results(WaveOp::CountBits, 0, &g, 32)), [1, 2, 3]);
        assert_eq!(uints(&results(WaveOp::CountBits, 2, &g, 32)), [0, 1, 2, 3]);
        // Waves of two: at most one other voter.
        assert_eq!(uints(&results(WaveOp::CountBits, 0, &g, 2)), [1, 2]);
    }

    #[test]
    fn what_every_packing_agrees_on_stays_exact() {
        let one = group(&[7]);
        assert_eq!(uints(&results(WaveOp::CountBits, 0, &one, 32)), [1]);
        assert_eq!(uints(&results(WaveOp::IsFirstLane, 0, &one, 32)), [1]);
        assert_eq!(uints(&results(WaveOp::Sum, 0, &one, 32)), [7]);
        let uniform = group(&[3, 3, 3, 3]);
        assert_eq!(uints(&results(WaveOp::AllEqual, 2, &uniform, 32)), [1]);
        assert_eq!(uints(&results(WaveOp::ReadLaneFirst, 1, &uniform, 32)), [3]);
        let none = group(&[0, 0, 0]);
        assert_eq!(uints(&results(WaveOp::CountBits, 1, &none, 32)), [0]);
        assert_eq!(uints(&results(WaveOp::Sum, 1, &none, 32)), [0]);
        // A ballot nobody else votes in: the thread's own lane bit only.
        let lone_voter = group(&[0, 1, 0]);
        match &results(WaveOp::Ballot, 1, &lone_voter, 32)[..] {
            [Value::Vector(w)] => assert_eq!(
                w.iter().map(|s| s.bits).collect::<Vec<_>>(),
                [1 << 6, 0, 0, 0]
            ),
            other => panic!("{other:?}"),
        }
        // Waves of one lane: every thread alone.
        let g = group(&[1, 2, 3]);
        assert_eq!(uints(&results(WaveOp::Sum, 1, &g, 1)), [2]);
        assert_eq!(uints(&results(WaveOp::IsFirstLane, 1, &g, 1)), [1]);
    }

    #[test]
    fn what_packings_disagree_on_is_a_set_or_unspecified() {
        let g = group(&[1, 2, 2]);
        assert_eq!(uints(&results(WaveOp::ReadLaneFirst, 2, &g, 32)), [2, 1]);
        assert_eq!(uints(&results(WaveOp::AllEqual, 0, &g, 32)), [1, 0]);
        assert_eq!(uints(&results(WaveOp::IsFirstLane, 0, &g, 32)), [1, 0]);
        assert_eq!(uints(&results(WaveOp::Sum, 0, &g, 32)), [1, 3, 5]);
        assert!(unspecified(&results(
            WaveOp::Ballot,
            0,
            &group(&[1, 1]),
            32
        )));
        let floats: Vec<Participant> = (0..2)
            .map(|_| Participant {
                value: Value::Scalar(Scalar::float(1.0)),
                lane: None,
            })
            .collect();
        assert!(unspecified(&results(WaveOp::Sum, 0, &floats, 32)));
        // 64 threads with distinct values: more first lanes than explored.
        let many: Vec<u32> = (0..64).collect();
        assert!(unspecified(&results(
            WaveOp::ReadLaneFirst,
            0,
            &group(&many),
            32
        )));
    }

    #[test]
    fn subset_sums_respect_the_wave_size() {
        let v: Vec<Scalar> = [1, 10, 100].iter().map(|x| Scalar::uint(*x)).collect();
        let sums = |room| {
            subset_sums(&v, room)
                .unwrap()
                .into_iter()
                .collect::<Vec<_>>()
        };
        assert_eq!(sums(1), [0, 1, 10, 100]);
        assert_eq!(sums(3), [0, 1, 10, 11, 100, 101, 110, 111]);
    }
}
