//! Runtime values of the interpreter.
//!
//! Values carry their type. A scalar also carries what the reference knows
//! about it: an error bound for floats an implementation computes (see
//! [`crate::numeric`]) and, when the spec does not determine it, the reason
//! it is unspecified. Both propagate through arithmetic.

use crate::choice::Chooser;
use crate::hit_object::HitObject;
use crate::numeric::{self, Decision};
use crate::ray_query::Handle;
use ser_lang::ast::{ScalarType, Type};
use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

/// Why a value is unspecified, for people.
pub type Reason = Arc<str>;

/// The name of the value a function without a result returns, made once:
/// calls return it often.
static VOID: LazyLock<Arc<str>> = LazyLock::new(|| "void".into());

#[derive(Clone, Debug)]
pub struct Scalar {
    pub ty: ScalarType,
    /// The value's bits: `u32`/`i32` two's complement, `f32` bits, 0/1.
    pub bits: u32,
    /// Absolute error bound of a float (0 when exact).
    pub err: f64,
    /// Set when the spec leaves the value open.
    pub unspecified: Option<Reason>,
    /// Which computation made an inexact value (0: none, or exact). An
    /// implementation computes a value once: copies of it, stored in a hit
    /// object and read back, or passed through a payload, are the same
    /// number, whatever it is within `err` ([`Scalar::same_value`]).
    pub id: u32,
}

/// Two scalars are equal by what they hold, whichever computation made
/// them.
impl PartialEq for Scalar {
    fn eq(&self, other: &Scalar) -> bool {
        self.ty == other.ty
            && self.bits == other.bits
            && self.err == other.err
            && self.unspecified == other.unspecified
    }
}

/// The next computation's id.
pub fn fresh_id() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    loop {
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        if id != 0 {
            return id;
        }
    }
}

impl Scalar {
    pub fn new(ty: ScalarType, bits: u32) -> Scalar {
        Scalar {
            ty,
            bits,
            err: 0.0,
            unspecified: None,
            id: 0,
        }
    }

    /// Whether two inexact scalars are copies of one computed value: then
    /// they are one number, whatever it is within the error bound, and
    /// compare exactly.
    pub fn same_value(&self, other: &Scalar) -> bool {
        self.id != 0 && self.id == other.id && self.bits == other.bits && self.err == other.err
    }

    pub fn uint(v: u32) -> Scalar {
        Scalar::new(ScalarType::Uint, v)
    }

    pub fn int(v: i32) -> Scalar {
        Scalar::new(ScalarType::Int, v as u32)
    }

    pub fn float(v: f32) -> Scalar {
        Scalar::new(ScalarType::Float, v.to_bits())
    }

    pub fn boolean(v: bool) -> Scalar {
        Scalar::new(ScalarType::Bool, v as u32)
    }

    /// A float an implementation computes, within `err` of `v`.
    pub fn float_approx(v: f64, err: f64) -> Scalar {
        let rounded = v as f32;
        Scalar {
            err: if err == 0.0 {
                0.0
            } else {
                err + (rounded as f64 - v).abs()
            },
            ..Scalar::float(rounded)
        }
    }

    pub fn unspecified(ty: ScalarType, reason: impl Into<Reason>) -> Scalar {
        Scalar {
            unspecified: Some(reason.into()),
            ..Scalar::new(ty, 0)
        }
    }

    pub fn f32(&self) -> f32 {
        f32::from_bits(self.bits)
    }

    /// The value as f64, whatever its type.
    pub fn to_f64(&self) -> f64 {
        match self.ty {
            ScalarType::Float => self.f32() as f64,
            ScalarType::Int => self.bits as i32 as f64,
            ScalarType::Uint | ScalarType::Bool => self.bits as f64,
        }
    }

    pub fn is_exact(&self) -> bool {
        self.err == 0.0 && self.unspecified.is_none()
    }

    /// Marks the result unspecified if any input is.
    pub fn taint_from(mut self, inputs: &[&Scalar]) -> Scalar {
        if self.unspecified.is_none() {
            self.unspecified = inputs.iter().find_map(|s| s.unspecified.clone());
        }
        self
    }

