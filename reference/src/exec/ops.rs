//! Operators on values, with HLSL's usual arithmetic conversions, and the
//! conversions of assignment and casts.

use crate::choice::Chooser;
use crate::numeric::{self, arith_error, Decision};
use crate::outcome::{Fault, FaultCode};
use crate::program::Program;
use crate::value::{new_value, Fill, Scalar, Value};
use ser_lang::ast::{BinaryOp, ScalarType, Type, UnaryOp};

fn unsupported<T>(m: impl Into<String>) -> Result<T, Fault> {
    Err(Fault::new(FaultCode::Unsupported, m))
}

/// The type two operands are converted to: float over uint over int, and
/// bool counts as int in arithmetic.
fn promote(a: ScalarType, b: ScalarType) -> ScalarType {
    use ScalarType::*;
    match (a, b) {
        (Float, _) | (_, Float) => Float,
        (Uint, _) | (_, Uint) => Uint,
        _ => Int,
    }
}

/// Applies a binary operator, component-wise over vectors and matrices,
/// with scalars broadcast.
pub fn binary(op: BinaryOp, a: &Value, b: &Value, ch: &mut dyn Chooser) -> Result<Value, Fault> {
    use Value::*;
    let zip = |xs: &[crate::value::Scalar],
               ys: &[crate::value::Scalar],
               ch: &mut dyn Chooser|
     -> Result<Vec<crate::value::Scalar>, Fault> {
        xs.iter()
            .zip(ys)
            .map(|(x, y)| scalar(op, x, y, ch))
            .collect()
    };
    match (a, b) {
        (Scalar(x), Scalar(y)) => Ok(Scalar(scalar(op, x, y, ch)?)),
        (Vector(x), Vector(y)) if x.len() == y.len() => Ok(Vector(zip(x, y, ch)?)),
        (Vector(x), Vector(y)) => {
            // HLSL truncates the longer vector.
            let n = x.len().min(y.len());
            Ok(Vector(zip(&x[..n], &y[..n], ch)?))
        }
        (Vector(x), Scalar(y)) => Ok(Vector(
            x.iter()
                .map(|c| scalar(op, c, y, ch))
                .collect::<Result<_, _>>()?,
        )),
        (Scalar(x), Vector(y)) => Ok(Vector(
            y.iter()
                .map(|c| scalar(op, x, c, ch))
                .collect::<Result<_, _>>()?,
        )),
        (
            Matrix {
                rows,
                cols,
                elems: x,
            },
            Matrix { elems: y, .. },
        ) if x.len() == y.len() => Ok(Matrix {
            rows: *rows,
            cols: *cols,
            elems: zip(x, y, ch)?,
        }),
        (Matrix { rows, cols, elems }, Scalar(y)) => Ok(Matrix {
            rows: *rows,
            cols: *cols,
            elems: elems
                .iter()
                .map(|c| scalar(op, c, y, ch))
                .collect::<Result<_, _>>()?,
        }),
        _ => unsupported(format!(
            "operator `{}` on {} and {}",
            op.symbol(),
            a.type_name(),
            b.type_name()
        )),
    }
}

/// A binary operator on two scalars.
pub fn scalar(op: BinaryOp, a: &Scalar, b: &Scalar, ch: &mut dyn Chooser) -> Result<Scalar, Fault> {
    use BinaryOp::*;
    if op.is_logical() {
        let (x, y) = (a.truth(ch), b.truth(ch));
        let r = if op == And { x && y } else { x || y };
        return Ok(Scalar::boolean(r).taint_from(&[a, b]));
    }
    let ty = match op {
        Shl | Shr => promote(a.ty, ScalarType::Int),
        _ => promote(a.ty, b.ty),
    };
    let (x, y) = (a.as_type(ty, ch), b.as_type(ty, ch));
    let out = match ty {
        ScalarType::Float => float_op(op, &x, &y, ch)?,
        _ => integer_op(op, ty, &x, &y)?,
    };
    Ok(out.taint_from(&[a, b]))
}

