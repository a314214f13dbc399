//! The backend. On a device with `VK_EXT_ray_tracing_invocation_reorder`
//! it claims profile `vulkan-ext` with SER (GL_EXT's forms); on one with
//! `VK_NV_ray_tracing_invocation_reorder`, `vulkan-nv` with SER; on a device
//! with both, the profile the runner asks for (`--profile`), the ratified
//! one by default; on one with neither (Mesa's lavapipe), `vulkan-ext`
//! without `shader_execution_reorder`: ray tracing pipelines (and ray
//! queries where the device has them), judged on every case that needs no
//! hit object or reorder. Each case's entry points are emitted as GLSL and
//! compiled; what the extension or the emitter cannot express makes the
//! case *not supported*, with the reason.

use crate::device::{Features, Gpu, Module, NoDevice};
use crate::emit::{self, Glsl, Spelling, Stage};
use crate::interface::Interface;
use ash::vk;
use ser_harness::backend::{Backend, BackendError, Execution, Output};
use ser_harness::load::{Case, Expected};
use ser_reference::Profile;
pub use ser_targets::interface::Needed;
use std::sync::atomic::AtomicUsize;
use std::sync::Mutex;

pub struct VulkanBackend {
    /// The device; reopened after a device loss, so that one case that
    /// loses the device does not take the next ones with it.
    gpu: Mutex<Result<Gpu, NoDevice>>,
    name: String,
    /// What the device had when the backend started.
    features: Features,
    /// The profile it serves (see [`profile`]).
    profile: Profile,
    /// The device's subgroup size, when there is a device.
    wave_size: Option<u32>,
    /// The largest record index `hitObjectSetShaderBindingTableRecordIndexEXT`
    /// takes on the device, when it has the EXT extension.
    max_record_index: Option<u32>,
    /// How many cases of batches ran again on their own (`run_batch`).
    pub retried: AtomicUsize,
}

/// Capabilities this backend has on any ray tracing device.
const BASE_CAPABILITIES: &[&str] = &["callable_shaders", "wave_operations"];

/// Capabilities that come with SER in either form: what both extensions
/// and the emitter express.
const SER_CAPABILITIES: &[&str] = &[
    "shader_execution_reorder",
    "hit_object_load_local_root_table_constant",
];

/// What GL_EXT adds to them: the record index setter and the ray flags
/// getter (`hitObjectSetShaderBindingTableRecordIndexEXT`,
/// `hitObjectGetRayFlagsEXT`); with ray queries,
/// `hitObjectRecordFromQueryEXT`.
const EXT_CAPABILITIES: &[&str] = &[
    "hit_object_set_shader_table_index",
    "hit_object_get_ray_flags",
];

/// The profile served on a device with `features`, when the runner asks
/// for `asked`: GL_NV's where asked and the device has the NV extension;
/// `vulkan-ext` where asked (with SER where the device has the EXT
/// extension); unasked, the ratified extension first, then NV's; a device
/// without either is judged under `vulkan-ext` on what needs no SER.
pub fn profile(features: Features, asked: Option<Profile>) -> Profile {
    match asked {
        Some(Profile::VulkanNv) if features.reorder_nv => Profile::VulkanNv,
        Some(Profile::VulkanExt) => Profile::VulkanExt,
        _ if features.reorder_ext => Profile::VulkanExt,
        _ if features.reorder_nv => Profile::VulkanNv,
        _ => Profile::VulkanExt,
    }
}

/// The capabilities claimed on a device with `features` under `profile`.
pub fn capabilities(features: Features, profile: Profile) -> Vec<String> {
    let mut out: Vec<&str> = BASE_CAPABILITIES.to_vec();
    let ser = match profile {
        Profile::VulkanNv => features.reorder_nv,
        _ => features.reorder_ext,
    };
    if ser {
        out.extend(SER_CAPABILITIES);
    }
    if ser && profile == Profile::VulkanExt {
        out.extend(EXT_CAPABILITIES);
        if features.ray_query {
            out.push("hit_object_from_ray_query");
        }
    }
    if features.ray_query {
        out.push("ray_query");
    }
    out.into_iter().map(str::to_string).collect()
}

impl VulkanBackend {
    /// The backend on the first usable device, serving the profile
    /// [`profile`] picks when nothing is asked.
    pub fn new() -> VulkanBackend {
        let gpu = Gpu::open();
        let features = gpu.as_ref().map(|g| g.features).unwrap_or_default();
        let wave_size = gpu.as_ref().ok().map(|g| g.props.subgroup_size);
        let max_record_index = gpu
            .as_ref()
            .ok()
            .and_then(|g| g.props.reorder_ext)
            .map(|p| p.max_shader_binding_table_record_index);
        let mut backend = VulkanBackend {
            gpu: Mutex::new(gpu),
            name: String::new(),
            features,
            profile: profile(features, None),
            wave_size,
            max_record_index,
            retried: AtomicUsize::new(0),
        };
        backend.name = backend.describe();
        backend
    }

