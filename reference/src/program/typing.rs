//! The static type of an expression, as far as the loader needs it to
//! check a built-in call's operands against its signature
//! ([`ser_lang::signatures`]). Where a type is not worked out here (`mul`,
//! a matrix in arithmetic), it is `None` and the operand is not checked:
//! the check never refuses what it cannot type.

use super::Program;
use ser_lang::ast::*;
use ser_lang::signatures::{self, Callee, Returns};

/// What an expression is.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Value(Type),
    AccelerationStructure,
    /// A buffer, of elements of this type.
    Buffer(Type),
    /// A resource of another kind (a negative case's).
    Resource(ResourceKind),
}

impl Ty {
    /// How a message names it: `uint`, `float3`, `RayDesc`, `HitObject`.
    pub fn describe(&self) -> String {
        match self {
            Ty::Value(t) => describe(t),
            Ty::AccelerationStructure => "RaytracingAccelerationStructure".into(),
            Ty::Buffer(t) => format!("RWStructuredBuffer<{}>", describe(t)),
            Ty::Resource(k) => match k.element() {
                Some(t) => format!("{}<{}>", k.type_name(), describe(t)),
                None => k.type_name().to_string(),
            },
        }
    }
}

pub fn describe(t: &Type) -> String {
    match t {
        Type::Void => "void".into(),
        Type::Scalar(s) => s.name().into(),
        Type::Vector(s, n) => format!("{}{n}", s.name()),
        Type::Matrix(s, r, c) => format!("{}{r}x{c}", s.name()),
        Type::Struct(n) => n.clone(),
        Type::HitObject => "HitObject".into(),
        Type::RayQuery(..) => "RayQuery".into(),
        Type::Array(e, n) => format!("{}[{n}]", describe(e)),
        Type::Object {
            name,
            element,
            count,
        } => match count {
            Some(n) => format!("{name}<{}, {n}>", describe(element)),
            None => format!("{name}<{}>", describe(element)),
        },
    }
}

/// The variables in scope: what a name is.
pub trait Names {
    fn var(&self, name: &str) -> Option<Ty>;
}

/// The type of `e`, where it is worked out here.
pub fn type_of(program: &Program, names: &dyn Names, e: &Expr) -> Option<Ty> {
    let value = |t: Type| Some(Ty::Value(t));
    let of = |x: &Expr| type_of(program, names, x);
    let value_of = |x: &Expr| match of(x) {
        Some(Ty::Value(t)) => Some(t),
        _ => None,
    };
    match &e.kind {
        ExprKind::IntLit { unsigned, .. } => value(Type::Scalar(if *unsigned {
            ScalarType::Uint
        } else {
            ScalarType::Int
        })),
        ExprKind::FloatLit { .. } => value(Type::Scalar(ScalarType::Float)),
        ExprKind::BoolLit(_) => value(Type::Scalar(ScalarType::Bool)),
        ExprKind::Ident(n) => names.var(n),
        ExprKind::Member(base, field) => match value_of(base)? {
            Type::Struct(s) => program
                .field_index(&s, field)
                .map(|(_, t)| Ty::Value(t.clone())),
            Type::Scalar(s) | Type::Vector(s, _) => {
                let n = swizzle_len(field)?;
                value(if n == 1 {
                    Type::Scalar(s)
                } else {
                    Type::Vector(s, n)
                })
            }
            Type::Matrix(s, ..) => value(Type::Scalar(s)),
            _ => None,
        },
        ExprKind::Index(base, _) => match of(base)? {
            Ty::Buffer(t) => value(t),
            Ty::Resource(k) => k.element().cloned().map(Ty::Value),
            Ty::Value(Type::Array(t, _)) => value(*t),
            Ty::Value(Type::Vector(s, _)) => value(Type::Scalar(s)),
            Ty::Value(Type::Matrix(s, _, c)) => value(Type::Vector(s, c)),
            _ => None,
        },
        ExprKind::Call { name, args } => match program.function(name) {
            Some(f) => value(f.return_type.clone()),
            None => returned(program, names, Callee::Free, name, None, args),
        },
        ExprKind::StaticCall {
            method,
            template,
            args,
            ..
        } => returned(
            program,
            names,
            Callee::HitObjectStatic,
            method,
            template.as_ref(),
            args,
        ),
        ExprKind::MethodCall {
            receiver,
            method,
            template,
            args,
        } => {
            let callee = method_callee(of(receiver).as_ref(), method);
            returned(program, names, callee, method, template.as_ref(), args)
        }
        ExprKind::Construct(t, _) | ExprKind::Cast(t, _) => value(t.clone()),
        ExprKind::Unary(op, x) => {
            let t = value_of(x)?;
            match op {
                UnaryOp::Not => value(with_scalar(&t, ScalarType::Bool)?),
                _ => value(t),
            }
        }
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (value_of(a)?, value_of(b)?);
            binary(*op, &a, &b).map(Ty::Value)
        }
        ExprKind::Assign(_, target, _) | ExprKind::IncDec { target, .. } => of(target),
        ExprKind::Ternary(_, a, _) => of(a),
    }
}

