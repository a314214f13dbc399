//! Expressions of the case language.

use super::ops;
use super::place::{member, Place};
use super::thread::{fault, Ex, Exit, Run, Thread};
use crate::outcome::FaultCode;
use crate::value::{Scalar, Value};
use ser_lang::ast::*;
use ser_lang::names;

impl<'a> Thread<'a> {
    pub fn convert_to(&mut self, ty: &Type, v: Value) -> Ex<Value> {
        Ok(ops::convert(v, ty, self.w.program, &mut self.log)?)
    }

    /// Evaluates an expression; faults carry the location of the statement.
    /// A leaf (a literal, a name) is evaluated at once; so is a small
    /// expression that calls nothing (see [`runs_at_once`]), without a task
    /// of its own.
    pub fn eval<'s>(&'s mut self, e: &'a Expr) -> Run<'s, Ex<Value>> {
        if is_leaf(e) {
            let r = match self.enter_expr() {
                Ok(()) => {
                    let r = self.leaf(e);
                    self.leave_expr(r)
                }
                Err(x) => Err(x),
            };
            return Run::Done(Some(r));
        }
        Run::new(runs_at_once(e), async move {
            self.enter_expr()?;
            let r = self.eval_kind(e).await;
            self.leave_expr(r)
        })
    }

    /// Counts an expression's step and level (see [`Thread::step`],
    /// [`Thread::descend`]).
    fn enter_expr(&mut self) -> Ex<()> {
        self.step()?;
        self.descend()
    }

    /// Comes back from an expression; a fault gets the statement's location.
    fn leave_expr(&mut self, r: Ex<Value>) -> Ex<Value> {
        self.ascend();
        match r {
            Err(Exit::Fault(f)) => Err(Exit::Fault(Box::new(self.locate(*f)))),
            other => other,
        }
    }

    /// The value of a leaf expression (see [`is_leaf`]).
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

