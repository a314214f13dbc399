//! The built-in names of the language: constants, intrinsic functions, and
//! the methods of `HitObject` and `RayQuery`.
//!
//! Constant values are those of HLSL's DXR headers. The SER proposal refers
//! to ray flags, hit kinds and committed statuses by name only ("Valid
//! combination of Ray flags as specified by TraceRay"); their values are the
//! HLSL ones that every DXR implementation uses.

/// Whether two names (or pieces of punctuation) are the same, byte by
/// byte. Names are short, and most that are compared differ in length or
/// in their first bytes: compared here without a call to `memcmp` for each,
/// which a string comparison makes.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// HLSL ray flags (`RAY_FLAG_*`).
pub mod ray_flag {
    pub const NONE: u32 = 0x00;
    pub const FORCE_OPAQUE: u32 = 0x01;
    pub const FORCE_NON_OPAQUE: u32 = 0x02;
    pub const ACCEPT_FIRST_HIT_AND_END_SEARCH: u32 = 0x04;
    pub const SKIP_CLOSEST_HIT_SHADER: u32 = 0x08;
    pub const CULL_BACK_FACING_TRIANGLES: u32 = 0x10;
    pub const CULL_FRONT_FACING_TRIANGLES: u32 = 0x20;
    pub const CULL_OPAQUE: u32 = 0x40;
    pub const CULL_NON_OPAQUE: u32 = 0x80;
    pub const SKIP_TRIANGLES: u32 = 0x100;
    pub const SKIP_PROCEDURAL_PRIMITIVES: u32 = 0x200;
    pub const FORCE_OPACITY_MICROMAP_2_STATE: u32 = 0x400;
    /// Every flag the proposal-era HLSL defines (through
    /// `SKIP_PROCEDURAL_PRIMITIVES`).
    pub const DEFINED_0027: u32 = 0x3FF;
}

/// Instance flags (`D3D12_RAYTRACING_INSTANCE_FLAG_*`, the same bits as
/// `VK_GEOMETRY_INSTANCE_*_BIT_KHR`).
pub mod instance_flag {
    pub const TRIANGLE_CULL_DISABLE: u32 = 0x1;
    pub const TRIANGLE_FLIP_FACING: u32 = 0x2;
    pub const FORCE_OPAQUE: u32 = 0x4;
    pub const FORCE_NON_OPAQUE: u32 = 0x8;
    pub const FORCE_OPACITY_MICROMAP_2_STATE: u32 = 0x10;
    pub const DISABLE_OPACITY_MICROMAPS: u32 = 0x20;
}

/// RayQuery flags (`RAYQUERY_FLAG_*`, `dxr.ray_query.flags.values`): the
/// optional second template parameter of `RayQuery` (Shader Model 6.9).
pub mod ray_query_flag {
    pub const NONE: u32 = 0x00;
    pub const ALLOW_OPACITY_MICROMAPS: u32 = 0x01;
    pub const ALLOW_CLUSTERED_GEOMETRY: u32 = 0x02;
}

pub const HIT_KIND_TRIANGLE_FRONT_FACE: u32 = 0xFE;
pub const HIT_KIND_TRIANGLE_BACK_FACE: u32 = 0xFF;

