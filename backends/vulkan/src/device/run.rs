//! One case on the GPU: its scene, its pipeline, its buffers, one
//! `vkCmdTraceRaysKHR`, the buffers read back. The pieces (bindings,
//! buffers, descriptor sets, the trace) serve the batch too (`batch`).

use super::buffer::{words_to_bytes, Buffer};
use super::pipeline::{Pipeline, PipelineDesc};
use super::Gpu;
use crate::interface::Interface;
use ash::vk;
use ser_reference::sbt::ShaderTable;
use ser_reference::scene::Scene;
use ser_reference::Dispatch;
use std::collections::BTreeMap;

/// A compiled entry point.
#[derive(Clone, Debug)]
pub struct Module {
    pub entry: String,
    pub stage: vk::ShaderStageFlags,
    pub spirv: Vec<u32>,
}

/// The final words of every output buffer.
pub type Outputs = BTreeMap<String, Vec<u32>>;

pub struct Job<'a> {
    pub scene: &'a Scene,
    pub table: &'a ShaderTable,
    pub dispatch: &'a Dispatch,
    pub interface: &'a Interface,
    pub modules: &'a [Module],
}

/// A case's storage buffers: binding, name, length in words, buffer.
pub(super) type CaseBuffers<'a> = Vec<(u32, &'a str, usize, Buffer)>;

impl Job<'_> {
    /// The descriptor set layout's bindings: the scene, then the buffers.
    pub(super) fn bindings(&self) -> Vec<(u32, vk::DescriptorType)> {
        let mut bindings = Vec::new();
        if self.interface.acceleration_structure.is_some() {
            bindings.push((
                crate::interface::ACCELERATION_STRUCTURE_BINDING,
                vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
            ));
        }
        for b in &self.interface.buffers {
            bindings.push((b.binding, vk::DescriptorType::STORAGE_BUFFER));
        }
        bindings
    }

    /// The pipeline's skip flags, from the dispatch's.
    pub(super) fn flags(&self) -> vk::PipelineCreateFlags {
        let mut flags = vk::PipelineCreateFlags::empty();
        let skip_triangles = ser_lang::names::ray_flag::SKIP_TRIANGLES;
        let skip_aabbs = ser_lang::names::ray_flag::SKIP_PROCEDURAL_PRIMITIVES;
        if self.dispatch.pipeline_flags & skip_triangles != 0 {
            flags |= vk::PipelineCreateFlags::RAY_TRACING_SKIP_TRIANGLES_KHR;
        }
        if self.dispatch.pipeline_flags & skip_aabbs != 0 {
            flags |= vk::PipelineCreateFlags::RAY_TRACING_SKIP_AABBS_KHR;
        }
        flags
    }

    /// The index of the dispatch's raygeneration module.
    pub(super) fn raygen(&self) -> Result<usize, String> {
        let name = &self.dispatch.raygen;
        self.modules
            .iter()
            .position(|m| &m.entry == name && m.stage == vk::ShaderStageFlags::RAYGEN_KHR)
            .ok_or_else(|| format!("no module for shader `{name}`"))
    }
}

impl Gpu {
    pub fn run(&self, job: &Job) -> Result<Outputs, String> {
        if !self.cache.enabled {
            let scene = self.build_scene(job.scene)?;
            let r = self.run_with(job, scene.tlas);
            self.free_scene(scene);
            return r;
        }
        let key = serde_json::to_string(job.scene).map_err(|e| e.to_string())?;
        let cached = self.cache.scenes.borrow().get(&key).map(|b| b.tlas);
        let tlas = match cached {
            Some(t) => t,
            None => {
                let built = self.build_scene(job.scene)?;
                let t = built.tlas;
                self.cache.scenes.borrow_mut().insert(key, built);
                t
            }
        };
        self.run_with(job, tlas)
    }

    fn run_with(&self, job: &Job, tlas: vk::AccelerationStructureKHR) -> Result<Outputs, String> {
        let bindings = job.bindings();
        let raygens = [job.raygen()?];
        let desc = PipelineDesc {
            modules: job.modules,
            raygens: &raygens,
            table: job.table,
            bindings: &bindings,
            max_recursion_depth: job.dispatch.max_recursion_depth,
            flags: job.flags(),
        };
        let key = super::cache::PipelineKey::of(&desc);
        let cached = self.cache.enabled && self.cache.pipelines.borrow().contains_key(&key);
        if self.cache.enabled && !cached {
            let p = self.pipeline(&desc)?;
            self.cache.pipelines.borrow_mut().insert(key.clone(), p);
        }
        let fresh = if self.cache.enabled {
            None
        } else {
            Some(self.pipeline(&desc)?)
        };
        let pipelines = self.cache.pipelines.borrow();
        let p = match &fresh {
            Some(p) => p,
            None => &pipelines[&key],
        };
        let result = self.case_buffers(job).and_then(|buffers| {
            let r = self.dispatch(job, p, tlas, &buffers);
            let out = self.read_back(buffers, r.is_ok());
            r.map(|()| out)
        });
        drop(pipelines);
        if let Some(p) = fresh {
            self.free_pipeline(p);
        }
        result
    }