    /// The backend serving the profile the runner asks for, where the
    /// device has it ([`profile`]).
    pub fn serving(mut self, asked: Option<Profile>) -> VulkanBackend {
        self.profile = profile(self.features, asked);
        self.name = self.describe();
        self
    }

    fn describe(&self) -> String {
        let g = self.gpu.lock().unwrap_or_else(|e| e.into_inner());
        match &*g {
            Ok(g) => format!("{} ({}, {})", self.profile, g.name, g.driver.trim()),
            Err(_) => format!("{} (no device)", self.profile),
        }
    }

    /// The optional extensions the device has.
    pub fn features(&self) -> Features {
        self.features
    }

    /// The spelling of the GLSL this device compiles.
    pub fn spelling(&self) -> Spelling {
        match self.profile {
            Profile::VulkanNv => Spelling::Nv,
            _ => Spelling::Ext,
        }
    }

    /// The device, or why there is none.
    pub fn device(&self) -> Result<std::sync::MutexGuard<'_, Result<Gpu, NoDevice>>, String> {
        let g = self.gpu.lock().unwrap_or_else(|e| e.into_inner());
        match &*g {
            Ok(_) => Ok(g),
            Err(NoDevice(m)) => Err(m.clone()),
        }
    }

    /// A case that sets a record index past the device's
    /// `maxShaderBindingTableRecordIndex` ("the maximum shader binding table
    /// record index allowed to be passed in to
    /// OpHitObjectSetShaderBindingTableRecordIndexEXT") cannot run here.
    fn within_record_limit(&self, case: &Case) -> Result<(), BackendError> {
        let Some(max) = self
            .max_record_index
            .filter(|_| self.profile == Profile::VulkanExt)
        else {
            return Ok(());
        };
        let mut sets = false;
        ser_lang::visit::exprs(case.library(), &mut |e| {
            if let ser_lang::ast::ExprKind::MethodCall { method, .. } = &e.kind {
                sets |= method == "SetShaderTableIndex";
            }
        });
        let table = &case.shader_table;
        let largest = table
            .hit_groups
            .len()
            .max(table.miss.len())
            .saturating_sub(1);
        if sets && largest > max as usize {
            return Err(BackendError::NotSupported(format!(
                "a record index up to {largest} may be set; this device's maxShaderBindingTableRecordIndex is {max}"
            )));
        }
        Ok(())
    }
}

impl Default for VulkanBackend {
    fn default() -> Self {
        VulkanBackend::new()
    }
}

pub fn stage_flags(s: Stage) -> vk::ShaderStageFlags {
    match s {
        Stage::RayGeneration => vk::ShaderStageFlags::RAYGEN_KHR,
        Stage::ClosestHit => vk::ShaderStageFlags::CLOSEST_HIT_KHR,
        Stage::AnyHit => vk::ShaderStageFlags::ANY_HIT_KHR,
        Stage::Intersection => vk::ShaderStageFlags::INTERSECTION_KHR,
        Stage::Miss => vk::ShaderStageFlags::MISS_KHR,
        Stage::Callable => vk::ShaderStageFlags::CALLABLE_KHR,
        other => unreachable!(
            "the GLSL emitter emits ray tracing stages only, not {}",
            other.name()
        ),
    }
}

/// An empty shader of a stage, for records without one.
pub fn empty(stage: Stage, entry: &str) -> Glsl {
    Glsl {
        stage,
        entry: entry.to_string(),
        source: "#version 460\n#extension GL_EXT_ray_tracing : require\nvoid main() {}\n"
            .to_string(),
    }
}

/// The entry points a case's pipeline needs ([`ser_targets::interface::needed`]);
/// local root arguments other than constants make the case not supported.
pub fn needed(case: &Case) -> Result<Vec<Needed>, BackendError> {
    ser_targets::interface::needed(&case.dispatch.raygen, &case.shader_table)
        .map_err(BackendError::NotSupported)
}

/// Every module a case needs, as GLSL; `Err(NotSupported)` for what cannot
/// be expressed.
pub fn glsl(case: &Case, spelling: Spelling) -> Result<(Interface, Vec<Glsl>), BackendError> {
    let interface = Interface::of(case.library()).map_err(BackendError::NotSupported)?;
    let mut glsl: Vec<Glsl> = Vec::new();
    for n in needed(case)? {
        glsl.push(match n {
            Needed::Library(name) => emit::entry_point(case.library(), &name, &interface, spelling)
                .map_err(|u| BackendError::NotSupported(format!("`{name}`: {u}")))?,
            Needed::Empty(stage, name) => empty(stage, name),
        });
    }
    Ok((interface, glsl))
}

