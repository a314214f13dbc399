//! The backend. On a device with `VK_NV_ray_tracing_invocation_reorder` it
//! claims profile `vulkan-nv` with SER; on one without (Mesa's lavapipe) it
//! claims `vulkan-ext` without `shader_execution_reorder`: ray tracing
//! pipelines (and ray queries where the device has them), judged on every
//! case that needs no hit object or reorder. Each case's entry points are
//! emitted as GLSL and compiled; what the extension or the emitter cannot
//! express makes the case *not supported*, with the reason.

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
    /// What the device had when the backend started: the claim.
    features: Features,
    /// The device's subgroup size, when there is a device.
    wave_size: Option<u32>,
    /// How many cases of batches ran again on their own (`run_batch`).
    pub retried: AtomicUsize,
}

/// Capabilities this backend has on any ray tracing device.
const BASE_CAPABILITIES: &[&str] = &["callable_shaders", "wave_operations"];

/// Capabilities that come with `VK_NV_ray_tracing_invocation_reorder`:
/// what the NV extension and the emitter express.
const NV_CAPABILITIES: &[&str] = &[
    "shader_execution_reorder",
    "hit_object_load_local_root_table_constant",
];

/// The capabilities claimed on a device with `features`.
pub fn capabilities(features: Features) -> Vec<String> {
    let mut out: Vec<&str> = BASE_CAPABILITIES.to_vec();
    if features.reorder_nv {
        out.extend(NV_CAPABILITIES);
    }
    if features.ray_query {
        out.push("ray_query");
    }
    out.into_iter().map(str::to_string).collect()
}

/// The profile claimed: GL_NV's where the device has its extension; else
/// `vulkan-ext`, whose ray tracing (the Vulkan chapter) is what a device
/// without SER is judged on.
pub fn profile(features: Features) -> Profile {
    if features.reorder_nv {
        Profile::VulkanNv
    } else {
        Profile::VulkanExt
    }
}

impl VulkanBackend {
    pub fn new() -> VulkanBackend {
        let gpu = Gpu::open();
        let features = gpu.as_ref().map(|g| g.features).unwrap_or_default();
        let profile = profile(features);
        let name = match &gpu {
            Ok(g) => format!("{profile} ({}, {})", g.name, g.driver.trim()),
            Err(_) => format!("{profile} (no device)"),
        };
        let wave_size = gpu.as_ref().ok().map(|g| g.props.subgroup_size);
        VulkanBackend {
            gpu: Mutex::new(gpu),
            name,
            features,
            wave_size,
            retried: AtomicUsize::new(0),
        }
    }

    /// The optional extensions the device has.
    pub fn features(&self) -> Features {
        self.features
    }

    /// The spelling of the GLSL this device compiles.
    pub fn spelling(&self) -> Spelling {
        match profile(self.features) {
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
        profile(self.features)
    }

    fn capabilities(&self) -> Vec<String> {
        capabilities(self.features)
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
