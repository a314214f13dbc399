//! What the rules need to know about one function: its expressions, the
//! declared type of each name, the `const` locals with constant values,
//! and the variables that are declared without a value and never given
//! one (an operand naming one is undefined, which the DXIL section rejects
//! where it says "Validate that ... is not undef").

use super::constant;
use crate::program::Program;
use ser_lang::ast::*;
use ser_lang::signatures::{self, Callee, Operand};
use ser_lang::Span;
use std::collections::{HashMap, HashSet};

/// Names are borrowed from the program, so that working the facts out
/// copies no name.
pub struct Facts<'p> {
    /// Every expression of the function, outermost first (the order of
    /// [`ser_lang::visit`]): listed once, for the rules that look at each.
    pub exprs: Vec<&'p Expr>,
    pub types: HashMap<&'p str, Type>,
    /// Every local declaration: name, type, where.
    pub decls: Vec<(&'p str, Type, Span)>,
    pub consts: HashMap<&'p str, u32>,
    /// The locals declared `const`, whatever their value: not places a
    /// call may write (an `inout` operand).
    pub const_vars: HashSet<&'p str>,
    pub undefined: HashSet<&'p str>,
}

/// The facts of every function of a program, worked out once for all the
/// rules that need them.
pub struct ProgramFacts<'p>(HashMap<&'p str, Facts<'p>>);

impl<'p> ProgramFacts<'p> {
    pub fn of(program: &'p Program) -> ProgramFacts<'p> {
        ProgramFacts(
            program
                .library
                .items
                .iter()
                .filter_map(|item| match item {
                    Item::Function(f) => Some((f.name.as_str(), Facts::of(program, f))),
                    _ => None,
                })
                .collect(),
        )
    }

    /// The facts of one of the program's functions.
    pub fn function(&self, f: &FunctionDecl) -> &Facts<'p> {
        &self.0[f.name.as_str()]
    }
}

impl<'p> Facts<'p> {
    fn of(program: &Program, f: &'p FunctionDecl) -> Facts<'p> {
        let mut facts = Facts {
            exprs: Vec::new(),
            types: f
                .params
                .iter()
                .map(|p| (p.name.as_str(), p.ty.clone()))
                .collect(),
            decls: Vec::new(),
            consts: HashMap::new(),
            const_vars: HashSet::new(),
            undefined: HashSet::new(),
        };
        facts.block(&f.body);
        let exprs = &mut facts.exprs;
        ser_lang::visit::function_exprs(f, &mut |e| exprs.push(e));
        // A variable anything writes is not undefined.
        for e in &facts.exprs {
            for target in written_by(program, e) {
                if let Some(root) = root_name(target) {
                    facts.undefined.remove(root);
                }
            }
        }
        facts
    }

    fn block(&mut self, b: &'p Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &'p Stmt) {
        match &s.kind {
            StmtKind::Block(b) => self.block(b),
            StmtKind::Decl(d) => {
                for dc in &d.declarators {
                    let ty = match dc.array_len {
                        Some(n) => Type::Array(Box::new(d.ty.clone()), n),
                        None => d.ty.clone(),
                    };
                    self.types.insert(&dc.name, ty.clone());
                    self.decls.push((&dc.name, ty, s.span));
                    if d.is_const {
                        self.const_vars.insert(&dc.name);
                    }
                    match &dc.init {
                        None => {
                            self.undefined.insert(&dc.name);
                        }
                        Some(init) if d.is_const => {
                            if let Some(v) = constant::eval(init, &self.consts) {
                                self.consts.insert(&dc.name, v);
                            }
                        }
                        Some(_) => {}
                    }
                }
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                self.stmt(then_branch);
                if let Some(e) = else_branch {
                    self.stmt(e);
                }
            }
            StmtKind::For { init, body, .. } => {
                if let Some(i) = init {
                    self.stmt(i);
                }
                self.stmt(body);
            }
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => self.stmt(body),
            StmtKind::Expr(_)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(_)
            | StmtKind::UsingDx => {}
        }
    }

    /// The value of an operand, if it is constant.
    pub fn constant(&self, e: &Expr) -> Option<u32> {
        constant::eval(e, &self.consts)
    }

    /// Whether an operand is a variable that never holds a value, or a
    /// member or element of one (`hint`, `p.v`, `a[0]`, `v.x`): nothing
    /// ever writes any part of it, so every part lowers to `undef`.
    pub fn is_undefined(&self, e: &Expr) -> bool {
        root_name(e).is_some_and(|n| self.undefined.contains(n))
    }

    /// The declared type of an operand that is a place: a variable, an
    /// element of an array, a member of a struct (`p`, `ps[0]`, `w.p`).
    pub fn type_of(&self, program: &Program, e: &Expr) -> Option<Type> {
        match &e.kind {
            ExprKind::Ident(n) => self.types.get(n.as_str()).cloned(),
            ExprKind::Index(base, _) => match self.type_of(program, base)? {
                Type::Array(element, _) => Some(*element),
                Type::Vector(scalar, _) => Some(Type::Scalar(scalar)),
                _ => None,
            },
            ExprKind::Member(base, field) => match self.type_of(program, base)? {
                Type::Struct(name) => program.field_index(&name, field).map(|(_, t)| t.clone()),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The variable at the root of a place (`p`, `p.f`, `a[i].x`).
pub fn root_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n),
        ExprKind::Member(b, _) | ExprKind::Index(b, _) => root_name(b),
        _ => None,
    }
}

/// The places an expression writes: assignment targets, `out`/`inout`
/// arguments of functions, the operands a built-in's signature says it
/// writes (payloads and call parameters, `out` operands), and the receivers
/// of methods (some of which change them).
fn written_by<'e>(program: &Program, e: &'e Expr) -> Vec<&'e Expr> {
    match &e.kind {
        ExprKind::Assign(_, lhs, _) => vec![lhs],
        ExprKind::IncDec { target, .. } => vec![target],
        ExprKind::MethodCall { receiver, .. } => {
            let mut out = vec![&**receiver];
            out.extend(written_operands(e));
            out
        }
        ExprKind::Call { name, args } => match program.function(name) {
            Some(f) => f
                .params
                .iter()
                .zip(args)
                .filter(|(p, _)| matches!(p.mode, ParamMode::Out | ParamMode::InOut))
                .map(|(_, a)| a)
                .collect(),
            None => written_operands(e),
        },
        _ => written_operands(e),
    }
}