/// Every module a case needs, compiled.
pub fn modules(case: &Case, spelling: Spelling) -> Result<(Interface, Vec<Module>), BackendError> {
    let (interface, glsl) = glsl(case, spelling)?;
    let modules = glsl
        .iter()
        .map(|g| module(g, crate::compile::spirv(g)))
        .collect::<Result<_, _>>()?;
    Ok((interface, modules))
}

/// An emitted module with glslang's answer for it.
pub fn module(g: &Glsl, spirv: Result<Vec<u32>, String>) -> Result<Module, BackendError> {
    let spirv = spirv.map_err(|e| {
        BackendError::Failed(format!(
            "the GLSL emitted for `{}` does not compile (a bug of this backend): {e}\n{}",
            g.entry, g.source
        ))
    })?;
    Ok(Module {
        entry: g.entry.clone(),
        stage: stage_flags(g.stage),
        spirv,
    })
}

/// Only cases that run shaders run here.
pub fn runs_shaders(case: &Case) -> Result<(), BackendError> {
    if matches!(case.expect, Expected::Buffers(_) | Expected::Undefined(_)) {
        Ok(())
    } else {
        Err(BackendError::NotSupported(
            "only cases that run shaders".into(),
        ))
    }
}

/// Scenes and tables Vulkan cannot express validly.
pub fn unexpressible(case: &Case) -> Result<(), String> {
    use ser_reference::scene::Primitives;
    let geometries = || case.scene.blas.iter().flat_map(|b| &b.geometries);
    let boxes = geometries().any(|g| matches!(g.primitives, Primitives::Aabbs(_)));
    let triangles = geometries().any(|g| matches!(g.primitives, Primitives::Triangles(_)));
    // A record with shaders but no intersection shader; a record with no
    // shader at all is the null hit group (a zero handle), valid anywhere.
    let no_intersection = case
        .shader_table
        .hit_groups
        .iter()
        .any(|r| r.intersection.is_none() && (r.closest_hit.is_some() || r.any_hit.is_some()));
    if case.scene.has_motion() {
        // The device layer builds static structures only; the backend does
        // not claim `motion_blur`, so the runner sends no such case.
        return Err("a motion instance: the device layer builds no motion acceleration structures (VK_NV_ray_tracing_motion_blur)".into());
    }
    if boxes && !triangles && no_intersection {
        // A procedural hit group needs an intersection shader
        // (VUID-VkRayTracingShaderGroupCreateInfoKHR-type-03475), and a
        // triangle hit group used for AABBs is undefined (on the NVIDIA
        // driver it hangs the GPU).
        return Err("a hit group without an intersection shader for AABB geometry: a procedural hit group needs one (VUID-VkRayTracingShaderGroupCreateInfoKHR-type-03475)".into());
    }
    Ok(())
}

impl Backend for VulkanBackend {
    fn name(&self) -> &str {
        &self.name
    }

    fn profile(&self) -> Profile {
        self.profile
    }

    fn capabilities(&self) -> Vec<String> {
        capabilities(self.features, self.profile)
    }

    /// The device's subgroup size: a wave is a subgroup.
    fn wave_sizes(&self) -> Vec<u32> {
        self.wave_size.into_iter().collect()
    }

    fn run(&self, case: &Case) -> Result<Execution, BackendError> {
        runs_shaders(case)?;
        let (interface, modules) = modules(case, self.spelling())?;
        self.execute(case, &interface, &modules)
    }

    fn run_batch(&self, cases: &[&Case]) -> Vec<Result<Execution, BackendError>> {
        crate::batch::run_batch(self, cases)
    }
}

impl VulkanBackend {
    /// Runs a case's compiled modules on the device: the device layer that
    /// every front end (GLSL through glslang, HLSL through Slang) shares.
    pub fn execute(
        &self,
        case: &Case,
        interface: &Interface,
        modules: &[Module],
    ) -> Result<Execution, BackendError> {
        unexpressible(case).map_err(BackendError::NotSupported)?;
        self.within_record_limit(case)?;
        // The device was there at the start; losing it for good is an
        // error of the run, not a case the backend declines.
        let mut guard = self
            .device()
            .map_err(|e| BackendError::Failed(format!("no Vulkan device: {e}")))?;
        let Ok(gpu) = &*guard else {
            unreachable!("device() returns only a present device")
        };
        admit(case, gpu)?;
        let outputs = gpu
            .run(&crate::device::Job {
                scene: &case.scene,
                table: &case.shader_table,
                dispatch: &case.dispatch,
                interface,
                modules,
            })
            .map_err(classify);
        if let Err(BackendError::Failed(m)) = &outputs {
            if lost(m) {
                reopen(&mut guard);
            }
        }
        outputs.map(execution)
    }
}