fn integer_op(op: BinaryOp, ty: ScalarType, x: &Scalar, y: &Scalar) -> Result<Scalar, Fault> {
    use BinaryOp::*;
    let signed = ty == ScalarType::Int;
    let (a, b) = (x.bits, y.bits);
    let cmp = |r: bool| Ok(Scalar::boolean(r));
    let ord = if signed {
        (a as i32).cmp(&(b as i32))
    } else {
        a.cmp(&b)
    };
    let bits = match op {
        Add => a.wrapping_add(b),
        Sub => a.wrapping_sub(b),
        Mul => a.wrapping_mul(b),
        Div | Rem => {
            if b == 0 || signed && a as i32 == i32::MIN && b as i32 == -1 {
                return Ok(Scalar::unspecified(
                    ty,
                    "integer division by zero (or overflow): D3D defines a result, Vulkan does not",
                ));
            }
            match (op, signed) {
                (Div, true) => ((a as i32) / (b as i32)) as u32,
                (Div, false) => a / b,
                (_, true) => ((a as i32) % (b as i32)) as u32,
                (_, false) => a % b,
            }
        }
        // DXIL uses the low 5 bits of a shift amount.
        Shl => a << (b & 31),
        Shr if signed => ((a as i32) >> (b & 31)) as u32,
        Shr => a >> (b & 31),
        BitAnd => a & b,
        BitOr => a | b,
        BitXor => a ^ b,
        Eq => return cmp(a == b),
        Ne => return cmp(a != b),
        Lt => return cmp(ord.is_lt()),
        Le => return cmp(ord.is_le()),
        Gt => return cmp(ord.is_gt()),
        Ge => return cmp(ord.is_ge()),
        And | Or => unreachable!("handled by the caller"),
    };
    Ok(Scalar::new(ty, bits))
}

fn float_op(op: BinaryOp, x: &Scalar, y: &Scalar, ch: &mut dyn Chooser) -> Result<Scalar, Fault> {
    use BinaryOp::*;
    let (a, b) = (x.f32() as f64, y.f32() as f64);
    let (ea, eb) = (x.err, y.err);
    let exact_inputs = ea == 0.0 && eb == 0.0;
    let decide = |d: Decision, ch: &mut dyn Chooser| match d {
        Decision::True => true,
        Decision::False => false,
        Decision::Either => ch.choose(2, "a float comparison within implementation precision") == 0,
    };
    let result = |exact: f64, propagated: f64, can_be_exact: bool| {
        let rounded = exact as f32;
        let err = arith_error(exact, rounded, propagated, can_be_exact && exact_inputs);
        Scalar {
            err,
            id: if err > 0.0 {
                crate::value::fresh_id()
            } else {
                0
            },
            ..Scalar::float(rounded)
        }
    };
    // Copies of one computed value are one number: they compare exactly,
    // and their difference is 0 (`Scalar::same_value`).
    if x.same_value(y) {
        let same = |r: bool| Ok(Scalar::boolean(r));
        match op {
            Eq | Le | Ge => return same(true),
            Ne | Lt | Gt => return same(false),
            Sub => return Ok(Scalar::float(0.0)),
            _ => {}
        }
    }
    Ok(match op {
        Add => result(a + b, ea + eb, true),
        Sub => result(a - b, ea + eb, true),
        Mul => result(a * b, a.abs() * eb + b.abs() * ea + ea * eb, true),
        Div | Rem => {
            if b.abs() <= eb {
                return Ok(Scalar::unspecified(
                    ScalarType::Float,
                    "float division by a value within precision of zero",
                ));
            }
            let q = a / b;
            if op == Div {
                result(q, ea / b.abs() + a.abs() * eb / (b * b), false)
            } else {
                result(a % b, ea + eb * q.abs().ceil(), false)
            }
        }
        Eq => Scalar::boolean(decide(numeric::equal(a, ea, b, eb), ch)),
        Ne => Scalar::boolean(!decide(numeric::equal(a, ea, b, eb), ch)),
        Lt => Scalar::boolean(decide(numeric::less(a, ea, b, eb), ch)),
        Ge => Scalar::boolean(!decide(numeric::less(a, ea, b, eb), ch)),
        Gt => Scalar::boolean(decide(numeric::less(b, eb, a, ea), ch)),
        Le => Scalar::boolean(!decide(numeric::less(b, eb, a, ea), ch)),
        Shl | Shr | BitAnd | BitOr | BitXor => {
            return unsupported(format!("operator `{}` on floats", op.symbol()))
        }
        And | Or => unreachable!("handled by the caller"),
    })
}

