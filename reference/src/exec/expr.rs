//! Expressions of the case language.

use super::ops;
use super::place::{member, Place};
use super::thread::{fault, Ex, Exit, Thread};
use crate::outcome::FaultCode;
use crate::value::{Scalar, Value};
use ser_lang::ast::*;
use ser_lang::names;

impl<'a> Thread<'a> {
    pub fn convert_to(&mut self, ty: &Type, v: Value) -> Ex<Value> {
        Ok(ops::convert(v, ty, self.w.program, &mut self.log)?)
    }

    /// Evaluates an expression; faults carry the location of the statement.
    pub fn eval(&mut self, e: &'a Expr) -> Ex<Value> {
        self.expression(|t| t.eval_kind(e))
    }

    /// Runs `f` as one expression: counted as a step and a level (see
    /// [`Thread::step`], [`Thread::descend`]); a fault it ends with gets the
    /// statement's location.
    fn expression<T>(&mut self, f: impl FnOnce(&mut Self) -> Ex<T>) -> Ex<T> {
        self.step()?;
        self.descend()?;
        let r = f(self);
        self.ascend();
        r.map_err(|x| match x {
            Exit::Fault(f) => Exit::Fault(Box::new(self.locate(*f))),
            other => other,
        })
    }

    /// The value of a leaf expression ([`is_leaf`]): a literal or a name,
    /// which evaluates without evaluating anything else.
    fn leaf(&mut self, e: &Expr) -> Ex<Value> {
        match &e.kind {
            ExprKind::IntLit {
                value, unsigned, ..
            } => int_literal(*value, *unsigned),
            ExprKind::FloatLit { bits, .. } => Ok(Value::float(f64::from_bits(*bits) as f32)),
            ExprKind::BoolLit(b) => Ok(Value::boolean(*b)),
            ExprKind::Ident(n) => self.ident(n),
            _ => unreachable!("`eval` takes only leaves here"),
        }
    }

    fn eval_kind(&mut self, e: &'a Expr) -> Ex<Value> {
        match &e.kind {
            ExprKind::IntLit { .. }
            | ExprKind::FloatLit { .. }
            | ExprKind::BoolLit(_)
            | ExprKind::Ident(_) => self.leaf(e),
            ExprKind::Member(base, name) => {
                let program = self.w.program;
                // A member of a variable is read in place: only it is copied.
                if let ExprKind::Ident(n) = &base.kind {
                    self.step()?;
                    if let Some(v) = self.local_mut(n) {
                        return member(program, v, name);
                    }
                    let v = self.ident(n)?;
                    return member(program, &v, name);
                }
                let v = self.eval(base)?;
                member(program, &v, name)
            }
            ExprKind::Index(base, index) => {
                if let ExprKind::Ident(n) = &base.kind {
                    if let Some(b) = self.w.program.buffer_index(n) {
                        let i = self.scalar_arg(index)?;
                        return Ok(self.shared.memory.borrow_mut().load(self.id, b, &i)?);
                    }
                    // An element of a variable, at an index that evaluates
                    // without effects (a literal or a name), is read in
                    // place: only it is copied. The variable counts as the
                    // step its evaluation would be.
                    if is_leaf(index) && self.local_mut(n).is_some() {
                        self.step()?;
                        let i = self.index(index)?;
                        let v = self.local_mut(n).expect("checked above");
                        return index_value(v, i);
                    }
                }
                let v = self.eval(base)?;
                let i = self.index(index)?;
                index_value(&v, i)
            }
            ExprKind::Call { name, args } => self.call(name, args),
            ExprKind::StaticCall {
                ty,
                method,
                template,
                args,
                ..
            } => self.static_call(ty, method, template.as_ref(), args),
            ExprKind::MethodCall {
                receiver,
                method,
                template,
                args,
            } => self.method_call(receiver, method, template.as_ref(), args),
            // `HitObject()`: "A HitObject is default-initialized to encode a
            // NOP-HitObject" (`ser.hit_object.type.default_initialized_to_nop`).
            ExprKind::Construct(Type::HitObject, _) => Ok(Value::HitObject(Box::new(
                crate::hit_object::HitObject::Nop,
            ))),
            ExprKind::Construct(ty, args) => {
                let mut comps = Vec::new();
                for a in args {
                    self.eval(a)?.push_components(&mut comps);
                }
                construct(ty, comps, &mut self.log)
            }
            ExprKind::Cast(ty, x) => {
                let v = self.eval(x)?;
                self.convert_to(ty, v)
            }
            ExprKind::Unary(op, x) => {
                let v = self.eval(x)?;
                Ok(ops::unary(*op, &v, &mut self.log)?)
            }
            ExprKind::Binary(op, a, b) if op.is_logical() => {
                // Short-circuit, as HLSL 2021 does for scalars.
                let left = self.condition(a)?;
                let decided = if *op == BinaryOp::And { !left } else { left };
                if decided {
                    return Ok(Value::boolean(left));
                }
                Ok(Value::boolean(self.condition(b)?))
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                Ok(ops::binary(*op, &x, &y, &mut self.log)?)
            }
            ExprKind::Assign(op, target, value) => {
                let place = self.assign(*op, target, value)?;
                self.read_place(&place)
            }
            ExprKind::IncDec {
                increment,
                prefix,
                target,
            } => {
                let place = self.place(target)?;
                let old = self.read_place(&place)?;
                let op = if *increment {
                    BinaryOp::Add
                } else {
                    BinaryOp::Sub
                };
                let new = ops::binary(op, &old, &Value::Scalar(Scalar::int(1)), &mut self.log)?;
                self.write_place(&place, new)?;
                if *prefix {
                    self.read_place(&place)
                } else {
                    Ok(old)
                }
            }
            ExprKind::Ternary(c, a, b) => {
                if self.condition(c)? {
                    self.eval(a)
                } else {
                    self.eval(b)
                }
            }
        }
    }

