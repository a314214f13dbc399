//! The arithmetic intrinsics of the case language.

use super::ops::{self, map_scalars};
use crate::choice::Chooser;
use crate::numeric::{arith_error, ARITH_REL};
use crate::outcome::{Fault, FaultCode};
use crate::value::{Scalar, Value};
use ser_lang::ast::{BinaryOp, ScalarType};

fn unsupported<T>(m: impl Into<String>) -> Result<T, Fault> {
    Err(Fault::new(FaultCode::Unsupported, m))
}

/// A float computed from `inputs` that an implementation rounds its own way.
fn inexact(v: f64, propagated: f64, inputs: &[&Scalar]) -> Scalar {
    let rounded = v as f32;
    let err = arith_error(v, rounded, propagated, false).max(ARITH_REL * v.abs());
    Scalar {
        err,
        id: if err > 0.0 {
            crate::value::fresh_id()
        } else {
            0
        },
        ..Scalar::float(rounded)
    }
    .taint_from(inputs)
}

fn floats(v: &Value) -> Vec<Scalar> {
    v.components()
}

/// `floor`/`ceil` of a value known within an error bound: when the bound
/// spans an integer, each neighbour is legal.
fn round_to_integer(s: &Scalar, f: fn(f64) -> f64, ch: &mut dyn Chooser) -> Scalar {
    let v = s.f32() as f64;
    let (lo, hi) = (f(v - s.err), f(v + s.err));
    let pick = if lo == hi || s.unspecified.is_some() {
        f(v)
    } else {
        let n = ((hi - lo) as usize + 1).min(4);
        lo + ch.choose(
            n,
            "rounding a float within implementation precision of an integer",
        ) as f64
    };
    Scalar::float(pick as f32).taint_from(&[s])
}

/// An arithmetic intrinsic on its evaluated operands, as many as its
/// signature takes (`ser_lang::signatures`, checked when the program was
/// built).
pub fn call(name: &str, args: Vec<Value>, ch: &mut dyn Chooser) -> Result<Value, Fault> {
    match name {
        "asuint" | "asint" | "asfloat" => {
            let to = match name {
                "asuint" => ScalarType::Uint,
                "asint" => ScalarType::Int,
                _ => ScalarType::Float,
            };
            map_scalars(&args[0], |s| {
                let mut out = Scalar::new(to, s.bits).taint_from(&[s]);
                if s.err > 0.0 && to != ScalarType::Float {
                    out = Scalar::unspecified(
                        to,
                        "the bits of a float known only within implementation precision",
                    );
                } else if to == ScalarType::Float {
                    out.err = s.err;
                }
                Ok(out)
            })
        }
        "abs" => map_scalars(&args[0], |s| {
            Ok(match s.ty {
                ScalarType::Float => Scalar {
                    bits: s.bits & 0x7FFF_FFFF,
                    ..s.clone()
                },
                ScalarType::Int => Scalar {
                    bits: (s.bits as i32).wrapping_abs() as u32,
                    ..s.clone()
                },
                _ => s.clone(),
            })
        }),
        "min" | "max" => {
            let pick_first = |a: &Value, b: &Value, ch: &mut dyn Chooser| -> Result<Value, Fault> {
                let op = if name == "min" {
                    BinaryOp::Lt
                } else {
                    BinaryOp::Gt
                };
                let less = ops::binary(op, a, b, ch)?;
                let (a, b, l) = (a.components(), b.components(), less.components());
                let out: Vec<Scalar> = a
                    .iter()
                    .zip(b.iter().cycle())
                    .zip(&l)
                    .map(|((x, y), c)| {
                        if c.bits != 0 { x.clone() } else { y.clone() }.taint_from(&[x, y])
                    })
                    .collect();
                Ok(if out.len() == 1 {
                    Value::Scalar(out[0].clone())
                } else {
                    Value::Vector(out)
                })
            };
            pick_first(&args[0], &args[1], ch)
        }
        "clamp" => {
            let lo = call("max", vec![args[0].clone(), args[1].clone()], ch)?;
            call("min", vec![lo, args[2].clone()], ch)
        }
        "floor" | "ceil" => {
            let f = if name == "floor" {
                f64::floor
            } else {
                f64::ceil
            };
            map_scalars(&args[0], |s| Ok(round_to_integer(s, f, ch)))
        }
        "sqrt" => map_scalars(&args[0], |s| {
            let v = s.f32() as f64;
            if v < 0.0 {
                return Ok(Scalar::unspecified(
                    ScalarType::Float,
                    "sqrt of a negative number",
                ));
            }
            Ok(inexact(
                v.sqrt(),
                if v > 0.0 {
                    s.err / (2.0 * v.sqrt())
                } else {
                    s.err.sqrt()
                },
                &[s],
            ))
        }),
        "dot" => {
            let (a, b) = (floats(&args[0]), floats(&args[1]));
            if a.len() != b.len() {
                return unsupported("dot of vectors of different lengths");
            }
            if a.first().is_some_and(|s| s.ty != ScalarType::Float) {
                let sum = a.iter().zip(&b).fold(0u32, |acc, (x, y)| {
                    acc.wrapping_add(x.bits.wrapping_mul(y.bits))
                });
                let inputs: Vec<&Scalar> = a.iter().chain(&b).collect();
                return Ok(Value::Scalar(Scalar::new(a[0].ty, sum).taint_from(&inputs)));
            }
            Ok(Value::Scalar(dot(&a, &b)))
        }
        "cross" => {
            let (a, b) = (floats(&args[0]), floats(&args[1]));
            if a.len() != 3 || b.len() != 3 {
                return unsupported("cross takes two 3-vectors");
            }
            let c = |i: usize, j: usize| {
                dot(&[a[i].clone(), neg(&a[j])], &[b[j].clone(), b[i].clone()])
            };
            Ok(Value::Vector(vec![c(1, 2), c(2, 0), c(0, 1)]))
        }
        "length" => {
            let a = floats(&args[0]);
            let d = dot(&a, &a);
            call("sqrt", vec![Value::Scalar(d)], ch)
        }
        "normalize" => {
            let len = call("length", vec![args[0].clone()], ch)?;
            ops::binary(BinaryOp::Div, &args[0], &len, ch)
        }
        "mul" => mul(&args[0], &args[1]),
        "transpose" => match &args[0] {
            Value::Matrix { rows, cols, elems } => Ok(Value::Matrix {
                rows: *cols,
                cols: *rows,
                elems: (0..*cols as usize)
                    .flat_map(|c| {
                        (0..*rows as usize).map(move |r| elems[r * *cols as usize + c].clone())
                    })
                    .collect(),
            }),
            other => unsupported(format!("transpose of {}", other.type_name())),
        },
        "countbits" => map_scalars(&args[0], |s| {
            Ok(Scalar::uint(s.bits.count_ones()).taint_from(&[s]))
        }),
        "all" | "any" => {
            let c = args[0].components();
            let truths: Vec<bool> = c.iter().map(|s| s.truth(ch)).collect();
            let r = if name == "all" {
                truths.iter().all(|b| *b)
            } else {
                truths.iter().any(|b| *b)
            };
            let inputs: Vec<&Scalar> = c.iter().collect();
            Ok(Value::Scalar(Scalar::boolean(r).taint_from(&inputs)))
        }
        _ => unsupported(format!("`{name}` is not an intrinsic")),
    }
}

