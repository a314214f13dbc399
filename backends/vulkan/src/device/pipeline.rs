//! A ray tracing pipeline for a case, or for a batch of cases that share
//! everything but their raygeneration shader: one stage per shader module,
//! one group per raygeneration shader, then one per record of the shader
//! table, and the shader binding table laid out by the reference's layout
//! rules with this device's handle size and alignments (`sbt.vulkan.*`),
//! local root constants as shader record data right after each handle.
//! Each raygeneration group gets its own raygeneration record (and region):
//! the same record contents with that group's handle.

use super::buffer::Buffer;
use super::run::Module;
use super::Gpu;
use ash::vk;
use ser_reference::sbt::layout::{self, Api, Layout, Packing, Rules};
use ser_reference::sbt::{ShaderTable, Table};

pub use ser_targets::interface::{EMPTY_CALLABLE, EMPTY_MISS};

pub struct Pipeline {
    pub pipeline: vk::Pipeline,
    pub layout: vk::PipelineLayout,
    pub set_layout: vk::DescriptorSetLayout,
    modules: Vec<vk::ShaderModule>,
    pub sbt: Buffer,
    /// The raygeneration, miss, hit-group and callable regions, with the
    /// first raygeneration record.
    pub regions: [vk::StridedDeviceAddressRegionKHR; 4],
    /// One raygeneration region per entry of [`PipelineDesc::raygens`].
    pub raygen_regions: Vec<vk::StridedDeviceAddressRegionKHR>,
}

type Sbt = (
    Buffer,
    [vk::StridedDeviceAddressRegionKHR; 4],
    Vec<vk::StridedDeviceAddressRegionKHR>,
);

pub struct PipelineDesc<'a> {
    pub modules: &'a [Module],
    /// The raygeneration modules, as indices into `modules`.
    pub raygens: &'a [usize],
    pub table: &'a ShaderTable,
    pub bindings: &'a [(u32, vk::DescriptorType)],
    pub max_recursion_depth: u32,
    pub flags: vk::PipelineCreateFlags,
}

impl Gpu {
    pub fn rules(&self) -> Rules {
        Rules {
            api: Api::Vulkan,
            identifier_size: self.props.handle_size,
            record_alignment: self.props.handle_alignment,
            table_alignment: self.props.base_alignment,
            max_stride: self.props.max_stride,
            packing: Packing::ConstantsOnly,
        }
    }

