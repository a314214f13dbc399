//! Wave operations over the lanes that execute them together.

use crate::value::{Scalar, Value};
use ser_lang::ast::ScalarType;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaveOp {
    /// `WaveActiveBallot(bool)`: a `uint4` mask of the lanes where it holds.
    Ballot,
    /// `WaveIsFirstLane()`: true in the active lane with the lowest index.
    IsFirstLane,
    /// `WaveActiveCountBits(bool)`.
    CountBits,
    /// `WaveActiveSum(x)`.
    Sum,
    /// `WaveActiveAllEqual(x)`.
    AllEqual,
    /// `WaveReadLaneFirst(x)`.
    ReadLaneFirst,
    /// `WaveGetLaneIndex()`: a wave operation here so that it is evaluated
    /// with its wave, after the lanes ahead of it in the program reached
    /// their reorder points (see `Board::packed_results`).
    LaneIndex,
}

impl WaveOp {
    pub fn from_name(name: &str) -> Option<WaveOp> {
        Some(match name {
            "WaveActiveBallot" => WaveOp::Ballot,
            "WaveIsFirstLane" => WaveOp::IsFirstLane,
            "WaveActiveCountBits" => WaveOp::CountBits,
            "WaveActiveSum" => WaveOp::Sum,
            "WaveActiveAllEqual" => WaveOp::AllEqual,
            "WaveReadLaneFirst" => WaveOp::ReadLaneFirst,
            "WaveGetLaneIndex" => WaveOp::LaneIndex,
            _ => return None,
        })
    }
}

fn unspecified_among(values: &[&Scalar]) -> Option<crate::value::Reason> {
    values.iter().find_map(|s| s.unspecified.clone())
}

/// Computes the result of `op` for each of the `(lane, operand)` pairs,
/// sorted by lane.
pub fn execute(op: WaveOp, operands: &[(usize, Value)], wave_size: usize) -> Vec<Value> {
    let scalars: Vec<Scalar> = operands
        .iter()
        .map(|(_, v)| v.as_scalar().cloned().unwrap_or_else(|| Scalar::uint(0)))
        .collect();
    let refs: Vec<&Scalar> = scalars.iter().collect();
    let taint = unspecified_among(&refs);
    let with_taint = |s: Scalar| Scalar {
        unspecified: s.unspecified.or_else(|| taint.clone()),
        ..s
    };
    let all = |v: Value| vec![v; operands.len()];
    match op {
        WaveOp::Ballot => {
            let mut words = [0u32; 4];
            for ((lane, _), s) in operands.iter().zip(&scalars) {
                if s.bits != 0 && *lane < 128 {
                    words[lane / 32] |= 1 << (lane % 32);
                }
            }
            let _ = wave_size;
            all(Value::Vector(
                words.iter().map(|w| with_taint(Scalar::uint(*w))).collect(),
            ))
        }
        WaveOp::IsFirstLane => {
            let first = operands.iter().map(|(l, _)| *l).min();
            operands
                .iter()
                .map(|(l, _)| Value::boolean(Some(*l) == first))
                .collect()
        }
        WaveOp::CountBits => {
            let n = scalars.iter().filter(|s| s.bits != 0).count() as u32;
            all(Value::Scalar(with_taint(Scalar::uint(n))))
        }
        WaveOp::Sum => {
            let ty = scalars.first().map_or(ScalarType::Uint, |s| s.ty);
            let sum = match ty {
                ScalarType::Float => {
                    let v: f64 = scalars.iter().map(|s| s.f32() as f64).sum();
                    let err: f64 = scalars.iter().map(|s| s.err).sum::<f64>()
                        + crate::numeric::ARITH_REL
                            * scalars.iter().map(|s| (s.f32() as f64).abs()).sum::<f64>();
                    Scalar::float_approx(v, err)
                }
                _ => Scalar::new(ty, scalars.iter().fold(0u32, |a, s| a.wrapping_add(s.bits))),
            };
            all(Value::Scalar(with_taint(sum)))
        }
        WaveOp::AllEqual => {
            let eq = scalars.windows(2).all(|w| w[0].bits == w[1].bits);
            all(Value::Scalar(with_taint(Scalar::boolean(eq))))
        }
        WaveOp::ReadLaneFirst => all(operands[0].1.clone()),
        WaveOp::LaneIndex => operands
            .iter()
            .map(|(l, _)| Value::uint(*l as u32))
            .collect(),
    }
}