/// The named constants a shader may use, with their values.
pub const CONSTANTS: &[(&str, u32)] = &[
    ("RAY_FLAG_NONE", ray_flag::NONE),
    ("RAY_FLAG_FORCE_OPAQUE", ray_flag::FORCE_OPAQUE),
    ("RAY_FLAG_FORCE_NON_OPAQUE", ray_flag::FORCE_NON_OPAQUE),
    (
        "RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH",
        ray_flag::ACCEPT_FIRST_HIT_AND_END_SEARCH,
    ),
    (
        "RAY_FLAG_SKIP_CLOSEST_HIT_SHADER",
        ray_flag::SKIP_CLOSEST_HIT_SHADER,
    ),
    (
        "RAY_FLAG_CULL_BACK_FACING_TRIANGLES",
        ray_flag::CULL_BACK_FACING_TRIANGLES,
    ),
    (
        "RAY_FLAG_CULL_FRONT_FACING_TRIANGLES",
        ray_flag::CULL_FRONT_FACING_TRIANGLES,
    ),
    ("RAY_FLAG_CULL_OPAQUE", ray_flag::CULL_OPAQUE),
    ("RAY_FLAG_CULL_NON_OPAQUE", ray_flag::CULL_NON_OPAQUE),
    ("RAY_FLAG_SKIP_TRIANGLES", ray_flag::SKIP_TRIANGLES),
    (
        "RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES",
        ray_flag::SKIP_PROCEDURAL_PRIMITIVES,
    ),
    (
        "RAY_FLAG_FORCE_OPACITY_MICROMAP_2_STATE",
        ray_flag::FORCE_OPACITY_MICROMAP_2_STATE,
    ),
    ("RAYQUERY_FLAG_NONE", ray_query_flag::NONE),
    (
        "RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS",
        ray_query_flag::ALLOW_OPACITY_MICROMAPS,
    ),
    (
        "RAYQUERY_FLAG_ALLOW_CLUSTERED_GEOMETRY",
        ray_query_flag::ALLOW_CLUSTERED_GEOMETRY,
    ),
    ("HIT_KIND_TRIANGLE_FRONT_FACE", HIT_KIND_TRIANGLE_FRONT_FACE),
    ("HIT_KIND_TRIANGLE_BACK_FACE", HIT_KIND_TRIANGLE_BACK_FACE),
    ("COMMITTED_NOTHING", 0),
    ("COMMITTED_TRIANGLE_HIT", 1),
    ("COMMITTED_PROCEDURAL_PRIMITIVE_HIT", 2),
    ("CANDIDATE_NON_OPAQUE_TRIANGLE", 0),
    ("CANDIDATE_PROCEDURAL_PRIMITIVE", 1),
    // Barrier arguments (SEMANTIC_FLAG and memory type flags of HLSL's
    // `Barrier`); REORDER_SCOPE is the proposal's addition.
    ("UAV_MEMORY", 0x2),
    ("GROUP_SYNC", 0x1),
    ("GROUP_SCOPE", 0x2),
    ("DEVICE_SCOPE", 0x4),
    ("REORDER_SCOPE", 0x8),
];

pub fn constant(name: &str) -> Option<u32> {
    CONSTANTS.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// The names Shader Model 6.9 declares in namespace `dx`, which a library
/// may write qualified (`dx::HitObject`).
pub const DX_NAMESPACE: &[&str] = &["HitObject", "MaybeReorderThread"];

/// Static methods of `HitObject` (`HitObject::Name(...)`).
pub const HIT_OBJECT_STATICS: &[&str] = &[
    "TraceRay",
    "FromRayQuery",
    "MakeMiss",
    "MakeNop",
    "Invoke",
    // GL_NV only: hitObjectRecordHitNV, hitObjectRecordHitWithIndexNV.
    "MakeHit",
    "MakeHitWithIndex",
    // GL_EXT only: hitObjectRecordFromQueryEXT, hitObjectReorderExecuteEXT,
    // hitObjectTraceReorderExecuteEXT.
    "RecordFromQuery",
    "ReorderExecute",
    "TraceReorderExecute",
    // The motion forms (GL_NV_ray_tracing_motion_blur): hitObjectTraceRayMotion*
    // and hitObjectRecordMissMotion* (both), hitObjectRecordHit*MotionNV (GL_NV),
    // hitObjectTraceMotionReorderExecuteEXT (GL_EXT).
    "TraceRayMotion",
    "MakeMissMotion",
    "MakeHitMotion",
    "MakeHitWithIndexMotion",
    "TraceMotionReorderExecute",
];

/// Methods of a `HitObject` value (`hit.Name(...)`).
pub const HIT_OBJECT_METHODS: &[&str] = &[
    "IsMiss",
    "IsHit",
    "IsNop",
    "GetRayFlags",
    "GetRayTMin",
    "GetRayTCurrent",
    "GetWorldRayOrigin",
    "GetWorldRayDirection",
    "GetObjectRayOrigin",
    "GetObjectRayDirection",
    "GetObjectToWorld3x4",
    "GetObjectToWorld4x3",
    "GetWorldToObject3x4",
    "GetWorldToObject4x3",
    "GetInstanceIndex",
    "GetInstanceID",
    "GetGeometryIndex",
    "GetPrimitiveIndex",
    "GetHitKind",
    "GetAttributes",
    "GetShaderTableIndex",
    "SetShaderTableIndex",
    "LoadLocalRootTableConstant",
    // GL_EXT only: hitObjectGetIntersectionTriangleVertexPositionsEXT.
    "GetTriangleVertexPositions",
    // The GLSL texts only: hitObjectGetCurrentTime*.
    "GetCurrentTime",
];

/// A form of the language that only some profiles have: a case using it
/// lists only those profiles.
#[derive(Debug, PartialEq, Eq)]
pub struct ProfileForm {
    pub form: &'static str,
    pub profiles: &'static [&'static str],
    /// The clause that defines the form.
    pub clause: &'static str,
}

