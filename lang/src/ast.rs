//! The IR: a typed-syntax tree of the HLSL subset.
//!
//! The reference interpreter runs this tree directly (it is written for
//! clarity, not speed), and backends translate it. It derives serde so that
//! out-of-process backends can receive it as JSON.

use crate::span::Span;
use serde::{Deserialize, Serialize};

/// A shader library: every declaration and entry point of one case, as in a
/// DXR library compiled from one HLSL file.
#[derive(Clone, Default, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Library {
    pub items: Vec<Item>,
    /// The library spells SER's names in namespace `dx` (`dx::HitObject`,
    /// `dx::MaybeReorderThread`), as Shader Model 6.9 declares them
    /// (`sm69.solution.namespace_dx.types_and_intrinsics_in_dx`). The IR
    /// keeps names unqualified; the printer then qualifies every one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dx_namespace: bool,
    /// Each use of a SER name ([`crate::names::DX_NAMESPACE`]) in source
    /// order: whether it was written `dx::`-qualified, and whether a
    /// `using namespace dx;` was in scope. The validator rules on them when
    /// the names are taken as written ([`Library::names_as_written`]); the
    /// canonical printer reproduces them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub name_uses: Vec<NameUse>,
    /// The items a file-scope `using namespace dx;` comes before (by index;
    /// `items.len()` for one at the end).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub using_dx: Vec<usize>,
    /// The case takes SER's names as written (`"names": "as_written"`):
    /// under Shader Model 6.9 an unqualified `HitObject` outside a
    /// `using namespace dx;` is undeclared, and a target prints each name as
    /// the case wrote it. Otherwise names are the profile's to spell.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub names_as_written: bool,
    /// The shader model the library is compiled for (`"6.8"`), where the
    /// case says: availability rules read it ([`shader_model_version`]).
    /// None: the profile's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shader_model: Option<String>,
}

/// A shader model written `MAJOR.MINOR` as (major, minor); `None` for
/// anything else.
pub fn shader_model_version(model: &str) -> Option<(u32, u32)> {
    let (major, minor) = model.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

impl Library {
    /// A struct's fields with those it inherits: its base's (recursively)
    /// first, then its own, as HLSL lays a derived struct out.
    pub fn fields_of<'a>(&'a self, s: &'a StructDecl) -> Vec<&'a Field> {
        let base = s.base.as_deref().and_then(|b| {
            self.items.iter().find_map(|i| match i {
                Item::Struct(d) if d.name == b => Some(d),
                _ => None,
            })
        });
        let mut out = base.map(|b| self.fields_of(b)).unwrap_or_default();
        out.extend(&s.fields);
        out
    }
}

/// One use of a SER name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NameUse {
    pub name: String,
    /// Written `dx::Name`.
    pub qualified: bool,
    /// A `using namespace dx;` was in scope.
    pub in_using_scope: bool,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Item {
    Struct(StructDecl),
    Resource(ResourceDecl),
    CBuffer(CBufferDecl),
    /// `groupshared T name;`: a library may declare it; ray tracing stages
    /// cannot use it.
    GroupShared(GroupSharedDecl),
    /// `T name;` or `static T name;` at file scope: a non-static one is a
    /// constant of the `$Globals` constant buffer. Negative cases only.
    Global(GlobalDecl),
    Function(FunctionDecl),
}

impl Item {
    pub fn name(&self) -> &str {
        match self {
            Item::Struct(s) => &s.name,
            Item::Resource(r) => &r.name,
            Item::CBuffer(c) => &c.name,
            Item::GroupShared(g) => &g.name,
            Item::Global(g) => &g.name,
            Item::Function(f) => &f.name,
        }
    }

    pub fn span(&self) -> Span {
        match self {
            Item::Struct(s) => s.span,
            Item::Resource(r) => r.span,
            Item::CBuffer(c) => c.span,
            Item::GroupShared(g) => g.span,
            Item::Global(g) => g.span,
            Item::Function(f) => f.span,
        }
    }
}

/// `[attr("arg")]` before a declaration, e.g. `[shader("closesthit")]`,
/// `[numthreads(1, 1, 1)]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Attribute {
    pub name: String,
    /// The arguments as written: a string with its quotes (`"closesthit"`),
    /// a number or a name bare (`1`, `tri`). [`Attribute::arg`] reads one.
    pub args: Vec<String>,
}

