//! Prints the IR back to canonical shader text, or to HLSL as a target
//! compiler reads it ([`print_as`] with a [`Spelling`]).
//!
//! `parse(print(ir)) == ir` for every IR the parser produces, and printing is
//! a fixpoint: `print(parse(print(ir))) == print(ir)`. Comments and layout of
//! the original text are not kept.

use crate::ast::*;
use std::collections::BTreeMap;
use std::fmt::Write;

/// How a target spells a library. The case language is HLSL; a compiler
/// for Vulkan also wants each resource's binding and the shader record
/// marked, and Shader Model 6.9 wants SER's names in namespace `dx`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spelling {
    /// Qualify SER's names ([`crate::names::DX_NAMESPACE`]) with `dx::`.
    pub dx: bool,
    /// Spell each SER name as the library wrote it ([`Library::name_uses`]),
    /// whatever `dx` says.
    pub as_written: bool,
    /// `[[vk::binding(BINDING, SET)]]` before each resource named here.
    pub vk_bindings: BTreeMap<String, (u32, u32)>,
    /// The register space whose `cbuffer` holds a record's local root
    /// constants: it is printed as the shader record,
    /// `[[vk::shader_record]]`.
    pub shader_record_space: Option<String>,
    /// `#line N` before each item, field and statement, N its line in the
    /// case's own text: a compiler's messages then point into the case.
    pub line_directives: bool,
}

/// The library in the case language's canonical spelling (SER's names in
/// namespace `dx` when the library spells them so).
pub fn print(lib: &Library) -> String {
    print_as(
        lib,
        &Spelling {
            as_written: true,
            ..Spelling::default()
        },
    )
}

/// The library in a target's spelling.
pub fn print_as(lib: &Library, spelling: &Spelling) -> String {
    let mut p = Printer {
        spelling: Some(spelling),
        uses: &lib.name_uses,
        ..Printer::default()
    };
    for (i, item) in lib.items.iter().enumerate() {
        if i > 0 {
            p.out.push('\n');
        }
        for _ in lib.using_dx.iter().filter(|u| **u == i) {
            p.out.push_str("using namespace dx;\n");
        }
        p.item(item);
    }
    for _ in lib.using_dx.iter().filter(|u| **u == lib.items.len()) {
        p.out.push_str("using namespace dx;\n");
    }
    p.out
}

/// Prints one expression (for messages and for backends that emit text).
pub fn print_expr(e: &Expr) -> String {
    let mut p = Printer::default();
    p.expr(e, 0);
    p.out
}

/// Prints one type.
pub fn print_type(t: &Type) -> String {
    let mut p = Printer::default();
    p.ty(t);
    p.out
}

#[derive(Default)]
struct Printer<'a> {
    out: String,
    indent: usize,
    /// The target's spelling; none for an expression or type printed alone.
    spelling: Option<&'a Spelling>,
    /// The library's SER name uses, in the order the printer meets them.
    uses: &'a [NameUse],
    next_use: usize,
}

impl<'a> Printer<'a> {
    /// A name of [`names::DX_NAMESPACE`], qualified when the library spells
    /// them in namespace `dx`.
    fn ser_name(&mut self, name: &str) {
        if crate::names::DX_NAMESPACE.contains(&name) {
            let written = self.uses.get(self.next_use).is_some_and(|u| u.qualified);
            self.next_use += 1;
            let qualify = match self.spelling {
                Some(s) if s.as_written => written,
                Some(s) => s.dx,
                None => false,
            };
            if qualify {
                self.out.push_str("dx::");
            }
        }
        self.out.push_str(name);
    }

    /// `#line N` on a line of its own, when the spelling asks for them.
    fn line_directive(&mut self, span: crate::span::Span) {
        if span.line > 0 && self.spelling.is_some_and(|s| s.line_directives) {
            let _ = writeln!(self.out, "#line {}", span.line);
        }
    }

    /// A target's attributes before a resource or `cbuffer`.
    fn target_attributes(&mut self, name: &str, register: &Option<Register>) {
        let Some(s) = self.spelling else { return };
        if let Some((binding, set)) = s.vk_bindings.get(name) {
            let _ = write!(self.out, "[[vk::binding({binding}, {set})]] ");
        }
        let space = register.as_ref().and_then(|r| r.space.as_ref());
        if space.is_some() && space == s.shader_record_space.as_ref() {
            self.out.push_str("[[vk::shader_record]] ");
        }
    }
}

/// Precedence levels for parenthesisation: assignment < ternary < binary
/// operators (1..=10) < unary < postfix.
const ASSIGN: u8 = 0;
const TERNARY: u8 = 0;
const UNARY: u8 = 20;
const POSTFIX: u8 = 30;