pub const DX_QUALIFIED: ProfileForm = ProfileForm {
    form: "`dx::` names",
    profiles: &["sm69"],
    clause: "sm69.solution.namespace_dx.types_and_intrinsics_in_dx",
};
pub const GET_ATTRIBUTES_OUT: ProfileForm = ProfileForm {
    form: "`GetAttributes(out attributes)`",
    profiles: &["sm69"],
    clause: "sm69.hit_object.get_attributes.out_parameter_signature",
};
pub const RAY_QUERY_FLAGS_PARAMETER: ProfileForm = ProfileForm {
    form: "`RayQuery<RAY_FLAGS, RAYQUERY_FLAGS>` (the second template parameter)",
    profiles: &["sm69"],
    clause: "dxr.ray_query.type.template_parameters",
};
pub const FROM_RAY_QUERY_HIT_KIND: ProfileForm = ProfileForm {
    form: "`HitObject::FromRayQuery(query, hitKind, attributes)`",
    profiles: &["sm69"],
    clause: "sm69.hit_object.from_ray_query.hit_kind_overload_signature",
};

/// The profiles of the GLSL texts.
const VULKAN: &[&str] = &["vulkan-nv", "vulkan-ext"];

/// Static functions and methods of one profile (or of the GLSL texts).
pub const PROFILE_FUNCTIONS: &[(&str, ProfileForm)] = &[
    (
        "MakeHit",
        ProfileForm {
            form: "`HitObject::MakeHit` (hitObjectRecordHitNV)",
            profiles: &["vulkan-nv"],
            clause: "glsl_nv.hit_object_record_hit.signature",
        },
    ),
    (
        "MakeHitWithIndex",
        ProfileForm {
            form: "`HitObject::MakeHitWithIndex` (hitObjectRecordHitWithIndexNV)",
            profiles: &["vulkan-nv"],
            clause: "glsl_nv.hit_object_record_hit_with_index.signature",
        },
    ),
    (
        "RecordFromQuery",
        ProfileForm {
            form: "`HitObject::RecordFromQuery` (hitObjectRecordFromQueryEXT)",
            profiles: &["vulkan-ext"],
            clause: "glsl_ext.hit_object_record_from_query.signature",
        },
    ),
    (
        "ReorderExecute",
        ProfileForm {
            form: "`HitObject::ReorderExecute` (hitObjectReorderExecuteEXT)",
            profiles: &["vulkan-ext"],
            clause: "glsl_ext.hit_object_reorder_execute.signature",
        },
    ),
    (
        "TraceReorderExecute",
        ProfileForm {
            form: "`HitObject::TraceReorderExecute` (hitObjectTraceReorderExecuteEXT)",
            profiles: &["vulkan-ext"],
            clause: "glsl_ext.hit_object_trace_reorder_execute.signature",
        },
    ),
    (
        "TraceRayMotion",
        ProfileForm {
            form: "`TraceRayMotion` (traceRayMotionNV) or `HitObject::TraceRayMotion` (hitObjectTraceRayMotionNV/EXT)",
            profiles: VULKAN,
            clause: "vk.candidate.motion.positions_at_time",
        },
    ),
    (
        "MakeMissMotion",
        ProfileForm {
            form: "`HitObject::MakeMissMotion` (hitObjectRecordMissMotionNV/EXT)",
            profiles: VULKAN,
            clause: "glsl_nv.hit_object_record_miss_motion.signature",
        },
    ),
    (
        "MakeHitMotion",
        ProfileForm {
            form: "`HitObject::MakeHitMotion` (hitObjectRecordHitMotionNV)",
            profiles: &["vulkan-nv"],
            clause: "glsl_nv.hit_object_record_hit_motion.signature",
        },
    ),
    (
        "MakeHitWithIndexMotion",
        ProfileForm {
            form: "`HitObject::MakeHitWithIndexMotion` (hitObjectRecordHitWithIndexMotionNV)",
            profiles: &["vulkan-nv"],
            clause: "glsl_nv.hit_object_record_hit_with_index_motion.signature",
        },
    ),
    (
        "TraceMotionReorderExecute",
        ProfileForm {
            form: "`HitObject::TraceMotionReorderExecute` (hitObjectTraceMotionReorderExecuteEXT)",
            profiles: &["vulkan-ext"],
            clause: "glsl_ext.hit_object_trace_motion_reorder_execute.signature",
        },
    ),
    (
        "GetCurrentTime",
        ProfileForm {
            form: "`GetCurrentTime` (hitObjectGetCurrentTimeNV/EXT)",
            profiles: VULKAN,
            clause: "glsl_nv.hit_object_get_current_time.signature",
        },
    ),
    (
        "GetTriangleVertexPositions",
        ProfileForm {
            form:
                "`GetTriangleVertexPositions` (hitObjectGetIntersectionTriangleVertexPositionsEXT)",
            profiles: &["vulkan-ext"],
            clause: "glsl_ext.hit_object_get_triangle_vertex_positions.signature",
        },
    ),
];