    /// Whether the value is true, as a condition. A float condition within
    /// its error bound of zero may go either way.
    pub fn truth(&self, chooser: &mut dyn Chooser) -> bool {
        match self.ty {
            ScalarType::Float => {
                let z = numeric::equal(self.f32() as f64, self.err, 0.0, 0.0);
                match z {
                    Decision::True => false,
                    Decision::False => true,
                    Decision::Either => {
                        chooser.choose(
                            2,
                            "a float condition within implementation precision of zero",
                        ) == 1
                    }
                }
            }
            _ => self.bits != 0,
        }
    }

    /// [`Scalar::convert`], taking the scalar: one already of type `to` is
    /// itself, not a copy.
    pub fn into_type(self, to: ScalarType, chooser: &mut dyn Chooser) -> Scalar {
        if self.ty == to {
            self
        } else {
            self.convert(to, chooser)
        }
    }

    /// [`Scalar::convert`], borrowing a scalar already of type `to` rather
    /// than copying it.
    pub fn as_type(&self, to: ScalarType, chooser: &mut dyn Chooser) -> Cow<'_, Scalar> {
        if self.ty == to {
            Cow::Borrowed(self)
        } else {
            Cow::Owned(self.convert(to, chooser))
        }
    }

    /// Converts to another scalar type with HLSL's rules.
    pub fn convert(&self, to: ScalarType, chooser: &mut dyn Chooser) -> Scalar {
        use ScalarType::*;
        let out = match (self.ty, to) {
            (a, b) if a == b => return self.clone(),
            (_, Bool) => Scalar::boolean(self.truth(chooser)),
            (Bool, Float) => Scalar::float(self.bits as f32),
            (Bool, _) | (Int, Uint) | (Uint, Int) => Scalar::new(to, self.bits),
            (Int, Float) => Scalar::float(self.bits as i32 as f32),
            (Uint, Float) => Scalar::float(self.bits as f32),
            (Float, Int) | (Float, Uint) => float_to_integer(self, to, chooser),
            (Float, Float) | (Int, Int) | (Uint, Uint) => unreachable!(),
        };
        out.taint_from(&[self])
    }
}