    pub fn pipeline(&self, desc: &PipelineDesc) -> Result<Pipeline, String> {
        let d = &self.device;
        let all = vk::ShaderStageFlags::RAYGEN_KHR
            | vk::ShaderStageFlags::CLOSEST_HIT_KHR
            | vk::ShaderStageFlags::ANY_HIT_KHR
            | vk::ShaderStageFlags::INTERSECTION_KHR
            | vk::ShaderStageFlags::MISS_KHR
            | vk::ShaderStageFlags::CALLABLE_KHR;
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = desc
            .bindings
            .iter()
            .map(|&(b, ty)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(all)
            })
            .collect();
        let set_layout = unsafe {
            d.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
        }
        .map_err(|e| format!("vkCreateDescriptorSetLayout: {e}"))?;
        let set_layouts = [set_layout];
        let layout = unsafe {
            d.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
                None,
            )
        }
        .map_err(|e| format!("vkCreatePipelineLayout: {e}"))?;
        let mut modules = Vec::new();
        for m in desc.modules {
            let module = unsafe {
                d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&m.spirv), None)
            }
            .map_err(|e| format!("vkCreateShaderModule `{}`: {e}", m.entry))?;
            modules.push(module);
        }
        let stages: Vec<vk::PipelineShaderStageCreateInfo> = desc
            .modules
            .iter()
            .zip(&modules)
            .map(|(m, &module)| {
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(m.stage)
                    .module(module)
                    .name(c"main")
            })
            .collect();
        let index = |name: &str| -> Result<u32, String> {
            desc.modules
                .iter()
                .position(|m| m.entry == name)
                .map(|i| i as u32)
                .ok_or_else(|| format!("no module for shader `{name}`"))
        };
        let general = |i: u32| {
            vk::RayTracingShaderGroupCreateInfoKHR::default()
                .ty(vk::RayTracingShaderGroupTypeKHR::GENERAL)
                .general_shader(i)
                .closest_hit_shader(vk::SHADER_UNUSED_KHR)
                .any_hit_shader(vk::SHADER_UNUSED_KHR)
                .intersection_shader(vk::SHADER_UNUSED_KHR)
        };
        let optional = |n: &Option<String>| -> Result<u32, String> {
            n.as_deref().map_or(Ok(vk::SHADER_UNUSED_KHR), index)
        };
        let mut groups: Vec<_> = desc.raygens.iter().map(|&i| general(i as u32)).collect();
        for r in &desc.table.miss {
            groups.push(general(index(r.shader.as_deref().unwrap_or(EMPTY_MISS))?));
        }
        for r in &desc.table.hit_groups {
            let ty = if r.intersection.is_some() {
                vk::RayTracingShaderGroupTypeKHR::PROCEDURAL_HIT_GROUP
            } else {
                vk::RayTracingShaderGroupTypeKHR::TRIANGLES_HIT_GROUP
            };
            groups.push(
                vk::RayTracingShaderGroupCreateInfoKHR::default()
                    .ty(ty)
                    .general_shader(vk::SHADER_UNUSED_KHR)
                    .closest_hit_shader(optional(&r.closest_hit)?)
                    .any_hit_shader(optional(&r.any_hit)?)
                    .intersection_shader(optional(&r.intersection)?),
            );
        }
        for r in &desc.table.callable {
            groups.push(general(index(
                r.shader.as_deref().unwrap_or(EMPTY_CALLABLE),
            )?));
        }
        let info = vk::RayTracingPipelineCreateInfoKHR::default()
            .stages(&stages)
            .groups(&groups)
            .max_pipeline_ray_recursion_depth(
                desc.max_recursion_depth.min(self.props.max_recursion_depth),
            )
            .layout(layout)
            .flags(desc.flags);
        let pipeline = self.create_on_all_cores(&info)?;
        let h = self.props.handle_size as usize;
        let mut handles = unsafe {
            self.rt.get_ray_tracing_shader_group_handles(
                pipeline,
                0,
                groups.len() as u32,
                groups.len() * h,
            )
        }
        .map_err(|e| format!("vkGetRayTracingShaderGroupHandlesKHR: {e}"))?;
        // A hit-group record with no shader is the null hit group: a
        // shader group handle of all zeros, whose shaders are all
        // VK_SHADER_UNUSED_KHR (vk.confirmation.aabb.unused_intersection_shader_no_processing).
        let first_hit_group = desc.raygens.len() + desc.table.miss.len();
        for (j, r) in desc.table.hit_groups.iter().enumerate() {
            if r.closest_hit.is_none() && r.any_hit.is_none() && r.intersection.is_none() {
                let g = first_hit_group + j;
                handles[g * h..(g + 1) * h].fill(0);
            }
        }
        let table_layout =
            layout::layout(&self.rules(), desc.table).map_err(|e| format!("shader table: {e}"))?;
        let (sbt, regions, raygen_regions) =
            self.sbt(&table_layout, &handles, h, desc.raygens.len())?;
        Ok(Pipeline {
            pipeline,
            layout,
            set_layout,
            modules,
            sbt,
            regions,
            raygen_regions,
        })
    }

    /// The table as laid out, with the first raygeneration handle in its
    /// raygeneration record; the records of the other `raygens - 1`
    /// handles follow the table, each at the base alignment
    /// (VUID-vkCmdTraceRaysKHR-pRayGenShaderBindingTable-03682).
    fn sbt(&self, l: &Layout, handles: &[u8], h: usize, raygens: usize) -> Result<Sbt, String> {
        let tables = [Table::RayGen, Table::Miss, Table::HitGroup, Table::Callable];
        let align = self.props.base_alignment as u64;
        let end = tables
            .iter()
            .map(|&t| {
                let tl = l.table(t);
                tl.start + tl.stride as u64 * tl.records.len() as u64
            })
            .max()
            .unwrap_or(0);
        let rg = l.table(Table::RayGen);
        let rg_size = (rg.stride as u64).div_ceil(align) * align;
        let extra_start = end.div_ceil(align) * align;
        let extra = rg_size * raygens.saturating_sub(1) as u64;
        let buffer = self.buffer(
            extra_start + extra + align,
            vk::BufferUsageFlags::SHADER_BINDING_TABLE_KHR,
        )?;
        let base = buffer.address.div_ceil(align) * align;
        let shift = (base - buffer.address) as usize;
        let write_record = |at: u64, handle: usize, args: &[Option<u8>]| {
            let at = shift + at as usize;
            buffer.write(at, &handles[handle * h..(handle + 1) * h]);
            let args: Vec<u8> = args.iter().map(|b| b.unwrap_or(0)).collect();
            buffer.write(at + h, &args);
        };
        // Group order: the raygeneration groups, then miss, hit, callable.
        let mut group = raygens;
        let mut regions = [vk::StridedDeviceAddressRegionKHR::default(); 4];
        for (k, &t) in tables.iter().enumerate() {
            let tl = l.table(t);
            for (i, rec) in tl.records.iter().enumerate() {
                let g = if t == Table::RayGen { 0 } else { group };
                write_record(tl.start + tl.stride as u64 * i as u64, g, &rec.arguments);
                group += usize::from(t != Table::RayGen);
            }
            if !tl.records.is_empty() {
                let size = tl.stride as u64 * tl.records.len() as u64;
                regions[k] = vk::StridedDeviceAddressRegionKHR {
                    device_address: base + tl.start,
                    stride: tl.stride as u64,
                    size,
                };
            }
        }
        let mut raygen_regions = vec![regions[0]];
        let args = rg.records.first().map_or(&[][..], |r| &r.arguments[..]);
        for j in 1..raygens {
            let at = extra_start + rg_size * (j as u64 - 1);
            write_record(at, j, args);
            raygen_regions.push(vk::StridedDeviceAddressRegionKHR {
                device_address: base + at,
                ..regions[0]
            });
        }
        Ok((buffer, regions, raygen_regions))
    }

    pub fn free_pipeline(&self, p: Pipeline) {
        unsafe {
            self.device.destroy_pipeline(p.pipeline, None);
            self.device.destroy_pipeline_layout(p.layout, None);
            self.device
                .destroy_descriptor_set_layout(p.set_layout, None);
            for m in p.modules {
                self.device.destroy_shader_module(m, None);
            }
        }
        self.free(p.sbt);
    }
}

