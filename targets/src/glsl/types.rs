//! Types: GLSL spellings, the HLSL typing rules the emitter needs (literal
//! and operator types, conversions) and names GLSL reserves.
//!
//! Matrices: HLSL `floatRxC` (R rows, C columns) is emitted as GLSL
//! `matRxC`, which GLSL reads as R columns of C components: the GLSL
//! matrix is the transpose of the HLSL one, column `r` of it holding HLSL
//! row `r` (DXC's SPIR-V backend lays HLSL matrices out the same way). So
//! HLSL `m[r]` (a row) and `m[r][c]` are GLSL `m[r]` and `m[r][c]` as
//! written, HLSL constructors fill rows in the order GLSL fills columns,
//! and `mul(v, M)` is GLSL `M * v`, `mul(M, v)` is `v * M`, `mul(A, B)` is
//! `B * A`.

use super::Unsupported;
use ser_lang::ast::{ScalarType, Type};

pub(crate) fn unsupported<T>(why: impl Into<String>) -> Result<T, Unsupported> {
    Err(Unsupported(why.into()))
}

pub(crate) fn scalar_name(s: ScalarType) -> &'static str {
    match s {
        ScalarType::Bool => "bool",
        ScalarType::Int => "int",
        ScalarType::Uint => "uint",
        ScalarType::Float => "float",
    }
}

fn vector_prefix(s: ScalarType) -> &'static str {
    match s {
        ScalarType::Bool => "bvec",
        ScalarType::Int => "ivec",
        ScalarType::Uint => "uvec",
        ScalarType::Float => "vec",
    }
}

/// The GLSL spelling of a type (arrays as `T[N]`).
pub(crate) fn glsl_type(t: &Type) -> Result<String, Unsupported> {
    Ok(match t {
        Type::Void => "void".into(),
        Type::Scalar(s) => scalar_name(*s).into(),
        Type::Vector(s, n) if (2..=4).contains(n) => format!("{}{n}", vector_prefix(*s)),
        Type::Vector(s, 1) => scalar_name(*s).into(),
        Type::Vector(..) => return unsupported(format!("vector type {t:?}")),
        Type::Matrix(ScalarType::Float, r, c) if (2..=4).contains(r) && (2..=4).contains(c) => {
            format!("mat{r}x{c}")
        }
        Type::Matrix(..) => {
            return unsupported(format!(
                "matrix type `{}`: GLSL has float matrices of 2 to 4 rows and columns only",
                ser_lang::printer::print_type(t)
            ))
        }
        Type::Struct(n) => mangle(n),
        Type::HitObject => "hitObjectNV".into(),
        // GL_EXT_ray_query; the template flags go to rayQueryInitializeEXT
        // (ray_query.rs).
        Type::RayQuery(..) => "rayQueryEXT".into(),
        Type::Array(e, n) => format!("{}[{n}]", glsl_type(e)?),
        Type::Object { name, .. } => {
            return unsupported(format!(
                "`{name}`: an object of a stage other than ray tracing has no GLSL ray tracing form"
            ))
        }
    })
}

/// `T name` or `T name[N]`.
pub(crate) fn declare(t: &Type, name: &str) -> Result<String, Unsupported> {
    match t {
        Type::Array(e, n) => Ok(format!("{}[{n}]", declare(e, name)?)),
        _ => Ok(format!("{} {name}", glsl_type(t)?)),
    }
}

/// HLSL `float1`/`uint1` behave as scalars here.
pub(crate) fn normalize(t: Type) -> Type {
    match t {
        Type::Vector(s, 1) => Type::Scalar(s),
        t => t,
    }
}

pub(crate) fn scalar_of(t: &Type) -> Option<ScalarType> {
    match t {
        Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix(s, _, _) => Some(*s),
        _ => None,
    }
}

pub(crate) fn is_numeric(t: &Type) -> bool {
    matches!(t, Type::Scalar(_) | Type::Vector(..) | Type::Matrix(..))
}

