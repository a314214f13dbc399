//! Acceleration structures from a case's scene: one bottom-level structure
//! per BLAS (triangles as non-indexed float3 vertices, AABBs as
//! `VkAabbPositionsKHR`; the opaque and no-duplicate-any-hit geometry
//! flags), one top-level structure of the instances (3x4 transform, 24-bit
//! custom index and hit-group offset, 8-bit mask, flags).

use super::buffer::Buffer;
use super::Gpu;
use ash::vk;
use ser_reference::scene::{Blas, Instance, InstanceFlag, Primitives, Scene};

/// Why a scene with a mixed bottom-level structure cannot be built.
pub const UNEXPRESSIBLE_MIXED_BLAS: &str = "a bottom-level structure mixing triangle and AABB geometries, which Vulkan does not allow (VUID-VkAccelerationStructureBuildGeometryInfoKHR-type-03792)";

pub struct Built {
    pub tlas: vk::AccelerationStructureKHR,
    structures: Vec<vk::AccelerationStructureKHR>,
    buffers: Vec<Buffer>,
}

/// A structure created and ready to build: what its build command needs.
pub(super) struct Pending {
    ty: vk::AccelerationStructureTypeKHR,
    geometries: Vec<vk::AccelerationStructureGeometryKHR<'static>>,
    ranges: Vec<vk::AccelerationStructureBuildRangeInfoKHR>,
    structure: vk::AccelerationStructureKHR,
    scratch: u64,
}

/// A scene's structures, ready to build: the bottom level, then the top.
pub(super) struct PendingScene {
    blas: Vec<Pending>,
    tlas: Pending,
}

impl Built {
    pub(super) fn empty() -> Built {
        Built {
            tlas: vk::AccelerationStructureKHR::null(),
            structures: Vec::new(),
            buffers: Vec::new(),
        }
    }
}

impl Gpu {
    /// Builds a scene's structures in one submission.
    pub fn build_scene(&self, scene: &Scene) -> Result<Built, String> {
        let mut built = Built::empty();
        let r = self
            .prepare_scene(scene, &mut built)
            .and_then(|p| self.submit(|cmd| self.record_builds(cmd, &[&p])));
        if let Err(e) = r {
            self.free_scene(built);
            return Err(e);
        }
        Ok(built)
    }

    /// Creates a scene's structures and fills the buffers their builds
    /// read; `built` keeps them (and is freed by the caller on error).
    pub(super) fn prepare_scene(
        &self,
        scene: &Scene,
        built: &mut Built,
    ) -> Result<PendingScene, String> {
        let mut blas = Vec::new();
        let mut addresses = Vec::new();
        for b in &scene.blas {
            let p = self.prepare_blas(b, &mut built.buffers)?;
            built.structures.push(p.structure);
            addresses.push(self.address(p.structure));
            blas.push(p);
        }
        let mut bytes = Vec::new();
        for inst in &scene.instances {
            bytes.extend(instance_bytes(inst, addresses[inst.blas])?);
        }
        let instances = self.buffer_with(
            &bytes,
            vk::BufferUsageFlags::ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_KHR,
        )?;
        let geometry = vk::AccelerationStructureGeometryKHR::default()
            .geometry_type(vk::GeometryTypeKHR::INSTANCES)
            .geometry(vk::AccelerationStructureGeometryDataKHR {
                instances: vk::AccelerationStructureGeometryInstancesDataKHR::default().data(
                    vk::DeviceOrHostAddressConstKHR {
                        device_address: instances.address,
                    },
                ),
            });
        built.buffers.push(instances);
        let tlas = self.prepare(
            vk::AccelerationStructureTypeKHR::TOP_LEVEL,
            vec![geometry],
            &[scene.instances.len() as u32],
            &mut built.buffers,
        )?;
        built.structures.push(tlas.structure);
        built.tlas = tlas.structure;
        Ok(PendingScene { blas, tlas })
    }

    /// Records the builds of `scenes`: every bottom-level structure in one
    /// command, a barrier, every top-level one, a barrier before the
    /// shaders read them.
    pub(super) fn record_builds(&self, cmd: vk::CommandBuffer, scenes: &[&PendingScene]) {
        self.record_level(cmd, scenes.iter().flat_map(|s| &s.blas));
        self.record_accel_barrier(
            cmd,
            vk::PipelineStageFlags::ACCELERATION_STRUCTURE_BUILD_KHR,
        );
        self.record_level(cmd, scenes.iter().map(|s| &s.tlas));
        self.record_accel_barrier(cmd, vk::PipelineStageFlags::RAY_TRACING_SHADER_KHR);
    }

