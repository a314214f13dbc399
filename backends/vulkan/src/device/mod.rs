//! The GPU side: a Vulkan 1.3 device with `VK_KHR_ray_tracing_pipeline` and
//! `VK_KHR_acceleration_structure`, and, where it has them,
//! `VK_EXT_ray_tracing_invocation_reorder`,
//! `VK_NV_ray_tracing_invocation_reorder` and `VK_KHR_ray_query` (see
//! [`Features`]); and what a case needs of it: buffers, acceleration
//! structures built from the case's scene, a pipeline and shader binding
//! table from its shader table, one dispatch.

mod accel;
mod arena;
mod batch;
mod buffer;
mod cache;
mod pipeline;
pub mod reorder_ext;
mod run;

pub use accel::UNEXPRESSIBLE_MIXED_BLAS;
pub use pipeline::{EMPTY_CALLABLE, EMPTY_MISS};
pub use run::{Job, Module, Outputs};

use ash::{khr, vk};
use std::ffi::CStr;

/// Why the GPU cannot run anything: reported as "not supported".
#[derive(Clone, Debug)]
pub struct NoDevice(pub String);

const REQUIRED: [&CStr; 3] = [
    khr::ray_tracing_pipeline::NAME,
    khr::acceleration_structure::NAME,
    khr::deferred_host_operations::NAME,
];

/// The optional extensions the backend uses where a device has them (the
/// extension listed and its feature supported): they decide what the
/// backend claims.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// `VK_NV_ray_tracing_invocation_reorder`: SER, under GL_NV's names.
    pub reorder_nv: bool,
    /// `VK_EXT_ray_tracing_invocation_reorder`: SER as ratified, under
    /// GL_EXT's names.
    pub reorder_ext: bool,
    /// `VK_KHR_ray_query`: inline ray tracing in every stage.
    pub ray_query: bool,
    /// `VK_EXT_opacity_micromap`: reported by `--probe` only; the device
    /// layer builds no micromaps yet.
    pub opacity_micromap: bool,
}

impl Features {
    /// The extensions a device lists (their features are checked next,
    /// [`Features::supported`]).
    fn of(has: impl Fn(&CStr) -> bool) -> Features {
        Features {
            reorder_nv: has(ash::nv::ray_tracing_invocation_reorder::NAME),
            reorder_ext: has(reorder_ext::NAME),
            ray_query: has(khr::ray_query::NAME),
            opacity_micromap: has(ash::ext::opacity_micromap::NAME),
        }
    }

    /// Of the extensions listed, those whose feature the device supports
    /// (an extension may be listed with its feature off).
    fn supported(self, instance: &ash::Instance, pd: vk::PhysicalDevice) -> Features {
        let mut nv = vk::PhysicalDeviceRayTracingInvocationReorderFeaturesNV::default();
        let mut ext = reorder_ext::Features::default();
        let mut rq = vk::PhysicalDeviceRayQueryFeaturesKHR::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        if self.reorder_nv {
            f2 = f2.push_next(&mut nv);
        }
        if self.reorder_ext {
            f2 = f2.push_next(&mut ext);
        }
        if self.ray_query {
            f2 = f2.push_next(&mut rq);
        }
        unsafe { instance.get_physical_device_features2(pd, &mut f2) };
        Features {
            reorder_nv: self.reorder_nv && nv.ray_tracing_invocation_reorder == vk::TRUE,
            reorder_ext: self.reorder_ext && ext.ray_tracing_invocation_reorder == vk::TRUE,
            ray_query: self.ray_query && rq.ray_query == vk::TRUE,
            opacity_micromap: self.opacity_micromap,
        }
    }

    /// Whether the device has SER in either form.
    pub fn reorder(self) -> bool {
        self.reorder_nv || self.reorder_ext
    }

    /// The extensions to enable for them.
    fn extensions(self) -> Vec<&'static CStr> {
        let mut out = Vec::new();
        if self.reorder_nv {
            out.push(ash::nv::ray_tracing_invocation_reorder::NAME);
        }
        if self.reorder_ext {
            out.push(reorder_ext::NAME);
        }
        if self.ray_query {
            out.push(khr::ray_query::NAME);
        }
        out
    }
}