    /// A case's storage buffers, holding their initial words.
    pub(super) fn case_buffers<'a>(&self, job: &Job<'a>) -> Result<CaseBuffers<'a>, String> {
        let mut out: CaseBuffers<'a> = Vec::new();
        for b in &job.interface.buffers {
            let init = job
                .dispatch
                .buffers
                .get(&b.name)
                .map_or(&[][..], |v| &v[..]);
            match self.buffer_with(&words_to_bytes(init), vk::BufferUsageFlags::STORAGE_BUFFER) {
                Ok(buf) => out.push((b.binding, &b.name, init.len(), buf)),
                Err(e) => {
                    self.read_back(out, false);
                    return Err(e);
                }
            }
        }
        Ok(out)
    }

    /// Frees a case's buffers; their final words where `read`.
    pub(super) fn read_back(&self, buffers: CaseBuffers, read: bool) -> Outputs {
        let mut out = BTreeMap::new();
        for (_, name, n, buf) in buffers {
            if read {
                out.insert(name.to_string(), buf.read_words(n));
            }
            self.free(buf);
        }
        out
    }

    /// Writes a case's scene and buffers into `set`.
    pub(super) fn write_set(
        &self,
        set: vk::DescriptorSet,
        job: &Job,
        tlas: vk::AccelerationStructureKHR,
        buffers: &CaseBuffers,
    ) {
        let tlases = [tlas];
        let mut as_write = vk::WriteDescriptorSetAccelerationStructureKHR::default()
            .acceleration_structures(&tlases);
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
            .iter()
            .map(|(_, _, _, b)| {
                [vk::DescriptorBufferInfo {
                    buffer: b.buffer,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                }]
            })
            .collect();
        let mut writes: Vec<vk::WriteDescriptorSet> = buffers
            .iter()
            .zip(&infos)
            .map(|((binding, ..), info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(*binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(info)
            })
            .collect();
        if job.interface.acceleration_structure.is_some() {
            let mut w = vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(crate::interface::ACCELERATION_STRUCTURE_BINDING)
                .descriptor_type(vk::DescriptorType::ACCELERATION_STRUCTURE_KHR)
                .push_next(&mut as_write);
            w.descriptor_count = 1;
            writes.push(w);
        }
        unsafe { self.device.update_descriptor_sets(&writes, &[]) };
    }

    /// A descriptor pool for `sets` sets of up to `buffers` buffers each.
    pub(super) fn descriptor_pool(
        &self,
        sets: u32,
        buffers: u32,
    ) -> Result<vk::DescriptorPool, String> {
        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
                descriptor_count: sets,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: buffers.max(1),
            },
        ];
        unsafe {
            self.device.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(sets)
                    .pool_sizes(&sizes),
                None,
            )
        }
        .map_err(|e| format!("vkCreateDescriptorPool: {e}"))
    }

    /// Records binding `p` and `set` and one trace of `raygen` over the
    /// job's dispatch size.
    pub(super) fn record_trace(
        &self,
        cmd: vk::CommandBuffer,
        job: &Job,
        p: &Pipeline,
        raygen: &vk::StridedDeviceAddressRegionKHR,
        set: vk::DescriptorSet,
    ) {
        let d = &self.device;
        let [w, h, depth] = job.dispatch.size;
        unsafe {
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::RAY_TRACING_KHR, p.pipeline);
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::RAY_TRACING_KHR,
                p.layout,
                0,
                &[set],
                &[],
            );
            self.rt.cmd_trace_rays(
                cmd,
                raygen,
                &p.regions[1],
                &p.regions[2],
                &p.regions[3],
                w,
                h,
                depth,
            );
        }
    }

    /// Makes the next trace wait for the one before and see its writes.
    pub(super) fn record_trace_barrier(&self, cmd: vk::CommandBuffer) {
        self.record_shader_write_barrier(
            cmd,
            vk::PipelineStageFlags::RAY_TRACING_SHADER_KHR,
            vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
        );
    }

    /// Makes the shaders' writes visible to the host reading the mapped
    /// buffers after the fence.
    pub(super) fn record_host_barrier(&self, cmd: vk::CommandBuffer) {
        self.record_shader_write_barrier(
            cmd,
            vk::PipelineStageFlags::HOST,
            vk::AccessFlags::HOST_READ,
        );
    }

    /// A memory barrier from the ray tracing shaders' writes to `stage`'s
    /// `access`.
    fn record_shader_write_barrier(
        &self,
        cmd: vk::CommandBuffer,
        stage: vk::PipelineStageFlags,
        access: vk::AccessFlags,
    ) {
        let barrier = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(access);
        unsafe {
            self.device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::RAY_TRACING_SHADER_KHR,
                stage,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            )
        }
    }

    fn dispatch(
        &self,
        job: &Job,
        p: &Pipeline,
        tlas: vk::AccelerationStructureKHR,
        buffers: &CaseBuffers,
    ) -> Result<(), String> {
        let d = &self.device;
        let pool = self.descriptor_pool(1, buffers.len() as u32)?;
        let layouts = [p.set_layout];
        let set = match unsafe {
            d.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&layouts),
            )
        } {
            Ok(s) => s[0],
            Err(e) => {
                unsafe { d.destroy_descriptor_pool(pool, None) };
                return Err(format!("vkAllocateDescriptorSets: {e}"));
            }
        };
        self.write_set(set, job, tlas, buffers);
        let r = self.submit(|cmd| {
            self.record_trace(cmd, job, p, &p.regions[0], set);
            self.record_host_barrier(cmd);
        });
        unsafe { d.destroy_descriptor_pool(pool, None) };
        r
    }
}