    fn record_level<'a>(&self, cmd: vk::CommandBuffer, builds: impl Iterator<Item = &'a Pending>) {
        let builds: Vec<&Pending> = builds.collect();
        if builds.is_empty() {
            return;
        }
        let infos: Vec<vk::AccelerationStructureBuildGeometryInfoKHR> = builds
            .iter()
            .map(|p| {
                build_info(p.ty, &p.geometries)
                    .dst_acceleration_structure(p.structure)
                    .scratch_data(vk::DeviceOrHostAddressKHR {
                        device_address: p.scratch,
                    })
            })
            .collect();
        let ranges: Vec<&[vk::AccelerationStructureBuildRangeInfoKHR]> =
            builds.iter().map(|p| &p.ranges[..]).collect();
        unsafe {
            self.accel
                .cmd_build_acceleration_structures(cmd, &infos, &ranges)
        };
    }

    /// Orders structure builds before `dst`'s reads of them.
    fn record_accel_barrier(&self, cmd: vk::CommandBuffer, dst: vk::PipelineStageFlags) {
        let barrier = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::ACCELERATION_STRUCTURE_WRITE_KHR)
            .dst_access_mask(vk::AccessFlags::ACCELERATION_STRUCTURE_READ_KHR);
        unsafe {
            self.device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::ACCELERATION_STRUCTURE_BUILD_KHR,
                dst,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            )
        }
    }

    fn address(&self, s: vk::AccelerationStructureKHR) -> u64 {
        unsafe {
            self.accel.get_acceleration_structure_device_address(
                &vk::AccelerationStructureDeviceAddressInfoKHR::default().acceleration_structure(s),
            )
        }
    }

    fn prepare_blas(&self, blas: &Blas, keep: &mut Vec<Buffer>) -> Result<Pending, String> {
        let triangles =
            |g: &&ser_reference::scene::Geometry| matches!(g.primitives, Primitives::Triangles(_));
        let n = blas.geometries.iter().filter(triangles).count();
        if n != 0 && n != blas.geometries.len() {
            // VUID-VkAccelerationStructureBuildGeometryInfoKHR-type-03792:
            // the geometries of a bottom-level structure share one type.
            return Err(UNEXPRESSIBLE_MIXED_BLAS.into());
        }
        let mut geometries = Vec::new();
        let mut counts = Vec::new();
        for g in &blas.geometries {
            if g.opacity_micromap.is_some() {
                return Err("opacity micromaps".into());
            }
            let mut flags = vk::GeometryFlagsKHR::empty();
            if g.opaque {
                flags |= vk::GeometryFlagsKHR::OPAQUE;
            }
            if g.no_duplicate_any_hit {
                flags |= vk::GeometryFlagsKHR::NO_DUPLICATE_ANY_HIT_INVOCATION;
            }
            let usage = vk::BufferUsageFlags::ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_KHR;
            let geometry = match &g.primitives {
                Primitives::Triangles(t) => {
                    let floats: Vec<f32> = t.iter().flatten().flatten().copied().collect();
                    let b = self.buffer_with(&f32_bytes(&floats), usage)?;
                    let data = vk::AccelerationStructureGeometryTrianglesDataKHR::default()
                        .vertex_format(vk::Format::R32G32B32_SFLOAT)
                        .vertex_data(vk::DeviceOrHostAddressConstKHR {
                            device_address: b.address,
                        })
                        .vertex_stride(12)
                        .max_vertex((t.len() as u32 * 3).max(1) - 1)
                        .index_type(vk::IndexType::NONE_KHR);
                    keep.push(b);
                    vk::AccelerationStructureGeometryKHR::default()
                        .geometry_type(vk::GeometryTypeKHR::TRIANGLES)
                        .geometry(vk::AccelerationStructureGeometryDataKHR { triangles: data })
                }
                Primitives::Aabbs(a) => {
                    let floats: Vec<f32> = a
                        .iter()
                        .flat_map(|b| b.min.into_iter().chain(b.max))
                        .collect();
                    let b = self.buffer_with(&f32_bytes(&floats), usage)?;
                    let data = vk::AccelerationStructureGeometryAabbsDataKHR::default()
                        .data(vk::DeviceOrHostAddressConstKHR {
                            device_address: b.address,
                        })
                        .stride(24);
                    keep.push(b);
                    vk::AccelerationStructureGeometryKHR::default()
                        .geometry_type(vk::GeometryTypeKHR::AABBS)
                        .geometry(vk::AccelerationStructureGeometryDataKHR { aabbs: data })
                }
            }
            .flags(flags);
            geometries.push(geometry);
            counts.push(g.primitives.len() as u32);
        }
        self.prepare(
            vk::AccelerationStructureTypeKHR::BOTTOM_LEVEL,
            geometries,
            &counts,
            keep,
        )
    }

    /// Creates one structure, its storage and scratch.
    fn prepare(
        &self,
        ty: vk::AccelerationStructureTypeKHR,
        geometries: Vec<vk::AccelerationStructureGeometryKHR<'static>>,
        counts: &[u32],
        keep: &mut Vec<Buffer>,
    ) -> Result<Pending, String> {
        let mut sizes = vk::AccelerationStructureBuildSizesInfoKHR::default();
        unsafe {
            self.accel.get_acceleration_structure_build_sizes(
                vk::AccelerationStructureBuildTypeKHR::DEVICE,
                &build_info(ty, &geometries),
                counts,
                &mut sizes,
            )
        };
        let storage = self.buffer(
            sizes.acceleration_structure_size,
            vk::BufferUsageFlags::ACCELERATION_STRUCTURE_STORAGE_KHR,
        )?;
        let structure = unsafe {
            self.accel.create_acceleration_structure(
                &vk::AccelerationStructureCreateInfoKHR::default()
                    .buffer(storage.buffer)
                    .size(sizes.acceleration_structure_size)
                    .ty(ty),
                None,
            )
        }
        .map_err(|e| format!("vkCreateAccelerationStructureKHR: {e}"))?;
        keep.push(storage);
        let align = self.props.scratch_alignment.max(1) as u64;
        let scratch = self.buffer(
            sizes.build_scratch_size + align,
            vk::BufferUsageFlags::STORAGE_BUFFER,
        );
        let scratch = match scratch {
            Ok(s) => s,
            Err(e) => {
                unsafe { self.accel.destroy_acceleration_structure(structure, None) };
                return Err(e);
            }
        };
        let scratch_address = scratch.address.div_ceil(align) * align;
        keep.push(scratch);
        Ok(Pending {
            ty,
            geometries,
            ranges: counts
                .iter()
                .map(|&n| vk::AccelerationStructureBuildRangeInfoKHR::default().primitive_count(n))
                .collect(),
            structure,
            scratch: scratch_address,
        })
    }

    pub fn free_scene(&self, built: Built) {
        unsafe {
            for s in built.structures {
                self.accel.destroy_acceleration_structure(s, None);
            }
        }
        for b in built.buffers {
            self.free(b);
        }
    }
}