pub(crate) fn rank(s: ScalarType) -> u8 {
    match s {
        ScalarType::Bool => 0,
        ScalarType::Int => 1,
        ScalarType::Uint => 2,
        ScalarType::Float => 3,
    }
}

pub(crate) fn with_scalar(t: &Type, s: ScalarType) -> Type {
    match t {
        Type::Scalar(_) => Type::Scalar(s),
        Type::Vector(_, n) => Type::Vector(s, *n),
        Type::Matrix(_, r, c) => Type::Matrix(s, *r, *c),
        t => t.clone(),
    }
}

/// The type both operands of a binary operator convert to (HLSL's usual
/// arithmetic conversions: the higher-ranked component type, a scalar
/// widened to the other operand's shape, the smaller of two vectors).
pub(crate) fn common(a: &Type, b: &Type, arithmetic: bool) -> Result<Type, Unsupported> {
    let (Some(sa), Some(sb)) = (scalar_of(a), scalar_of(b)) else {
        if a == b {
            return Ok(a.clone());
        }
        return unsupported(format!("operands of types {a:?} and {b:?}"));
    };
    let mut s = if rank(sa) >= rank(sb) { sa } else { sb };
    if arithmetic && s == ScalarType::Bool {
        s = ScalarType::Int;
    }
    let shape = match (a, b) {
        (Type::Scalar(_), t) | (t, Type::Scalar(_)) => t.clone(),
        (Type::Vector(_, n), Type::Vector(_, m)) => Type::Vector(s, *n.min(m)),
        (Type::Matrix(_, r1, c1), Type::Matrix(_, r2, c2)) if r1 == r2 && c1 == c2 => a.clone(),
        _ => return unsupported(format!("operands of types {a:?} and {b:?}")),
    };
    Ok(with_scalar(&shape, s))
}

/// Converts the GLSL text `code` of HLSL type `from` to `to`, as HLSL's
/// implicit and explicit conversions do.
pub(crate) fn convert(code: String, from: &Type, to: &Type) -> Result<String, Unsupported> {
    if from == to {
        return Ok(code);
    }
    match (from, to) {
        (Type::Scalar(_), Type::Scalar(t)) => {
            // Readable literals: `1` as float is `1.0`, as uint `1u`.
            if let Some(lit) = int_literal_text(&code) {
                match t {
                    ScalarType::Float => return Ok(format!("{lit}.0")),
                    ScalarType::Uint if !lit.starts_with('-') => return Ok(format!("{lit}u")),
                    _ => {}
                }
            }
            Ok(format!("{}({code})", scalar_name(*t)))
        }
        (Type::Vector(_, _), Type::Scalar(t)) => Ok(format!("{}({code})", scalar_name(*t))),
        (Type::Scalar(_), Type::Vector(..)) => Ok(format!("{}({code})", glsl_type(to)?)),
        (Type::Vector(_, n), Type::Vector(_, m)) if n >= m => {
            Ok(format!("{}({code})", glsl_type(to)?))
        }
        (Type::Scalar(_), Type::Matrix(_, r, c)) => {
            // GLSL's matN(x) is x on the diagonal; HLSL's (floatRxC)x is x
            // everywhere.
            if !is_simple(&code) {
                return unsupported("a non-constant scalar converted to a matrix");
            }
            let x = convert(code, from, &Type::Scalar(ScalarType::Float))?;
            let all = vec![x; (*r as usize) * (*c as usize)];
            Ok(format!("{}({})", glsl_type(to)?, all.join(", ")))
        }
        (Type::Matrix(_, r1, c1), Type::Matrix(_, r2, c2)) if r1 == r2 && c1 == c2 => {
            Ok(format!("{}({code})", glsl_type(to)?))
        }
        _ => unsupported(format!("conversion from {from:?} to {to:?}")),
    }
}

fn int_literal_text(code: &str) -> Option<&str> {
    let digits = code.strip_prefix('-').unwrap_or(code);
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(code)
}

