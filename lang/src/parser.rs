//! Recursive-descent parser from shader text to the IR.
//!
//! Every place where the grammar nests (a statement in a statement, an
//! operand, an argument, parentheses) goes through [`Parser::nested`], and
//! every loop that wraps the node built so far in a new one (binary
//! operators, postfix `.`, `[]`, `++`, and the first operand of `?:` and of
//! assignments) through [`Parser::wrap`]: both check
//! [`crate::nesting::MAX_NESTING`] before going deeper, so neither the
//! parser's recursion nor the tree it builds exceeds the limit (see
//! [`crate::nesting`]).

use crate::ast::*;
use crate::error::ParseError;
use crate::lexer::{tokenize, Tok, Token};
use crate::names;
use crate::nesting::Guard;
use crate::span::Span;

/// The stack of the parser's thread. The parser recurses a few frames per
/// level of nesting, up to [`crate::nesting::MAX_NESTING`] levels: about
/// 21 KiB a level in a debug build, 5.2 MiB at the limit (3.4 KiB and
/// 0.9 MiB optimised), more than a test thread's 2 MiB.
pub const PARSER_STACK: usize = 32 << 20;

/// Parses a shader library, on a thread of its own with [`PARSER_STACK`]
/// bytes of stack, so that text nested up to the limit parses whatever
/// thread calls this.
pub fn parse(src: &str) -> Result<Library, ParseError> {
    crate::nesting::on_stack("ser-lang parser", PARSER_STACK, || parse_here(src)).unwrap_or_else(
        |e| {
            let message = format!("cannot start the parser's thread: {e}");
            Err(ParseError::new(Span::default(), message))
        },
    )
}

/// Parses a shader library on the calling thread.
fn parse_here(src: &str) -> Result<Library, ParseError> {
    let tokens = tokenize(src)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        structs: names::BUILTIN_STRUCTS.iter().map(|(n, _)| *n).collect(),
        within: None,
        guard: Guard::default(),
        dx_namespace: false,
        name_uses: Default::default(),
        file_using: false,
        block_using: Vec::new(),
        using_dx: Vec::new(),
    };
    p.library().map_err(|mut e| {
        e.within = p.within.clone();
        e
    })
}

/// Parses the name of a scalar, vector or matrix type (`uint`, `float3`,
/// `float3x4`).
pub fn numeric_type(name: &str) -> Option<Type> {
    // Every scalar name starts with one of these letters; the parser asks
    // of almost every name.
    if !matches!(
        name.as_bytes().first(),
        Some(b'b' | b'i' | b'u' | b'd' | b'f')
    ) {
        return None;
    }
    if let Some(s) = ScalarType::from_name(name) {
        return Some(Type::Scalar(s));
    }
    // The scalar names are ASCII words of at most five letters.
    let base_len = name.bytes().take(6).position(|b| b.is_ascii_digit())?;
    let scalar = ScalarType::from_name(&name[..base_len])?;
    let dims = &name[base_len..];
    let digit = |c: u8| (b'1'..=b'4').contains(&c).then_some(c - b'0');
    match dims.as_bytes() {
        [n] => Some(Type::Vector(scalar, digit(*n)?)),
        [r, b'x', c] => Some(Type::Matrix(scalar, digit(*r)?, digit(*c)?)),
        _ => None,
    }
}

struct Parser<'s> {
    tokens: Vec<Token<'s>>,
    pos: usize,
    /// The struct types declared so far: a few names, looked up at almost
    /// every statement.
    structs: Vec<&'s str>,
    within: Option<String>,
    guard: Guard,
    /// Whether a `dx::` name was read.
    dx_namespace: bool,
    /// The SER names read, by token position (a lookahead may pass one
    /// twice).
    name_uses: std::collections::BTreeMap<usize, NameUse>,
    /// A file-scope `using namespace dx;` was read.
    file_using: bool,
    /// For each open block, whether it holds a `using namespace dx;`.
    block_using: Vec<bool>,
    using_dx: Vec<usize>,
}

type PResult<T> = Result<T, ParseError>;