impl Gpu {
    /// `vkCreateRayTracingPipelinesKHR` as a deferred operation that every
    /// core of the host joins (VK_KHR_deferred_host_operations, which the
    /// device has with its acceleration structures): a batch's pipeline
    /// holds many raygeneration shaders, which a driver can compile in
    /// parallel. An implementation that does not defer just creates it.
    fn create_on_all_cores(
        &self,
        info: &vk::RayTracingPipelineCreateInfoKHR,
    ) -> Result<vk::Pipeline, String> {
        let ops = &self.deferred;
        let op = unsafe { ops.create_deferred_operation(None) }
            .map_err(|e| format!("vkCreateDeferredOperationKHR: {e}"))?;
        let created = unsafe {
            self.rt.create_ray_tracing_pipelines(
                op,
                vk::PipelineCache::null(),
                std::slice::from_ref(info),
                None,
            )
        };
        let result = match created {
            Ok(p) => Ok(p[0]),
            Err((p, vk::Result::OPERATION_DEFERRED_KHR)) => {
                let threads = unsafe { ops.get_deferred_operation_max_concurrency(op) }.clamp(
                    1,
                    std::thread::available_parallelism().map_or(1, |n| n.get()) as u32,
                );
                std::thread::scope(|scope| {
                    for _ in 0..threads {
                        // THREAD_IDLE: more work may come; anything else: done.
                        scope.spawn(|| {
                            while let Err(vk::Result::THREAD_IDLE_KHR) =
                                unsafe { ops.deferred_operation_join(op) }
                            {
                                std::thread::yield_now();
                            }
                        });
                    }
                });
                match unsafe { ops.get_deferred_operation_result(op) } {
                    Ok(()) => Ok(p[0]),
                    Err(e) => Err(format!("vkCreateRayTracingPipelinesKHR (deferred): {e}")),
                }
            }
            Err((p, vk::Result::OPERATION_NOT_DEFERRED_KHR)) => Ok(p[0]),
            Err((_, e)) => Err(format!("vkCreateRayTracingPipelinesKHR: {e}")),
        };
        unsafe { ops.destroy_deferred_operation(op, None) };
        result
    }
}
