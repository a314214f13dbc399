//! What a function body may say: every name it uses is declared, and every
//! call of a built-in matches one of the built-in's overloads
//! ([`ser_lang::signatures`]): the number of operands, a type argument
//! where the overload takes one, and operands of the kinds it takes. A call
//! that fits no overload is the case's mistake, found when the case loads
//! (with where it is), not a backend's failure when it runs.

use super::typing::{self, Names, Ty};
use super::{err, Program, ProgramError};
use ser_lang::ast::*;
use ser_lang::names;
use ser_lang::signatures::{self, Builtin, Callee, Operand, Template};

/// Checks one function's body.
pub(super) fn function(program: &Program, f: &FunctionDecl) -> Result<(), ProgramError> {
    let check = Check { program };
    let mut scopes = Scopes {
        program,
        function: &f.name,
        scopes: vec![f
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.ty.clone()))
            .collect()],
    };
    check.block(&f.body, &mut scopes)
}

struct Check<'p> {
    program: &'p Program,
}

/// The names declared so far in each open scope, with their types.
struct Scopes<'f> {
    program: &'f Program,
    function: &'f str,
    scopes: Vec<Vec<(&'f str, Type)>>,
}

impl Scopes<'_> {
    fn declared(&self, name: &str) -> Option<&Type> {
        self.scopes.iter().rev().find_map(|s| {
            s.iter()
                .rev()
                .find(|(n, _)| names::same(n.as_bytes(), name.as_bytes()))
                .map(|(_, t)| t)
        })
    }
}

impl Names for Scopes<'_> {
    fn var(&self, name: &str) -> Option<Ty> {
        let p = self.program;
        if let Some(b) = p.buffers.iter().find(|b| b.name == name) {
            return Some(Ty::Buffer(b.element.clone()));
        }
        if p.acceleration_structures.iter().any(|a| a == name) {
            return Some(Ty::AccelerationStructure);
        }
        if let Some((_, t, _)) = p.local_constants.iter().find(|(c, ..)| c == name) {
            return Some(Ty::Value(t.clone()));
        }
        if let Some(t) = self.declared(name) {
            return Some(Ty::Value(t.clone()));
        }
        if let Some(t) = p.file_scope(name) {
            return Some(t);
        }
        names::constant(name).map(|_| Ty::Value(Type::Scalar(ScalarType::Uint)))
    }
}

