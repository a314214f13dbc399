//! The signature of every built-in function: how many operands each of its
//! overloads takes, what each operand must be, which ones the call writes,
//! and what it returns. One table that the reference's loader check
//! (`ser_reference::program`), its validator (which operand is a payload,
//! which are written) and the printers share.
//!
//! Operand kinds are as strict as the texts and HLSL's conversions allow:
//! a numeric operand takes any scalar (HLSL converts scalars, and splats a
//! scalar to a vector) or a vector at least as long (HLSL truncates a
//! longer one), and nothing else. Operands whose kind is itself a rule a
//! compiler must diagnose (a payload that is not a struct, `HitObject::
//! TraceRay` on something other than an acceleration structure) are
//! marked [`Param::ruled`]: the validator judges them, as a negative case
//! expects, and the loader leaves them alone.

use crate::ast::{ScalarType, Type};
use crate::names::{self, ProfileForm};

/// Where a built-in is called from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    /// `Name(args)`.
    Free,
    /// `HitObject::Name(args)`.
    HitObjectStatic,
    /// `hit.Name(args)`.
    HitObjectMethod,
    /// `query.Name(args)`.
    RayQueryMethod,
    /// `buffer.Name(args)` on a (RW)ByteAddressBuffer: templated loads and
    /// stores (negative cases only).
    ByteAddressBufferMethod,
}

/// What an operand must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A number of at least this many components: a scalar of any numeric
    /// type, or a vector at least as long.
    Numeric(u8),
    /// A scalar, vector or matrix of any numeric type (the result follows
    /// it).
    AnyNumeric,
    /// A `RayDesc`.
    Ray,
    /// A `RaytracingAccelerationStructure`.
    AccelerationStructure,
    HitObject,
    RayQuery,
    /// A ray payload or callable parameter: a variable of a user-defined
    /// struct, passed `inout`.
    Payload,
    /// Hit attributes: a user-defined struct.
    Attributes,
    /// A place the call writes (`out`).
    Out,
    /// A place the call reads and writes in memory (InterlockedAdd's
    /// destination).
    Destination,
    /// A value of the call's type argument (`Store<T>(offset, value)`).
    Value,
}

/// One operand of an overload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub operand: Operand,
    /// The validator's diagnostic code when what this operand is, is a rule
    /// of the texts (the loader leaves it to the validator).
    pub ruled: Option<&'static str>,
}

/// A type a built-in returns: one without parts to drop, so the table is
/// a plain static.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Scalar(ScalarType),
    Vector(ScalarType, u8),
    Matrix(ScalarType, u8, u8),
    HitObject,
}

impl Shape {
    pub fn to_type(self) -> Type {
        match self {
            Shape::Scalar(s) => Type::Scalar(s),
            Shape::Vector(s, n) => Type::Vector(s, n),
            Shape::Matrix(s, r, c) => Type::Matrix(s, r, c),
            Shape::HitObject => Type::HitObject,
        }
    }
}

/// What a call returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    Void,
    Type(Shape),
    /// The type of operand `n`.
    Operand(usize),
    /// Operand `n`'s shape with this scalar type (`asuint`, `countbits`).
    OperandAs(usize, ScalarType),
    /// The scalar type of operand `n` (`dot`).
    ScalarOf(usize),
    /// The template argument (`GetAttributes<T>()`).
    Template,
    /// Not worked out here (`mul`, `transpose`).
    Unknown,
}

/// Whether an overload takes a template argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Template {
    No,
    Required,
}

/// One overload of a built-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overload {
    pub params: &'static [Param],
    pub returns: Returns,
    pub template: Template,
    /// The profile-limited form this overload is, if it is one (a case
    /// using it lists only the form's profiles).
    pub form: Option<&'static ProfileForm>,
}

/// A built-in function and its overloads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Builtin {
    pub callee: Callee,
    pub name: &'static str,
    pub overloads: &'static [Overload],
}