impl Attribute {
    /// The `i`th argument's value: a string without its quotes.
    pub fn arg(&self, i: usize) -> Option<&str> {
        let a = self.args.get(i)?;
        Some(
            a.strip_prefix('"')
                .and_then(|a| a.strip_suffix('"'))
                .unwrap_or(a),
        )
    }
}

/// `struct Name { fields };`, optionally `[raypayload]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StructDecl {
    pub attributes: Vec<Attribute>,
    pub name: String,
    /// `struct D : B { ... }`: D's fields are B's, then its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    pub fields: Vec<Field>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Field {
    pub ty: Type,
    pub name: String,
    /// Payload access qualifiers, `: read(caller, closesthit) : write(miss)`.
    pub access: Vec<PayloadAccess>,
    /// A system-value or user semantic, `float4 p : SV_Position;` (the
    /// fields of other stages' inputs and outputs); no meaning here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semantic: Option<String>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum AccessKind {
    Read,
    Write,
    /// Any other name in a qualifier's place, `: modify(caller)`: kept for
    /// the validator, since DXR names `read` and `write` the only valid
    /// qualifiers (`dxr.paq.syntax.qualifiers_and_stages`).
    Other(String),
}

/// One payload access qualifier: `read(stages)` or `write(stages)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PayloadAccess {
    pub kind: AccessKind,
    pub stages: Vec<String>,
}

/// A global resource: `RWStructuredBuffer<uint> Out : register(u0);` or
/// `RaytracingAccelerationStructure Scene : register(t0);`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ResourceDecl {
    /// Storage-class keywords written before the type: `globallycoherent`,
    /// `reordercoherent`.
    pub storage: Vec<String>,
    pub kind: ResourceKind,
    pub name: String,
    /// Array dimensions, `tex[12][12]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dims: Vec<u32>,
    pub register: Option<Register>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GroupSharedDecl {
    /// Other keywords written with `groupshared` (`static`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub storage: Vec<String>,
    /// The declared type (an array type for `name[N]`).
    pub ty: Type,
    pub name: String,
    pub span: Span,
}

/// A file-scope variable: `static float m;`, `HitObject h;`,
/// `reordercoherent float m;`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GlobalDecl {
    /// Keywords before the type: `static`, `const`, `reordercoherent`...
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub storage: Vec<String>,
    /// The declared type (an array type for `name[N]`).
    pub ty: Type,
    pub name: String,
    pub span: Span,
}