impl Check<'_> {
    fn block<'f>(&self, b: &'f Block, s: &mut Scopes<'f>) -> Result<(), ProgramError> {
        s.scopes.push(Vec::new());
        for st in &b.stmts {
            self.stmt(st, s)?;
        }
        s.scopes.pop();
        Ok(())
    }

    fn stmt<'f>(&self, st: &'f Stmt, s: &mut Scopes<'f>) -> Result<(), ProgramError> {
        match &st.kind {
            StmtKind::Block(b) => self.block(b, s),
            StmtKind::Decl(d) => {
                if let Type::RayQuery(flags, query_flags) = &d.ty {
                    self.expr(flags, s)?;
                    if let Some(q) = query_flags {
                        self.expr(q, s)?;
                    }
                }
                for dc in &d.declarators {
                    if let Some(init) = &dc.init {
                        self.expr(init, s)?;
                    }
                    let ty = match dc.array_len {
                        Some(n) => Type::Array(Box::new(d.ty.clone()), n),
                        None => d.ty.clone(),
                    };
                    s.scopes
                        .last_mut()
                        .expect("a scope is open")
                        .push((&dc.name, ty));
                }
                Ok(())
            }
            StmtKind::Expr(e) => self.expr(e, s),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.expr(cond, s)?;
                self.nested(then_branch, s)?;
                match else_branch {
                    Some(e) => self.nested(e, s),
                    None => Ok(()),
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                s.scopes.push(Vec::new());
                if let Some(i) = init {
                    self.stmt(i, s)?;
                }
                for e in cond.iter().chain(step.iter()) {
                    self.expr(e, s)?;
                }
                self.nested(body, s)?;
                s.scopes.pop();
                Ok(())
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.expr(cond, s)?;
                self.nested(body, s)
            }
            StmtKind::Return(Some(e)) => self.expr(e, s),
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) | StmtKind::UsingDx => {
                Ok(())
            }
        }
    }

    fn nested<'f>(&self, st: &'f Stmt, s: &mut Scopes<'f>) -> Result<(), ProgramError> {
        s.scopes.push(Vec::new());
        let r = self.stmt(st, s);
        s.scopes.pop();
        r
    }

    fn expr(&self, e: &Expr, s: &mut Scopes) -> Result<(), ProgramError> {
        let p = self.program;
        let fail = |m: String| Err(err(e.span, Some(s.function), m));
        match &e.kind {
            ExprKind::IntLit { .. } | ExprKind::FloatLit { .. } | ExprKind::BoolLit(_) => Ok(()),
            ExprKind::Ident(n) => {
                // The short lists first: a buffer is named at every write.
                let known = p.buffers.iter().any(|b| &b.name == n)
                    || p.acceleration_structures.contains(n)
                    || p.local_constants.iter().any(|(c, ..)| c == n)
                    || s.declared(n).is_some()
                    || p.file_scope(n).is_some()
                    || names::constant(n).is_some();
                let group_shared = || {
                    p.library
                        .items
                        .iter()
                        .any(|i| matches!(i, Item::GroupShared(g) if &g.name == n))
                };
                if known {
                    Ok(())
                } else if group_shared() {
                    fail(format!(
                        "`{n}` is groupshared memory, which ray tracing shaders cannot use"
                    ))
                } else {
                    fail(format!("`{n}` is not declared"))
                }
            }
            ExprKind::Member(r, _) => self.expr(r, s),
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) => {
                self.expr(a, s)?;
                self.expr(b, s)
            }
            ExprKind::Call { name, args } => {
                args.iter().try_for_each(|a| self.expr(a, s))?;
                if let Some(f) = p.function(name) {
                    if f.stage().is_some() {
                        return fail(format!("`{name}` is an entry point and cannot be called"));
                    }
                    if f.params.len() != args.len() {
                        return fail(format!(
                            "`{name}` takes {} argument(s), {} given",
                            f.params.len(),
                            args.len()
                        ));
                    }
                    return Ok(());
                }
                match signatures::lookup(Callee::Free, name) {
                    Some(b) => self.call(e, b, None, args, s),
                    None => fail(format!("`{name}` is not a function or intrinsic")),
                }
            }
            ExprKind::StaticCall {
                ty,
                method,
                template,
                args,
            } => {
                let builtin = (ty == "HitObject")
                    .then(|| signatures::lookup(Callee::HitObjectStatic, method))
                    .flatten();
                let Some(b) = builtin else {
                    return fail(format!("`{ty}::{method}` is not a known static function"));
                };
                args.iter().try_for_each(|a| self.expr(a, s))?;
                self.call(e, b, template.as_ref(), args, s)
            }
            ExprKind::MethodCall {
                receiver,
                method,
                template,
                args,
            } => {
                self.expr(receiver, s)?;
                args.iter().try_for_each(|a| self.expr(a, s))?;
                let receiver_ty = typing::type_of(p, s, receiver);
                let callee = typing::method_callee(receiver_ty.as_ref(), method);
                let Some(b) = signatures::lookup(callee, method) else {
                    return fail(match receiver_ty {
                        Some(t @ Ty::Value(Type::HitObject | Type::RayQuery(..))) => {
                            format!("`{method}` is not a method of {}", t.describe())
                        }
                        _ => format!("`{method}` is not a HitObject or RayQuery method"),
                    });
                };
                let wanted = match callee {
                    Callee::HitObjectMethod => Some(Operand::HitObject),
                    Callee::RayQueryMethod => Some(Operand::RayQuery),
                    _ => None,
                };
                if let (Some(t), Some(wanted)) = (&receiver_ty, wanted) {
                    if let Err(m) = fits(wanted, t) {
                        return fail(format!(
                            "`.{method}()` is called on a {}; {m}",
                            t.describe()
                        ));
                    }
                }
                self.call(e, b, template.as_ref(), args, s)
            }
            ExprKind::Construct(Type::HitObject, args) if !args.is_empty() => {
                fail("`HitObject()` takes no arguments: it is a NOP-HitObject".into())
            }
            ExprKind::Construct(_, args) => args.iter().try_for_each(|a| self.expr(a, s)),
            ExprKind::Cast(_, x) | ExprKind::Unary(_, x) | ExprKind::IncDec { target: x, .. } => {
                self.expr(x, s)
            }
            ExprKind::Ternary(a, b, c) => {
                self.expr(a, s)?;
                self.expr(b, s)?;
                self.expr(c, s)
            }
        }
    }

    /// A call of a built-in against its overloads: the operand count and
    /// the type argument pick the overload, then each operand the loader
    /// judges must be of its kind.
    fn call(
        &self,
        e: &Expr,
        b: &Builtin,
        template: Option<&Type>,
        args: &[Expr],
        s: &Scopes,
    ) -> Result<(), ProgramError> {
        let fail = |m: String| Err(err(e.span, Some(s.function), m));
        let Some(overload) = b.overload(args.len(), template.is_some()) else {
            if let Some(o) = b.overload(args.len(), template.is_none()) {
                return fail(match o.template {
                    Template::Required => format!(
                        "`{}` with {} operand(s) takes a type argument (`{}<T>(...)`)",
                        b.written(),
                        args.len(),
                        b.name
                    ),
                    Template::No => format!("`{}` takes no type argument", b.written()),
                });
            }
            let forms: Vec<String> = b
                .overloads
                .iter()
                .map(|o| {
                    let names: Vec<&str> = o.params.iter().map(|p| p.name).collect();
                    format!("({})", names.join(", "))
                })
                .collect();
            return fail(format!(
                "`{}` takes {} operand(s): {}; {} given",
                b.written(),
                b.arities(),
                forms.join(" or "),
                args.len()
            ));
        };
        for (i, (param, arg)) in overload.params.iter().zip(args).enumerate() {
            if param.ruled.is_some() {
                continue;
            }
            let Some(t) = typing::type_of(self.program, s, arg) else {
                continue;
            };
            if let Err(m) = fits(param.operand, &t) {
                return fail(format!(
                    "operand {} of `{}` ({}) is a {}; {m}",
                    i + 1,
                    b.written(),
                    param.name,
                    t.describe()
                ));
            }
        }
        Ok(())
    }
}