/// Methods of a `RayQuery` value (DXR's "RayQuery intrinsics", without the
/// Shader Model 6.10 `...TriangleObjectPositions`).
pub const RAY_QUERY_METHODS: &[&str] = &[
    "TraceRayInline",
    "Proceed",
    "Abort",
    "CandidateType",
    "CandidateProceduralPrimitiveNonOpaque",
    "CommitNonOpaqueTriangleHit",
    "CommitProceduralPrimitiveHit",
    "CommittedStatus",
    "RayFlags",
    "WorldRayOrigin",
    "WorldRayDirection",
    "RayTMin",
    "CandidateTriangleRayT",
    "CommittedRayT",
    "CandidateInstanceIndex",
    "CandidateInstanceID",
    "CandidateInstanceContributionToHitGroupIndex",
    "CandidateGeometryIndex",
    "CandidatePrimitiveIndex",
    "CandidateObjectRayOrigin",
    "CandidateObjectRayDirection",
    "CandidateObjectToWorld3x4",
    "CandidateObjectToWorld4x3",
    "CandidateWorldToObject3x4",
    "CandidateWorldToObject4x3",
    "CommittedInstanceIndex",
    "CommittedInstanceID",
    "CommittedInstanceContributionToHitGroupIndex",
    "CommittedGeometryIndex",
    "CommittedPrimitiveIndex",
    "CommittedObjectRayOrigin",
    "CommittedObjectRayDirection",
    "CommittedObjectToWorld3x4",
    "CommittedObjectToWorld4x3",
    "CommittedWorldToObject3x4",
    "CommittedWorldToObject4x3",
    "CandidateTriangleBarycentrics",
    "CandidateTriangleFrontFace",
    "CommittedTriangleBarycentrics",
    "CommittedTriangleFrontFace",
];