impl Builtin {
    /// How it is written: `TraceRay`, `HitObject::MakeMiss`, `.GetRayTMin`.
    pub fn written(&self) -> String {
        match self.callee {
            Callee::Free => self.name.to_string(),
            Callee::HitObjectStatic => format!("HitObject::{}", self.name),
            Callee::HitObjectMethod => format!("HitObject's {}", self.name),
            Callee::RayQueryMethod => format!("RayQuery's {}", self.name),
            Callee::ByteAddressBufferMethod => format!("ByteAddressBuffer's {}", self.name),
        }
    }

    /// The overload a call with `n` operands (and a template argument or
    /// not) is.
    pub fn overload(&self, n: usize, template: bool) -> Option<&'static Overload> {
        self.overloads
            .iter()
            .find(|o| o.params.len() == n && (o.template == Template::Required) == template)
    }

    /// The operand counts its overloads take: `0`, `2 or 4`.
    pub fn arities(&self) -> String {
        let mut n: Vec<usize> = self.overloads.iter().map(|o| o.params.len()).collect();
        n.sort_unstable();
        n.dedup();
        let words: Vec<String> = n.iter().map(usize::to_string).collect();
        match words.as_slice() {
            [one] => one.clone(),
            [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
            [] => "no".into(),
        }
    }
}

/// The built-in `name` called as `callee`.
pub fn lookup(callee: Callee, name: &str) -> Option<&'static Builtin> {
    BUILTINS
        .iter()
        .find(|b| b.callee == callee && names::same(b.name.as_bytes(), name.as_bytes()))
}

/// Every built-in of a kind, for listings.
pub fn all(callee: Callee) -> impl Iterator<Item = &'static Builtin> {
    BUILTINS.iter().filter(move |b| b.callee == callee)
}

const fn p(name: &'static str, operand: Operand) -> Param {
    Param {
        name,
        operand,
        ruled: None,
    }
}

const fn ruled(name: &'static str, operand: Operand, code: &'static str) -> Param {
    Param {
        name,
        operand,
        ruled: Some(code),
    }
}

const fn o(params: &'static [Param], returns: Returns) -> Overload {
    Overload {
        params,
        returns,
        template: Template::No,
        form: None,
    }
}

const fn b(callee: Callee, name: &'static str, overloads: &'static [Overload]) -> Builtin {
    Builtin {
        callee,
        name,
        overloads,
    }
}

use Callee::*;
use Operand::*;

const UINT: Shape = Shape::Scalar(ScalarType::Uint);
const FLOAT: Shape = Shape::Scalar(ScalarType::Float);
const BOOL: Shape = Shape::Scalar(ScalarType::Bool);
const UINT3: Shape = Shape::Vector(ScalarType::Uint, 3);
const UINT4: Shape = Shape::Vector(ScalarType::Uint, 4);
const FLOAT2: Shape = Shape::Vector(ScalarType::Float, 2);
const FLOAT3: Shape = Shape::Vector(ScalarType::Float, 3);
const F3X4: Shape = Shape::Matrix(ScalarType::Float, 3, 4);
const F4X3: Shape = Shape::Matrix(ScalarType::Float, 4, 3);

const R_UINT: Returns = Returns::Type(UINT);
const R_FLOAT: Returns = Returns::Type(FLOAT);
const R_BOOL: Returns = Returns::Type(BOOL);
const R_FLOAT2: Returns = Returns::Type(FLOAT2);
const R_FLOAT3: Returns = Returns::Type(FLOAT3);
const R_F3X4: Returns = Returns::Type(F3X4);
const R_F4X3: Returns = Returns::Type(F4X3);
const R_HIT: Returns = Returns::Type(Shape::HitObject);

const NONE: &[Param] = &[];
const U: Operand = Numeric(1);

/// The operands a trace takes before its payload: `TraceRay`'s first
/// seven.
macro_rules! trace_head {
    ($as:expr) => {
        [
            $as,
            p("RayFlags", U),
            p("InstanceInclusionMask", U),
            p("RayContributionToHitGroupIndex", U),
            p("MultiplierForGeometryContributionToHitGroupIndex", U),
            p("MissShaderIndex", U),
            p("Ray", Ray),
        ]
    };
}

