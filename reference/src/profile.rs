//! Profiles: the published forms of the SER model the suite can check.
//!
//! They agree on most rules and differ on some (see `../shared/spec/README.md`).
//! A case lists the profiles it applies to; a backend implements one; the
//! reference runs under any of them.

use serde::{Deserialize, Serialize};

#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub enum Profile {
    /// HLSL proposal 0027, later revision (`MaybeReorderThread`): the
    /// primary text.
    #[serde(rename = "0027-maybereorderthread")]
    MaybeReorderThread0027,
    /// HLSL proposal 0027, earlier revision (`ReorderThread`).
    #[serde(rename = "0027-reorderthread")]
    ReorderThread0027,
    /// Shader Model 6.9, the final HLSL.
    #[serde(rename = "sm69")]
    Sm69,
    /// `VK_NV_ray_tracing_invocation_reorder`.
    #[serde(rename = "vulkan-nv")]
    VulkanNv,
    /// `VK_EXT_ray_tracing_invocation_reorder`.
    #[serde(rename = "vulkan-ext")]
    VulkanExt,
}

impl Profile {
    pub const ALL: [Profile; 5] = [
        Profile::MaybeReorderThread0027,
        Profile::ReorderThread0027,
        Profile::Sm69,
        Profile::VulkanNv,
        Profile::VulkanExt,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Profile::MaybeReorderThread0027 => "0027-maybereorderthread",
            Profile::ReorderThread0027 => "0027-reorderthread",
            Profile::Sm69 => "sm69",
            Profile::VulkanNv => "vulkan-nv",
            Profile::VulkanExt => "vulkan-ext",
        }
    }

    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The name of the reorder intrinsic: `ReorderThread` in the earlier
    /// revision, `MaybeReorderThread` after it. The Vulkan forms are written
    /// in the same case language, with the later name.
    pub fn reorder_intrinsic(self) -> &'static str {
        match self {
            Profile::ReorderThread0027 => "ReorderThread",
            _ => "MaybeReorderThread",
        }
    }

    /// The HLSL forms (both proposal revisions and Shader Model 6.9), as
    /// opposed to the Vulkan extensions.
    pub fn is_hlsl(self) -> bool {
        !matches!(self, Profile::VulkanNv | Profile::VulkanExt)
    }

    /// Whether the reorder coherence scope exists: `[reordercoherent]` and
    /// `REORDER_SCOPE` (`ser.memory.reorder_scope.new_scope_same_dispatch_index`)
    /// are in the later revision and Shader Model 6.9, not in the earlier
    /// revision (`ser_rt.memory.globallycoherent.required_for_cross_reorder_reads`)
    /// nor in the Vulkan extensions.
    pub fn has_reorder_scope(self) -> bool {
        matches!(self, Profile::MaybeReorderThread0027 | Profile::Sm69)
    }

    /// Whether `ReportHit` is a reorder point even when no any-hit shader
    /// runs: DXR names it with TraceRay and CallShader as the base API's
    /// reorder points (`dxr.reorder_points.list.dxr_trace_ray_call_shader_report_hit`);
    /// the proposal names only TraceRay and CallShader and reads its list as
    /// exhaustive (`ser.reorder_point.list.dxr_trace_ray_call_shader`), and
    /// the Vulkan extensions do not name it.
    pub fn report_hit_reorders(self) -> bool {
        self == Profile::Sm69
    }

    /// Whether the recursion bound is on the shaders invoked rather than on
    /// the calls that may invoke them. Vulkan bounds invocations:
    /// "Applications must not invoke a shader with a recursion depth greater
    /// than the value of maxPipelineRayRecursionDepth"
    /// (`vk_rt.recursion.max_pipeline_ray_recursion_depth`), so a trace at
    /// the maximum depth that runs no shader (an opaque hit, recorded and
    /// never executed) is legal. HLSL bounds the calls: "HitObject::TraceRay
    /// must not be invoked if the maximum trace recursion depth has been
    /// reached" (`ser.hit_object.trace_ray.not_at_max_recursion`).
    pub fn bounds_invocations(self) -> bool {
        matches!(self, Profile::VulkanNv | Profile::VulkanExt)
    }

    /// Whether a generated hit's attributes may be those a later, rejected
    /// report of the same intersection shader wrote. GLSL's intersection
    /// shader writes its attributes to one `hitAttributeEXT` variable before
    /// each `reportIntersectionEXT`, and the Vulkan texts do not say whether
    /// a hit already committed keeps the value it was reported with or sees
    /// a later write (NVIDIA's driver keeps it, lavapipe shows the later
    /// one); HLSL's `ReportHit` passes its attributes by value, so a hit
    /// carries its own.
    pub fn later_attributes_may_show(self) -> bool {
        matches!(self, Profile::VulkanNv | Profile::VulkanExt)
    }

    /// Whether the HLSL definitions of accessor results on NOP and miss
    /// objects (zeros, identity-like matrices, the world ray as the object
    /// ray) hold. The Vulkan extensions leave those values undefined.
    pub fn defines_non_hit_accessors(self) -> bool {
        !matches!(self, Profile::VulkanNv | Profile::VulkanExt)
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Profile {
    /// The case library as this profile spells it. Cases are written with
    /// the later name `MaybeReorderThread`; the earlier revision calls the
    /// same function `ReorderThread` (`ser_rt.reorder_thread.overview`), so
    /// a case that applies to both runs there with the name changed.
    pub fn adapt(self, library: &ser_lang::Library) -> ser_lang::Library {
        self.adapted(library).unwrap_or_else(|| library.clone())
    }

    /// [`Profile::adapt`], or `None` where the profile spells the library
    /// as it is written (nothing to copy).
    pub fn adapted(self, library: &ser_lang::Library) -> Option<ser_lang::Library> {
        (self == Profile::ReorderThread0027).then(|| {
            let mut lib = library.clone();
            ser_lang::visit::rename_calls(&mut lib, "MaybeReorderThread", "ReorderThread");
            lib
        })
    }
}