impl GlobalDecl {
    pub fn is_static(&self) -> bool {
        self.storage.iter().any(|s| s == "static")
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum ResourceKind {
    RwStructuredBuffer(Type),
    AccelerationStructure,
    /// Another resource type ([`crate::names::OTHER_RESOURCES`]), templated
    /// on an element or not: `StructuredBuffer<T>`, `ConstantBuffer<T>`,
    /// `RWByteAddressBuffer`, `RWTexture2D<float>`. Negative cases only.
    Other {
        name: String,
        element: Option<Type>,
    },
}

impl ResourceKind {
    /// The type's name as written.
    pub fn type_name(&self) -> &str {
        match self {
            ResourceKind::RwStructuredBuffer(_) => "RWStructuredBuffer",
            ResourceKind::AccelerationStructure => "RaytracingAccelerationStructure",
            ResourceKind::Other { name, .. } => name,
        }
    }

    /// The element type, for a templated resource.
    pub fn element(&self) -> Option<&Type> {
        match self {
            ResourceKind::RwStructuredBuffer(t) => Some(t),
            ResourceKind::AccelerationStructure => None,
            ResourceKind::Other { element, .. } => element.as_ref(),
        }
    }

    /// An unordered access view (a `RW` resource).
    pub fn is_uav(&self) -> bool {
        self.type_name().starts_with("RW") && self.type_name() != "RWDispatchNodeInputRecord"
    }
}

/// `register(u0)` or `register(b0, space1)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Register {
    pub slot: String,
    pub space: Option<String>,
}

/// `cbuffer Name : register(b0, space1) { uint a; float b; }`. A cbuffer in
/// register space 1 holds the local root constants of the shader record that
/// runs the shader (see `cases/README.md`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CBufferDecl {
    /// `tbuffer` rather than `cbuffer`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub texture: bool,
    pub name: String,
    pub register: Option<Register>,
    pub fields: Vec<Field>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FunctionDecl {
    pub attributes: Vec<Attribute>,
    /// Keywords before the return type (`reordercoherent float f()`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub qualifiers: Vec<String>,
    pub return_type: Type,
    pub name: String,
    pub params: Vec<Param>,
    /// `: SV_Target` after the parameters (an entry point's output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_semantic: Option<String>,
    pub body: Block,
    pub span: Span,
}

impl FunctionDecl {
    /// The stage named by `[shader("...")]`, if this is an entry point.
    pub fn stage(&self) -> Option<&str> {
        self.attributes
            .iter()
            .find(|a| a.name == "shader")
            .and_then(|a| a.arg(0))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum ParamMode {
    /// No modifier written.
    Default,
    In,
    Out,
    InOut,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Param {
    pub mode: ParamMode,
    /// Qualifiers a stage's parameters take before their type: a geometry
    /// shader's input primitive (`point`, `line`, `triangle`, `lineadj`,
    /// `triangleadj`), a mesh shader's outputs (`vertices`, `indices`,
    /// `primitives`), a payload (`payload`), interpolation modifiers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub qualifiers: Vec<String>,
    pub ty: Type,
    pub name: String,
    /// `: SV_...` semantics are accepted and kept, but carry no meaning here.
    pub semantic: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum ScalarType {
    Bool,
    Int,
    Uint,
    Float,
}

impl ScalarType {
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::Int => "int",
            ScalarType::Uint => "uint",
            ScalarType::Float => "float",
        }
    }

    pub fn from_name(name: &str) -> Option<ScalarType> {
        Some(match name {
            "bool" => ScalarType::Bool,
            "int" => ScalarType::Int,
            "uint" | "dword" => ScalarType::Uint,
            "float" => ScalarType::Float,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Type {
    Void,
    Scalar(ScalarType),
    Vector(ScalarType, u8),
    /// `floatRxC`: R rows, C columns.
    Matrix(ScalarType, u8, u8),
    /// A user struct or a built-in struct (`RayDesc`,
    /// `BuiltInTriangleIntersectionAttributes`).
    Struct(String),
    HitObject,
    /// `RayQuery<FLAGS>` or `RayQuery<FLAGS, RAYQUERY_FLAGS>`: constant
    /// expressions, the ray flags and Shader Model 6.9's optional
    /// RayQuery flags (`dxr.ray_query.type.template_parameters`).
    RayQuery(Box<Expr>, Option<Box<Expr>>),
    /// `T name[N]`: fixed-size local arrays.
    Array(Box<Type>, u32),
    /// A stage's input or output object of another pipeline than ray
    /// tracing, templated on its element (and a count):
    /// `InputPatch<T, 3>`, `PointStream<T>`, `DispatchNodeInputRecord<T>`
    /// ([`crate::names::STAGE_OBJECTS`]). Only negative cases have them:
    /// nothing runs an entry point of such a stage.
    Object {
        name: String,
        element: Box<Type>,
        count: Option<u32>,
    },
}

impl Type {
    /// A `HitObject`, or an array of them (at any depth); not a struct
    /// that holds one, which needs the library's structs to tell.
    pub fn is_hit_object_or_array(&self) -> bool {
        match self {
            Type::HitObject => true,
            Type::Array(e, _) => e.is_hit_object_or_array(),
            _ => false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum StmtKind {
    Block(Block),
    /// `const? T a = e, b;`
    Decl(VarDecl),
    Expr(Expr),
    If {
        cond: Expr,
        then_branch: Box<Stmt>,
        else_branch: Option<Box<Stmt>>,
    },
    // The condition and step are boxed, as the initialiser and body are:
    // a loop is rare, and inline they would make every statement twice its
    // size.
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
        body: Box<Stmt>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    /// `using namespace dx;`: SER's names unqualified for the rest of the
    /// block.
    UsingDx,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VarDecl {
    pub is_const: bool,
    pub ty: Type,
    pub declarators: Vec<Declarator>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Declarator {
    pub name: String,
    /// `name[N]` makes the declared type an array of N.
    pub array_len: Option<u32>,
    pub init: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

impl Expr {
    /// Whether `f` holds for every operand: each expression one level
    /// below this one (a literal or a name has none).
    #[inline]
    pub fn operands_all(&self, mut f: impl FnMut(&Expr) -> bool) -> bool {
        match &self.kind {
            ExprKind::IntLit { .. }
            | ExprKind::FloatLit { .. }
            | ExprKind::BoolLit(_)
            | ExprKind::Ident(_) => true,
            ExprKind::Member(x, _)
            | ExprKind::Cast(_, x)
            | ExprKind::Unary(_, x)
            | ExprKind::IncDec { target: x, .. } => f(x),
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) => {
                f(a) && f(b)
            }
            ExprKind::Call { args, .. }
            | ExprKind::StaticCall { args, .. }
            | ExprKind::Construct(_, args) => args.iter().all(f),
            ExprKind::MethodCall { receiver, args, .. } => f(receiver) && args.iter().all(f),
            ExprKind::Ternary(a, b, c) => f(a) && f(b) && f(c),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum ExprKind {
    /// An integer literal; `unsigned` for a `u` suffix; `hex` records how it
    /// was written so that printing gives the same text.
    IntLit {
        value: u64,
        unsigned: bool,
        hex: bool,
    },
    /// A float literal; `suffix` for an `f` suffix. The value is kept as the
    /// bits of an f64 so that the IR has exact equality.
    FloatLit {
        bits: u64,
        suffix: bool,
    },
    BoolLit(bool),
    Ident(String),
    /// `a.b`: a struct field or a vector swizzle.
    Member(Box<Expr>, String),
    /// `a[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `f(args)`: an intrinsic or a user function.
    Call {
        name: String,
        args: Vec<Expr>,
    },
    /// `Type::method<T>(args)`, e.g. `HitObject::TraceRay(...)`.
    StaticCall {
        ty: String,
        method: String,
        template: Option<Type>,
        args: Vec<Expr>,
    },
    /// `receiver.method<T>(args)`, e.g. `hit.GetAttributes<Attribs>()`.
    MethodCall {
        receiver: Box<Expr>,
        method: String,
        template: Option<Type>,
        args: Vec<Expr>,
    },
    /// `float3(1, 2, 3)`
    Construct(Type, Vec<Expr>),
    /// `(uint)x`
    Cast(Type, Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `a = b`, `a += b`, ...: `None` is plain assignment.
    Assign(Option<BinaryOp>, Box<Expr>, Box<Expr>),
    /// `++a`, `a--`, ...
    IncDec {
        increment: bool,
        prefix: bool,
        target: Box<Expr>,
    },
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
}

impl ExprKind {
    pub fn float(value: f64, suffix: bool) -> ExprKind {
        ExprKind::FloatLit {
            bits: value.to_bits(),
            suffix,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

impl UnaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Plus => "+",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Shl => "<<",
            Shr => ">>",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            And => "&&",
            Or => "||",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
        }
    }

    /// Binding strength, higher binds tighter (C precedence).
    pub fn precedence(self) -> u8 {
        use BinaryOp::*;
        match self {
            Or => 1,
            And => 2,
            BitOr => 3,
            BitXor => 4,
            BitAnd => 5,
            Eq | Ne => 6,
            Lt | Le | Gt | Ge => 7,
            Shl | Shr => 8,
            Add | Sub => 9,
            Mul | Div | Rem => 10,
        }
    }

    /// `|`, `&`, `^`.
    pub fn is_bitwise(self) -> bool {
        matches!(self, BinaryOp::BitOr | BinaryOp::BitAnd | BinaryOp::BitXor)
    }

    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge)
    }

    pub fn is_logical(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(kind: ExprKind) -> Expr {
        Expr {
            kind,
            span: Span::default(),
        }
    }

    fn name(n: &str) -> Expr {
        e(ExprKind::Ident(n.into()))
    }

    /// The names of the operands `operands_all` offers, until `f` says no.
    fn operands(x: &Expr, stop_at: &str) -> Vec<String> {
        let mut seen = Vec::new();
        x.operands_all(|o| {
            let ExprKind::Ident(n) = &o.kind else {
                panic!("names only here")
            };
            seen.push(n.clone());
            n != stop_at
        });
        seen
    }

    #[test]
    fn operands_are_the_expressions_one_level_below() {
        let sum = e(ExprKind::Binary(
            BinaryOp::Add,
            Box::new(name("a")),
            Box::new(name("b")),
        ));
        assert_eq!(operands(&sum, ""), ["a", "b"]);
        assert_eq!(operands(&name("a"), ""), Vec::<String>::new());
        let pick = e(ExprKind::Ternary(
            Box::new(name("c")),
            Box::new(name("t")),
            Box::new(name("f")),
        ));
        assert_eq!(operands(&pick, ""), ["c", "t", "f"]);
        let method = e(ExprKind::MethodCall {
            receiver: Box::new(name("h")),
            method: "Get".into(),
            template: None,
            args: vec![name("i"), name("j")],
        });
        assert_eq!(operands(&method, ""), ["h", "i", "j"]);
        // The first operand for which `f` fails ends the walk.
        assert_eq!(operands(&method, "i"), ["h", "i"]);
    }
}