/// What the pipeline and the shader binding table must respect.
#[derive(Clone, Copy, Debug)]
pub struct RayTracingProperties {
    pub handle_size: u32,
    pub handle_alignment: u32,
    pub base_alignment: u32,
    pub max_stride: u32,
    pub max_recursion_depth: u32,
    pub scratch_alignment: u32,
    pub subgroup_size: u32,
    /// `VK_EXT_ray_tracing_invocation_reorder`'s properties, where the
    /// device has it: whether it may reorder at all, and the largest
    /// record index `hitObjectSetShaderBindingTableRecordIndexEXT` takes.
    pub reorder_ext: Option<ReorderExtProperties>,
}

/// `VkPhysicalDeviceRayTracingInvocationReorderPropertiesEXT`, read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReorderExtProperties {
    /// `rayTracingInvocationReorderReorderingHint` is
    /// `VK_RAY_TRACING_INVOCATION_REORDER_MODE_REORDER_EXT`.
    pub may_reorder: bool,
    pub max_shader_binding_table_record_index: u32,
}

pub struct Gpu {
    _entry: ash::Entry,
    instance: ash::Instance,
    pub device: ash::Device,
    physical: vk::PhysicalDevice,
    queue: vk::Queue,
    pool: vk::CommandPool,
    memory: vk::PhysicalDeviceMemoryProperties,
    pub accel: khr::acceleration_structure::Device,
    pub rt: khr::ray_tracing_pipeline::Device,
    pub deferred: khr::deferred_host_operations::Device,
    pub props: RayTracingProperties,
    pub features: Features,
    pub name: String,
    pub driver: String,
    cache: cache::Cache,
    arena: arena::Arena,
}

