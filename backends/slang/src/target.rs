//! The SPIR-V a case is compiled to: Slang's profile and the capability
//! that picks the hit object extension.

use ser_targets::glsl::Stage;
use std::ffi::c_int;

/// Which SPIR-V hit object extension the HLSL is lowered to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `SPV_NV_shader_invocation_reorder` (what the H100's driver runs).
    Nv,
    /// `SPV_EXT_shader_invocation_reorder`.
    Ext,
}

impl Target {
    pub fn from_name(name: &str) -> Option<Target> {
        match name {
            "nv" => Some(Target::Nv),
            "ext" => Some(Target::Ext),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Target::Nv => "nv",
            Target::Ext => "ext",
        }
    }

    /// Slang's capability atom for the extension.
    pub fn capability(self) -> &'static str {
        match self {
            Target::Nv => "spvShaderInvocationReorderNV",
            Target::Ext => "spvShaderInvocationReorderEXT",
        }
    }

    /// Slang's profile: Shader Model 6.9, the HLSL shader model of SER
    /// (Slang emits SPIR-V 1.5 under it, which EXT needs: 1.4 or later).
    pub const PROFILE: &'static str = "sm_6_9";

    /// Capabilities the extension has no instruction for: SPV_NV has no
    /// ray flags getter, no shader table index setter and no hit object
    /// from a ray query (`OpHitObjectGetRayFlagsEXT`,
    /// `OpHitObjectSetShaderBindingTableRecordIndexEXT` and
    /// `OpHitObjectRecordFromQueryEXT` are EXT's). Cases that need them are
    /// judged under EXT.
    pub fn lacks(self) -> &'static [&'static str] {
        match self {
            Target::Nv => &[
                "hit_object_get_ray_flags",
                "hit_object_set_shader_table_index",
                "hit_object_from_ray_query",
            ],
            Target::Ext => &[],
        }
    }

    /// For people: `SPIR-V (SPV_NV_shader_invocation_reorder)`.
    pub fn describe(self) -> &'static str {
        match self {
            Target::Nv => "SPIR-V with SPV_NV_shader_invocation_reorder",
            Target::Ext => "SPIR-V with SPV_EXT_shader_invocation_reorder",
        }
    }
}

/// `SlangStage` of a stage.
pub fn slang_stage(stage: Stage) -> c_int {
    match stage {
        Stage::RayGeneration => 7,
        Stage::Intersection => 8,
        Stage::AnyHit => 9,
        Stage::ClosestHit => 10,
        Stage::Miss => 11,
        Stage::Callable => 12,
        Stage::Vertex => 1,
        Stage::Hull => 2,
        Stage::Domain => 3,
        Stage::Geometry => 4,
        Stage::Pixel => 5,
        Stage::Compute => 6,
        Stage::Mesh => 13,
        Stage::Amplification => 14,
        // SLANG_STAGE_DISPATCH: Slang's name for a work graph node.
        Stage::Node => 15,
    }
}