const AS: Param = p("AccelerationStructure", AccelerationStructure);
const AS_RULED: Param = ruled(
    "AccelerationStructure",
    AccelerationStructure,
    "acceleration_structure_operand",
);
const PAYLOAD: Param = ruled("Payload", Payload, "payload_type");
const ATTRIBUTES: Param = ruled("Attributes", Attributes, "attribute_type");
const QUERY_RULED: Param = ruled("Query", RayQuery, "ray_query_operand");
const HINT: Param = p("CoherenceHint", U);
const BITS: Param = p("NumCoherenceHintBitsFromLSB", U);
const TIME: Param = p("CurrentTime", U);
const HIT: Param = p("Hit", HitObject);

const TRACE: [Param; 8] = {
    let h = trace_head!(AS);
    [h[0], h[1], h[2], h[3], h[4], h[5], h[6], PAYLOAD]
};
const TRACE_MOTION: [Param; 9] = {
    let h = trace_head!(AS);
    [h[0], h[1], h[2], h[3], h[4], h[5], h[6], TIME, PAYLOAD]
};
const HIT_TRACE: [Param; 8] = {
    let h = trace_head!(AS_RULED);
    [h[0], h[1], h[2], h[3], h[4], h[5], h[6], PAYLOAD]
};
const HIT_TRACE_MOTION: [Param; 9] = {
    let h = trace_head!(AS);
    [h[0], h[1], h[2], h[3], h[4], h[5], h[6], TIME, PAYLOAD]
};
const TRACE_REORDER_HINT: [Param; 10] = {
    let h = trace_head!(AS);
    [
        h[0], h[1], h[2], h[3], h[4], h[5], h[6], HINT, BITS, PAYLOAD,
    ]
};
const TRACE_MOTION_REORDER: [Param; 11] = {
    let h = trace_head!(AS);
    [
        h[0], h[1], h[2], h[3], h[4], h[5], h[6], TIME, HINT, BITS, PAYLOAD,
    ]
};

/// `hitObjectRecordHit[WithIndex][Motion]NV`: the scene, instance,
/// primitive, geometry, hit kind, then the record's offset and stride or
/// its index, the ray, the time (motion forms), the attributes.
const RECORD_HEAD: [Param; 5] = [
    AS,
    p("InstanceIndex", U),
    p("PrimitiveIndex", U),
    p("GeometryIndex", U),
    p("HitKind", U),
];
const MAKE_HIT: [Param; 9] = {
    let h = RECORD_HEAD;
    [
        h[0],
        h[1],
        h[2],
        h[3],
        h[4],
        p("SbtRecordOffset", U),
        p("SbtRecordStride", U),
        p("Ray", Ray),
        ATTRIBUTES,
    ]
};
const MAKE_HIT_MOTION: [Param; 10] = {
    let h = MAKE_HIT;
    [h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], TIME, h[8]]
};
const MAKE_HIT_WITH_INDEX: [Param; 8] = {
    let h = RECORD_HEAD;
    [
        h[0],
        h[1],
        h[2],
        h[3],
        h[4],
        p("SbtRecordIndex", U),
        p("Ray", Ray),
        ATTRIBUTES,
    ]
};
const MAKE_HIT_WITH_INDEX_MOTION: [Param; 9] = {
    let h = MAKE_HIT_WITH_INDEX;
    [h[0], h[1], h[2], h[3], h[4], h[5], h[6], TIME, h[7]]
};

