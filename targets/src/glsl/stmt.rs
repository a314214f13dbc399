//! Statements. Every branch and loop body is a braced block, so that the
//! statements a call needs first (payload copies, hit object records) have
//! a place before it.

use super::expr::swizzle;
use super::types::{common, convert, declare, glsl_type, scalar_of, unsupported};
use super::{Emitter, Unsupported};
use ser_lang::ast::*;
use std::collections::HashMap;

impl Emitter<'_> {
    pub fn block_body(&mut self, b: &Block) -> Result<(), Unsupported> {
        self.scopes.push(HashMap::new());
        let r = b.stmts.iter().try_for_each(|s| self.stmt(s));
        self.scopes.pop();
        r
    }

    /// A statement as a braced block's contents, in its own scope.
    fn nested(&mut self, s: &Stmt) -> Result<(), Unsupported> {
        self.indent += 1;
        let r = match &s.kind {
            StmtKind::Block(b) => self.block_body(b),
            _ => {
                self.scopes.push(HashMap::new());
                let r = self.stmt(s);
                self.scopes.pop();
                r
            }
        };
        self.indent -= 1;
        r
    }

    /// A loop condition or step: nothing may be hoisted out of it.
    fn loop_expr(&mut self, e: &Expr, cond: bool) -> Result<String, Unsupported> {
        self.conditional += 1;
        let r = if cond {
            self.cond(e)
        } else {
            self.expr(e).map(|(c, _)| strip(c))
        };
        self.conditional -= 1;
        r
    }

    pub fn stmt(&mut self, s: &Stmt) -> Result<(), Unsupported> {
        debug_assert!(self.pre.is_empty());
        match &s.kind {
            StmtKind::Block(b) => {
                self.line("{");
                self.indent += 1;
                self.block_body(b)?;
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::Decl(d) => {
                for dc in &d.declarators {
                    let ty = match dc.array_len {
                        Some(n) => Type::Array(Box::new(d.ty.clone()), n),
                        None => d.ty.clone(),
                    };
                    let ty = super::types::normalize(ty);
                    let name = super::types::mangle(&dc.name);
                    if super::ray_query::is_query(&ty) {
                        self.query_decl(&ty, &dc.name, dc.init.as_ref())?;
                    } else if ty == Type::HitObject {
                        self.line(&format!("hitObjectNV {name};"));
                        match &dc.init {
                            Some(init) => self.hit_into(&name, init)?,
                            None => {
                                // A default-constructed HitObject is a NOP.
                                self.uses.reorder = true;
                                self.pre.push(format!("hitObjectRecordEmptyNV({name});"));
                            }
                        }
                        self.flush_pre();
                    } else {
                        if self.holds_hit_object(&ty) {
                            return unsupported("a HitObject in a struct or array (the emitter keeps hit objects only as plain variables), or a RayQuery in a struct (GL_EXT_ray_query allows none)");
                        }
                        let init = match &dc.init {
                            Some(init) => Some(self.expr_as(init, &ty)?),
                            None => None,
                        };
                        self.flush_pre();
                        let decl = declare(&ty, &name)?;
                        match init {
                            Some(i) => self.line(&format!("{decl} = {i};")),
                            None => self.line(&format!("{decl};")),
                        }
                    }
                    self.declare_local(&dc.name, ty);
                }
            }
            StmtKind::Expr(e) => self.expr_stmt(e)?,
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let c = self.cond(cond)?;
                self.flush_pre();
                self.line(&format!("if ({}) {{", strip(c)));
                self.nested(then_branch)?;
                if let Some(e) = else_branch {
                    self.line("} else {");
                    self.nested(e)?;
                }
                self.line("}");
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.line("{");
                self.indent += 1;
                self.scopes.push(HashMap::new());
                if let Some(i) = init {
                    self.stmt(i)?;
                }
                let c = match cond {
                    Some(c) => strip(self.loop_expr(c, true)?),
                    None => String::new(),
                };
                let st = match step {
                    Some(st) => self.loop_expr(st, false)?,
                    None => String::new(),
                };
                self.line(&format!("for (; {c}; {st}) {{"));
                self.nested(body)?;
                self.line("}");
                self.scopes.pop();
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::While { cond, body } => {
                let c = self.loop_expr(cond, true)?;
                self.line(&format!("while ({}) {{", strip(c)));
                self.nested(body)?;
                self.line("}");
            }
            StmtKind::DoWhile { body, cond } => {
                self.line("do {");
                self.nested(body)?;
                let c = self.loop_expr(cond, true)?;
                self.line(&format!("}} while ({});", strip(c)));
            }
            StmtKind::Break => self.line("break;"),
            // HLSL's namespace of SER names; GLSL has none.
            StmtKind::UsingDx => {}
            StmtKind::Continue => self.line("continue;"),
            StmtKind::Return(None) => self.line("return;"),
            StmtKind::Return(Some(e)) => {
                let ret = self.ret.clone();
                let c = self.expr_as(e, &ret)?;
                self.flush_pre();
                self.line(&format!("return {};", strip(c)));
            }
        }
        Ok(())
    }

    fn expr_stmt(&mut self, e: &Expr) -> Result<(), Unsupported> {
        if let ExprKind::Assign(op, lhs, rhs) = &e.kind {
            if self.vector_buffer_root(lhs) {
                return self.vector_buffer_store(*op, lhs, rhs);
            }
        }
        let (code, t) = self.expr(e)?;
        self.flush_pre();
        let code = strip(code);
        // A hit object assignment is all in its hoisted statements; so is
        // a TraceRay.
        if !code.is_empty() && t != Type::HitObject {
            self.line(&format!("{code};"));
        }
        Ok(())
    }

    /// `B[i] = v`, `B[i].yx = v`, `B[i][k] op= v` on a buffer of vectors:
    /// component k of element i is word `i * N + k` (HLSL's tight stride;
    /// std430 would pad a vec3 to 16 bytes).
    fn vector_buffer_store(
        &mut self,
        op: Option<BinaryOp>,
        lhs: &Expr,
        rhs: &Expr,
    ) -> Result<(), Unsupported> {
        let (buf, index, comps) = match &lhs.kind {
            ExprKind::Index(b, i) if self.buffer_of(b).is_some() => {
                let (_, _, w) = self.buffer_of(b).expect("a buffer");
                (b, i, (0..w).collect::<Vec<_>>())
            }
            ExprKind::Member(inner, sw) => match &inner.kind {
                ExprKind::Index(b, i) if self.buffer_of(b).is_some() => {
                    let (_, _, w) = self.buffer_of(b).expect("a buffer");
                    let c = swizzle(sw, w as u8)
                        .ok_or_else(|| Unsupported(format!("`.{sw}` of a buffer element")))?;
                    (b, i, c)
                }
                _ => return unsupported("this assignment to a vector buffer element"),
            },
            ExprKind::Index(inner, k) => match (&inner.kind, &k.kind) {
                (ExprKind::Index(b, i), ExprKind::IntLit { value, .. })
                    if self.buffer_of(b).is_some() =>
                {
                    let (_, _, w) = self.buffer_of(b).expect("a buffer");
                    if *value >= w as u64 {
                        return unsupported("a component index out of range");
                    }
                    (b, i, vec![*value as u32])
                }
                _ => return unsupported("this assignment to a vector buffer element"),
            },
            _ => return unsupported("this assignment to a vector buffer element"),
        };
        let mut dup = comps.clone();
        dup.sort();
        dup.dedup();
        if dup.len() != comps.len() {
            return unsupported("a swizzle with a repeated component as an assignment target");
        }
        let (name, elem, words) = self.buffer_of(buf).expect("a buffer");
        let s = scalar_of(&elem).expect("numeric");
        let word = if s == ScalarType::Bool {
            ScalarType::Uint
        } else {
            s
        };
        let t = if comps.len() == 1 {
            Type::Scalar(s)
        } else {
            Type::Vector(s, comps.len() as u8)
        };
        let i = self.buffer_index(index)?;
        let it = self.fresh();
        let vt = self.fresh();
        let word_at = |k: u32| format!("{name}[{}]", Emitter::word_index(&it, words, k));
        let value = match op {
            None => self.expr_as(rhs, &t)?,
            Some(op) => {
                let (rc, rt) = self.expr(rhs)?;
                let ok = matches!(
                    op,
                    BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
                ) || (matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor)
                    && s != ScalarType::Float);
                if !ok || common(&t, &rt, true)? != t {
                    return unsupported(format!("`{}=` on a vector buffer element", op.symbol()));
                }
                let reads: Vec<String> = comps.iter().map(|k| word_at(*k)).collect();
                let wt = super::types::with_scalar(&t, word);
                let cur = if comps.len() == 1 {
                    reads[0].clone()
                } else {
                    format!("{}({})", glsl_type(&wt)?, reads.join(", "))
                };
                let cur = convert(cur, &wt, &t)?;
                format!("{cur} {} {}", op.symbol(), convert(rc, &rt, &t)?)
            }
        };
        self.flush_pre();
        self.line("{");
        self.indent += 1;
        self.line(&format!("uint {it} = {i};"));
        self.line(&format!("{} {vt} = {value};", glsl_type(&t)?));
        for (n, k) in comps.iter().enumerate() {
            let comp = if comps.len() == 1 {
                vt.clone()
            } else {
                format!("{vt}.{}", ["x", "y", "z", "w"][n])
            };
            let comp = convert(comp, &Type::Scalar(s), &Type::Scalar(word))?;
            self.line(&format!("{} = {comp};", word_at(*k)));
        }
        self.indent -= 1;
        self.line("}");
        Ok(())
    }
}

/// `(x)` without its outer parentheses, when they enclose all of it.
pub(crate) fn strip(code: String) -> String {
    let b = code.as_bytes();
    if b.len() < 2 || b[0] != b'(' || b[b.len() - 1] != b')' {
        return code;
    }
    let mut depth = 0;
    for (i, c) in b.iter().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 && i != b.len() - 1 {
                    return code;
                }
            }
            _ => {}
        }
    }
    code[1..code.len() - 1].to_string()
}
