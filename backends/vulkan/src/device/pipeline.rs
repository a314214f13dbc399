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
use crate::timing;
use ash::{khr, vk};
use ser_reference::sbt::layout::{self, Api, Layout, Packing, Rules};
use ser_reference::sbt::{ShaderTable, Table};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

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
        self.pipelines(std::slice::from_ref(desc))
            .pop()
            .expect("one answer per description")
    }

    /// One pipeline per description, created together: the creation calls
    /// (where a driver compiles its shaders, the slow step) run on every
    /// core, one pipeline per thread, or one pipeline joined by them all.
    pub fn pipelines(&self, descs: &[PipelineDesc]) -> Vec<Result<Pipeline, String>> {
        let started = Instant::now();
        let parts: Vec<Result<Parts, String>> = descs.iter().map(|d| self.parts(d)).collect();
        timing::add(
            "pipelines: layouts and modules",
            started.elapsed(),
            descs.len(),
        );
        let started = Instant::now();
        let todo: Vec<(usize, &Parts)> = parts
            .iter()
            .enumerate()
            .filter_map(|(i, p)| Some((i, p.as_ref().ok()?)))
            .collect();
        let cores = creation_threads();
        let joiners = (cores / todo.len().max(1)).max(1) as u32;
        let next = AtomicUsize::new(0);
        let (rt, ops) = (&self.rt, &self.deferred);
        let mut created: Vec<(usize, Result<vk::Pipeline, String>)> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..cores.min(todo.len()))
                .map(|_| {
                    scope.spawn(|| {
                        let mut out = Vec::new();
                        while let Some(&(i, p)) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
                            out.push((i, create(rt, ops, p, joiners)));
                        }
                        out
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("a pipeline thread panicked"))
                .collect()
        });
        timing::add("pipelines: created", started.elapsed(), todo.len());
        let started = Instant::now();
        created.sort_by_key(|(i, _)| *i);
        let mut created = created.into_iter().peekable();
        let finished = parts
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                let p = p?;
                let made = match created.next_if(|(j, _)| *j == i) {
                    Some((_, made)) => made,
                    None => Err("the pipeline was not created".to_string()),
                };
                match made {
                    Ok(pipeline) => self.finish(&descs[i], p, pipeline),
                    Err(e) => {
                        self.free_parts(p);
                        Err(e)
                    }
                }
            })
            .collect();
        timing::add(
            "pipelines: handles and tables",
            started.elapsed(),
            descs.len(),
        );
        finished
    }

    /// The layouts, modules and groups of `desc`.
    fn parts(&self, desc: &PipelineDesc) -> Result<Parts, String> {
        let d = &self.device;
        let all = vk::ShaderStageFlags::RAYGEN_KHR
            | vk::ShaderStageFlags::CLOSEST_HIT_KHR
            | vk::ShaderStageFlags::ANY_HIT_KHR
            | vk::ShaderStageFlags::INTERSECTION_KHR
            | vk::ShaderStageFlags::MISS_KHR
            | vk::ShaderStageFlags::CALLABLE_KHR;
        let groups = groups(desc)?;
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
        let mut parts = Parts {
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            modules: Vec::new(),
            stages: desc.modules.iter().map(|m| m.stage).collect(),
            groups,
            depth: desc.max_recursion_depth.min(self.props.max_recursion_depth),
            flags: desc.flags,
        };
        let made = (|| unsafe {
            parts.set_layout = d
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                )
                .map_err(|e| format!("vkCreateDescriptorSetLayout: {e}"))?;
            parts.layout = d
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().set_layouts(&[parts.set_layout]),
                    None,
                )
                .map_err(|e| format!("vkCreatePipelineLayout: {e}"))?;
            for m in desc.modules {
                let module = d
                    .create_shader_module(
                        &vk::ShaderModuleCreateInfo::default().code(&m.spirv),
                        None,
                    )
                    .map_err(|e| format!("vkCreateShaderModule `{}`: {e}", m.entry))?;
                parts.modules.push(module);
            }
            Ok(())
        })();
        match made {
            Ok(()) => Ok(parts),
            Err(e) => {
                self.free_parts(parts);
                Err(e)
            }
        }
    }

    /// The shader group handles and the shader binding table of a created
    /// pipeline.
    fn finish(
        &self,
        desc: &PipelineDesc,
        parts: Parts,
        pipeline: vk::Pipeline,
    ) -> Result<Pipeline, String> {
        let h = self.props.handle_size as usize;
        let count = parts.groups.len();
        let sbt = unsafe {
            self.rt
                .get_ray_tracing_shader_group_handles(pipeline, 0, count as u32, count * h)
        }
        .map_err(|e| format!("vkGetRayTracingShaderGroupHandlesKHR: {e}"))
        .and_then(|mut handles| {
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
            let table_layout = layout::layout(&self.rules(), desc.table)
                .map_err(|e| format!("shader table: {e}"))?;
            self.sbt(&table_layout, &handles, h, desc.raygens.len())
        });
        match sbt {
            Ok((sbt, regions, raygen_regions)) => Ok(Pipeline {
                pipeline,
                layout: parts.layout,
                set_layout: parts.set_layout,
                modules: parts.modules,
                sbt,
                regions,
                raygen_regions,
            }),
            Err(e) => {
                unsafe { self.device.destroy_pipeline(pipeline, None) };
                self.free_parts(parts);
                Err(e)
            }
        }
    }

    fn free_parts(&self, p: Parts) {
        self.free_layouts_and_modules(p.set_layout, p.layout, p.modules);
    }

    /// Destroys what [`Gpu::parts`] made (a null handle is ignored).
    fn free_layouts_and_modules(
        &self,
        set_layout: vk::DescriptorSetLayout,
        layout: vk::PipelineLayout,
        modules: Vec<vk::ShaderModule>,
    ) {
        unsafe {
            for m in modules {
                self.device.destroy_shader_module(m, None);
            }
            self.device.destroy_pipeline_layout(layout, None);
            self.device.destroy_descriptor_set_layout(set_layout, None);
        }
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
        unsafe { self.device.destroy_pipeline(p.pipeline, None) };
        self.free_layouts_and_modules(p.set_layout, p.layout, p.modules);
        self.free(p.sbt);
    }
}