/// Every built-in.
pub static BUILTINS: &[Builtin] = &[
    // System values.
    b(Free, "DispatchRaysIndex", &[o(NONE, Returns::Type(UINT3))]),
    b(
        Free,
        "DispatchRaysDimensions",
        &[o(NONE, Returns::Type(UINT3))],
    ),
    b(Free, "RayFlags", &[o(NONE, R_UINT)]),
    b(Free, "RayTMin", &[o(NONE, R_FLOAT)]),
    b(Free, "RayTCurrent", &[o(NONE, R_FLOAT)]),
    b(Free, "WorldRayOrigin", &[o(NONE, R_FLOAT3)]),
    b(Free, "WorldRayDirection", &[o(NONE, R_FLOAT3)]),
    b(Free, "ObjectRayOrigin", &[o(NONE, R_FLOAT3)]),
    b(Free, "ObjectRayDirection", &[o(NONE, R_FLOAT3)]),
    b(Free, "ObjectToWorld3x4", &[o(NONE, R_F3X4)]),
    b(Free, "ObjectToWorld4x3", &[o(NONE, R_F4X3)]),
    b(Free, "WorldToObject3x4", &[o(NONE, R_F3X4)]),
    b(Free, "WorldToObject4x3", &[o(NONE, R_F4X3)]),
    b(Free, "InstanceIndex", &[o(NONE, R_UINT)]),
    b(Free, "InstanceID", &[o(NONE, R_UINT)]),
    b(Free, "GeometryIndex", &[o(NONE, R_UINT)]),
    b(Free, "PrimitiveIndex", &[o(NONE, R_UINT)]),
    b(Free, "HitKind", &[o(NONE, R_UINT)]),
    // Ray tracing.
    b(Free, "TraceRay", &[o(&TRACE, Returns::Void)]),
    b(Free, "TraceRayMotion", &[o(&TRACE_MOTION, Returns::Void)]),
    b(
        Free,
        "CallShader",
        &[o(
            &[
                p("ShaderIndex", U),
                ruled("Parameter", Payload, "payload_type"),
            ],
            Returns::Void,
        )],
    ),
    b(
        Free,
        "ReportHit",
        &[o(&[p("THit", U), p("HitKind", U), ATTRIBUTES], R_BOOL)],
    ),
    b(Free, "IgnoreHit", &[o(NONE, Returns::Void)]),
    b(Free, "AcceptHitAndEndSearch", &[o(NONE, Returns::Void)]),
    b(Free, "MaybeReorderThread", REORDER),
    b(Free, "ReorderThread", REORDER),
    // Memory.
    b(
        Free,
        "Barrier",
        &[o(
            &[p("MemoryTypeFlags", U), p("SemanticFlags", U)],
            Returns::Void,
        )],
    ),
    b(Free, "DeviceMemoryBarrier", &[o(NONE, Returns::Void)]),
    b(
        Free,
        "InterlockedAdd",
        &[
            o(&[p("Dest", Destination), p("Value", U)], Returns::Void),
            o(
                &[
                    p("Dest", Destination),
                    p("Value", U),
                    p("OriginalValue", Out),
                ],
                Returns::Void,
            ),
        ],
    ),
    // Waves.
    b(
        Free,
        "WaveActiveBallot",
        &[o(&[p("Expr", U)], Returns::Type(UINT4))],
    ),
    b(Free, "WaveIsFirstLane", &[o(NONE, R_BOOL)]),
    b(Free, "WaveGetLaneIndex", &[o(NONE, R_UINT)]),
    b(Free, "WaveGetLaneCount", &[o(NONE, R_UINT)]),
    b(Free, "WaveActiveCountBits", &[o(&[p("Bit", U)], R_UINT)]),
    b(
        Free,
        "WaveActiveSum",
        &[o(&[p("Value", AnyNumeric)], Returns::Operand(0))],
    ),
    b(
        Free,
        "WaveActiveAllEqual",
        &[o(&[p("Expr", AnyNumeric)], R_BOOL)],
    ),
    b(
        Free,
        "WaveReadLaneFirst",
        &[o(&[p("Expr", AnyNumeric)], Returns::Operand(0))],
    ),
    // Arithmetic.
    b(Free, "asuint", &[as_bits(ScalarType::Uint)]),
    b(Free, "asint", &[as_bits(ScalarType::Int)]),
    b(Free, "asfloat", &[as_bits(ScalarType::Float)]),
    b(Free, "abs", &[same_as_x()]),
    b(Free, "min", &[o(&[X, Y], Returns::Operand(0))]),
    b(Free, "max", &[o(&[X, Y], Returns::Operand(0))]),
    b(
        Free,
        "clamp",
        &[o(
            &[X, p("Min", AnyNumeric), p("Max", AnyNumeric)],
            Returns::Operand(0),
        )],
    ),
    b(Free, "floor", &[same_as_x()]),
    b(Free, "ceil", &[same_as_x()]),
    b(Free, "sqrt", &[same_as_x()]),
    b(Free, "dot", &[o(&[X, Y], Returns::ScalarOf(0))]),
    b(
        Free,
        "cross",
        &[o(&[p("X", Numeric(3)), p("Y", Numeric(3))], R_FLOAT3)],
    ),
    b(Free, "length", &[o(&[X], R_FLOAT)]),
    b(Free, "normalize", &[same_as_x()]),
    b(Free, "mul", &[o(&[X, Y], Returns::Unknown)]),
    b(Free, "transpose", &[o(&[X], Returns::Unknown)]),
    b(
        Free,
        "countbits",
        &[o(&[X], Returns::OperandAs(0, ScalarType::Uint))],
    ),
    b(Free, "all", &[o(&[X], R_BOOL)]),
    b(Free, "any", &[o(&[X], R_BOOL)]),
    // HitObject's static functions.
    b(HitObjectStatic, "TraceRay", &[o(&HIT_TRACE, R_HIT)]),
    b(
        HitObjectStatic,
        "FromRayQuery",
        &[
            o(&[QUERY_RULED], R_HIT),
            o(&[QUERY_RULED, ATTRIBUTES], R_HIT),
            Overload {
                params: &[QUERY_RULED, p("HitKind", U), ATTRIBUTES],
                returns: R_HIT,
                template: Template::No,
                form: Some(&names::FROM_RAY_QUERY_HIT_KIND),
            },
        ],
    ),
    b(
        HitObjectStatic,
        "MakeMiss",
        &[o(
            &[p("RayFlags", U), p("MissShaderIndex", U), p("Ray", Ray)],
            R_HIT,
        )],
    ),
    b(
        HitObjectStatic,
        "MakeMissMotion",
        &[o(
            &[
                p("RayFlags", U),
                p("MissShaderIndex", U),
                p("Ray", Ray),
                TIME,
            ],
            R_HIT,
        )],
    ),
    b(HitObjectStatic, "MakeNop", &[o(NONE, R_HIT)]),
    b(
        HitObjectStatic,
        "Invoke",
        &[o(&[HIT, PAYLOAD], Returns::Void)],
    ),
    b(HitObjectStatic, "MakeHit", &[o(&MAKE_HIT, R_HIT)]),
    b(
        HitObjectStatic,
        "MakeHitWithIndex",
        &[o(&MAKE_HIT_WITH_INDEX, R_HIT)],
    ),
    b(
        HitObjectStatic,
        "MakeHitMotion",
        &[o(&MAKE_HIT_MOTION, R_HIT)],
    ),
    b(
        HitObjectStatic,
        "MakeHitWithIndexMotion",
        &[o(&MAKE_HIT_WITH_INDEX_MOTION, R_HIT)],
    ),
    b(
        HitObjectStatic,
        "RecordFromQuery",
        &[
            o(&[QUERY_RULED, p("SbtRecordIndex", U), ATTRIBUTES], R_HIT),
            o(
                &[
                    QUERY_RULED,
                    p("SbtRecordIndex", U),
                    ATTRIBUTES,
                    p("HitKind", U),
                ],
                R_HIT,
            ),
        ],
    ),
    b(
        HitObjectStatic,
        "ReorderExecute",
        &[
            o(&[HIT, PAYLOAD], Returns::Void),
            o(&[HIT, HINT, BITS, PAYLOAD], Returns::Void),
        ],
    ),
    b(
        HitObjectStatic,
        "TraceReorderExecute",
        &[
            o(&TRACE, Returns::Void),
            o(&TRACE_REORDER_HINT, Returns::Void),
        ],
    ),
    b(
        HitObjectStatic,
        "TraceRayMotion",
        &[o(&HIT_TRACE_MOTION, R_HIT)],
    ),
    b(
        HitObjectStatic,
        "TraceMotionReorderExecute",
        &[o(&TRACE_MOTION_REORDER, Returns::Void)],
    ),
    // HitObject's methods.
    b(HitObjectMethod, "IsMiss", &[o(NONE, R_BOOL)]),
    b(HitObjectMethod, "IsHit", &[o(NONE, R_BOOL)]),
    b(HitObjectMethod, "IsNop", &[o(NONE, R_BOOL)]),
    b(HitObjectMethod, "GetRayFlags", &[o(NONE, R_UINT)]),
    b(HitObjectMethod, "GetRayTMin", &[o(NONE, R_FLOAT)]),
    b(HitObjectMethod, "GetRayTCurrent", &[o(NONE, R_FLOAT)]),
    b(HitObjectMethod, "GetWorldRayOrigin", &[o(NONE, R_FLOAT3)]),
    b(
        HitObjectMethod,
        "GetWorldRayDirection",
        &[o(NONE, R_FLOAT3)],
    ),
    b(HitObjectMethod, "GetObjectRayOrigin", &[o(NONE, R_FLOAT3)]),
    b(
        HitObjectMethod,
        "GetObjectRayDirection",
        &[o(NONE, R_FLOAT3)],
    ),
    b(HitObjectMethod, "GetObjectToWorld3x4", &[o(NONE, R_F3X4)]),
    b(HitObjectMethod, "GetObjectToWorld4x3", &[o(NONE, R_F4X3)]),
    b(HitObjectMethod, "GetWorldToObject3x4", &[o(NONE, R_F3X4)]),
    b(HitObjectMethod, "GetWorldToObject4x3", &[o(NONE, R_F4X3)]),
    b(HitObjectMethod, "GetInstanceIndex", &[o(NONE, R_UINT)]),
    b(HitObjectMethod, "GetInstanceID", &[o(NONE, R_UINT)]),
    b(HitObjectMethod, "GetGeometryIndex", &[o(NONE, R_UINT)]),
    b(HitObjectMethod, "GetPrimitiveIndex", &[o(NONE, R_UINT)]),
    b(HitObjectMethod, "GetHitKind", &[o(NONE, R_UINT)]),
    b(
        HitObjectMethod,
        "GetAttributes",
        &[
            Overload {
                params: NONE,
                returns: Returns::Template,
                template: Template::Required,
                form: None,
            },
            Overload {
                params: &[p("Attributes", Out)],
                returns: Returns::Void,
                template: Template::No,
                form: Some(&names::GET_ATTRIBUTES_OUT),
            },
        ],
    ),
    b(HitObjectMethod, "GetShaderTableIndex", &[o(NONE, R_UINT)]),
    b(
        HitObjectMethod,
        "SetShaderTableIndex",
        &[o(&[p("RecordIndex", U)], Returns::Void)],
    ),
    b(
        HitObjectMethod,
        "LoadLocalRootTableConstant",
        &[o(&[p("RootConstantOffsetInBytes", U)], R_UINT)],
    ),
    b(
        HitObjectMethod,
        "GetTriangleVertexPositions",
        &[o(&[p("Positions", Out)], Returns::Void)],
    ),
    b(HitObjectMethod, "GetCurrentTime", &[o(NONE, R_FLOAT)]),
    // RayQuery's methods.
    b(
        RayQueryMethod,
        "TraceRayInline",
        &[o(
            &[
                AS,
                p("RayFlags", U),
                p("InstanceInclusionMask", U),
                p("Ray", Ray),
            ],
            Returns::Void,
        )],
    ),
    b(RayQueryMethod, "Proceed", &[o(NONE, R_BOOL)]),
    b(RayQueryMethod, "Abort", &[o(NONE, Returns::Void)]),
    b(RayQueryMethod, "CandidateType", &[o(NONE, R_UINT)]),
    b(
        RayQueryMethod,
        "CandidateProceduralPrimitiveNonOpaque",
        &[o(NONE, R_BOOL)],
    ),
    b(
        RayQueryMethod,
        "CommitNonOpaqueTriangleHit",
        &[o(NONE, Returns::Void)],
    ),
    b(
        RayQueryMethod,
        "CommitProceduralPrimitiveHit",
        &[o(&[p("THit", U)], Returns::Void)],
    ),
    b(RayQueryMethod, "CommittedStatus", &[o(NONE, R_UINT)]),
    b(RayQueryMethod, "RayFlags", &[o(NONE, R_UINT)]),
    b(RayQueryMethod, "WorldRayOrigin", &[o(NONE, R_FLOAT3)]),
    b(RayQueryMethod, "WorldRayDirection", &[o(NONE, R_FLOAT3)]),
    b(RayQueryMethod, "RayTMin", &[o(NONE, R_FLOAT)]),
    b(RayQueryMethod, "CandidateTriangleRayT", &[o(NONE, R_FLOAT)]),
    b(RayQueryMethod, "CommittedRayT", &[o(NONE, R_FLOAT)]),
    b(RayQueryMethod, "CandidateInstanceIndex", &[o(NONE, R_UINT)]),
    b(RayQueryMethod, "CandidateInstanceID", &[o(NONE, R_UINT)]),
    b(
        RayQueryMethod,
        "CandidateInstanceContributionToHitGroupIndex",
        &[o(NONE, R_UINT)],
    ),
    b(RayQueryMethod, "CandidateGeometryIndex", &[o(NONE, R_UINT)]),
    b(
        RayQueryMethod,
        "CandidatePrimitiveIndex",
        &[o(NONE, R_UINT)],
    ),
    b(
        RayQueryMethod,
        "CandidateObjectRayOrigin",
        &[o(NONE, R_FLOAT3)],
    ),
    b(
        RayQueryMethod,
        "CandidateObjectRayDirection",
        &[o(NONE, R_FLOAT3)],
    ),
    b(
        RayQueryMethod,
        "CandidateObjectToWorld3x4",
        &[o(NONE, R_F3X4)],
    ),
    b(
        RayQueryMethod,
        "CandidateObjectToWorld4x3",
        &[o(NONE, R_F4X3)],
    ),
    b(
        RayQueryMethod,
        "CandidateWorldToObject3x4",
        &[o(NONE, R_F3X4)],
    ),
    b(
        RayQueryMethod,
        "CandidateWorldToObject4x3",
        &[o(NONE, R_F4X3)],
    ),
    b(RayQueryMethod, "CommittedInstanceIndex", &[o(NONE, R_UINT)]),
    b(RayQueryMethod, "CommittedInstanceID", &[o(NONE, R_UINT)]),
    b(
        RayQueryMethod,
        "CommittedInstanceContributionToHitGroupIndex",
        &[o(NONE, R_UINT)],
    ),
    b(RayQueryMethod, "CommittedGeometryIndex", &[o(NONE, R_UINT)]),
    b(
        RayQueryMethod,
        "CommittedPrimitiveIndex",
        &[o(NONE, R_UINT)],
    ),
    b(
        RayQueryMethod,
        "CommittedObjectRayOrigin",
        &[o(NONE, R_FLOAT3)],
    ),
    b(
        RayQueryMethod,
        "CommittedObjectRayDirection",
        &[o(NONE, R_FLOAT3)],
    ),
    b(
        RayQueryMethod,
        "CommittedObjectToWorld3x4",
        &[o(NONE, R_F3X4)],
    ),
    b(
        RayQueryMethod,
        "CommittedObjectToWorld4x3",
        &[o(NONE, R_F4X3)],
    ),
    b(
        RayQueryMethod,
        "CommittedWorldToObject3x4",
        &[o(NONE, R_F3X4)],
    ),
    b(
        RayQueryMethod,
        "CommittedWorldToObject4x3",
        &[o(NONE, R_F4X3)],
    ),
    b(
        RayQueryMethod,
        "CandidateTriangleBarycentrics",
        &[o(NONE, R_FLOAT2)],
    ),
    b(
        RayQueryMethod,
        "CandidateTriangleFrontFace",
        &[o(NONE, R_BOOL)],
    ),
    b(
        RayQueryMethod,
        "CommittedTriangleBarycentrics",
        &[o(NONE, R_FLOAT2)],
    ),
    b(
        RayQueryMethod,
        "CommittedTriangleFrontFace",
        &[o(NONE, R_BOOL)],
    ),
    // (RW)ByteAddressBuffer: `Load(offset)` a uint, `Load<T>(offset)` a T;
    // `Store(offset, value)`, `Store<T>(offset, value)`.
    b(
        ByteAddressBufferMethod,
        "Load",
        &[
            o(&[p("Offset", U)], R_UINT),
            Overload {
                params: &[p("Offset", U)],
                returns: Returns::Template,
                template: Template::Required,
                form: None,
            },
        ],
    ),
    b(
        ByteAddressBufferMethod,
        "Store",
        &[
            o(&[p("Offset", U), p("Value", U)], Returns::Void),
            Overload {
                params: &[p("Offset", U), p("Value", Value)],
                returns: Returns::Void,
                template: Template::Required,
                form: None,
            },
        ],
    ),
];

