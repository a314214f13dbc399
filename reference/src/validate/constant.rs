//! Constant operands: the DXIL section's warnings apply "if [the operand]
//! is constant". An integer expression is constant when it is built from
//! literals, the named constants (`RAY_FLAG_*`, ...), `const` locals with
//! constant initialisers, and the integer operators.

use ser_lang::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use ser_lang::names;
use std::collections::HashMap;

/// The value of a constant integer expression, if it is one.
pub fn eval(e: &Expr, consts: &HashMap<&str, u32>) -> Option<u32> {
    Some(match &e.kind {
        ExprKind::IntLit { value, .. } => *value as u32,
        ExprKind::BoolLit(b) => *b as u32,
        ExprKind::Ident(n) => consts
            .get(n.as_str())
            .copied()
            .or_else(|| names::constant(n))?,
        ExprKind::Cast(_, x) => eval(x, consts)?,
        ExprKind::Unary(op, x) => {
            let v = eval(x, consts)?;
            match op {
                UnaryOp::Neg => v.wrapping_neg(),
                UnaryOp::Plus => v,
                UnaryOp::Not => (v == 0) as u32,
                UnaryOp::BitNot => !v,
            }
        }
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (eval(a, consts)?, eval(b, consts)?);
            use BinaryOp::*;
            match op {
                Add => a.wrapping_add(b),
                Sub => a.wrapping_sub(b),
                Mul => a.wrapping_mul(b),
                Div => a.checked_div(b)?,
                Rem => a.checked_rem(b)?,
                Shl => a.checked_shl(b)?,
                Shr => a.checked_shr(b)?,
                BitAnd => a & b,
                BitOr => a | b,
                BitXor => a ^ b,
                And => (a != 0 && b != 0) as u32,
                Or => (a != 0 || b != 0) as u32,
                Eq => (a == b) as u32,
                Ne => (a != b) as u32,
                Lt => (a < b) as u32,
                Le => (a <= b) as u32,
                Gt => (a > b) as u32,
                Ge => (a >= b) as u32,
            }
        }
        ExprKind::Ternary(c, a, b) => {
            if eval(c, consts)? != 0 {
                eval(a, consts)?
            } else {
                eval(b, consts)?
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expr(text: &str) -> Expr {
        let lib = ser_lang::parser::parse(&format!("void f() {{ x = {text}; }}")).expect("parses");
        let ser_lang::ast::Item::Function(f) = &lib.items[0] else {
            unreachable!()
        };
        let ser_lang::ast::StmtKind::Expr(e) = &f.body.stmts[0].kind else {
            unreachable!()
        };
        let ExprKind::Assign(_, _, rhs) = &e.kind else {
            unreachable!()
        };
        (**rhs).clone()
    }

    #[test]
    fn folds_flags_and_arithmetic() {
        let consts = HashMap::from([("K", 3)]);
        assert_eq!(eval(&expr("0x100 | 1"), &consts), Some(0x101));
        assert_eq!(
            eval(
                &expr("RAY_FLAG_CULL_BACK_FACING_TRIANGLES | RAY_FLAG_CULL_FRONT_FACING_TRIANGLES"),
                &consts
            ),
            Some(0x30)
        );
        assert_eq!(eval(&expr("(uint)K << 4"), &consts), Some(48));
        assert_eq!(eval(&expr("K + y"), &consts), None);
        assert_eq!(eval(&expr("1 / 0"), &consts), None);
    }
}