    /// Evaluates an expression statement. The value of an assignment there
    /// is not read back: `Out[i] = v;` writes `Out[i]` and does not read it.
    pub fn eval_for_effect(&mut self, e: &'a Expr) -> Ex<()> {
        let ExprKind::Assign(op, target, value) = &e.kind else {
            return self.eval(e).map(drop);
        };
        self.expression(|t| t.assign(*op, target, value)).map(drop)
    }

    /// `target = value` or `target op= value`: writes the place and returns
    /// it.
    fn assign(&mut self, op: Option<BinaryOp>, target: &'a Expr, value: &'a Expr) -> Ex<Place<'a>> {
        let v = self.eval(value)?;
        let place = self.place(target)?;
        let v = match op {
            None => v,
            Some(op) => {
                let current = self.read_place(&place)?;
                ops::binary(op, &current, &v, &mut self.log)?
            }
        };
        self.write_place(&place, v)?;
        Ok(place)
    }

    /// Evaluates an index, which decides what is read: it may not be
    /// unspecified.
    fn index(&mut self, e: &'a Expr) -> Ex<usize> {
        let i = self.scalar_arg(e)?;
        if let Some(why) = &i.unspecified {
            return fault(
                FaultCode::UnspecifiedControl,
                format!("an index is unspecified ({why})"),
            );
        }
        Ok(i.bits as usize)
    }

    /// Evaluates an expression that must give a scalar.
    pub fn scalar_arg(&mut self, e: &'a Expr) -> Ex<Scalar> {
        match self.eval(e)? {
            Value::Scalar(s) => Ok(s),
            other => fault(
                FaultCode::Unsupported,
                format!("expected a scalar, found {}", other.type_name()),
            ),
        }
    }

    /// Evaluates an expression that must give an unsigned integer whose
    /// value decides what runs (an index, a flag set): it may not be
    /// unspecified.
    pub fn uint_arg(&mut self, e: &'a Expr, what: &str) -> Ex<u32> {
        let s = self.scalar_arg(e)?;
        if let Some(why) = &s.unspecified {
            return fault(
                FaultCode::UnspecifiedControl,
                format!("{what} is unspecified ({why})"),
            );
        }
        let s = s.into_type(ScalarType::Uint, &mut self.log);
        Ok(s.bits)
    }

    fn ident(&mut self, n: &str) -> Ex<Value> {
        if let Some(v) = self.local_mut(n) {
            return Ok(v.clone());
        }
        if let Some(c) = names::constant(n) {
            return Ok(Value::uint(c));
        }
        if let Some((_, ty, offset)) = self.w.program.local_constants.iter().find(|(c, ..)| c == n)
        {
            return Ok(self.local_root_constant(ty, *offset));
        }
        if self
            .w
            .program
            .acceleration_structures
            .iter()
            .any(|a| a == n)
        {
            return Ok(acceleration_structure());
        }
        fault(
            FaultCode::Unsupported,
            format!("`{n}` cannot be used as a value here"),
        )
    }

    /// A field of the local root constant buffer, read from the record of
    /// the running shader.
    fn local_root_constant(&self, ty: &Type, offset: u32) -> Value {
        let constants = &self.invocation().constants;
        let (scalar, n) = match ty {
            Type::Vector(s, n) => (*s, *n as usize),
            Type::Scalar(s) => (*s, 1),
            _ => (ScalarType::Uint, 1),
        };
        let word = |k: usize| match constants.get(offset as usize / 4 + k) {
            Some(bits) => Scalar::new(scalar, *bits),
            None => Scalar::unspecified(
                scalar,
                "a local root constant past the end of the record's constants",
            ),
        };
        if n == 1 {
            Value::Scalar(word(0))
        } else {
            Value::Vector((0..n).map(word).collect())
        }
    }

    /// A call of an intrinsic or of a user function. User functions take
    /// `out` and `inout` arguments by copy-in, copy-out.
    fn call(&mut self, name: &'a str, args: &'a [Expr]) -> Ex<Value> {
        let w = self.w;
        let Some(f) = w.program.function(name) else {
            return self.intrinsic(name, args);
        };
        let mut values = Vec::with_capacity(args.len());
        let mut places: Vec<Option<Place<'a>>> = Vec::with_capacity(args.len());
        for (p, a) in f.params.iter().zip(args) {
            if matches!(p.mode, ParamMode::Out | ParamMode::InOut) {
                let place = self.place(a)?;
                values.push(if p.mode == ParamMode::InOut {
                    self.read_place(&place)?
                } else {
                    Value::uint(0)
                });
                places.push(Some(place));
            } else {
                values.push(self.eval(a)?);
                places.push(None);
            }
        }
        self.event();
        let depth = self.path.len();
        let (result, finals) = self.call_function(f, values);
        self.path.truncate(depth);
        let ret = result?;
        for (place, v) in places.into_iter().zip(finals) {
            if let Some(place) = place {
                self.write_place(&place, v)?;
            }
        }
        Ok(ret.unwrap_or(Value::void()))
    }

    /// Evaluates every argument.
    pub fn eval_args(&mut self, args: &'a [Expr]) -> Ex<Vec<Value>> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            out.push(self.eval(a)?);
        }
        Ok(out)
    }
}