/// What the device layer's error means for the case: scenes Vulkan cannot
/// express are not supported; the rest is a failure.
pub fn classify(e: String) -> BackendError {
    if e.starts_with("opacity micromaps")
        || e.starts_with("instance flag")
        || e == crate::device::UNEXPRESSIBLE_MIXED_BLAS
    {
        BackendError::NotSupported(e)
    } else {
        BackendError::Failed(e)
    }
}

/// Whether a device error says the device was lost.
pub fn lost(m: &str) -> bool {
    m.contains("ERROR_DEVICE_LOST") || m.contains("device has been lost")
}

/// Starts again on a fresh device, for the next case.
pub fn reopen(gpu: &mut Result<Gpu, NoDevice>) {
    *gpu = Err(NoDevice("reopening".into()));
    *gpu = Gpu::open();
}

pub fn execution(outputs: crate::device::Outputs) -> Execution {
    Execution {
        output: Output::Buffers(outputs),
        legal: None,
    }
}

/// What the device must have, and the case must not ask, for the case to
/// run on it (beyond [`unexpressible`]); `Err(NotSupported)` with the
/// reason otherwise.
pub fn admit(case: &Case, gpu: &Gpu) -> Result<(), BackendError> {
    // The wave size matters only to a program that sees its wave (such a
    // case is outside the claim, `wave_sizes`, unless run directly).
    let waves = case.requires.iter().any(|c| c == "wave_operations");
    if waves && case.dispatch.wave_size != gpu.props.subgroup_size {
        return Err(BackendError::NotSupported(format!(
            "a wave of {} lanes; this device's subgroups have {}",
            case.dispatch.wave_size, gpu.props.subgroup_size
        )));
    }
    if case
        .shader_table
        .hit_groups
        .iter()
        .any(|r| !r.local_root_arguments.is_empty())
    {
        return Err(BackendError::NotSupported(
            "local root arguments other than constants".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(nv: bool, ext: bool, ray_query: bool) -> Features {
        Features {
            reorder_nv: nv,
            reorder_ext: ext,
            ray_query,
            ..Features::default()
        }
    }

    #[test]
    fn an_ext_device_claims_vulkan_ext_with_ser_and_gl_ext_forms() {
        let ext = device(false, true, true);
        assert_eq!(profile(ext, None), Profile::VulkanExt);
        assert_eq!(
            capabilities(ext, Profile::VulkanExt),
            [
                "callable_shaders",
                "wave_operations",
                "shader_execution_reorder",
                "hit_object_load_local_root_table_constant",
                "hit_object_set_shader_table_index",
                "hit_object_get_ray_flags",
                "hit_object_from_ray_query",
                "ray_query"
            ]
        );
        // Asked for GL_NV, which it lacks: it serves vulkan-ext, and the
        // runner refuses the mismatch at start.
        assert_eq!(profile(ext, Some(Profile::VulkanNv)), Profile::VulkanExt);
        // Without ray queries, no record-from-query.
        let no_rq = capabilities(device(false, true, false), Profile::VulkanExt);
        assert!(!no_rq.iter().any(|c| c == "hit_object_from_ray_query"));
        assert!(no_rq.iter().any(|c| c == "shader_execution_reorder"));
    }

    #[test]
    fn a_device_with_both_serves_the_profile_asked_for_the_ratified_one_unasked() {
        let both = device(true, true, false);
        assert_eq!(profile(both, None), Profile::VulkanExt);
        assert_eq!(profile(both, Some(Profile::VulkanExt)), Profile::VulkanExt);
        assert_eq!(profile(both, Some(Profile::VulkanNv)), Profile::VulkanNv);
        let nv = capabilities(both, Profile::VulkanNv);
        assert_eq!(
            nv,
            [
                "callable_shaders",
                "wave_operations",
                "shader_execution_reorder",
                "hit_object_load_local_root_table_constant"
            ]
        );
    }

    #[test]
    fn an_nv_device_claims_vulkan_nv_and_one_without_ser_claims_no_ser() {
        let nv = device(true, false, false);
        assert_eq!(profile(nv, None), Profile::VulkanNv);
        assert!(capabilities(nv, Profile::VulkanNv)
            .iter()
            .any(|c| c == "shader_execution_reorder"));
        // Asked for vulkan-ext, an NV-only device serves it without SER.
        assert_eq!(profile(nv, Some(Profile::VulkanExt)), Profile::VulkanExt);
        assert!(!capabilities(nv, Profile::VulkanExt)
            .iter()
            .any(|c| c == "shader_execution_reorder"));
        let lavapipe = device(false, false, true);
        assert_eq!(profile(lavapipe, None), Profile::VulkanExt);
        assert_eq!(
            capabilities(lavapipe, Profile::VulkanExt),
            ["callable_shaders", "wave_operations", "ray_query"]
        );
    }
}