/// Whether a value of type `t` can be an operand of kind `operand`, and
/// what was expected when it cannot.
fn fits(operand: Operand, t: &Ty) -> Result<(), String> {
    let value = match t {
        Ty::Value(v) => Some(v),
        _ => None,
    };
    let ok = match operand {
        Operand::Numeric(n) => match value {
            Some(Type::Scalar(_)) => true,
            Some(Type::Vector(_, m)) => *m >= n,
            _ => false,
        },
        Operand::AnyNumeric => matches!(
            value,
            Some(Type::Scalar(_) | Type::Vector(..) | Type::Matrix(..))
        ),
        Operand::Ray => matches!(value, Some(Type::Struct(n)) if n == "RayDesc"),
        Operand::AccelerationStructure => *t == Ty::AccelerationStructure,
        Operand::HitObject => value == Some(&Type::HitObject),
        Operand::RayQuery => matches!(value, Some(Type::RayQuery(..))),
        Operand::Payload
        | Operand::Attributes
        | Operand::Out
        | Operand::Destination
        | Operand::Value => true,
    };
    if ok {
        return Ok(());
    }
    Err(match operand {
        Operand::Numeric(1) => "expected a number (a scalar)".to_string(),
        Operand::Numeric(n) => format!("expected a number (a scalar, or a vector of {n} or more)"),
        Operand::AnyNumeric => "expected a scalar, vector or matrix".into(),
        Operand::Ray => "expected a RayDesc".into(),
        Operand::AccelerationStructure => "expected a RaytracingAccelerationStructure".into(),
        Operand::HitObject => "expected a HitObject".into(),
        Operand::RayQuery => "expected a RayQuery".into(),
        _ => "expected another kind of operand".into(),
    })
}