/// The value an acceleration structure name evaluates to: the case's one
/// scene, so nothing to carry.
pub(super) fn acceleration_structure() -> Value {
    Value::Struct {
        name: "RaytracingAccelerationStructure".into(),
        fields: Vec::new(),
    }
}

fn int_literal(value: u64, unsigned: bool) -> Ex<Value> {
    if !unsigned && value <= i32::MAX as u64 {
        Ok(Value::Scalar(Scalar::int(value as i32)))
    } else if value <= u32::MAX as u64 {
        Ok(Value::uint(value as u32))
    } else {
        fault(
            FaultCode::Unsupported,
            format!("integer literal {value} does not fit in 32 bits"),
        )
    }
}

/// Whether an expression is a literal or a name, which evaluates without
/// evaluating anything else.
fn is_leaf(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::IntLit { .. }
            | ExprKind::FloatLit { .. }
            | ExprKind::BoolLit(_)
            | ExprKind::Ident(_)
    )
}

/// `v[i]` for vectors, matrix rows and arrays.
pub(super) fn index_value(v: &Value, i: usize) -> Ex<Value> {
    match v {
        Value::Vector(c) if i < c.len() => Ok(Value::Scalar(c[i].clone())),
        Value::Matrix { rows, cols, elems } if i < *rows as usize => {
            let c = *cols as usize;
            Ok(Value::Vector(elems[i * c..(i + 1) * c].to_vec()))
        }
        Value::Array(items) if i < items.len() => Ok(items[i].clone()),
        other => fault(
            FaultCode::Unsupported,
            format!("index {i} out of range of {}", other.type_name()),
        ),
    }
}

/// `T(args)`: the components of the arguments in order make the value.
fn construct(ty: &Type, comps: Vec<Scalar>, log: &mut crate::choice::ChoiceLog) -> Ex<Value> {
    let (scalar, n) = match ty {
        Type::Scalar(s) => (*s, 1),
        Type::Vector(s, n) => (*s, *n as usize),
        Type::Matrix(s, r, c) => (*s, (*r as usize) * (*c as usize)),
        _ => {
            return fault(
                FaultCode::Unsupported,
                "only numeric types have constructors",
            )
        }
    };
    let comps: Vec<Scalar> = if comps.len() == 1 && n > 1 {
        vec![comps[0].clone(); n]
    } else if comps.len() == n {
        comps
    } else {
        return fault(
            FaultCode::Unsupported,
            format!(
                "{} takes {n} components, {} given",
                ser_lang::printer::print_type(ty),
                comps.len()
            ),
        );
    };
    let mut comps: Vec<Scalar> = comps
        .into_iter()
        .map(|s| s.into_type(scalar, log))
        .collect();
    Ok(match ty {
        Type::Scalar(_) => Value::Scalar(comps.swap_remove(0)),
        Type::Vector(..) => Value::Vector(comps),
        Type::Matrix(_, r, c) => Value::Matrix {
            rows: *r,
            cols: *c,
            elems: comps,
        },
        _ => unreachable!("checked above"),
    })
}
