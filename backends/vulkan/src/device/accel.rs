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

impl Gpu {
    pub fn build_scene(&self, scene: &Scene) -> Result<Built, String> {
        let mut built = Built {
            tlas: vk::AccelerationStructureKHR::null(),
            structures: Vec::new(),
            buffers: Vec::new(),
        };
        let r = self.build_into(scene, &mut built);
        if let Err(e) = r {
            self.free_scene(built);
            return Err(e);
        }
        Ok(built)
    }

    fn build_into(&self, scene: &Scene, built: &mut Built) -> Result<(), String> {
        let mut addresses = Vec::new();
        for blas in &scene.blas {
            let (s, address) = self.build_blas(blas, &mut built.buffers)?;
            built.structures.push(s);
            addresses.push(address);
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
        let (tlas, _) = self.build(
            vk::AccelerationStructureTypeKHR::TOP_LEVEL,
            &[geometry],
            &[scene.instances.len() as u32],
            &mut built.buffers,
        )?;
        built.structures.push(tlas);
        built.tlas = tlas;
        Ok(())
    }

    fn build_blas(
        &self,
        blas: &Blas,
        keep: &mut Vec<Buffer>,
    ) -> Result<(vk::AccelerationStructureKHR, u64), String> {
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
        self.build(
            vk::AccelerationStructureTypeKHR::BOTTOM_LEVEL,
            &geometries,
            &counts,
            keep,
        )
    }

    /// Builds one structure; returns it and its device address.
    fn build(
        &self,
        ty: vk::AccelerationStructureTypeKHR,
        geometries: &[vk::AccelerationStructureGeometryKHR],
        counts: &[u32],
        keep: &mut Vec<Buffer>,
    ) -> Result<(vk::AccelerationStructureKHR, u64), String> {
        let mut info = vk::AccelerationStructureBuildGeometryInfoKHR::default()
            .ty(ty)
            .flags(vk::BuildAccelerationStructureFlagsKHR::PREFER_FAST_TRACE)
            .mode(vk::BuildAccelerationStructureModeKHR::BUILD)
            .geometries(geometries);
        let mut sizes = vk::AccelerationStructureBuildSizesInfoKHR::default();
        unsafe {
            self.accel.get_acceleration_structure_build_sizes(
                vk::AccelerationStructureBuildTypeKHR::DEVICE,
                &info,
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
        )?;
        let scratch_address = scratch.address.div_ceil(align) * align;
        keep.push(scratch);
        info =
            info.dst_acceleration_structure(structure)
                .scratch_data(vk::DeviceOrHostAddressKHR {
                    device_address: scratch_address,
                });
        let ranges: Vec<vk::AccelerationStructureBuildRangeInfoKHR> = counts
            .iter()
            .map(|&n| vk::AccelerationStructureBuildRangeInfoKHR::default().primitive_count(n))
            .collect();
        self.submit(|cmd| unsafe {
            self.accel
                .cmd_build_acceleration_structures(cmd, &[info], &[&ranges]);
        })?;
        let address = unsafe {
            self.accel.get_acceleration_structure_device_address(
                &vk::AccelerationStructureDeviceAddressInfoKHR::default()
                    .acceleration_structure(structure),
            )
        };
        Ok((structure, address))
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