/// Which methods a receiver has: a HitObject's or a RayQuery's, by its
/// type where known, else by the method's name.
pub fn method_callee(receiver: Option<&Ty>, method: &str) -> Callee {
    match receiver {
        Some(Ty::Value(Type::HitObject)) => Callee::HitObjectMethod,
        Some(Ty::Value(Type::RayQuery(..))) => Callee::RayQueryMethod,
        Some(Ty::Resource(k)) if k.type_name().ends_with("ByteAddressBuffer") => {
            Callee::ByteAddressBufferMethod
        }
        _ if ser_lang::names::HIT_OBJECT_METHODS.contains(&method) => Callee::HitObjectMethod,
        _ => Callee::RayQueryMethod,
    }
}

/// What a built-in call returns, from its signature.
fn returned(
    program: &Program,
    names: &dyn Names,
    callee: Callee,
    name: &str,
    template: Option<&Type>,
    args: &[Expr],
) -> Option<Ty> {
    let overload = signatures::lookup(callee, name)?.overload(args.len(), template.is_some())?;
    let operand = |i: usize| match type_of(program, names, args.get(i)?) {
        Some(Ty::Value(t)) => Some(t),
        _ => None,
    };
    let t = match overload.returns {
        Returns::Void => Type::Void,
        Returns::Type(shape) => shape.to_type(),
        Returns::Operand(i) => operand(i)?,
        Returns::OperandAs(i, s) => with_scalar(&operand(i)?, s)?,
        Returns::ScalarOf(i) => Type::Scalar(scalar_of(&operand(i)?)?),
        Returns::Template => template?.clone(),
        Returns::Unknown => return None,
    };
    Some(Ty::Value(t))
}

/// The length of a swizzle (`xyz`, `rg`), if `name` is one.
fn swizzle_len(name: &str) -> Option<u8> {
    let xyzw = name.chars().all(|c| "xyzw".contains(c));
    let rgba = name.chars().all(|c| "rgba".contains(c));
    ((xyzw || rgba) && (1..=4).contains(&name.len())).then_some(name.len() as u8)
}

fn scalar_of(t: &Type) -> Option<ScalarType> {
    match t {
        Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix(s, ..) => Some(*s),
        _ => None,
    }
}

/// `t`'s shape with another scalar type.
fn with_scalar(t: &Type, s: ScalarType) -> Option<Type> {
    match t {
        Type::Scalar(_) => Some(Type::Scalar(s)),
        Type::Vector(_, n) => Some(Type::Vector(s, *n)),
        Type::Matrix(_, r, c) => Some(Type::Matrix(s, *r, *c)),
        _ => None,
    }
}

/// The scalar type arithmetic on `a` and `b` converts both to: float over
/// uint over int, and bool as int (HLSL's usual conversions).
fn common_scalar(a: ScalarType, b: ScalarType) -> ScalarType {
    let rank = |s| match s {
        ScalarType::Bool | ScalarType::Int => 0,
        ScalarType::Uint => 1,
        ScalarType::Float => 2,
    };
    let top = if rank(a) >= rank(b) { a } else { b };
    if top == ScalarType::Bool {
        ScalarType::Int
    } else {
        top
    }
}

fn binary(op: BinaryOp, a: &Type, b: &Type) -> Option<Type> {
    use BinaryOp::*;
    let components = |t: &Type| match t {
        Type::Scalar(_) => Some(1),
        Type::Vector(_, n) => Some(*n),
        _ => None,
    };
    let n = match (components(a)?, components(b)?) {
        (1, m) | (m, 1) => m,
        (x, y) => x.min(y),
    };
    let scalar = match op {
        Eq | Ne | Lt | Le | Gt | Ge | And | Or => ScalarType::Bool,
        Shl | Shr => common_scalar(scalar_of(a)?, scalar_of(a)?),
        _ => common_scalar(scalar_of(a)?, scalar_of(b)?),
    };
    Some(if n == 1 {
        Type::Scalar(scalar)
    } else {
        Type::Vector(scalar, n)
    })
}