/// `MaybeReorderThread`'s (and the earlier revision's `ReorderThread`'s)
/// three overloads: a hit object, a hint, or both.
const REORDER: &[Overload] = &[
    o(&[HIT], Returns::Void),
    o(&[HINT, BITS], Returns::Void),
    o(&[HIT, HINT, BITS], Returns::Void),
];

const X: Param = p("X", AnyNumeric);
const Y: Param = p("Y", AnyNumeric);

const fn same_as_x() -> Overload {
    o(&[X], Returns::Operand(0))
}

const fn as_bits(to: ScalarType) -> Overload {
    o(&[X], Returns::OperandAs(0, to))
}

/// The payload (or callable parameter) operand of an overload, if it takes
/// one: its index.
pub fn payload_index(o: &Overload) -> Option<usize> {
    o.params.iter().position(|p| p.operand == Payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The name lists of [`names`] and the table agree: every name has a
    /// signature and every signature a name.
    #[test]
    fn the_table_covers_exactly_the_built_in_names() {
        let pairs: [(Callee, &[&str]); 4] = [
            (Free, names::INTRINSICS),
            (HitObjectStatic, names::HIT_OBJECT_STATICS),
            (HitObjectMethod, names::HIT_OBJECT_METHODS),
            (RayQueryMethod, names::RAY_QUERY_METHODS),
        ];
        for (callee, list) in pairs {
            let mut listed: Vec<&str> = list.to_vec();
            let mut table: Vec<&str> = all(callee).map(|b| b.name).collect();
            listed.sort_unstable();
            table.sort_unstable();
            assert_eq!(listed, table, "{callee:?}");
        }
    }

    #[test]
    fn overloads_are_told_apart_by_their_operand_count_and_template() {
        for b in BUILTINS {
            for (i, x) in b.overloads.iter().enumerate() {
                for y in &b.overloads[i + 1..] {
                    assert!(
                        x.params.len() != y.params.len() || x.template != y.template,
                        "{}: two overloads of {} operands",
                        b.written(),
                        x.params.len()
                    );
                }
            }
        }
    }

    #[test]
    fn arities_read_as_people_write_them() {
        let miss = lookup(HitObjectStatic, "MakeMiss").unwrap();
        assert_eq!(miss.arities(), "3");
        let reorder = lookup(Free, "MaybeReorderThread").unwrap();
        assert_eq!(reorder.arities(), "1, 2 or 3");
        assert_eq!(
            payload_index(
                lookup(Free, "TraceRay")
                    .unwrap()
                    .overload(8, false)
                    .unwrap()
            ),
            Some(7)
        );
    }
}