impl Printer<'_> {
    fn line_start(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
    }

    fn attributes(&mut self, attrs: &[Attribute]) {
        for a in attrs {
            self.out.push('[');
            self.out.push_str(&a.name);
            if !a.args.is_empty() {
                let _ = write!(self.out, "({})", a.args.join(", "));
            }
            self.out.push(']');
        }
        if !attrs.is_empty() {
            self.out.push('\n');
        }
    }

    fn item(&mut self, item: &Item) {
        self.line_directive(item.span());
        match item {
            Item::Struct(s) => {
                // DXR's place for `[raypayload]`: `struct [raypayload] Name`.
                self.out.push_str("struct ");
                for a in &s.attributes {
                    let _ = write!(self.out, "[{}] ", a.name);
                }
                let _ = write!(self.out, "{}", s.name);
                if let Some(b) = &s.base {
                    let _ = write!(self.out, " : {b}");
                }
                self.out.push_str(" {\n");
                self.fields(&s.fields);
                self.out.push_str("};\n");
            }
            Item::Resource(r) => {
                self.target_attributes(&r.name, &r.register);
                for s in &r.storage {
                    self.out.push_str(s);
                    self.out.push(' ');
                }
                self.out.push_str(r.kind.type_name());
                if let Some(t) = r.kind.element() {
                    self.out.push('<');
                    self.ty(t);
                    self.out.push('>');
                }
                let _ = write!(self.out, " {}", r.name);
                for n in &r.dims {
                    let _ = write!(self.out, "[{n}]");
                }
                self.register(&r.register);
                self.out.push_str(";\n");
            }
            Item::CBuffer(c) => {
                self.target_attributes(&c.name, &c.register);
                let keyword = if c.texture { "tbuffer" } else { "cbuffer" };
                let _ = write!(self.out, "{keyword} {}", c.name);
                self.register(&c.register);
                self.out.push_str(" {\n");
                self.fields(&c.fields);
                self.out.push_str("};\n");
            }
            Item::GroupShared(g) => {
                for w in &g.storage {
                    let _ = write!(self.out, "{w} ");
                }
                self.out.push_str("groupshared ");
                self.declared(&g.ty, &g.name);
                self.out.push_str(";\n");
            }
            Item::Global(g) => {
                for w in &g.storage {
                    let _ = write!(self.out, "{w} ");
                }
                self.declared(&g.ty, &g.name);
                self.out.push_str(";\n");
            }
            Item::Function(f) => {
                self.attributes(&f.attributes);
                for q in &f.qualifiers {
                    let _ = write!(self.out, "{q} ");
                }
                self.ty(&f.return_type);
                let _ = write!(self.out, " {}(", f.name);
                for (i, p) in f.params.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    match p.mode {
                        ParamMode::Default => {}
                        ParamMode::In => self.out.push_str("in "),
                        ParamMode::Out => self.out.push_str("out "),
                        ParamMode::InOut => self.out.push_str("inout "),
                    }
                    for q in &p.qualifiers {
                        let _ = write!(self.out, "{q} ");
                    }
                    self.declared(&p.ty, &p.name);
                    if let Some(s) = &p.semantic {
                        let _ = write!(self.out, " : {s}");
                    }
                }
                self.out.push_str(") ");
                if let Some(s) = &f.return_semantic {
                    let _ = write!(self.out, ": {s} ");
                }
                self.block(&f.body);
                self.out.push('\n');
            }
        }
    }

    fn register(&mut self, r: &Option<Register>) {
        if let Some(r) = r {
            let _ = write!(self.out, " : register({}", r.slot);
            if let Some(s) = &r.space {
                let _ = write!(self.out, ", {s}");
            }
            self.out.push(')');
        }
    }

    fn fields(&mut self, fields: &[Field]) {
        self.indent += 1;
        for f in fields {
            self.line_directive(f.span);
            self.line_start();
            self.declared(&f.ty, &f.name);
            for a in &f.access {
                let kind = match &a.kind {
                    AccessKind::Read => "read",
                    AccessKind::Write => "write",
                    AccessKind::Other(name) => name,
                };
                let _ = write!(self.out, " : {kind}({})", a.stages.join(", "));
            }
            if let Some(s) = &f.semantic {
                let _ = write!(self.out, " : {s}");
            }
            self.out.push_str(";\n");
        }
        self.indent -= 1;
    }

    /// `T name` or `T name[N]` for array types.
    fn declared(&mut self, ty: &Type, name: &str) {
        match ty {
            Type::Array(elem, n) => {
                self.ty(elem);
                let _ = write!(self.out, " {name}[{n}]");
            }
            _ => {
                self.ty(ty);
                let _ = write!(self.out, " {name}");
            }
        }
    }

    fn ty(&mut self, t: &Type) {
        match t {
            Type::Void => self.out.push_str("void"),
            Type::Scalar(s) => self.out.push_str(s.name()),
            // Longer than 4: Shader Model 6.9's long vectors, which have
            // no `float5` name.
            Type::Vector(s, n) if *n > 4 => {
                let _ = write!(self.out, "vector<{}, {n}>", s.name());
            }
            Type::Vector(s, n) => {
                let _ = write!(self.out, "{}{n}", s.name());
            }
            Type::Matrix(s, r, c) => {
                let _ = write!(self.out, "{}{r}x{c}", s.name());
            }
            Type::Struct(n) => self.out.push_str(n),
            Type::HitObject => self.ser_name("HitObject"),
            Type::RayQuery(flags, query_flags) => {
                self.out.push_str("RayQuery<");
                self.template_argument(flags);
                if let Some(q) = query_flags {
                    self.out.push_str(", ");
                    self.template_argument(q);
                }
                self.out.push('>');
            }
            Type::Array(elem, n) => {
                self.ty(elem);
                let _ = write!(self.out, "[{n}]");
            }
            Type::Object {
                name,
                element,
                count,
            } => {
                let _ = write!(self.out, "{name}<");
                self.ty(element);
                if let Some(n) = count {
                    let _ = write!(self.out, ", {n}");
                }
                self.out.push('>');
            }
        }
    }

    fn block(&mut self, b: &Block) {
        self.out.push_str("{\n");
        self.indent += 1;
        for s in &b.stmts {
            self.stmt(s);
        }
        self.indent -= 1;
        self.line_start();
        self.out.push('}');
    }

    fn stmt(&mut self, s: &Stmt) {
        self.line_directive(s.span);
        self.line_start();
        self.stmt_body(s);
        self.out.push('\n');
    }

    /// A statement after its indentation, without the final newline.
    fn stmt_body(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Block(b) => self.block(b),
            StmtKind::Decl(d) => {
                self.decl(d);
                self.out.push(';');
            }
            StmtKind::Expr(e) => {
                self.expr(e, ASSIGN);
                self.out.push(';');
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.out.push_str("if (");
                self.expr(cond, ASSIGN);
                self.out.push(')');
                self.branch(then_branch);
                if let Some(e) = else_branch {
                    if matches!(then_branch.kind, StmtKind::Block(_)) {
                        self.out.push(' ');
                    } else {
                        self.out.push('\n');
                        self.line_start();
                    }
                    self.out.push_str("else");
                    if matches!(e.kind, StmtKind::If { .. }) {
                        self.out.push(' ');
                        self.stmt_body(e);
                    } else {
                        self.branch(e);
                    }
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.out.push_str("for (");
                match init {
                    Some(i) => self.stmt_body(i),
                    None => self.out.push(';'),
                }
                if let Some(c) = cond {
                    self.out.push(' ');
                    self.expr(c, ASSIGN);
                }
                self.out.push(';');
                if let Some(st) = step {
                    self.out.push(' ');
                    self.expr(st, ASSIGN);
                }
                self.out.push(')');
                self.branch(body);
            }
            StmtKind::While { cond, body } => {
                self.out.push_str("while (");
                self.expr(cond, ASSIGN);
                self.out.push(')');
                self.branch(body);
            }
            StmtKind::DoWhile { body, cond } => {
                self.out.push_str("do");
                self.branch(body);
                if matches!(body.kind, StmtKind::Block(_)) {
                    self.out.push(' ');
                } else {
                    self.out.push('\n');
                    self.line_start();
                }
                self.out.push_str("while (");
                self.expr(cond, ASSIGN);
                self.out.push_str(");");
            }
            StmtKind::Break => self.out.push_str("break;"),
            StmtKind::UsingDx => self.out.push_str("using namespace dx;"),
            StmtKind::Continue => self.out.push_str("continue;"),
            StmtKind::Return(v) => {
                self.out.push_str("return");
                if let Some(v) = v {
                    self.out.push(' ');
                    self.expr(v, ASSIGN);
                }
                self.out.push(';');
            }
        }
    }

    /// The body of `if`/`for`/`while`: a block on the same line, any other
    /// statement indented on the next.
    fn branch(&mut self, s: &Stmt) {
        if let StmtKind::Block(b) = &s.kind {
            self.out.push(' ');
            self.block(b);
        } else {
            self.out.push('\n');
            self.indent += 1;
            self.line_start();
            self.stmt_body(s);
            self.indent -= 1;
        }
    }

    fn decl(&mut self, d: &VarDecl) {
        if d.is_const {
            self.out.push_str("const ");
        }
        self.ty(&d.ty);
        for (i, dc) in d.declarators.iter().enumerate() {
            self.out.push_str(if i == 0 { " " } else { ", " });
            self.out.push_str(&dc.name);
            if let Some(n) = dc.array_len {
                let _ = write!(self.out, "[{n}]");
            }
            if let Some(init) = &dc.init {
                self.out.push_str(" = ");
                self.expr(init, ASSIGN);
            }
        }
    }

    fn args(&mut self, args: &[Expr]) {
        self.out.push('(');
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.expr(a, ASSIGN);
        }
        self.out.push(')');
    }

    fn template(&mut self, t: &Option<Type>) {
        if let Some(t) = t {
            self.out.push('<');
            self.ty(t);
            self.out.push('>');
        }
    }

    /// Prints `e` in a context that binds at strength `min`: parenthesised
    /// when `e` binds more loosely.
    /// A `RayQuery` template argument: flags joined by bitwise operators
    /// bare, anything else that is not an operand in parentheses.
    fn template_argument(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Binary(op, a, b) if op.is_bitwise() => {
                self.template_argument(a);
                let _ = write!(self.out, " {} ", op.symbol());
                self.expr(b, POSTFIX);
            }
            _ => self.expr(e, POSTFIX),
        }
    }

    fn expr(&mut self, e: &Expr, min: u8) {
        let own = strength(e);
        let paren = own < min;
        if paren {
            self.out.push('(');
        }
        match &e.kind {
            ExprKind::IntLit {
                value,
                unsigned,
                hex,
            } => {
                if *hex {
                    let _ = write!(self.out, "0x{value:X}");
                } else {
                    let _ = write!(self.out, "{value}");
                }
                if *unsigned {
                    self.out.push('u');
                }
            }
            ExprKind::FloatLit { bits, suffix } => {
                let _ = write!(self.out, "{:?}", f64::from_bits(*bits));
                if *suffix {
                    self.out.push('f');
                }
            }
            ExprKind::BoolLit(b) => self.out.push_str(if *b { "true" } else { "false" }),
            ExprKind::Ident(n) => self.out.push_str(n),
            ExprKind::Member(r, name) => {
                self.expr(r, POSTFIX);
                let _ = write!(self.out, ".{name}");
            }
            ExprKind::Index(r, i) => {
                self.expr(r, POSTFIX);
                self.out.push('[');
                self.expr(i, ASSIGN);
                self.out.push(']');
            }
            ExprKind::Call { name, args } => {
                self.ser_name(name);
                self.args(args);
            }
            ExprKind::StaticCall {
                ty,
                method,
                template,
                args,
            } => {
                self.ser_name(ty);
                let _ = write!(self.out, "::{method}");
                self.template(template);
                self.args(args);
            }
            ExprKind::MethodCall {
                receiver,
                method,
                template,
                args,
            } => {
                self.expr(receiver, POSTFIX);
                let _ = write!(self.out, ".{method}");
                self.template(template);
                self.args(args);
            }
            ExprKind::Construct(t, args) => {
                self.ty(t);
                self.args(args);
            }
            ExprKind::Cast(t, x) => {
                self.out.push('(');
                self.ty(t);
                self.out.push(')');
                self.expr(x, UNARY);
            }
            ExprKind::Unary(op, x) => {
                self.out.push_str(op.symbol());
                // `- -x` must not print as `--x`.
                let nested_sign = matches!(
                    x.kind,
                    ExprKind::Unary(..) | ExprKind::IncDec { prefix: true, .. }
                );
                self.expr(x, if nested_sign { POSTFIX } else { UNARY });
            }
            ExprKind::Binary(op, a, b) => {
                let p = op.precedence();
                self.expr(a, p);
                let _ = write!(self.out, " {} ", op.symbol());
                self.expr(b, p + 1);
            }
            ExprKind::Assign(op, a, b) => {
                self.expr(a, UNARY);
                match op {
                    None => self.out.push_str(" = "),
                    Some(op) => {
                        let _ = write!(self.out, " {}= ", op.symbol());
                    }
                }
                self.expr(b, ASSIGN);
            }
            ExprKind::IncDec {
                increment,
                prefix,
                target,
            } => {
                let sym = if *increment { "++" } else { "--" };
                if *prefix {
                    self.out.push_str(sym);
                    self.expr(target, UNARY);
                } else {
                    self.expr(target, POSTFIX);
                    self.out.push_str(sym);
                }
            }
            ExprKind::Ternary(c, a, b) => {
                self.expr(c, 1);
                self.out.push_str(" ? ");
                self.expr(a, ASSIGN);
                self.out.push_str(" : ");
                self.expr(b, ASSIGN);
            }
        }
        if paren {
            self.out.push(')');
        }
    }
}

/// How tightly an expression binds when printed without parentheses.
fn strength(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Assign(..) => ASSIGN,
        ExprKind::Ternary(..) => TERNARY,
        ExprKind::Binary(op, ..) => op.precedence(),
        ExprKind::Unary(..) | ExprKind::Cast(..) => UNARY,
        ExprKind::IncDec { prefix: true, .. } => UNARY,
        _ => POSTFIX,
    }
}