/// A literal or a plain name: safe to repeat.
pub(crate) fn is_simple(code: &str) -> bool {
    !code.is_empty()
        && code
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
}

/// Names GLSL reserves (keywords, reserved words, built-in functions a
/// user function or variable could shadow): such a name gets a `_` suffix.
const RESERVED: &[&str] = &[
    "attribute",
    "const",
    "uniform",
    "varying",
    "buffer",
    "shared",
    "coherent",
    "volatile",
    "restrict",
    "readonly",
    "writeonly",
    "atomic_uint",
    "layout",
    "centroid",
    "flat",
    "smooth",
    "noperspective",
    "patch",
    "sample",
    "break",
    "continue",
    "do",
    "for",
    "while",
    "switch",
    "case",
    "default",
    "if",
    "else",
    "subroutine",
    "in",
    "out",
    "inout",
    "float",
    "double",
    "int",
    "void",
    "bool",
    "true",
    "false",
    "invariant",
    "precise",
    "discard",
    "return",
    "mat2",
    "mat3",
    "mat4",
    "vec2",
    "vec3",
    "vec4",
    "ivec2",
    "ivec3",
    "ivec4",
    "uvec2",
    "uvec3",
    "uvec4",
    "bvec2",
    "bvec3",
    "bvec4",
    "uint",
    "lowp",
    "mediump",
    "highp",
    "precision",
    "sampler",
    "image",
    "texture",
    "struct",
    "common",
    "partition",
    "active",
    "asm",
    "class",
    "union",
    "enum",
    "typedef",
    "template",
    "this",
    "resource",
    "goto",
    "inline",
    "noinline",
    "public",
    "static",
    "extern",
    "external",
    "interface",
    "long",
    "short",
    "half",
    "fixed",
    "unsigned",
    "superp",
    "input",
    "output",
    "hvec2",
    "hvec3",
    "hvec4",
    "fvec2",
    "fvec3",
    "fvec4",
    "filter",
    "sizeof",
    "cast",
    "namespace",
    "using",
    "main",
    "mix",
    "fract",
    "mod",
    "sign",
    "step",
    "smoothstep",
    "trunc",
    "round",
    "exp",
    "log",
    "pow",
    "sin",
    "cos",
    "tan",
    "radians",
    "degrees",
    "inversesqrt",
    "reflect",
    "refract",
    "distance",
    "equal",
    "notEqual",
    "lessThan",
    "greaterThan",
    "not",
    "inverse",
    "determinant",
    "bitCount",
    "findLSB",
    "findMSB",
    "emit",
    "barrier",
    "memoryBarrier",
    "callable",
    "payload",
    "hitAttribute",
    "rayPayloadEXT",
    "rayPayloadInEXT",
    "hitAttributeEXT",
    "callableDataEXT",
    "callableDataInEXT",
    "accelerationStructureEXT",
    "hitObjectNV",
    "ignoreIntersectionEXT",
    "terminateRayEXT",
    "traceRayEXT",
    "reportIntersectionEXT",
    "executeCallableEXT",
    "shaderRecordEXT",
    "matrixCompMult",
    "outerProduct",
    "transpose",
    "abs",
    "min",
    "max",
    "clamp",
    "floor",
    "ceil",
    "sqrt",
    "dot",
    "cross",
    "length",
    "normalize",
    "all",
    "any",
    "atomicAdd",
    "memoryBarrierBuffer",
    "floatBitsToUint",
    "floatBitsToInt",
    "uintBitsToFloat",
    "intBitsToFloat",
    "lessThanEqual",
    "greaterThanEqual",
];

/// A user name as GLSL can spell it.
pub(crate) fn mangle(name: &str) -> String {
    if RESERVED.contains(&name)
        || name.starts_with("gl_")
        || name.contains("__")
        || name.starts_with('_')
        || name.starts_with("hitObject")
        || name.starts_with("subgroup")
        || name.ends_with("EXT")
        || name.ends_with("NV")
        || name.ends_with("KHR")
    {
        format!("u{name}_")
    } else {
        name.to_string()
    }
}