fn neg(s: &Scalar) -> Scalar {
    Scalar {
        bits: s.bits ^ 0x8000_0000,
        ..s.clone()
    }
}

/// A float dot product, as an implementation computes it.
fn dot(a: &[Scalar], b: &[Scalar]) -> Scalar {
    let v: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.f32() as f64 * y.f32() as f64)
        .sum();
    let magnitude: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x.f32() as f64 * y.f32() as f64).abs())
        .sum();
    let propagated: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| {
            (x.f32() as f64).abs() * y.err + (y.f32() as f64).abs() * x.err + x.err * y.err
        })
        .sum();
    let inputs: Vec<&Scalar> = a.iter().chain(b).collect();
    let exact = inputs.iter().all(|s| s.err == 0.0) && a.len() == 1;
    let rounded = v as f32;
    let err = if exact {
        arith_error(v, rounded, 0.0, true)
    } else {
        propagated + ARITH_REL * magnitude
    };
    Scalar {
        err,
        ..Scalar::float(rounded)
    }
    .taint_from(&inputs)
}

/// `mul(a, b)`: matrix-vector, vector-matrix, matrix-matrix products, and
/// scalar products.
fn mul(a: &Value, b: &Value) -> Result<Value, Fault> {
    match (a, b) {
        (Value::Matrix { rows, cols, elems }, Value::Vector(v)) if *cols as usize == v.len() => {
            let c = *cols as usize;
            Ok(Value::Vector(
                (0..*rows as usize)
                    .map(|r| dot(&elems[r * c..(r + 1) * c], v))
                    .collect(),
            ))
        }
        (Value::Vector(v), Value::Matrix { rows, cols, elems }) if *rows as usize == v.len() => {
            let (r, c) = (*rows as usize, *cols as usize);
            Ok(Value::Vector(
                (0..c)
                    .map(|j| {
                        let col: Vec<Scalar> = (0..r).map(|i| elems[i * c + j].clone()).collect();
                        dot(v, &col)
                    })
                    .collect(),
            ))
        }
        (
            Value::Matrix {
                rows,
                cols,
                elems: x,
            },
            Value::Matrix {
                rows: r2,
                cols: c2,
                elems: y,
            },
        ) if cols == r2 => {
            let (n, k, m) = (*rows as usize, *cols as usize, *c2 as usize);
            let elems = (0..n)
                .flat_map(|i| {
                    let row: Vec<Scalar> = x[i * k..(i + 1) * k].to_vec();
                    (0..m)
                        .map(|j| {
                            let col: Vec<Scalar> = (0..k).map(|t| y[t * m + j].clone()).collect();
                            dot(&row, &col)
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
            Ok(Value::Matrix {
                rows: *rows,
                cols: *c2,
                elems,
            })
        }
        (Value::Vector(x), Value::Vector(y)) if x.len() == y.len() => Ok(Value::Scalar(dot(x, y))),
        _ => unsupported(format!("mul of {} and {}", a.type_name(), b.type_name())),
    }
}
