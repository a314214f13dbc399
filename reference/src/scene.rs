//! The scene: a top-level acceleration structure of instances over
//! bottom-level structures of triangle and AABB geometries.
//!
//! Instance fields follow `D3D12_RAYTRACING_INSTANCE_DESC` and
//! `VkAccelerationStructureInstanceKHR` (`sbt.dxr.instance_desc_bit_fields`):
//! a 3x4 object-to-world transform, a 24-bit instance ID, an 8-bit mask, a
//! 24-bit hit-group contribution and 8 bits of flags.

use glam::{DMat3, DVec3};
use ser_lang::names::instance_flag;
use serde::{Deserialize, Deserializer, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Bottom-level acceleration structures.
    #[serde(default)]
    pub blas: Vec<Blas>,
    /// Top-level instances; an instance's index is its position here.
    #[serde(default)]
    pub instances: Vec<Instance>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Blas {
    /// Geometries; a geometry's index is its position here.
    pub geometries: Vec<Geometry>,
    /// Built with `D3D12_RAYTRACING_ACCELERATION_STRUCTURE_BUILD_FLAG_ALLOW_DISABLE_OMMS`
    /// (`VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_DISABLE_OPACITY_MICROMAPS_EXT`):
    /// its instances may set `disable_opacity_micromaps`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_disable_opacity_micromaps: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Geometry {
    #[serde(flatten)]
    pub primitives: Primitives,
    /// `VK_GEOMETRY_OPAQUE_BIT_KHR` / `D3D12_RAYTRACING_GEOMETRY_FLAG_OPAQUE`.
    #[serde(default)]
    pub opaque: bool,
    /// `VK_GEOMETRY_NO_DUPLICATE_ANY_HIT_INVOCATION_BIT_KHR`.
    #[serde(default)]
    pub no_duplicate_any_hit: bool,
    /// An opacity micromap for a triangle geometry (`vk.opacity_micromap.*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opacity_micromap: Option<OpacityMicromap>,
}

/// An opacity micromap: per triangle, either a special index or the
/// states of its micro-triangles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpacityMicromap {
    pub format: MicromapFormat,
    /// Micro-triangles per triangle: `4^subdivision_level`. The reference
    /// implements levels 0 and 1: deeper levels need the chapter's appendix
    /// code for the space-filling curve, which is not among the documents.
    pub subdivision_level: u8,
    /// One entry per triangle of the geometry.
    pub triangles: Vec<MicromapEntry>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum MicromapFormat {
    /// `VK_OPACITY_MICROMAP_FORMAT_2_STATE_EXT`: one bit per micro-triangle.
    #[serde(rename = "2_state")]
    TwoState,
    /// `VK_OPACITY_MICROMAP_FORMAT_4_STATE_EXT`: two bits per micro-triangle.
    #[serde(rename = "4_state")]
    FourState,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum MicromapEntry {
    /// A special index for the whole triangle.
    Special(SpecialIndex),
    /// The state of each micro-triangle, in the curve's order.
    States(Vec<u8>),
}

/// `VK_OPACITY_MICROMAP_SPECIAL_INDEX_*_EXT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpecialIndex {
    FullyTransparent,
    FullyOpaque,
    FullyUnknownTransparent,
    FullyUnknownOpaque,
}

impl SpecialIndex {
    /// The 4-state value the special index stands for (the chapter's table).
    pub fn state(self) -> u8 {
        match self {
            SpecialIndex::FullyTransparent => 0,
            SpecialIndex::FullyOpaque => 1,
            SpecialIndex::FullyUnknownTransparent => 2,
            SpecialIndex::FullyUnknownOpaque => 3,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Primitives {
    /// Each triangle as its three vertices, in winding order.
    Triangles(Vec<[[f32; 3]; 3]>),
    Aabbs(Vec<Aabb>),
}

impl Primitives {
    pub fn len(&self) -> usize {
        match self {
            Primitives::Triangles(t) => t.len(),
            Primitives::Aabbs(a) => a.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Aabb {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

/// A 3x4 row-major object-to-world matrix, as in the instance descriptor.
pub type Transform = [[f32; 4]; 3];

pub const IDENTITY: Transform = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Instance {
    /// Index of the bottom-level structure this instance places.
    pub blas: usize,
    #[serde(default = "identity")]
    pub transform: Transform,
    /// 24-bit `InstanceID` (`instance_custom_index`).
    #[serde(default, deserialize_with = "u24")]
    #[schemars(range(max = 16777215))]
    pub instance_id: u32,
    /// 8-bit `InstanceMask`.
    #[serde(default = "full_mask")]
    pub mask: u8,
    /// 24-bit `InstanceContributionToHitGroupIndex` (I_offset).
    #[serde(default, deserialize_with = "u24")]
    #[schemars(range(max = 16777215))]
    pub hit_group_offset: u32,
    #[serde(default)]
    pub flags: Vec<InstanceFlag>,
    /// A matrix motion instance (`VkAccelerationStructureMatrixMotionInstanceNV`
    /// of VK_NV_ray_tracing_motion_blur): the object-to-world transform at
    /// time 1.0, `transform` being the one at time 0.0. A motion trace
    /// evaluates the instance at its time (`vk.candidate.motion.positions_at_time`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform_t1: Option<Transform>,
}

fn identity() -> Transform {
    IDENTITY
}

fn full_mask() -> u8 {
    0xFF
}

/// Rejects values that do not fit the 24-bit fields of the instance
/// descriptor (`sbt.dxr.instance_desc_bit_fields`).
fn u24<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let v = u32::deserialize(d)?;
    if v > 0xFF_FFFF {
        return Err(serde::de::Error::custom(format!(
            "{v} does not fit in 24 bits: expected 0..=16777215"
        )));
    }
    Ok(v)
}

/// Instance flags, by their Vulkan names (D3D12 calls flip-facing
/// `TRIANGLE_FRONT_COUNTERCLOCKWISE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InstanceFlag {
    TriangleCullDisable,
    TriangleFlipFacing,
    ForceOpaque,
    ForceNonOpaque,
    #[serde(rename = "force_opacity_micromap_2_state")]
    ForceOpacityMicromap2State,
    DisableOpacityMicromaps,
}

impl InstanceFlag {
    pub fn bit(self) -> u32 {
        match self {
            InstanceFlag::TriangleCullDisable => instance_flag::TRIANGLE_CULL_DISABLE,
            InstanceFlag::TriangleFlipFacing => instance_flag::TRIANGLE_FLIP_FACING,
            InstanceFlag::ForceOpaque => instance_flag::FORCE_OPAQUE,
            InstanceFlag::ForceNonOpaque => instance_flag::FORCE_NON_OPAQUE,
            InstanceFlag::ForceOpacityMicromap2State => {
                instance_flag::FORCE_OPACITY_MICROMAP_2_STATE
            }
            InstanceFlag::DisableOpacityMicromaps => instance_flag::DISABLE_OPACITY_MICROMAPS,
        }
    }
}

impl Instance {
    pub fn flag_bits(&self) -> u32 {
        self.flags.iter().fold(0, |acc, f| acc | f.bit())
    }

    /// The object-to-world transform in f64: linear part and translation.
    pub fn object_to_world(&self) -> (DMat3, DVec3) {
        affine(&self.transform)
    }

    /// The world-to-object transform: the inverse of the instance transform,
    /// which must be invertible (`vk.candidate.instance.transform_must_be_invertible`).
    pub fn world_to_object(&self) -> Option<(DMat3, DVec3)> {
        inverse(&self.transform)
    }
}

/// A 3x4 transform in f64: linear part and translation.
pub fn affine(m: &Transform) -> (DMat3, DVec3) {
    let col = |c: usize| DVec3::new(m[0][c] as f64, m[1][c] as f64, m[2][c] as f64);
    (DMat3::from_cols(col(0), col(1), col(2)), col(3))
}

/// The inverse of a 3x4 transform, if it is invertible.
pub fn inverse(m: &Transform) -> Option<(DMat3, DVec3)> {
    let (l, t) = affine(m);
    let det = l.determinant();
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let inv = l.inverse();
    Some((inv, -(inv * t)))
}

impl Scene {
    /// Whether the top-level structure is a motion structure: one with a
    /// motion instance (VK_NV_ray_tracing_motion_blur).
    pub fn has_motion(&self) -> bool {
        self.instances.iter().any(|i| i.transform_t1.is_some())
    }

    /// The geometry an instance places, if the indices are in range.
    pub fn geometry(&self, instance: usize, geometry: usize) -> Option<&Geometry> {
        let inst = self.instances.get(instance)?;
        self.blas.get(inst.blas)?.geometries.get(geometry)
    }
}