/// Truncation of a float to an integer type. When the float's error bound
/// spans several integers, each is a legal result.
fn float_to_integer(s: &Scalar, to: ScalarType, chooser: &mut dyn Chooser) -> Scalar {
    let v = s.f32() as f64;
    let (lo, hi) = ((v - s.err).trunc(), (v + s.err).trunc());
    let (min, max) = match to {
        ScalarType::Int => (i32::MIN as f64, i32::MAX as f64),
        _ => (0.0, u32::MAX as f64),
    };
    if v.is_nan() || lo < min || hi > max {
        return Scalar::unspecified(to, "conversion of a float outside the integer type's range");
    }
    let span = (hi - lo) as usize;
    let pick = match span {
        0 => lo,
        1..=3 => lo + chooser.choose(span + 1, "a float-to-integer conversion within implementation precision of an integer boundary") as f64,
        _ => return Scalar::unspecified(to, "a float-to-integer conversion of a value known only within a range wider than 4 integers"),
    };
    match to {
        ScalarType::Int => Scalar::int(pick as i32),
        _ => Scalar::uint(pick as u32),
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Scalar(Scalar),
    Vector(Vec<Scalar>),
    /// Row-major elements of a `rows x cols` matrix.
    Matrix {
        rows: u8,
        cols: u8,
        elems: Vec<Scalar>,
    },
    Struct {
        name: Arc<str>,
        fields: Vec<Value>,
    },
    Array(Vec<Value>),
    HitObject(Box<HitObject>),
    /// A reference to a query (see [`Handle`]).
    RayQuery(Handle),
}

impl Value {
    /// What a function without a result returns.
    pub fn void() -> Value {
        Value::Struct {
            name: VOID.clone(),
            fields: Vec::new(),
        }
    }

    pub fn uint(v: u32) -> Value {
        Value::Scalar(Scalar::uint(v))
    }

    pub fn float(v: f32) -> Value {
        Value::Scalar(Scalar::float(v))
    }

    pub fn boolean(v: bool) -> Value {
        Value::Scalar(Scalar::boolean(v))
    }

    pub fn float3(v: [Scalar; 3]) -> Value {
        Value::Vector(v.to_vec())
    }

    pub fn as_scalar(&self) -> Option<&Scalar> {
        match self {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The scalars of a scalar, vector or matrix, in order.
    pub fn components(&self) -> Vec<Scalar> {
        self.clone().into_components()
    }

    /// The scalars of a scalar, vector or matrix, borrowed where they lie in
    /// one slice (a scalar, a vector, a matrix), collected otherwise.
    pub fn scalars(&self) -> Cow<'_, [Scalar]> {
        match self {
            Value::Scalar(s) => Cow::Borrowed(std::slice::from_ref(s)),
            Value::Vector(v) | Value::Matrix { elems: v, .. } => Cow::Borrowed(v),
            other => Cow::Owned(other.components()),
        }
    }

    /// [`Value::components`], moved out of the value rather than copied.
    pub fn into_components(self) -> Vec<Scalar> {
        match self {
            Value::Vector(v) | Value::Matrix { elems: v, .. } => v,
            other => {
                let mut out = Vec::new();
                other.push_components(&mut out);
                out
            }
        }
    }

    /// [`Value::into_components`], appended to `out`.
    pub fn push_components(self, out: &mut Vec<Scalar>) {
        match self {
            Value::Scalar(s) => out.push(s),
            Value::Vector(v) | Value::Matrix { elems: v, .. } => out.extend(v),
            Value::Struct { fields: items, .. } | Value::Array(items) => {
                for item in items {
                    item.push_components(out);
                }
            }
            Value::HitObject(_) | Value::RayQuery(_) => {}
        }
    }

    /// The HLSL type name of the value, for messages.
    pub fn type_name(&self) -> String {
        match self {
            Value::Scalar(s) => s.ty.name().to_string(),
            Value::Vector(v) => {
                format!("{}{}", v.first().map_or("float", |s| s.ty.name()), v.len())
            }
            Value::Matrix { rows, cols, elems } => {
                format!(
                    "{}{rows}x{cols}",
                    elems.first().map_or("float", |s| s.ty.name())
                )
            }
            Value::Struct { name, .. } => name.to_string(),
            Value::Array(items) => format!("array of {}", items.len()),
            Value::HitObject(_) => "HitObject".to_string(),
            Value::RayQuery(_) => "RayQuery".to_string(),
        }
    }
}

/// Struct layouts, for building values of a named struct type.
pub trait StructLayouts {
    /// The field names and types of a struct, if it is known.
    fn fields_of(&self, name: &str) -> Option<&[(String, Type)]>;
}

/// How to fill the scalars of a new value.
#[derive(Clone, Copy)]
pub enum Fill<'a> {
    /// Zero-initialized, as `GetAttributes` returns for a non-hit
    /// (`ser.hit_object.get_attributes.non_hit_zero_initialized`).
    Zero,
    /// A declared but unwritten variable: its value is unspecified.
    Uninitialized(&'a str),
}

/// A value of type `ty` whose scalars are filled as `fill` says. A
/// `HitObject` is always the NOP-HitObject
/// (`ser.hit_object.type.default_initialized_to_nop`).
pub fn new_value(ty: &Type, fill: Fill, layouts: &dyn StructLayouts) -> Value {
    // The reason is shared by every scalar of the value.
    let reason = match fill {
        Fill::Zero => None,
        Fill::Uninitialized(why) => Some(Reason::from(why)),
    };
    filled(ty, &reason, layouts)
}

/// A value of type `ty` whose scalars are zero, or unspecified for
/// `reason`.
fn filled(ty: &Type, reason: &Option<Reason>, layouts: &dyn StructLayouts) -> Value {
    let scalar = |s: ScalarType| Scalar {
        unspecified: reason.clone(),
        ..Scalar::new(s, 0)
    };
    match ty {
        Type::Void => Value::void(),
        Type::Scalar(s) => Value::Scalar(scalar(*s)),
        Type::Vector(s, n) => Value::Vector((0..*n).map(|_| scalar(*s)).collect()),
        Type::Matrix(s, r, c) => Value::Matrix {
            rows: *r,
            cols: *c,
            elems: (0..(*r as usize * *c as usize))
                .map(|_| scalar(*s))
                .collect(),
        },
        Type::Struct(name) => Value::Struct {
            name: name.as_str().into(),
            fields: layouts
                .fields_of(name)
                .unwrap_or(&[])
                .iter()
                .map(|(_, t)| filled(t, reason, layouts))
                .collect(),
        },
        Type::HitObject => Value::HitObject(Box::new(HitObject::Nop)),
        Type::RayQuery(..) => Value::RayQuery(Handle::default()),
        Type::Array(elem, n) => {
            Value::Array((0..*n).map(|_| filled(elem, reason, layouts)).collect())
        }
        // No entry point of a stage with such objects runs (the runner
        // dispatches ray generation only): an element stands for it.
        Type::Object { element, .. } => filled(element, reason, layouts),
    }
}

/// Marks every scalar of a value unspecified.
pub fn unspecify(v: Value, reason: &str) -> Value {
    let reason: Reason = reason.into();
    let mark = |s: Scalar| Scalar {
        unspecified: Some(reason.clone()),
        ..s
    };
    match v {
        Value::Scalar(s) => Value::Scalar(mark(s)),
        Value::Vector(c) => Value::Vector(c.into_iter().map(mark).collect()),
        Value::Matrix { rows, cols, elems } => Value::Matrix {
            rows,
            cols,
            elems: elems.into_iter().map(mark).collect(),
        },
        Value::Struct { name, fields } => Value::Struct {
            name,
            fields: fields.into_iter().map(|f| unspecify(f, &reason)).collect(),
        },
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|f| unspecify(f, &reason)).collect())
        }
        other => other,
    }
}