impl Gpu {
    /// The first device with every extension the backend needs, one with
    /// SER (the EXT or the NV extension) before one without.
    pub fn open() -> Result<Gpu, NoDevice> {
        let no = |m: String| NoDevice(m);
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| no(format!("no Vulkan loader (libvulkan.so.1): {e}")))?;
        let app = vk::ApplicationInfo::default()
            .application_name(c"ser-vulkan")
            .api_version(vk::API_VERSION_1_3);
        let instance = unsafe {
            entry.create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
        }
        .map_err(|e| no(format!("vkCreateInstance: {e}")))?;
        let devices = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| no(format!("vkEnumeratePhysicalDevices: {e}")))?;
        let mut reasons = Vec::new();
        let mut usable = Vec::new();
        for pd in devices {
            let exts =
                unsafe { instance.enumerate_device_extension_properties(pd) }.unwrap_or_default();
            let has = |n: &CStr| exts.iter().any(|e| e.extension_name_as_c_str() == Ok(n));
            let missing: Vec<String> = REQUIRED
                .iter()
                .filter(|n| !has(n))
                .map(|n| n.to_string_lossy().into_owned())
                .collect();
            if missing.is_empty() {
                usable.push((pd, Features::of(has).supported(&instance, pd)));
            } else {
                let props = unsafe { instance.get_physical_device_properties(pd) };
                let name = props
                    .device_name_as_c_str()
                    .map(|c| c.to_string_lossy().into_owned())
                    .unwrap_or_default();
                reasons.push(format!("{name} lacks {}", missing.join(", ")));
            }
        }
        usable.sort_by_key(|(_, f)| !f.reorder());
        let Some(&(physical, features)) = usable.first() else {
            return Err(no(if reasons.is_empty() {
                "no Vulkan device".into()
            } else {
                reasons.join("; ")
            }));
        };
        let mut rt_props = vk::PhysicalDeviceRayTracingPipelinePropertiesKHR::default();
        let mut as_props = vk::PhysicalDeviceAccelerationStructurePropertiesKHR::default();
        let mut sub_props = vk::PhysicalDeviceSubgroupProperties::default();
        let mut driver_props = vk::PhysicalDeviceDriverProperties::default();
        let mut ext_props = reorder_ext::Properties::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut rt_props)
            .push_next(&mut as_props)
            .push_next(&mut sub_props)
            .push_next(&mut driver_props);
        if features.reorder_ext {
            props2 = props2.push_next(&mut ext_props);
        }
        unsafe { instance.get_physical_device_properties2(physical, &mut props2) };
        let name = props2
            .properties
            .device_name_as_c_str()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        let driver = format!(
            "{} {}",
            driver_props
                .driver_name_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default(),
            driver_props
                .driver_info_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default()
        );
        let props = RayTracingProperties {
            handle_size: rt_props.shader_group_handle_size,
            handle_alignment: rt_props.shader_group_handle_alignment,
            base_alignment: rt_props.shader_group_base_alignment,
            max_stride: rt_props.max_shader_group_stride,
            max_recursion_depth: rt_props.max_ray_recursion_depth,
            scratch_alignment: as_props.min_acceleration_structure_scratch_offset_alignment,
            subgroup_size: sub_props.subgroup_size,
            reorder_ext: features.reorder_ext.then_some(ReorderExtProperties {
                may_reorder: ext_props.reordering_hint == reorder_ext::MODE_REORDER,
                max_shader_binding_table_record_index: ext_props
                    .max_shader_binding_table_record_index,
            }),
        };
        let family = unsafe { instance.get_physical_device_queue_family_properties(physical) }
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or_else(|| no("no compute queue".into()))? as u32;
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default().buffer_device_address(true);
        let mut f_as = vk::PhysicalDeviceAccelerationStructureFeaturesKHR::default()
            .acceleration_structure(true);
        let mut f_rt =
            vk::PhysicalDeviceRayTracingPipelineFeaturesKHR::default().ray_tracing_pipeline(true);
        let mut f_ser = vk::PhysicalDeviceRayTracingInvocationReorderFeaturesNV::default()
            .ray_tracing_invocation_reorder(true);
        let mut f_ser_ext = reorder_ext::Features::enabled();
        let mut f_rq = vk::PhysicalDeviceRayQueryFeaturesKHR::default().ray_query(true);
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .features(vk::PhysicalDeviceFeatures::default().shader_int64(true))
            .push_next(&mut f12)
            .push_next(&mut f_as)
            .push_next(&mut f_rt);
        if features.reorder_nv {
            f2 = f2.push_next(&mut f_ser);
        }
        if features.reorder_ext {
            f2 = f2.push_next(&mut f_ser_ext);
        }
        if features.ray_query {
            f2 = f2.push_next(&mut f_rq);
        }
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let ext_names: Vec<*const i8> = REQUIRED
            .iter()
            .copied()
            .chain(features.extensions())
            .map(|n| n.as_ptr())
            .collect();
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&ext_names)
            .push_next(&mut f2);
        let device = unsafe { instance.create_device(physical, &info, None) }
            .map_err(|e| no(format!("vkCreateDevice on {name}: {e}")))?;
        let queue = unsafe { device.get_device_queue(family, 0) };
        let pool = unsafe {
            device.create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )
        }
        .map_err(|e| no(format!("vkCreateCommandPool: {e}")))?;
        let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
        let accel = khr::acceleration_structure::Device::new(&instance, &device);
        let rt = khr::ray_tracing_pipeline::Device::new(&instance, &device);
        let deferred = khr::deferred_host_operations::Device::new(&instance, &device);
        Ok(Gpu {
            _entry: entry,
            instance,
            device,
            physical,
            queue,
            pool,
            memory,
            accel,
            rt,
            deferred,
            props,
            features,
            name,
            driver,
            cache: cache::Cache::new(),
            arena: arena::Arena::default(),
        })
    }

    /// Records commands into a one-time command buffer, submits them and
    /// waits.
    pub fn submit(&self, record: impl FnOnce(vk::CommandBuffer)) -> Result<(), String> {
        let d = &self.device;
        unsafe {
            let cmd = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(self.pool)
                        .command_buffer_count(1),
                )
                .map_err(|e| format!("vkAllocateCommandBuffers: {e}"))?[0];
            d.begin_command_buffer(
                cmd,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )
            .map_err(|e| format!("vkBeginCommandBuffer: {e}"))?;
            record(cmd);
            d.end_command_buffer(cmd)
                .map_err(|e| format!("vkEndCommandBuffer: {e}"))?;
            let fence = d
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(|e| format!("vkCreateFence: {e}"))?;
            let cmds = [cmd];
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            let r = d
                .queue_submit(self.queue, &submit, fence)
                .and_then(|_| d.wait_for_fences(&[fence], true, 60_000_000_000));
            d.destroy_fence(fence, None);
            d.free_command_buffers(self.pool, &cmds);
            r.map_err(|e| format!("submit: {e}"))
        }
    }

    fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> Option<u32> {
        (0..self.memory.memory_type_count).find(|&i| {
            bits & (1 << i) != 0
                && self.memory.memory_types[i as usize]
                    .property_flags
                    .contains(flags)
        })
    }

    pub fn physical(&self) -> vk::PhysicalDevice {
        self.physical
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        unsafe {
            let _ = self.device.device_wait_idle();
        }
        for (_, p) in self.cache.pipelines.take() {
            self.free_pipeline(p);
        }
        for (_, b) in self.cache.scenes.take() {
            self.free_scene(b);
        }
        self.free_arena();
        unsafe {
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