/// The overload of the built-in a call is, and its operands.
fn built_in(e: &Expr) -> Option<(&'static signatures::Overload, &[Expr])> {
    let (callee, name, template, args) = match &e.kind {
        ExprKind::Call { name, args } => (Callee::Free, name, None, args),
        ExprKind::StaticCall {
            ty,
            method,
            template,
            args,
        } if ty == "HitObject" => (Callee::HitObjectStatic, method, template.as_ref(), args),
        ExprKind::MethodCall {
            method,
            template,
            args,
            ..
        } => (
            crate::program::typing::method_callee(None, method),
            method,
            template.as_ref(),
            args,
        ),
        _ => return None,
    };
    let overload = signatures::lookup(callee, name)?.overload(args.len(), template.is_some())?;
    Some((overload, args))
}

/// The operands a built-in call writes, by its signature: its payload (or
/// callable parameter) and its `out` operands.
fn written_operands(e: &Expr) -> Vec<&Expr> {
    let Some((overload, args)) = built_in(e) else {
        return Vec::new();
    };
    overload
        .params
        .iter()
        .zip(args)
        .filter(|(p, _)| matches!(p.operand, Operand::Payload | Operand::Out))
        .map(|(_, a)| a)
        .collect()
}

/// The operands of a built-in call whose kind is `operand` in its
/// signature (`Operand::Attributes`: the attributes of `ReportHit`,
/// `FromRayQuery(q, attributes)` and `FromRayQuery(q, hitKind,
/// attributes)`, ...).
pub fn operands(e: &Expr, operand: Operand) -> Vec<&Expr> {
    let Some((overload, args)) = built_in(e) else {
        return Vec::new();
    };
    overload
        .params
        .iter()
        .zip(args)
        .filter(|(p, _)| p.operand == operand)
        .map(|(_, a)| a)
        .collect()
}

/// The payload operand of a call that takes one (`TraceRay`,
/// `HitObject::TraceRay`, `HitObject::Invoke`, GL_EXT's reorder-and-execute
/// forms, the motion traces), by its signature. `CallShader`'s parameter is
/// a callable parameter, not a payload.
pub fn payload_operand(e: &Expr) -> Option<&Expr> {
    if matches!(&e.kind, ExprKind::Call { name, .. } if name == "CallShader") {
        return None;
    }
    let (overload, args) = built_in(e)?;
    args.get(signatures::payload_index(overload)?)
}
