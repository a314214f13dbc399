//! One case on the GPU: its scene, its pipeline, its buffers, one
//! `vkCmdTraceRaysKHR`, the buffers read back.

use super::pipeline::PipelineDesc;
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
        let d = &self.device;
        let mut bindings = Vec::new();
        if job.interface.acceleration_structure.is_some() {
            bindings.push((
                crate::interface::ACCELERATION_STRUCTURE_BINDING,
                vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
            ));
        }
        for b in &job.interface.buffers {
            bindings.push((b.binding, vk::DescriptorType::STORAGE_BUFFER));
        }
        let mut flags = vk::PipelineCreateFlags::empty();
        let skip_triangles = ser_lang::names::ray_flag::SKIP_TRIANGLES;
        let skip_aabbs = ser_lang::names::ray_flag::SKIP_PROCEDURAL_PRIMITIVES;
        if job.dispatch.pipeline_flags & skip_triangles != 0 {
            flags |= vk::PipelineCreateFlags::RAY_TRACING_SKIP_TRIANGLES_KHR;
        }
        if job.dispatch.pipeline_flags & skip_aabbs != 0 {
            flags |= vk::PipelineCreateFlags::RAY_TRACING_SKIP_AABBS_KHR;
        }
        let desc = PipelineDesc {
            modules: job.modules,
            raygen: &job.dispatch.raygen,
            table: job.table,
            bindings: &bindings,
            max_recursion_depth: job.dispatch.max_recursion_depth,
            flags,
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
        let mut buffers = Vec::new();
        let mut result = Ok(BTreeMap::new());
        for b in &job.interface.buffers {
            let init = job
                .dispatch
                .buffers
                .get(&b.name)
                .cloned()
                .unwrap_or_default();
            match self.buffer_with(
                &super::buffer::words_to_bytes(&init),
                vk::BufferUsageFlags::STORAGE_BUFFER,
            ) {
                Ok(buf) => buffers.push((b, init.len(), buf)),
                Err(e) => result = Err(e),
            }
        }
        if result.is_ok() {
            result = self.dispatch(
                job,
                p,
                tlas,
                &buffers
                    .iter()
                    .map(|(b, _, buf)| (b.binding, buf))
                    .collect::<Vec<_>>(),
            );
        }
        let mut out = BTreeMap::new();
        for (b, n, buf) in buffers {
            if result.is_ok() {
                out.insert(b.name.clone(), buf.read_words(n));
            }
            self.free(buf);
        }
        drop(pipelines);
        if let Some(p) = fresh {
            self.free_pipeline(p);
        }
        let _ = d;
        result.map(|_: BTreeMap<String, Vec<u32>>| out)
    }

    fn dispatch(
        &self,
        job: &Job,
        p: &super::pipeline::Pipeline,
        tlas: vk::AccelerationStructureKHR,
        buffers: &[(u32, &super::buffer::Buffer)],
    ) -> Result<Outputs, String> {
        let d = &self.device;
        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
                descriptor_count: 1,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: buffers.len().max(1) as u32,
            },
        ];
        let pool = unsafe {
            d.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            )
        }
        .map_err(|e| format!("vkCreateDescriptorPool: {e}"))?;
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
        let tlases = [tlas];
        let mut as_write = vk::WriteDescriptorSetAccelerationStructureKHR::default()
            .acceleration_structures(&tlases);
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
            .iter()
            .map(|(_, b)| {
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
            .map(|((binding, _), info)| {
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
        unsafe { d.update_descriptor_sets(&writes, &[]) };
        let [w, h, depth] = job.dispatch.size;
        let r = self.submit(|cmd| unsafe {
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
                &p.regions[0],
                &p.regions[1],
                &p.regions[2],
                &p.regions[3],
                w,
                h,
                depth,
            );
        });
        unsafe { d.destroy_descriptor_pool(pool, None) };
        r.map(|_| BTreeMap::new())
    }
}