/// Threads that create pipelines: the machine's cores, or
/// `SER_VULKAN_PIPELINE_THREADS` (for measuring).
pub(super) fn creation_threads() -> usize {
    std::env::var("SER_VULKAN_PIPELINE_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// A pipeline's parts made before it is created: its layouts, modules and
/// groups. Plain handles and numbers, so that creation can run on another
/// thread.
struct Parts {
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    modules: Vec<vk::ShaderModule>,
    stages: Vec<vk::ShaderStageFlags>,
    groups: Vec<Group>,
    depth: u32,
    flags: vk::PipelineCreateFlags,
}

/// One shader group: its type and shader indices (`VK_SHADER_UNUSED_KHR`
/// where it has none).
#[derive(Clone, Copy)]
struct Group {
    ty: vk::RayTracingShaderGroupTypeKHR,
    general: u32,
    closest_hit: u32,
    any_hit: u32,
    intersection: u32,
}

/// The groups of `desc`: one per raygeneration shader, then one per miss,
/// hit-group and callable record.
fn groups(desc: &PipelineDesc) -> Result<Vec<Group>, String> {
    let index = |name: &str| -> Result<u32, String> {
        desc.modules
            .iter()
            .position(|m| m.entry == name)
            .map(|i| i as u32)
            .ok_or_else(|| format!("no module for shader `{name}`"))
    };
    let unused = vk::SHADER_UNUSED_KHR;
    let general = |i: u32| Group {
        ty: vk::RayTracingShaderGroupTypeKHR::GENERAL,
        general: i,
        closest_hit: unused,
        any_hit: unused,
        intersection: unused,
    };
    let optional = |n: &Option<String>| n.as_deref().map_or(Ok(unused), index);
    let mut groups: Vec<Group> = desc.raygens.iter().map(|&i| general(i as u32)).collect();
    for r in &desc.table.miss {
        groups.push(general(index(r.shader.as_deref().unwrap_or(EMPTY_MISS))?));
    }
    for r in &desc.table.hit_groups {
        groups.push(Group {
            ty: if r.intersection.is_some() {
                vk::RayTracingShaderGroupTypeKHR::PROCEDURAL_HIT_GROUP
            } else {
                vk::RayTracingShaderGroupTypeKHR::TRIANGLES_HIT_GROUP
            },
            general: unused,
            closest_hit: optional(&r.closest_hit)?,
            any_hit: optional(&r.any_hit)?,
            intersection: optional(&r.intersection)?,
        });
    }
    for r in &desc.table.callable {
        groups.push(general(index(
            r.shader.as_deref().unwrap_or(EMPTY_CALLABLE),
        )?));
    }
    Ok(groups)
}

/// Creates the pipeline of `p`, as a deferred operation joined by
/// `joiners` threads (the driver may spread one pipeline's shaders over
/// them).
fn create(
    rt: &khr::ray_tracing_pipeline::Device,
    ops: &khr::deferred_host_operations::Device,
    p: &Parts,
    joiners: u32,
) -> Result<vk::Pipeline, String> {
    let stages: Vec<vk::PipelineShaderStageCreateInfo> = p
        .stages
        .iter()
        .zip(&p.modules)
        .map(|(&stage, &module)| {
            vk::PipelineShaderStageCreateInfo::default()
                .stage(stage)
                .module(module)
                .name(c"main")
        })
        .collect();
    let groups: Vec<vk::RayTracingShaderGroupCreateInfoKHR> = p
        .groups
        .iter()
        .map(|g| {
            vk::RayTracingShaderGroupCreateInfoKHR::default()
                .ty(g.ty)
                .general_shader(g.general)
                .closest_hit_shader(g.closest_hit)
                .any_hit_shader(g.any_hit)
                .intersection_shader(g.intersection)
        })
        .collect();
    let info = vk::RayTracingPipelineCreateInfoKHR::default()
        .stages(&stages)
        .groups(&groups)
        .max_pipeline_ray_recursion_depth(p.depth)
        .layout(p.layout)
        .flags(p.flags);
    let op = unsafe { ops.create_deferred_operation(None) }
        .map_err(|e| format!("vkCreateDeferredOperationKHR: {e}"))?;
    let created = unsafe {
        rt.create_ray_tracing_pipelines(
            op,
            vk::PipelineCache::null(),
            std::slice::from_ref(&info),
            None,
        )
    };
    let result = match created {
        Ok(p) => Ok(p[0]),
        Err((p, vk::Result::OPERATION_DEFERRED_KHR)) => {
            let threads =
                unsafe { ops.get_deferred_operation_max_concurrency(op) }.clamp(1, joiners);
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