/// Free intrinsic functions.
pub const INTRINSICS: &[&str] = &[
    // Dispatch and system values.
    "DispatchRaysIndex",
    "DispatchRaysDimensions",
    "RayFlags",
    "RayTMin",
    "RayTCurrent",
    "WorldRayOrigin",
    "WorldRayDirection",
    "ObjectRayOrigin",
    "ObjectRayDirection",
    "ObjectToWorld3x4",
    "ObjectToWorld4x3",
    "WorldToObject3x4",
    "WorldToObject4x3",
    "InstanceIndex",
    "InstanceID",
    "GeometryIndex",
    "PrimitiveIndex",
    "HitKind",
    // Ray tracing.
    "TraceRay",
    // GLSL's traceRayMotionNV (GL_NV_ray_tracing_motion_blur).
    "TraceRayMotion",
    "CallShader",
    "ReportHit",
    "IgnoreHit",
    "AcceptHitAndEndSearch",
    "MaybeReorderThread",
    "ReorderThread",
    // Memory.
    "Barrier",
    "DeviceMemoryBarrier",
    "InterlockedAdd",
    // Waves.
    "WaveActiveBallot",
    "WaveIsFirstLane",
    "WaveGetLaneIndex",
    "WaveGetLaneCount",
    "WaveActiveCountBits",
    "WaveActiveSum",
    "WaveActiveAllEqual",
    "WaveReadLaneFirst",
    // Arithmetic.
    "asuint",
    "asint",
    "asfloat",
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
    "mul",
    "transpose",
    "countbits",
    "all",
    "any",
];

pub fn is_intrinsic(name: &str) -> bool {
    INTRINSICS.contains(&name)
}

/// Names of the built-in struct types, with their fields.
pub const BUILTIN_STRUCTS: &[(&str, &[(&str, &str)])] = &[
    (
        "RayDesc",
        &[
            ("Origin", "float3"),
            ("TMin", "float"),
            ("Direction", "float3"),
            ("TMax", "float"),
        ],
    ),
    (
        "BuiltInTriangleIntersectionAttributes",
        &[("barycentrics", "float2")],
    ),
];

/// Shader stages, as named in `[shader("...")]`: the ray tracing stages,
/// then every other stage Shader Model 6.9 has (their entry points appear
/// in negative cases only: the rules of where SER may be used name them).
pub const STAGES: &[&str] = &[
    "raygeneration",
    "closesthit",
    "anyhit",
    "miss",
    "intersection",
    "callable",
    "compute",
    "vertex",
    "pixel",
    "hull",
    "domain",
    "geometry",
    "mesh",
    "amplification",
    "node",
];

/// The input and output objects of the other stages, templated on an
/// element type (and for patches a count): `Type::Object`.
pub const STAGE_OBJECTS: &[&str] = &[
    "InputPatch",
    "OutputPatch",
    "PointStream",
    "LineStream",
    "TriangleStream",
    "DispatchNodeInputRecord",
    "RWDispatchNodeInputRecord",
    "GroupNodeInputRecords",
    "RWGroupNodeInputRecords",
    "ThreadNodeInputRecord",
    "RWThreadNodeInputRecord",
    "NodeOutput",
    "NodeOutputArray",
];

/// Resource types other than `RWStructuredBuffer` and the acceleration
/// structure, which only negative cases declare: the name, and whether it
/// is templated on an element type.
pub const OTHER_RESOURCES: &[(&str, bool)] = &[
    ("StructuredBuffer", true),
    ("ConstantBuffer", true),
    ("TextureBuffer", true),
    ("Buffer", true),
    ("RWBuffer", true),
    ("ByteAddressBuffer", false),
    ("RWByteAddressBuffer", false),
    ("Texture1D", true),
    ("Texture2D", true),
    ("RWTexture1D", true),
    ("RWTexture2D", true),
    ("RWTexture3D", true),
];

/// Keywords a file-scope declaration may start with.
pub const STORAGE_CLASSES: &[&str] = &[
    "static",
    "groupshared",
    "globallycoherent",
    "reordercoherent",
    "const",
    "uniform",
];

/// Qualifiers a stage's parameter may take before its type.
pub const PARAM_QUALIFIERS: &[&str] = &[
    "point",
    "line",
    "triangle",
    "lineadj",
    "triangleadj",
    "vertices",
    "indices",
    "primitives",
    "payload",
    "nointerpolation",
    "linear",
    "centroid",
    "noperspective",
    "sample",
    "uniform",
    "const",
    "globallycoherent",
    "reordercoherent",
];
