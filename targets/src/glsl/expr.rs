//! Expressions: each emits as GLSL text with its HLSL type. Binary and
//! ternary expressions are fully parenthesised, and every implicit HLSL
//! conversion is written out.

use super::types::{
    common, convert, glsl_type, is_numeric, is_simple, mangle, normalize, scalar_of, unsupported,
    with_scalar,
};
use super::{Emitter, Unsupported};
use ser_lang::ast::*;

/// The marker type of an acceleration structure name.
pub(crate) const ACCEL: &str = "RaytracingAccelerationStructure";

pub(crate) type Code = (String, Type);

impl Emitter<'_> {
    pub fn local(&self, name: &str) -> Option<&Type> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    pub fn declare_local(&mut self, name: &str, t: Type) {
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .insert(name.to_string(), t);
    }

    /// The buffer a name refers to, unless a local shadows it.
    pub fn buffer_of(&self, e: &Expr) -> Option<(String, Type, u32)> {
        let ExprKind::Ident(n) = &e.kind else {
            return None;
        };
        if self.local(n).is_some() {
            return None;
        }
        self.iface
            .buffer(n)
            .map(|b| (mangle(n), b.element.clone(), b.words_per_element))
    }

    /// Whether evaluating `e` twice means the same as once.
    pub fn pure(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::IntLit { .. }
            | ExprKind::FloatLit { .. }
            | ExprKind::BoolLit(_)
            | ExprKind::Ident(_) => true,
            ExprKind::Member(b, _) => self.pure(b),
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => self.pure(a) && self.pure(b),
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) => self.pure(a),
            ExprKind::Construct(_, args) => args.iter().all(|a| self.pure(a)),
            ExprKind::Ternary(a, b, c) => self.pure(a) && self.pure(b) && self.pure(c),
            ExprKind::Call { name, args } => {
                super::builtins::PURE_INTRINSICS.contains(&name.as_str())
                    && args.iter().all(|a| self.pure(a))
            }
            _ => false,
        }
    }

    /// `e` as GLSL of type `to`.
    pub fn expr_as(&mut self, e: &Expr, to: &Type) -> Result<String, Unsupported> {
        let (code, t) = self.expr(e)?;
        convert(code, &t, to)
    }

    /// `e` as a GLSL `bool` (conditions).
    pub fn cond(&mut self, e: &Expr) -> Result<String, Unsupported> {
        let (code, t) = self.expr(e)?;
        match t {
            Type::Scalar(_) => convert(code, &t, &Type::Scalar(ScalarType::Bool)),
            _ => unsupported(format!("a condition of type {t:?}")),
        }
    }

    pub fn expr(&mut self, e: &Expr) -> Result<Code, Unsupported> {
        let (code, t) = self.expr_inner(e)?;
        Ok((code, normalize(t)))
    }

    fn expr_inner(&mut self, e: &Expr) -> Result<Code, Unsupported> {
        match &e.kind {
            ExprKind::IntLit {
                value, unsigned, ..
            } => {
                if *value > u32::MAX as u64 {
                    return unsupported(format!("integer literal {value} wider than 32 bits"));
                }
                if *unsigned || *value > i32::MAX as u64 {
                    Ok((format!("{value}u"), Type::Scalar(ScalarType::Uint)))
                } else {
                    Ok((value.to_string(), Type::Scalar(ScalarType::Int)))
                }
            }
            ExprKind::FloatLit { bits, .. } => Ok((
                float_literal(f64::from_bits(*bits) as f32),
                Type::Scalar(ScalarType::Float),
            )),
            ExprKind::BoolLit(b) => Ok((b.to_string(), Type::Scalar(ScalarType::Bool))),
            ExprKind::Ident(n) => self.ident(n),
            ExprKind::Member(base, field) => self.member(base, field),
            ExprKind::Index(base, index) => self.index(base, index),
            ExprKind::Call { name, args } => {
                if let Some(f) = self.functions.get(name.as_str()).copied() {
                    self.user_call(f, args)
                } else {
                    self.intrinsic(name, args)
                }
            }
            ExprKind::StaticCall {
                ty,
                method,
                template,
                args,
            } => {
                if ty != "HitObject" {
                    return unsupported(format!("`{ty}::{method}`"));
                }
                self.hit_object_static(e, method, template.as_ref(), args)
            }
            ExprKind::MethodCall {
                receiver,
                method,
                template,
                args,
            } => self.method(receiver, method, template.as_ref(), args),
            ExprKind::Construct(t, args) => {
                let t = normalize(t.clone());
                if !is_numeric(&t) {
                    return unsupported(format!("constructing {t:?}"));
                }
                let mut parts = Vec::new();
                for a in args {
                    let (c, at) = self.expr(a)?;
                    if !is_numeric(&at) {
                        return unsupported(format!("a constructor argument of type {at:?}"));
                    }
                    parts.push(c);
                }
                Ok((format!("{}({})", glsl_type(&t)?, parts.join(", ")), t))
            }
            ExprKind::Cast(t, x) => {
                let t = normalize(t.clone());
                let (code, xt) = self.expr(x)?;
                if xt == t {
                    return Ok((code, t));
                }
                if is_numeric(&t) && is_numeric(&xt) {
                    return Ok((convert(code, &xt, &t)?, t));
                }
                if matches!(t, Type::Struct(_) | Type::Array(..)) && matches!(xt, Type::Scalar(_)) {
                    if !is_simple(&code) {
                        return unsupported("a cast of a non-constant scalar to a struct");
                    }
                    return Ok((self.splat(&t, &code, &xt)?, t));
                }
                unsupported(format!("a cast from {xt:?} to {t:?}"))
            }
            ExprKind::Unary(op, x) => {
                let (code, t) = self.expr(x)?;
                match op {
                    UnaryOp::Plus => Ok((code, t)),
                    UnaryOp::Neg | UnaryOp::BitNot => {
                        let s = scalar_of(&t)
                            .ok_or_else(|| Unsupported(format!("`{}` on {t:?}", op.symbol())))?;
                        if *op == UnaryOp::BitNot && s == ScalarType::Float {
                            return unsupported("`~` on a float");
                        }
                        let (code, t) = if s == ScalarType::Bool {
                            let to = with_scalar(&t, ScalarType::Int);
                            (convert(code, &t, &to)?, to)
                        } else {
                            (code, t)
                        };
                        Ok((format!("({}{code})", op.symbol()), t))
                    }
                    UnaryOp::Not => match &t {
                        Type::Scalar(_) => Ok((
                            format!("(!{})", convert(code, &t, &Type::Scalar(ScalarType::Bool))?),
                            Type::Scalar(ScalarType::Bool),
                        )),
                        Type::Vector(_, n) => {
                            let b = Type::Vector(ScalarType::Bool, *n);
                            Ok((format!("not({})", convert(code, &t, &b)?), b))
                        }
                        _ => unsupported(format!("`!` on {t:?}")),
                    },
                }
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b),
            ExprKind::Assign(op, lhs, rhs) => self.assign(*op, lhs, rhs),
            ExprKind::IncDec {
                increment,
                prefix,
                target,
            } => {
                if self.vector_buffer_root(target) {
                    return unsupported("++/-- on an element of a vector buffer");
                }
                let (code, t) = self.expr(target)?;
                if !matches!(
                    scalar_of(&t),
                    Some(ScalarType::Int | ScalarType::Uint | ScalarType::Float)
                ) {
                    return unsupported(format!("++/-- on {t:?}"));
                }
                let o = if *increment { "++" } else { "--" };
                Ok((
                    if *prefix {
                        format!("({o}{code})")
                    } else {
                        format!("({code}{o})")
                    },
                    t,
                ))
            }
            ExprKind::Ternary(c, a, b) => {
                let (cc, ct) = self.expr(c)?;
                self.conditional += 1;
                let ra = self.expr(a);
                let rb = self.expr(b);
                self.conditional -= 1;
                let ((ac, at), (bc, bt)) = (ra?, rb?);
                let t = if is_numeric(&at) && is_numeric(&bt) {
                    common(&at, &bt, false)?
                } else if at == bt {
                    at.clone()
                } else {
                    return unsupported(format!("?: on {at:?} and {bt:?}"));
                };
                if self.holds_hit_object(&t) {
                    return unsupported("?: on hit objects or ray queries");
                }
                let (ac, bc) = (convert(ac, &at, &t)?, convert(bc, &bt, &t)?);
                match &ct {
                    Type::Scalar(_) => Ok((
                        format!(
                            "({} ? {ac} : {bc})",
                            convert(cc, &ct, &Type::Scalar(ScalarType::Bool))?
                        ),
                        t,
                    )),
                    Type::Vector(_, n) if matches!(t, Type::Vector(_, m) if m == *n) => {
                        if !(self.pure(a) && self.pure(b)) {
                            return unsupported("a vector ?: with side effects");
                        }
                        let bc_ = convert(cc, &ct, &Type::Vector(ScalarType::Bool, *n))?;
                        Ok((format!("mix({bc}, {ac}, {bc_})"), t))
                    }
                    _ => unsupported(format!("a ?: condition of type {ct:?}")),
                }
            }
        }
    }

    fn ident(&mut self, n: &str) -> Result<Code, Unsupported> {
        if let Some(t) = self.local(n) {
            return Ok((mangle(n), t.clone()));
        }
        if let Some(t) = self.constants.get(n) {
            return Ok((mangle(n), t.clone()));
        }
        if let Some(v) = ser_lang::names::constant(n) {
            return Ok((format!("{v}u"), Type::Scalar(ScalarType::Uint)));
        }
        if let Some(b) = self.iface.buffer(n) {
            return Ok((mangle(n), Type::Array(Box::new(b.element.clone()), 0)));
        }
        if self.iface.acceleration_structure.as_deref() == Some(n) {
            return Ok((mangle(n), Type::Struct(ACCEL.into())));
        }
        unsupported(format!("`{n}` (not a local, constant or resource)"))
    }

    /// Whether a place is (part of) an element of a buffer of vectors.
    pub fn vector_buffer_root(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Index(b, _) => {
                self.buffer_of(b).is_some_and(|(_, _, w)| w > 1) || self.vector_buffer_root(b)
            }
            ExprKind::Member(b, _) => self.vector_buffer_root(b),
            _ => false,
        }
    }

    /// `B[i]` of a buffer of N-word elements: the words' index expression
    /// for component `k`.
    pub fn word_index(index: &str, words: u32, k: u32) -> String {
        if words == 1 {
            index.to_string()
        } else {
            format!("{index} * {words}u + {k}u")
        }
    }

    /// A buffer element's index as GLSL `uint`.
    pub fn buffer_index(&mut self, index: &Expr) -> Result<String, Unsupported> {
        let (c, t) = self.expr(index)?;
        match t {
            Type::Scalar(ScalarType::Uint) => Ok(c),
            Type::Scalar(_) => convert(c, &t, &Type::Scalar(ScalarType::Uint)),
            _ => unsupported(format!("a buffer index of type {t:?}")),
        }
    }

    /// Reads components `comps` of element `index` of a vector buffer.
    fn buffer_components(
        &mut self,
        name: &str,
        elem: &Type,
        words: u32,
        index: &Expr,
        comps: &[u32],
    ) -> Result<Code, Unsupported> {
        if comps.len() > 1 && !self.pure(index) {
            return unsupported("a vector buffer element read with an index that has side effects");
        }
        let i = self.buffer_index(index)?;
        let s = scalar_of(elem).expect("buffer elements are numeric");
        let reads: Vec<String> = comps
            .iter()
            .map(|k| format!("{name}[{}]", Self::word_index(&i, words, *k)))
            .collect();
        let word = match s {
            ScalarType::Bool => ScalarType::Uint,
            s => s,
        };
        if comps.len() == 1 {
            let code = convert(reads[0].clone(), &Type::Scalar(word), &Type::Scalar(s))?;
            return Ok((code, Type::Scalar(s)));
        }
        let t = Type::Vector(s, comps.len() as u8);
        let wt = Type::Vector(word, comps.len() as u8);
        Ok((
            convert(
                format!("{}({})", glsl_type(&wt)?, reads.join(", ")),
                &wt,
                &t,
            )?,
            t,
        ))
    }

    fn member(&mut self, base: &Expr, field: &str) -> Result<Code, Unsupported> {
        // A swizzle of a vector buffer element reads just those words.
        if let ExprKind::Index(b, i) = &base.kind {
            if let Some((name, elem, words)) = self.buffer_of(b) {
                if words > 1 {
                    let comps = swizzle(field, words as u8)
                        .ok_or_else(|| Unsupported(format!("`.{field}` of a buffer element")))?;
                    return self.buffer_components(&name, &elem, words, i, &comps);
                }
            }
        }
        let (code, t) = self.expr(base)?;
        match &t {
            Type::Struct(n) if n != ACCEL => {
                let fields = self.struct_fields(n)?;
                let ft = fields
                    .iter()
                    .find(|(f, _)| f == field)
                    .map(|(_, t)| t.clone())
                    .ok_or_else(|| Unsupported(format!("no field `{field}` in `{n}`")))?;
                Ok((format!("{code}.{}", mangle(field)), ft))
            }
            Type::Vector(s, n) => {
                let comps =
                    swizzle(field, *n).ok_or_else(|| Unsupported(format!("swizzle `.{field}`")))?;
                let rt = if comps.len() == 1 {
                    Type::Scalar(*s)
                } else {
                    Type::Vector(*s, comps.len() as u8)
                };
                Ok((format!("{code}.{field}"), rt))
            }
            Type::Scalar(s) => {
                let comps = swizzle(field, 1)
                    .ok_or_else(|| Unsupported(format!("swizzle `.{field}` of a scalar")))?;
                if comps.len() == 1 {
                    Ok((code, t.clone()))
                } else {
                    let rt = Type::Vector(*s, comps.len() as u8);
                    Ok((format!("{}({code})", glsl_type(&rt)?), rt))
                }
            }
            _ => unsupported(format!("`.{field}` on {t:?}")),
        }
    }

    fn index(&mut self, base: &Expr, index: &Expr) -> Result<Code, Unsupported> {
        if let Some((name, elem, words)) = self.buffer_of(base) {
            if words == 1 {
                let i = self.buffer_index(index)?;
                let s = scalar_of(&elem).expect("numeric");
                let code = format!("{name}[{i}]");
                return if s == ScalarType::Bool {
                    Ok((convert(code, &Type::Scalar(ScalarType::Uint), &elem)?, elem))
                } else {
                    Ok((code, elem))
                };
            }
            let comps: Vec<u32> = (0..words).collect();
            return self.buffer_components(&name, &elem, words, index, &comps);
        }
        let (bc, bt) = self.expr(base)?;
        let (ic, it) = self.expr(index)?;
        let ic = match it {
            Type::Scalar(ScalarType::Int | ScalarType::Uint) => ic,
            Type::Scalar(_) => convert(ic, &it, &Type::Scalar(ScalarType::Uint))?,
            _ => return unsupported(format!("an index of type {it:?}")),
        };
        let t = match &bt {
            Type::Array(e, n) if *n > 0 => (**e).clone(),
            Type::Vector(s, _) => Type::Scalar(*s),
            // Column r of the GLSL matrix is HLSL row r (see types.rs).
            Type::Matrix(s, _, c) => Type::Vector(*s, *c),
            _ => return unsupported(format!("indexing {bt:?}")),
        };
        Ok((format!("{bc}[{ic}]"), t))
    }

    fn user_call(&mut self, f: &FunctionDecl, args: &[Expr]) -> Result<Code, Unsupported> {
        let mut parts = Vec::new();
        for (p, a) in f.params.iter().zip(args) {
            match p.mode {
                ParamMode::Default | ParamMode::In => {
                    if p.ty == Type::HitObject {
                        parts.push(self.hit_value(a)?);
                    } else if matches!(p.ty, Type::RayQuery(..)) {
                        parts.push(self.query_argument(a, &p.ty)?);
                    } else {
                        parts.push(self.expr_as(a, &p.ty)?);
                    }
                }
                ParamMode::Out | ParamMode::InOut => {
                    if self.vector_buffer_root(a) {
                        return unsupported("an element of a vector buffer as an out argument");
                    }
                    let (c, t) = self.expr(a)?;
                    if t != normalize(p.ty.clone()) {
                        return unsupported(format!(
                            "an out argument of type {t:?} for a parameter of type {:?}",
                            p.ty
                        ));
                    }
                    parts.push(c);
                }
            }
        }
        Ok((
            format!("{}({})", mangle(&f.name), parts.join(", ")),
            normalize(f.return_type.clone()),
        ))
    }

    fn binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr) -> Result<Code, Unsupported> {
        use BinaryOp::*;
        let bool_t = Type::Scalar(ScalarType::Bool);
        if op.is_logical() {
            let ac = self.cond(a)?;
            self.conditional += 1;
            let bc = self.cond(b);
            self.conditional -= 1;
            return Ok((format!("({ac} {} {})", op.symbol(), bc?), bool_t));
        }
        let (ac, at) = self.expr(a)?;
        let (bc, bt) = self.expr(b)?;
        if !is_numeric(&at) || !is_numeric(&bt) {
            return unsupported(format!("`{}` on {at:?} and {bt:?}", op.symbol()));
        }
        match op {
            Shl | Shr => {
                let t = common(&at, &at, true)?;
                if scalar_of(&t) == Some(ScalarType::Float) {
                    return unsupported("a shift of a float");
                }
                let ac = convert(ac, &at, &t)?;
                let amount = match (&t, &bt) {
                    (_, Type::Scalar(_)) => Type::Scalar(ScalarType::Uint),
                    (Type::Vector(_, n), Type::Vector(_, m)) if m >= n => {
                        Type::Vector(ScalarType::Uint, *n)
                    }
                    _ => return unsupported(format!("a shift of {t:?} by {bt:?}")),
                };
                // HLSL uses the low 5 bits of the shift amount.
                let small = bc
                    .trim_end_matches('u')
                    .parse::<u32>()
                    .is_ok_and(|v| v < 32);
                let bc = if small {
                    bc
                } else {
                    format!("({} & 31u)", convert(bc, &bt, &amount)?)
                };
                Ok((format!("({ac} {} {bc})", op.symbol()), t))
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let mut t = common(&at, &bt, false)?;
                if scalar_of(&t) == Some(ScalarType::Bool) && !matches!(op, Eq | Ne) {
                    t = with_scalar(&t, ScalarType::Int);
                }
                let (ac, bc) = (convert(ac, &at, &t)?, convert(bc, &bt, &t)?);
                match &t {
                    Type::Scalar(_) => Ok((format!("({ac} {} {bc})", op.symbol()), bool_t)),
                    Type::Vector(_, n) => {
                        let f = match op {
                            Eq => "equal",
                            Ne => "notEqual",
                            Lt => "lessThan",
                            Le => "lessThanEqual",
                            Gt => "greaterThan",
                            _ => "greaterThanEqual",
                        };
                        Ok((
                            format!("{f}({ac}, {bc})"),
                            Type::Vector(ScalarType::Bool, *n),
                        ))
                    }
                    _ => unsupported("a comparison of matrices"),
                }
            }
            _ => {
                let t = common(&at, &bt, true)?;
                let s = scalar_of(&t).expect("numeric");
                if matches!(op, BitAnd | BitOr | BitXor) && s == ScalarType::Float {
                    return unsupported("a bitwise operator on floats");
                }
                let (acv, bcv) = (convert(ac, &at, &t)?, convert(bc, &bt, &t)?);
                if op == Mul && matches!(at, Type::Matrix(..)) && matches!(bt, Type::Matrix(..)) {
                    return Ok((format!("matrixCompMult({acv}, {bcv})"), t));
                }
                if op == Rem {
                    match s {
                        ScalarType::Float => return unsupported("`%` on floats"),
                        ScalarType::Int => {
                            // HLSL's `%` takes the dividend's sign; GLSL's is
                            // undefined for negative operands.
                            if !(self.pure(a) && self.pure(b)) {
                                return unsupported("`%` on ints with side effects");
                            }
                            return Ok((format!("({acv} - {bcv} * ({acv} / {bcv}))"), t));
                        }
                        _ => {}
                    }
                }
                Ok((format!("({acv} {} {bcv})", op.symbol()), t))
            }
        }
    }

    fn assign(
        &mut self,
        op: Option<BinaryOp>,
        lhs: &Expr,
        rhs: &Expr,
    ) -> Result<Code, Unsupported> {
        if self.vector_buffer_root(lhs) {
            return unsupported("an assignment to a vector buffer element used as a value");
        }
        let (lc, lt) = self.expr(lhs)?;
        if super::ray_query::is_query(&lt) {
            return unsupported(
                "an assignment of a RayQuery (DXR shares the query, dxr.ray_query.type.assignment_shares_state; a rayQueryEXT cannot be assigned)",
            );
        }
        if lt == Type::HitObject {
            if op.is_some() {
                return unsupported("compound assignment of a hit object");
            }
            self.hit_into(&lc, rhs)?;
            return Ok((lc, lt));
        }
        match op {
            None => {
                let rc = self.expr_as(rhs, &lt)?;
                Ok((format!("({lc} = {rc})"), lt))
            }
            Some(op) => {
                let (_, rt) = {
                    // Type of the right side, emitted later with the value.
                    let saved = (self.pre.len(), self.tmp);
                    let r = self.expr(rhs)?;
                    self.pre.truncate(saved.0);
                    self.tmp = saved.1;
                    r
                };
                let direct = match op {
                    BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Rem | BinaryOp::Mul
                        if matches!(lt, Type::Matrix(..)) =>
                    {
                        false
                    }
                    BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Rem => false,
                    _ => is_numeric(&rt) && common(&lt, &rt, true).is_ok_and(|c| c == lt),
                };
                if direct {
                    let rc = self.expr_as(rhs, &lt)?;
                    return Ok((format!("({lc} {}= {rc})", op.symbol()), lt));
                }
                if !self.pure(lhs) {
                    return unsupported("a compound assignment to a place with side effects");
                }
                let (vc, vt) = self.binary(op, lhs, rhs)?;
                let vc = convert(vc, &vt, &lt)?;
                Ok((format!("({lc} = {vc})"), lt))
            }
        }
    }

    /// `t` with every component `code` (of scalar type `from`): `(S)0`.
    pub fn splat(&self, t: &Type, code: &str, from: &Type) -> Result<String, Unsupported> {
        match t {
            Type::Scalar(_) | Type::Vector(..) | Type::Matrix(..) => {
                convert(code.to_string(), from, t)
            }
            Type::Struct(n) => {
                let fields = self.struct_fields(n)?.clone();
                let parts = fields
                    .iter()
                    .map(|(_, ft)| self.splat(ft, code, from))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(format!("{}({})", mangle(n), parts.join(", ")))
            }
            Type::Array(e, n) => {
                let one = self.splat(e, code, from)?;
                Ok(format!(
                    "{}({})",
                    glsl_type(t)?,
                    vec![one; *n as usize].join(", ")
                ))
            }
            _ => unsupported(format!("a cast of a scalar to {t:?}")),
        }
    }
}

/// The components a swizzle names, if valid for a vector of `n`.
pub(crate) fn swizzle(s: &str, n: u8) -> Option<Vec<u32>> {
    if s.is_empty() || s.len() > 4 {
        return None;
    }
    let sets = ["xyzw", "rgba"];
    for set in sets {
        let comps: Option<Vec<u32>> = s.chars().map(|c| set.find(c).map(|i| i as u32)).collect();
        if let Some(c) = comps {
            if c.iter().all(|&k| k < n.max(1) as u32) {
                return Some(c);
            }
            return None;
        }
    }
    None
}

/// A float literal GLSL reads as exactly this `f32`.
pub(crate) fn float_literal(v: f32) -> String {
    if v.is_nan() || v.is_infinite() {
        return format!("uintBitsToFloat(0x{:08x}u)", v.to_bits());
    }
    let s = format!("{v:?}");
    if s.contains('.') || s.contains('e') || s.contains("inf") {
        s
    } else {
        format!("{s}.0")
    }
}