pub fn unary(op: UnaryOp, v: &Value, ch: &mut dyn Chooser) -> Result<Value, Fault> {
    let f = |s: &Scalar, ch: &mut dyn Chooser| -> Result<Scalar, Fault> {
        let out = match (op, s.ty) {
            (UnaryOp::Plus, _) => s.clone(),
            (UnaryOp::Neg, ScalarType::Float) => Scalar {
                bits: s.bits ^ 0x8000_0000,
                ..s.clone()
            },
            (UnaryOp::Neg, ScalarType::Bool) => Scalar::int(-(s.bits as i32)),
            (UnaryOp::Neg, ty) => Scalar::new(ty, s.bits.wrapping_neg()),
            (UnaryOp::Not, _) => Scalar::boolean(!s.truth(ch)),
            (UnaryOp::BitNot, ScalarType::Float) => return unsupported("operator `~` on a float"),
            (UnaryOp::BitNot, ScalarType::Bool) => Scalar::int(!(s.bits as i32)),
            (UnaryOp::BitNot, ty) => Scalar::new(ty, !s.bits),
        };
        Ok(out.taint_from(&[s]))
    };
    map_scalars(v, |s| f(s, ch))
}

/// Applies `f` to every scalar of a scalar, vector or matrix.
pub fn map_scalars(
    v: &Value,
    mut f: impl FnMut(&Scalar) -> Result<Scalar, Fault>,
) -> Result<Value, Fault> {
    Ok(match v {
        Value::Scalar(s) => Value::Scalar(f(s)?),
        Value::Vector(c) => Value::Vector(c.iter().map(&mut f).collect::<Result<_, _>>()?),
        Value::Matrix { rows, cols, elems } => Value::Matrix {
            rows: *rows,
            cols: *cols,
            elems: elems.iter().map(&mut f).collect::<Result<_, _>>()?,
        },
        other => return unsupported(format!("a numeric operation on {}", other.type_name())),
    })
}

/// The type of a value, for converting later assignments to it.
pub fn type_of(v: &Value) -> Type {
    match v {
        Value::Scalar(s) => Type::Scalar(s.ty),
        Value::Vector(c) => {
            Type::Vector(c.first().map_or(ScalarType::Float, |s| s.ty), c.len() as u8)
        }
        Value::Matrix { rows, cols, elems } => Type::Matrix(
            elems.first().map_or(ScalarType::Float, |s| s.ty),
            *rows,
            *cols,
        ),
        Value::Struct { name, .. } => Type::Struct(name.to_string()),
        Value::Array(items) => Type::Array(
            Box::new(items.first().map_or(Type::Void, type_of)),
            items.len() as u32,
        ),
        Value::HitObject(_) => Type::HitObject,
        Value::RayQuery(q) => {
            let q = q.get();
            let flags = |value: u32| {
                Box::new(ser_lang::ast::Expr {
                    kind: ser_lang::ast::ExprKind::IntLit {
                        value: value.into(),
                        unsigned: true,
                        hex: false,
                    },
                    span: Default::default(),
                })
            };
            Type::RayQuery(flags(q.template_flags), Some(flags(q.query_flags)))
        }
    }
}