fn build_info<'a>(
    ty: vk::AccelerationStructureTypeKHR,
    geometries: &'a [vk::AccelerationStructureGeometryKHR<'a>],
) -> vk::AccelerationStructureBuildGeometryInfoKHR<'a> {
    vk::AccelerationStructureBuildGeometryInfoKHR::default()
        .ty(ty)
        .flags(vk::BuildAccelerationStructureFlagsKHR::PREFER_FAST_TRACE)
        .mode(vk::BuildAccelerationStructureModeKHR::BUILD)
        .geometries(geometries)
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// `VkAccelerationStructureInstanceKHR`, 64 bytes.
fn instance_bytes(inst: &Instance, blas: u64) -> Result<Vec<u8>, String> {
    let mut flags = vk::GeometryInstanceFlagsKHR::empty();
    for f in &inst.flags {
        flags |= match f {
            InstanceFlag::TriangleCullDisable => {
                vk::GeometryInstanceFlagsKHR::TRIANGLE_FACING_CULL_DISABLE
            }
            InstanceFlag::TriangleFlipFacing => vk::GeometryInstanceFlagsKHR::TRIANGLE_FLIP_FACING,
            InstanceFlag::ForceOpaque => vk::GeometryInstanceFlagsKHR::FORCE_OPAQUE,
            InstanceFlag::ForceNonOpaque => vk::GeometryInstanceFlagsKHR::FORCE_NO_OPAQUE,
            other => return Err(format!("instance flag {other:?} (opacity micromaps)")),
        };
    }
    let mut out = Vec::with_capacity(64);
    for row in &inst.transform {
        for v in row {
            out.extend(v.to_le_bytes());
        }
    }
    out.extend((inst.instance_id | (inst.mask as u32) << 24).to_le_bytes());
    out.extend((inst.hit_group_offset | (flags.as_raw() & 0xFF) << 24).to_le_bytes());
    out.extend(blas.to_le_bytes());
    Ok(out)
}