impl<'s> Parser<'s> {
    fn peek(&self) -> Tok<'s> {
        self.tokens[self.pos].tok
    }

    fn peek_at(&self, n: usize) -> Tok<'s> {
        let i = (self.pos + n).min(self.tokens.len() - 1);
        self.tokens[i].tok
    }

    fn span(&self) -> Span {
        self.tokens[self.pos].span
    }

    fn bump(&mut self) {
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
    }

    /// Whether `name` is a struct type declared so far.
    fn is_struct(&self, name: &str) -> bool {
        self.structs.contains(&name)
    }

    fn error<T>(&self, expected: &str) -> PResult<T> {
        Err(ParseError::new(
            self.span(),
            format!("expected {expected}, found {}", self.peek().describe()),
        ))
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if names::same(q.as_bytes(), p.as_bytes()))
    }

    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Ident(q) if q == s)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, p: &str) -> PResult<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.error(&format!("`{p}`"))
        }
    }

    /// Whether the tokens from here are `dx::NAME` with NAME one of
    /// [`names::DX_NAMESPACE`].
    fn at_dx(&self) -> bool {
        matches!(self.peek(), Tok::Ident(d) if d == "dx")
            && matches!(self.peek_at(1), Tok::Punct("::"))
            && matches!(self.peek_at(2), Tok::Ident(n) if names::DX_NAMESPACE.contains(&n))
    }

    /// Skips a `dx::` qualifier (Shader Model 6.9's namespace of SER names),
    /// and notes the use of a SER name that starts here.
    fn skip_dx(&mut self) {
        let span = self.span();
        let qualified = self.at_dx();
        if qualified {
            self.bump();
            self.bump();
            self.dx_namespace = true;
        }
        if let Tok::Ident(n) = self.peek() {
            if names::DX_NAMESPACE.contains(&n) {
                let in_using_scope = self.file_using || self.block_using.iter().any(|u| *u);
                self.name_uses.insert(
                    self.pos,
                    NameUse {
                        name: n.to_string(),
                        qualified,
                        in_using_scope,
                        span,
                    },
                );
            }
        }
    }

    /// `using namespace dx;` starts here.
    fn at_using_dx(&self) -> bool {
        matches!(self.peek(), Tok::Ident("using"))
            && matches!(self.peek_at(1), Tok::Ident("namespace"))
    }

    /// `using namespace dx;` (no other namespace exists here).
    fn using_dx_statement(&mut self) -> PResult<()> {
        self.bump();
        self.bump();
        self.dx_namespace = true;
        if !self.is_ident("dx") {
            return self.error("`dx` (the only namespace: Shader Model 6.9's SER names)");
        }
        self.bump();
        self.expect_punct(";")
    }

    /// A name the tree keeps.
    fn ident(&mut self) -> PResult<String> {
        self.ident_text().map(str::to_string)
    }

    fn ident_text(&mut self) -> PResult<&'s str> {
        match self.peek() {
            Tok::Ident(s) => {
                self.bump();
                Ok(s)
            }
            _ => self.error("a name"),
        }
    }

    fn string(&mut self) -> PResult<String> {
        match self.peek() {
            Tok::Str(s) => {
                self.bump();
                Ok(s.to_string())
            }
            _ => self.error("a string"),
        }
    }

    fn uint_literal(&mut self) -> PResult<u32> {
        match self.peek() {
            Tok::Int(v, ..) if v <= u32::MAX as u64 => {
                self.bump();
                Ok(v as u32)
            }
            _ => self.error("an integer"),
        }
    }

    // ---- nesting ------------------------------------------------------

    /// Parses a child of the node being parsed, one level deeper.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.guard.enter(self.span())?;
        let r = f(self);
        self.guard.leave();
        r
    }

    /// Parses a node whose first operand `f` may wrap (with [`Self::wrap`])
    /// in new nodes as it goes.
    fn operand_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        let outer = self.guard.open();
        let r = f(self);
        self.guard.close(outer);
        r
    }

    /// Before the node built so far in this operand scope becomes the first
    /// operand of a new node, made at the current token.
    fn wrap(&mut self) -> PResult<Span> {
        let span = self.span();
        self.guard.wrap(span)?;
        Ok(span)
    }

    // ---- declarations -------------------------------------------------

    fn library(&mut self) -> PResult<Library> {
        let mut items = Vec::new();
        while self.peek() != Tok::Eof {
            self.within = None;
            if self.at_using_dx() {
                self.using_dx_statement()?;
                self.file_using = true;
                self.using_dx.push(items.len());
                continue;
            }
            items.push(self.item()?);
        }
        Ok(Library {
            items,
            dx_namespace: self.dx_namespace,
            name_uses: std::mem::take(&mut self.name_uses).into_values().collect(),
            using_dx: std::mem::take(&mut self.using_dx),
            names_as_written: false,
            shader_model: None,
        })
    }

    fn attributes(&mut self) -> PResult<Vec<Attribute>> {
        let mut attrs = Vec::new();
        while self.eat_punct("[") {
            let name = self.ident()?;
            let mut args = Vec::new();
            if self.eat_punct("(") {
                loop {
                    args.push(match self.peek() {
                        Tok::Str(_) => format!("\"{}\"", self.string()?),
                        Tok::Ident(_) => self.ident()?,
                        Tok::Int(v, ..) => {
                            self.bump();
                            v.to_string()
                        }
                        _ => return self.error("an attribute argument"),
                    });
                    if !self.eat_punct(",") {
                        break;
                    }
                }
                self.expect_punct(")")?;
            }
            self.expect_punct("]")?;
            attrs.push(Attribute { name, args });
        }
        Ok(attrs)
    }

    fn item(&mut self) -> PResult<Item> {
        let span = self.span();
        let attributes = self.attributes()?;
        if self.is_ident("struct") {
            return self.struct_decl(attributes, span).map(Item::Struct);
        }
        if self.is_ident("cbuffer") || self.is_ident("tbuffer") {
            return self.cbuffer(span).map(Item::CBuffer);
        }
        let mut storage = Vec::new();
        while matches!(self.peek(), Tok::Ident(w) if names::STORAGE_CLASSES.contains(&w)) {
            storage.push(self.ident()?);
        }
        if self.at_resource() {
            return self.resource(storage, span).map(Item::Resource);
        }
        let ty = self.ty()?;
        let name = self.ident()?;
        if let Some(i) = storage.iter().position(|s| s == "groupshared") {
            storage.remove(i);
            let ty = self.array_suffix(ty)?;
            self.expect_punct(";")?;
            return Ok(Item::GroupShared(GroupSharedDecl {
                storage,
                ty,
                name,
                span,
            }));
        }
        if !self.is_punct("(") {
            let ty = self.array_suffix(ty)?;
            self.expect_punct(";")?;
            return Ok(Item::Global(GlobalDecl {
                storage,
                ty,
                name,
                span,
            }));
        }
        self.within = Some(name.clone());
        self.function(attributes, storage, ty, name, span)
            .map(Item::Function)
    }

    /// Whether a resource type starts here.
    fn at_resource(&self) -> bool {
        matches!(self.peek(), Tok::Ident(n)
            if matches!(n, "RWStructuredBuffer" | "RaytracingAccelerationStructure")
                || names::OTHER_RESOURCES.iter().any(|(r, _)| *r == n))
    }

    fn struct_decl(&mut self, mut attributes: Vec<Attribute>, span: Span) -> PResult<StructDecl> {
        self.bump(); // struct
                     // DXR writes `struct [raypayload] Name`.
        attributes.extend(self.attributes()?);
        let name_text = self.ident_text()?;
        let name = name_text.to_string();
        self.within = Some(name.clone());
        let base = if self.eat_punct(":") {
            let base = self.ident()?;
            if !self.is_struct(&base) {
                return self.error("a struct declared before, as the base");
            }
            Some(base)
        } else {
            None
        };
        self.expect_punct("{")?;
        let mut fields = Vec::new();
        while !self.eat_punct("}") {
            fields.push(self.field()?);
        }
        self.expect_punct(";")?;
        self.structs.push(name_text);
        Ok(StructDecl {
            attributes,
            name,
            base,
            fields,
            span,
        })
    }

    fn field(&mut self) -> PResult<Field> {
        let span = self.span();
        let ty = self.ty()?;
        let name = self.ident()?;
        let ty = self.array_suffix(ty)?;
        let mut access = Vec::new();
        let mut semantic = None;
        while self.eat_punct(":") {
            let name = self.ident()?;
            if !self.is_punct("(") {
                semantic = Some(name);
                continue;
            }
            let kind = match name.as_str() {
                "read" => AccessKind::Read,
                "write" => AccessKind::Write,
                _ => AccessKind::Other(name),
            };
            self.expect_punct("(")?;
            let mut stages = Vec::new();
            if !self.is_punct(")") {
                loop {
                    stages.push(self.ident()?);
                    if !self.eat_punct(",") {
                        break;
                    }
                }
            }
            self.expect_punct(")")?;
            access.push(PayloadAccess { kind, stages });
        }
        self.expect_punct(";")?;
        Ok(Field {
            ty,
            name,
            access,
            semantic,
            span,
        })
    }

    fn array_suffix(&mut self, ty: Type) -> PResult<Type> {
        if self.eat_punct("[") {
            let n = self.uint_literal()?;
            self.expect_punct("]")?;
            Ok(Type::Array(Box::new(ty), n))
        } else {
            Ok(ty)
        }
    }

    fn register(&mut self) -> PResult<Option<Register>> {
        if !self.eat_punct(":") {
            return Ok(None);
        }
        if !self.is_ident("register") {
            return self.error("`register`");
        }
        self.bump();
        self.expect_punct("(")?;
        let slot = self.ident()?;
        let space = if self.eat_punct(",") {
            Some(self.ident()?)
        } else {
            None
        };
        self.expect_punct(")")?;
        Ok(Some(Register { slot, space }))
    }

    fn resource(&mut self, storage: Vec<String>, span: Span) -> PResult<ResourceDecl> {
        let type_name = self.ident()?;
        let kind = match type_name.as_str() {
            "RWStructuredBuffer" => {
                self.expect_punct("<")?;
                let elem = self.ty()?;
                self.expect_punct(">")?;
                ResourceKind::RwStructuredBuffer(elem)
            }
            "RaytracingAccelerationStructure" => ResourceKind::AccelerationStructure,
            _ => {
                let templated = names::OTHER_RESOURCES
                    .iter()
                    .any(|(n, t)| *n == type_name && *t);
                let element = if templated {
                    self.expect_punct("<")?;
                    let elem = self.ty()?;
                    self.expect_punct(">")?;
                    Some(elem)
                } else {
                    None
                };
                ResourceKind::Other {
                    name: type_name,
                    element,
                }
            }
        };
        let name = self.ident()?;
        let mut dims = Vec::new();
        while self.eat_punct("[") {
            dims.push(self.uint_literal()?);
            self.expect_punct("]")?;
        }
        let register = self.register()?;
        self.expect_punct(";")?;
        Ok(ResourceDecl {
            storage,
            kind,
            name,
            dims,
            register,
            span,
        })
    }

    fn cbuffer(&mut self, span: Span) -> PResult<CBufferDecl> {
        let texture = self.ident()? == "tbuffer";
        let name = self.ident()?;
        self.within = Some(name.clone());
        let register = self.register()?;
        self.expect_punct("{")?;
        let mut fields = Vec::new();
        while !self.eat_punct("}") {
            fields.push(self.field()?);
        }
        self.eat_punct(";");
        Ok(CBufferDecl {
            texture,
            name,
            register,
            fields,
            span,
        })
    }

    fn function(
        &mut self,
        attributes: Vec<Attribute>,
        qualifiers: Vec<String>,
        return_type: Type,
        name: String,
        span: Span,
    ) -> PResult<FunctionDecl> {
        self.expect_punct("(")?;
        let mut params = Vec::new();
        if !self.is_punct(")") {
            loop {
                params.push(self.param()?);
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        self.expect_punct(")")?;
        let return_semantic = if self.eat_punct(":") {
            Some(self.ident()?)
        } else {
            None
        };
        let body = self.block()?;
        Ok(FunctionDecl {
            attributes,
            qualifiers,
            return_type,
            name,
            params,
            return_semantic,
            body,
            span,
        })
    }

    fn param(&mut self) -> PResult<Param> {
        let mode = if self.is_ident("inout") {
            ParamMode::InOut
        } else if self.is_ident("in") {
            ParamMode::In
        } else if self.is_ident("out") {
            ParamMode::Out
        } else {
            ParamMode::Default
        };
        if mode != ParamMode::Default {
            self.bump();
        }
        let mut qualifiers = Vec::new();
        while matches!(self.peek(), Tok::Ident(q) if names::PARAM_QUALIFIERS.contains(&q)) {
            qualifiers.push(self.ident()?);
        }
        let ty = self.ty()?;
        let name = self.ident()?;
        let ty = self.array_suffix(ty)?;
        let semantic = if self.eat_punct(":") {
            Some(self.ident()?)
        } else {
            None
        };
        Ok(Param {
            mode,
            qualifiers,
            ty,
            name,
            semantic,
        })
    }

    // ---- types ----------------------------------------------------------

    /// Whether the current token starts a type.
    fn at_type(&self) -> bool {
        self.type_starts_at(0)
    }

    /// Whether a type starts `k` tokens ahead.
    fn type_starts_at(&self, k: usize) -> bool {
        if matches!(self.peek_at(k), Tok::Ident(d) if d == "dx")
            && matches!(self.peek_at(k + 1), Tok::Punct("::"))
        {
            return matches!(self.peek_at(k + 2), Tok::Ident(n) if n == "HitObject");
        }
        match self.peek_at(k) {
            Tok::Ident(s) => {
                numeric_type(s).is_some()
                    || matches!(s, "void" | "HitObject" | "RayQuery" | "vector")
                    || self.is_struct(s)
                    || names::STAGE_OBJECTS.contains(&s)
            }
            _ => false,
        }
    }

    fn ty(&mut self) -> PResult<Type> {
        self.skip_dx();
        let Tok::Ident(name) = self.peek() else {
            return self.error("a type");
        };
        if let Some(t) = numeric_type(name) {
            self.bump();
            return Ok(t);
        }
        match name {
            "void" => {
                self.bump();
                Ok(Type::Void)
            }
            "HitObject" => {
                self.bump();
                Ok(Type::HitObject)
            }
            "vector" => {
                self.bump();
                self.expect_punct("<")?;
                let Type::Scalar(scalar) = self.ty()? else {
                    return self.error("a scalar type (`vector<float, 5>`)");
                };
                self.expect_punct(",")?;
                let n = self.uint_literal()?;
                self.expect_punct(">")?;
                match u8::try_from(n) {
                    Ok(n) if n >= 1 => Ok(Type::Vector(scalar, n)),
                    _ => self.error("a vector length from 1 to 255"),
                }
            }
            "RayQuery" => {
                self.bump();
                self.expect_punct("<")?;
                // The flags argument ends at `>`: flags combine with `|`,
                // `&` and `^`; no comparison or shift operator is taken as
                // part of it (parenthesise those).
                let flags = self.nested(Self::template_argument)?;
                let query_flags = if self.eat_punct(",") {
                    Some(Box::new(self.nested(Self::template_argument)?))
                } else {
                    None
                };
                self.expect_punct(">")?;
                Ok(Type::RayQuery(Box::new(flags), query_flags))
            }
            _ if self.is_struct(name) => {
                self.bump();
                Ok(Type::Struct(name.to_string()))
            }
            _ if names::STAGE_OBJECTS.contains(&name) => {
                let name = name.to_string();
                self.bump();
                self.expect_punct("<")?;
                let element = Box::new(self.ty()?);
                let count = if self.eat_punct(",") {
                    Some(self.uint_literal()?)
                } else {
                    None
                };
                self.expect_punct(">")?;
                Ok(Type::Object {
                    name,
                    element,
                    count,
                })
            }
            _ => self.error("a type"),
        }
    }

    // ---- statements -----------------------------------------------------

    fn block(&mut self) -> PResult<Block> {
        self.expect_punct("{")?;
        self.block_using.push(false);
        let mut stmts = Vec::new();
        while !self.eat_punct("}") {
            if self.peek() == Tok::Eof {
                return self.error("`}`");
            }
            stmts.push(self.stmt()?);
        }
        self.block_using.pop();
        Ok(Block { stmts })
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.nested(|p| {
            let span = p.span();
            let kind = p.stmt_kind()?;
            Ok(Stmt { kind, span })
        })
    }

    /// An expression that is a child of the node being parsed.
    fn child_expr(&mut self) -> PResult<Expr> {
        self.nested(Self::expr)
    }

    fn stmt_kind(&mut self) -> PResult<StmtKind> {
        if self.is_punct("{") {
            return Ok(StmtKind::Block(self.block()?));
        }
        if self.at_using_dx() {
            self.using_dx_statement()?;
            if let Some(top) = self.block_using.last_mut() {
                *top = true;
            }
            return Ok(StmtKind::UsingDx);
        }
        if let Tok::Ident(word) = self.peek() {
            match word {
                "if" => {
                    self.bump();
                    self.expect_punct("(")?;
                    let cond = self.child_expr()?;
                    self.expect_punct(")")?;
                    let then_branch = Box::new(self.stmt()?);
                    let else_branch = if self.is_ident("else") {
                        self.bump();
                        Some(Box::new(self.stmt()?))
                    } else {
                        None
                    };
                    return Ok(StmtKind::If {
                        cond,
                        then_branch,
                        else_branch,
                    });
                }
                "for" => {
                    self.bump();
                    self.expect_punct("(")?;
                    let init = if self.eat_punct(";") {
                        None
                    } else {
                        Some(Box::new(self.nested(Self::simple_stmt)?))
                    };
                    let cond = if self.is_punct(";") {
                        None
                    } else {
                        Some(Box::new(self.child_expr()?))
                    };
                    self.expect_punct(";")?;
                    let step = if self.is_punct(")") {
                        None
                    } else {
                        Some(Box::new(self.child_expr()?))
                    };
                    self.expect_punct(")")?;
                    let body = Box::new(self.stmt()?);
                    return Ok(StmtKind::For {
                        init,
                        cond,
                        step,
                        body,
                    });
                }
                "while" => {
                    self.bump();
                    self.expect_punct("(")?;
                    let cond = self.child_expr()?;
                    self.expect_punct(")")?;
                    let body = Box::new(self.stmt()?);
                    return Ok(StmtKind::While { cond, body });
                }
                "do" => {
                    self.bump();
                    let body = Box::new(self.stmt()?);
                    if !self.is_ident("while") {
                        return self.error("`while`");
                    }
                    self.bump();
                    self.expect_punct("(")?;
                    let cond = self.child_expr()?;
                    self.expect_punct(")")?;
                    self.expect_punct(";")?;
                    return Ok(StmtKind::DoWhile { body, cond });
                }
                "break" => {
                    self.bump();
                    self.expect_punct(";")?;
                    return Ok(StmtKind::Break);
                }
                "continue" => {
                    self.bump();
                    self.expect_punct(";")?;
                    return Ok(StmtKind::Continue);
                }
                "return" => {
                    self.bump();
                    let value = if self.is_punct(";") {
                        None
                    } else {
                        Some(self.child_expr()?)
                    };
                    self.expect_punct(";")?;
                    return Ok(StmtKind::Return(value));
                }
                _ => {}
            }
        }
        Ok(self.simple_stmt()?.kind)
    }

    /// A declaration or an expression statement, with its `;`.
    fn simple_stmt(&mut self) -> PResult<Stmt> {
        let span = self.span();
        let is_const = self.is_ident("const");
        let after = if self.at_dx() { 3 } else { 1 };
        if is_const
            || (self.at_type() && matches!(self.peek_at(after), Tok::Ident(_) | Tok::Punct("<")))
        {
            if is_const {
                self.bump();
            }
            let decl = self.var_decl(is_const)?;
            self.expect_punct(";")?;
            return Ok(Stmt {
                kind: StmtKind::Decl(decl),
                span,
            });
        }
        let e = self.child_expr()?;
        self.expect_punct(";")?;
        Ok(Stmt {
            kind: StmtKind::Expr(e),
            span,
        })
    }

    fn var_decl(&mut self, is_const: bool) -> PResult<VarDecl> {
        let ty = self.ty()?;
        let mut declarators = Vec::new();
        loop {
            let name = self.ident()?;
            let array_len = if self.eat_punct("[") {
                let n = self.uint_literal()?;
                self.expect_punct("]")?;
                Some(n)
            } else {
                None
            };
            let init = if self.eat_punct("=") {
                Some(self.child_expr()?)
            } else {
                None
            };
            declarators.push(Declarator {
                name,
                array_len,
                init,
            });
            if !self.eat_punct(",") {
                break;
            }
        }
        Ok(VarDecl {
            is_const,
            ty,
            declarators,
        })
    }

    // ---- expressions ----------------------------------------------------

    fn expr(&mut self) -> PResult<Expr> {
        self.assignment()
    }

    fn assignment(&mut self) -> PResult<Expr> {
        self.operand_scope(|p| {
            let lhs = p.ternary()?;
            let op = match p.peek() {
                Tok::Punct("=") => None,
                Tok::Punct(q) => match compound_assign(q) {
                    Some(op) => Some(op),
                    None => return Ok(lhs),
                },
                _ => return Ok(lhs),
            };
            let span = p.wrap()?;
            p.bump();
            let rhs = p.child_expr()?;
            Ok(Expr {
                kind: ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)),
                span,
            })
        })
    }

    fn ternary(&mut self) -> PResult<Expr> {
        self.operand_scope(|p| {
            let cond = p.binary(1)?;
            if !p.is_punct("?") {
                return Ok(cond);
            }
            let span = p.wrap()?;
            p.bump();
            let a = p.child_expr()?;
            p.expect_punct(":")?;
            let b = p.child_expr()?;
            Ok(Expr {
                kind: ExprKind::Ternary(Box::new(cond), Box::new(a), Box::new(b)),
                span,
            })
        })
    }

    /// Precedence climbing over binary operators of at least `min` strength.
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        self.operand_scope(|p| {
            let mut lhs = p.unary()?;
            while let Some(op) = p.peek_binary_op() {
                if op.precedence() < min {
                    break;
                }
                let span = p.wrap()?;
                p.bump();
                let rhs = p.nested(|p| p.binary(op.precedence() + 1))?;
                lhs = Expr {
                    kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                    span,
                };
            }
            Ok(lhs)
        })
    }

    /// A constant template argument: operands joined by the bitwise
    /// operators (`RAY_FLAG_A | RAY_FLAG_B`), which a `>` ends.
    fn template_argument(&mut self) -> PResult<Expr> {
        self.operand_scope(|p| {
            let mut lhs = p.unary()?;
            while let Some(op) = p.peek_binary_op().filter(|op| op.is_bitwise()) {
                let span = p.wrap()?;
                p.bump();
                let rhs = p.nested(Self::unary)?;
                lhs = Expr {
                    kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                    span,
                };
            }
            Ok(lhs)
        })
    }

    fn peek_binary_op(&self) -> Option<BinaryOp> {
        match self.peek() {
            Tok::Punct(p) => binary_op(p),
            _ => None,
        }
    }

    fn unary(&mut self) -> PResult<Expr> {
        let span = self.span();
        let op = match self.peek() {
            Tok::Punct("-") => Some(UnaryOp::Neg),
            Tok::Punct("+") => Some(UnaryOp::Plus),
            Tok::Punct("!") => Some(UnaryOp::Not),
            Tok::Punct("~") => Some(UnaryOp::BitNot),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let e = self.nested(Self::unary)?;
            return Ok(Expr {
                kind: ExprKind::Unary(op, Box::new(e)),
                span,
            });
        }
        if self.is_punct("++") || self.is_punct("--") {
            let increment = self.is_punct("++");
            self.bump();
            let target = Box::new(self.nested(Self::unary)?);
            return Ok(Expr {
                kind: ExprKind::IncDec {
                    increment,
                    prefix: true,
                    target,
                },
                span,
            });
        }
        // A cast: `(type) expr`, recognised when a type name is
        // parenthesised on its own (`(uint)x`, `(Payload)0`).
        if self.is_punct("(") {
            if let Tok::Ident(name) = self.peek_at(1) {
                let is_type = numeric_type(name).is_some() || self.is_struct(name);
                if is_type && matches!(self.peek_at(2), Tok::Punct(")")) {
                    self.bump();
                    let ty = self.ty()?;
                    self.expect_punct(")")?;
                    let e = self.nested(Self::unary)?;
                    return Ok(Expr {
                        kind: ExprKind::Cast(ty, Box::new(e)),
                        span,
                    });
                }
            }
        }
        self.postfix()
    }

    fn postfix(&mut self) -> PResult<Expr> {
        self.operand_scope(Self::postfix_chain)
    }

    /// A primary expression and its chain of `.member`, `.method()`, `[i]`,
    /// `++` and `--`, each wrapping what comes before it.
    fn postfix_chain(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            if !(self.is_punct(".")
                || self.is_punct("[")
                || self.is_punct("++")
                || self.is_punct("--"))
            {
                return Ok(e);
            }
            let span = self.wrap()?;
            if self.eat_punct(".") {
                let name = self.ident()?;
                let template = self.method_template(&name)?;
                if self.is_punct("(") {
                    let args = self.args()?;
                    e = Expr {
                        kind: ExprKind::MethodCall {
                            receiver: Box::new(e),
                            method: name,
                            template,
                            args,
                        },
                        span,
                    };
                } else {
                    e = Expr {
                        kind: ExprKind::Member(Box::new(e), name),
                        span,
                    };
                }
            } else if self.eat_punct("[") {
                let index = self.child_expr()?;
                self.expect_punct("]")?;
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), Box::new(index)),
                    span,
                };
            } else {
                let increment = self.is_punct("++");
                self.bump();
                e = Expr {
                    kind: ExprKind::IncDec {
                        increment,
                        prefix: false,
                        target: Box::new(e),
                    },
                    span,
                };
            }
        }
    }

    /// Whether `<` here opens a type argument (`<T>(`), not a comparison.
    fn at_type_argument(&self) -> bool {
        matches!(self.peek(), Tok::Punct("<")) && self.type_starts_at(1)
    }

    /// `<T>` after a method name that takes an explicit template argument.
    fn method_template(&mut self, method: &str) -> PResult<Option<Type>> {
        let templated = matches!(method, "GetAttributes" | "Load" | "Store");
        if templated && self.at_type_argument() && self.eat_punct("<") {
            let t = self.ty()?;
            self.expect_punct(">")?;
            Ok(Some(t))
        } else {
            Ok(None)
        }
    }

    fn args(&mut self) -> PResult<Vec<Expr>> {
        self.expect_punct("(")?;
        let mut args = Vec::new();
        if !self.is_punct(")") {
            loop {
                args.push(self.child_expr()?);
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        self.expect_punct(")")?;
        Ok(args)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let span = self.span();
        self.skip_dx();
        let kind = match self.peek() {
            Tok::Int(value, unsigned, hex) => {
                self.bump();
                ExprKind::IntLit {
                    value,
                    unsigned,
                    hex,
                }
            }
            Tok::Float(v, suffix) => {
                self.bump();
                ExprKind::float(v, suffix)
            }
            Tok::Punct("(") => {
                // Parentheses count as a level: the tree keeps none, but
                // the parser recurses through them.
                self.bump();
                let e = self.child_expr()?;
                self.expect_punct(")")?;
                return Ok(e);
            }
            Tok::Ident(name) => {
                self.bump();
                if name == "true" || name == "false" {
                    ExprKind::BoolLit(name == "true")
                } else if let Some(ty) = numeric_type(name) {
                    if !self.is_punct("(") {
                        return self.error("`(` after a type name (a constructor)");
                    }
                    ExprKind::Construct(ty, self.args()?)
                } else if name == "HitObject" && self.is_punct("(") {
                    // `dx::HitObject()`: a default-initialised hit object.
                    ExprKind::Construct(Type::HitObject, self.args()?)
                } else if matches!(self.peek(), Tok::Punct("::")) {
                    self.bump();
                    let method = self.ident()?;
                    let template = self.method_template(&method)?;
                    let args = self.args()?;
                    ExprKind::StaticCall {
                        ty: name.to_string(),
                        method,
                        template,
                        args,
                    }
                } else if self.is_punct("(") {
                    ExprKind::Call {
                        name: name.to_string(),
                        args: self.args()?,
                    }
                } else {
                    ExprKind::Ident(name.to_string())
                }
            }
            _ => return self.error("an expression"),
        };
        Ok(Expr { kind, span })
    }
}

// The operator tables match punctuation by its bytes: the parser
// asks after almost every operand, and byte patterns compare without a call
// to `memcmp` for each entry.

fn binary_op(p: &str) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match p.as_bytes() {
        b"+" => Add,
        b"-" => Sub,
        b"*" => Mul,
        b"/" => Div,
        b"%" => Rem,
        b"<<" => Shl,
        b">>" => Shr,
        b"&" => BitAnd,
        b"|" => BitOr,
        b"^" => BitXor,
        b"&&" => And,
        b"||" => Or,
        b"==" => Eq,
        b"!=" => Ne,
        b"<" => Lt,
        b"<=" => Le,
        b">" => Gt,
        b">=" => Ge,
        _ => return None,
    })
}

fn compound_assign(p: &str) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match p.as_bytes() {
        b"+=" => Add,
        b"-=" => Sub,
        b"*=" => Mul,
        b"/=" => Div,
        b"%=" => Rem,
        b"<<=" => Shl,
        b">>=" => Shr,
        b"&=" => BitAnd,
        b"|=" => BitOr,
        b"^=" => BitXor,
        _ => return None,
    })
}