/// Converts a value to a declared type, as assignment, argument passing
/// and casts do: scalars convert, a scalar fills a vector or matrix, a
/// longer vector is truncated, and `(Struct)0` zero-fills a struct.
pub fn convert(
    v: Value,
    ty: &Type,
    program: &Program,
    ch: &mut dyn Chooser,
) -> Result<Value, Fault> {
    let mismatch = |v: &Value| {
        unsupported(format!(
            "cannot convert {} to {}",
            v.type_name(),
            ser_lang::printer::print_type(ty)
        ))
    };
    match (ty, v) {
        // Components are converted in place: a value already of the type
        // keeps its scalars and its vector.
        (Type::Scalar(t), Value::Scalar(s)) => Ok(Value::Scalar(s.into_type(*t, ch))),
        (Type::Scalar(t), Value::Vector(c)) if !c.is_empty() => {
            Ok(Value::Scalar(c[0].convert(*t, ch)))
        }
        (Type::Vector(t, n), Value::Scalar(s)) => {
            Ok(Value::Vector(vec![s.convert(*t, ch); *n as usize]))
        }
        (Type::Vector(t, n), Value::Vector(c)) if c.len() >= *n as usize => Ok(Value::Vector(
            c.into_iter()
                .take(*n as usize)
                .map(|s| s.into_type(*t, ch))
                .collect(),
        )),
        (Type::Matrix(t, r, c), Value::Scalar(s)) => Ok(Value::Matrix {
            rows: *r,
            cols: *c,
            elems: vec![s.convert(*t, ch); (*r as usize) * (*c as usize)],
        }),
        (Type::Matrix(t, r, c), Value::Matrix { rows, cols, elems })
            if rows == *r && cols == *c =>
        {
            Ok(Value::Matrix {
                rows,
                cols,
                elems: elems.into_iter().map(|s| s.into_type(*t, ch)).collect(),
            })
        }
        (Type::Struct(n), Value::Struct { name, fields }) if **n == *name => {
            Ok(Value::Struct { name, fields })
        }
        (Type::Struct(n), Value::Scalar(s)) if s.bits == 0 && program.has_struct(n) => {
            Ok(new_value(ty, Fill::Zero, program))
        }
        (Type::HitObject, v @ Value::HitObject(_))
        | (Type::RayQuery(..), v @ Value::RayQuery(_)) => Ok(v),
        (Type::Array(elem, n), Value::Array(items)) if items.len() == *n as usize => {
            Ok(Value::Array(
                items
                    .into_iter()
                    .map(|i| convert(i, elem, program, ch))
                    .collect::<Result<_, _>>()?,
            ))
        }
        (_, v) => mismatch(&v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts the choices asked of it, and takes the first alternative.
    #[derive(Default)]
    struct Count(usize);

    impl Chooser for Count {
        fn choose(&mut self, _: usize, _: &'static str) -> usize {
            self.0 += 1;
            0
        }
    }

    fn f(v: f32) -> Value {
        Value::Scalar(Scalar::float(v))
    }

    /// `(x + 0.5) / 160` is known only within its error bound, so two
    /// computations of it may differ; but a copy of one computation (stored
    /// in a hit object's ray and read back) is the same number: it compares
    /// equal with no choice, and its difference is exactly 0.
    #[test]
    fn copies_of_one_computed_value_compare_exactly() {
        let mut log = Count::default();
        let x = binary(BinaryOp::Add, &f(7.0), &f(0.5), &mut log).unwrap();
        let origin = binary(BinaryOp::Div, &x, &f(160.0), &mut log).unwrap();
        let Value::Scalar(s) = &origin else { panic!() };
        assert!(s.err > 0.0 && s.id != 0, "{s:?}");
        let copy = origin.clone();
        let eq = binary(BinaryOp::Eq, &origin, &copy, &mut log).unwrap();
        assert_eq!(eq, Value::Scalar(Scalar::boolean(true)));
        let lt = binary(BinaryOp::Lt, &origin, &copy, &mut log).unwrap();
        assert_eq!(lt, Value::Scalar(Scalar::boolean(false)));
        let diff = binary(BinaryOp::Sub, &origin, &copy, &mut log).unwrap();
        assert_eq!(diff, f(0.0));
        // A second computation of the same expression is another number
        // within the bound: comparing the two is a choice.
        let again = binary(BinaryOp::Div, &x, &f(160.0), &mut log).unwrap();
        assert_eq!(log.0, 0, "copies need no choice");
        let _ = binary(BinaryOp::Eq, &origin, &again, &mut log).unwrap();
        assert_eq!(log.0, 1, "one choice");
    }
}