    async fn eval_kind(&mut self, e: &'a Expr) -> Ex<Value> {
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
                let v = self.eval(base).await?;
                member(program, &v, name)
            }
            ExprKind::Index(base, index) => {
                if let ExprKind::Ident(n) = &base.kind {
                    if let Some(b) = self.w.program.buffer_index(n) {
                        let i = self.scalar_arg(index).await?;
                        return Ok(self.shared.memory.borrow_mut().load(self.id, b, &i)?);
                    }
                }
                let v = self.eval(base).await?;
                let i = self.scalar_arg(index).await?;
                if let Some(why) = &i.unspecified {
                    return fault(
                        FaultCode::UnspecifiedControl,
                        format!("an index is unspecified ({why})"),
                    );
                }
                index_value(v, i.bits as usize)
            }
            // Calls are boxed: what a call may run (a trace, a shader) makes
            // its future large, and every other expression would carry it.
            ExprKind::Call { name, args } => Box::pin(self.call(name, args)).await,
            ExprKind::StaticCall {
                ty,
                method,
                template,
                args,
                ..
            } => Box::pin(self.static_call(ty, method, template.as_ref(), args)).await,
            ExprKind::MethodCall {
                receiver,
                method,
                template,
                args,
            } => Box::pin(self.method_call(receiver, method, template.as_ref(), args)).await,
            ExprKind::Construct(ty, args) => {
                let mut comps = Vec::new();
                for a in args {
                    comps.extend(self.eval(a).await?.into_components());
                }
                construct(ty, comps, &mut self.log)
            }
            ExprKind::Cast(ty, x) => {
                let v = self.eval(x).await?;
                self.convert_to(ty, v)
            }
            ExprKind::Unary(op, x) => {
                let v = self.eval(x).await?;
                Ok(ops::unary(*op, &v, &mut self.log)?)
            }
            ExprKind::Binary(op, a, b) if op.is_logical() => {
                // Short-circuit, as HLSL 2021 does for scalars.
                let left = self.condition(a).await?;
                let decided = if *op == BinaryOp::And { !left } else { left };
                if decided {
                    return Ok(Value::boolean(left));
                }
                Ok(Value::boolean(self.condition(b).await?))
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a).await?;
                let y = self.eval(b).await?;
                Ok(ops::binary(*op, &x, &y, &mut self.log)?)
            }
            ExprKind::Assign(op, target, value) => {
                let place = self.assign(*op, target, value).await?;
                self.read_place(&place)
            }
            ExprKind::IncDec {
                increment,
                prefix,
                target,
            } => {
                let place = self.place(target).await?;
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
                if self.condition(c).await? {
                    self.eval(a).await
                } else {
                    self.eval(b).await
                }
            }
        }
    }

    /// Evaluates an expression statement. The value of an assignment there
    /// is not read back: `Out[i] = v;` writes `Out[i]` and does not read it.
    pub async fn eval_for_effect(&mut self, e: &'a Expr) -> Ex<()> {
        let ExprKind::Assign(op, target, value) = &e.kind else {
            return self.eval(e).await.map(drop);
        };
        self.enter_expr()?;
        let r = self.assign(*op, target, value).await.map(|_| Value::void());
        self.leave_expr(r).map(drop)
    }

    /// `target = value` or `target op= value`: writes the place and returns
    /// it.
    async fn assign(
        &mut self,
        op: Option<BinaryOp>,
        target: &'a Expr,
        value: &'a Expr,
    ) -> Ex<Place<'a>> {
        let v = self.eval(value).await?;
        let place = self.place(target).await?;
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

    /// Evaluates an expression that must give a scalar.
    pub async fn scalar_arg(&mut self, e: &'a Expr) -> Ex<Scalar> {
        match self.eval(e).await? {
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
    pub async fn uint_arg(&mut self, e: &'a Expr, what: &str) -> Ex<u32> {
        let s = self.scalar_arg(e).await?;
        if let Some(why) = &s.unspecified {
            return fault(
                FaultCode::UnspecifiedControl,
                format!("{what} is unspecified ({why})"),
            );
        }
        let s = s.convert(ScalarType::Uint, &mut self.log);
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
    async fn call(&mut self, name: &'a str, args: &'a [Expr]) -> Ex<Value> {
        let w = self.w;
        let Some(f) = w.program.function(name) else {
            return self.intrinsic(name, args).await;
        };
        let mut values = Vec::with_capacity(args.len());
        let mut places: Vec<Option<Place<'a>>> = Vec::with_capacity(args.len());
        for (p, a) in f.params.iter().zip(args) {
            if matches!(p.mode, ParamMode::Out | ParamMode::InOut) {
                let place = self.place(a).await?;
                values.push(if p.mode == ParamMode::InOut {
                    self.read_place(&place)?
                } else {
                    Value::uint(0)
                });
                places.push(Some(place));
            } else {
                values.push(self.eval(a).await?);
                places.push(None);
            }
        }
        self.event();
        let depth = self.path.len();
        let (result, finals) = self.call_function(f, values).await;
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
    pub async fn eval_args(&mut self, args: &'a [Expr]) -> Ex<Vec<Value>> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            out.push(self.eval(a).await?);
        }
        Ok(out)
    }
}

/// Whether an expression surely completes without suspending, seen from
/// the top: it calls nothing (only a call reaches a wave operation or a
/// reorder point), within two levels so that the check stays cheap. Deeper
/// expressions run as tasks, as those that call do.
pub(super) fn runs_at_once(e: &Expr) -> bool {
    fn within(e: &Expr, levels: u32) -> bool {
        is_leaf(e)
            || levels > 0
                && !matches!(
                    e.kind,
                    ExprKind::Call { .. }
                        | ExprKind::StaticCall { .. }
                        | ExprKind::MethodCall { .. }
                )
                && e.operands_all(|x| within(x, levels - 1))
    }
    within(e, 2)
}

/// Whether an expression is a leaf: a literal or a name, which evaluates
/// without evaluating anything else.
fn is_leaf(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::IntLit { .. }
            | ExprKind::FloatLit { .. }
            | ExprKind::BoolLit(_)
            | ExprKind::Ident(_)
    )
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

/// `v[i]` for vectors, matrix rows and arrays.
pub(super) fn index_value(v: Value, i: usize) -> Ex<Value> {
    match v {
        Value::Vector(c) if i < c.len() => Ok(Value::Scalar(c[i].clone())),
        Value::Matrix { rows, cols, elems } if i < rows as usize => {
            let c = cols as usize;
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
    let comps: Vec<Scalar> = comps.iter().map(|s| s.convert(scalar, log)).collect();
    Ok(match ty {
        Type::Scalar(_) => Value::Scalar(comps[0].clone()),
        Type::Vector(..) => Value::Vector(comps),
        Type::Matrix(_, r, c) => Value::Matrix {
            rows: *r,
            cols: *c,
            elems: comps,
        },
        _ => unreachable!("checked above"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expression of each expression statement of `f`'s body.
    fn exprs(body: &str) -> Vec<Expr> {
        let lib = ser_lang::parser::parse(&format!("void f() {{ {body} }}")).expect("parses");
        let Item::Function(f) = &lib.items[0] else {
            panic!("a function")
        };
        f.body
            .stmts
            .iter()
            .map(|s| match &s.kind {
                StmtKind::Expr(e) => e.clone(),
                other => panic!("an expression statement, not {other:?}"),
            })
            .collect()
    }

    #[test]
    fn only_small_expressions_without_calls_run_at_once() {
        let at_once = |body: &str| exprs(body).iter().map(runs_at_once).collect::<Vec<_>>();
        // Operators on names and literals, two levels deep.
        assert_eq!(
            at_once(
                "x; o + 7; Out[o + 1]; Out[o] = v; p.a = -t; x = c ? a : b; y = float3(a, b, 1.0);"
            ),
            [true; 7]
        );
        // A call anywhere in it may reach a wave operation or a reorder
        // point; an intrinsic or method is a call like any other.
        assert_eq!(
            at_once("f(x); Out[o] = WaveActiveSum(v); a = h.IsHit() ? 1 : 0; b = 1 + g();"),
            [false; 4]
        );
        // Deeper than two levels: a task, whatever it holds (its operands
        // may still run at once: here `Out[o + 1]` and `v`).
        assert_eq!(
            at_once("x = a + b * c; Out[o + 1] = v; y = ((a + b) + c) + d;"),
            [false; 3]
        );
    }
}