/// `a`, with every scalar that differs from `b`'s unspecified: what two
/// legal executions disagree on is not determined.
pub fn unspecify_differences(a: Value, b: &Value, reason: &str) -> Value {
    let reason: Reason = reason.into();
    let pick = |x: Scalar, y: &Scalar| {
        if x == *y {
            x
        } else {
            Scalar {
                unspecified: Some(reason.clone()),
                ..x
            }
        }
    };
    let zip = |xs: Vec<Scalar>, ys: &[Scalar]| -> Vec<Scalar> {
        xs.into_iter().zip(ys).map(|(x, y)| pick(x, y)).collect()
    };
    match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => Value::Scalar(pick(x, y)),
        (Value::Vector(x), Value::Vector(y)) => Value::Vector(zip(x, y)),
        (Value::Matrix { rows, cols, elems }, Value::Matrix { elems: y, .. }) => Value::Matrix {
            rows,
            cols,
            elems: zip(elems, y),
        },
        (Value::Struct { name, fields }, Value::Struct { fields: y, .. }) => Value::Struct {
            name,
            fields: fields
                .into_iter()
                .zip(y)
                .map(|(f, g)| unspecify_differences(f, g, &reason))
                .collect(),
        },
        (Value::Array(items), Value::Array(y)) => Value::Array(
            items
                .into_iter()
                .zip(y)
                .map(|(f, g)| unspecify_differences(f, g, &reason))
                .collect(),
        ),
        (a, b) if a == *b => a,
        (a, _) => unspecify(a, &reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_the_scalars_in_order() {
        let s = |v| Scalar::uint(v);
        let cases = [
            (Value::uint(1), vec![s(1)]),
            (
                Value::Vector(vec![s(1), s(2), s(3)]),
                vec![s(1), s(2), s(3)],
            ),
            (
                Value::Matrix {
                    rows: 1,
                    cols: 2,
                    elems: vec![s(4), s(5)],
                },
                vec![s(4), s(5)],
            ),
            (
                Value::Struct {
                    name: "S".into(),
                    fields: vec![Value::uint(6), Value::Array(vec![Value::uint(7)])],
                },
                vec![s(6), s(7)],
            ),
            (
                Value::Array(vec![Value::Vector(vec![s(8), s(9)]), Value::uint(10)]),
                vec![s(8), s(9), s(10)],
            ),
            (Value::void(), vec![]),
        ];
        for (v, want) in cases {
            assert_eq!(v.components(), want, "{v:?}");
            assert_eq!(v.into_components(), want);
        }
    }
}
