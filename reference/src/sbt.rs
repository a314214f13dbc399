//! The shader binding table: records, and the rules that pick one.

use serde::{Deserialize, Serialize};

/// The shader table of one dispatch: hit-group, miss and callable records.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShaderTable {
    #[serde(default)]
    pub hit_groups: Vec<HitGroupRecord>,
    #[serde(default)]
    pub miss: Vec<ShaderRecord>,
    #[serde(default)]
    pub callable: Vec<ShaderRecord>,
}

/// A hit-group record: up to three shaders and the local root arguments
/// that follow the shader identifier (`sbt.hit_group.record_contents`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HitGroupRecord {
    #[serde(default)]
    pub closest_hit: Option<String>,
    #[serde(default)]
    pub any_hit: Option<String>,
    #[serde(default)]
    pub intersection: Option<String>,
    /// Local root constants, 4 bytes each, little-endian, from byte 0 of the
    /// local root arguments.
    #[serde(default)]
    pub local_root_constants: Vec<u32>,
}

/// A miss or callable record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShaderRecord {
    #[serde(default)]
    pub shader: Option<String>,
    #[serde(default)]
    pub local_root_constants: Vec<u32>,
}

/// Which table a record index refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    HitGroup,
    Miss,
    Callable,
}

impl Table {
    pub fn name(self) -> &'static str {
        match self {
            Table::HitGroup => "hit-group",
            Table::Miss => "miss",
            Table::Callable => "callable",
        }
    }
}

/// Only the 4 least significant bits of `RayContributionToHitGroupIndex`
/// and of `MultiplierForGeometryContributionToHitGroupIndex` are used
/// (`ser.dxil.hitobject_traceray.warn_ray_contribution_4_bits`,
/// `ser.dxil.hitobject_traceray.warn_geometry_multiplier_4_bits`).
pub const RAY_CONTRIBUTION_MASK: u32 = 0xF;

/// Instance contributions are 24-bit fields (`sbt.dxr.instance_desc_bit_fields`).
pub const INSTANCE_CONTRIBUTION_MASK: u32 = 0xFF_FFFF;

/// Only the least significant 16 bits of a miss shader index are used
/// (`ser.hit_object.make_miss.miss_index_low_16_bits`).
pub const MISS_INDEX_MASK: u32 = 0xFFFF;

/// A hit object's hit-group index keeps only its bottom 28 bits
/// (`ser.hit_object.set_shader_table_index.hit_low_28_bits`).
pub const HIT_GROUP_INDEX_MASK: u32 = 0x0FFF_FFFF;

/// The hit-group record index `R_offset + R_stride * G_ID + I_offset`
/// (`sbt.hit_group.index_equation`): the instance offset is not multiplied
/// by the ray stride (`sbt.hit_group.instance_offset_not_multiplied_by_stride`),
/// the geometry index is (`sbt.hit_group.geometry_index_multiplied_by_stride`).
pub fn hit_group_record_index(
    ray_contribution: u32,
    multiplier: u32,
    geometry_index: u32,
    instance_contribution: u32,
) -> u32 {
    (ray_contribution & RAY_CONTRIBUTION_MASK)
        .wrapping_add((multiplier & RAY_CONTRIBUTION_MASK).wrapping_mul(geometry_index))
        .wrapping_add(instance_contribution & INSTANCE_CONTRIBUTION_MASK)
}

/// The miss record index `R_miss` (`sbt.miss.index_equation`), of which only
/// the low 16 bits are used.
pub fn miss_record_index(miss_shader_index: u32) -> u32 {
    miss_shader_index & MISS_INDEX_MASK
}

/// The result of reading a 4-byte local root constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstantLoad {
    Value(u32),
    /// The offset is not a multiple of 4
    /// (`ser.hit_object.load_local_root_table_constant.offset_multiple_of_4`).
    Misaligned,
    /// The offset lies past the constants the record holds: the bytes there
    /// are whatever the application left in the table.
    PastEnd,
}

/// Loads the constant at `offset` bytes from the start of the local root
/// arguments, after the shader identifier
/// (`ser.hit_object.load_local_root_table_constant.offset_after_shader_identifier`).
pub fn load_local_root_constant(constants: &[u32], offset: u32) -> ConstantLoad {
    if offset % 4 != 0 {
        return ConstantLoad::Misaligned;
    }
    match constants.get((offset / 4) as usize) {
        Some(v) => ConstantLoad::Value(*v),
        None => ConstantLoad::PastEnd,
    }
}

impl ShaderTable {
    /// The local root constants of a record, if the index is in its table.
    pub fn constants(&self, table: Table, index: u32) -> Option<&[u32]> {
        let i = index as usize;
        match table {
            Table::HitGroup => self
                .hit_groups
                .get(i)
                .map(|r| r.local_root_constants.as_slice()),
            Table::Miss => self.miss.get(i).map(|r| r.local_root_constants.as_slice()),
            Table::Callable => self
                .callable
                .get(i)
                .map(|r| r.local_root_constants.as_slice()),
        }
    }

    pub fn len(&self, table: Table) -> usize {
        match table {
            Table::HitGroup => self.hit_groups.len(),
            Table::Miss => self.miss.len(),
            Table::Callable => self.callable.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_group_index_masks_ray_terms_to_4_bits_and_instance_to_24() {
        assert_eq!(hit_group_record_index(1, 2, 3, 10), 1 + 2 * 3 + 10);
        assert_eq!(
            hit_group_record_index(0x11, 0x12, 3, 0x100_0005),
            1 + 2 * 3 + 5
        );
    }

    #[test]
    fn miss_index_keeps_16_bits() {
        assert_eq!(miss_record_index(0x1_0002), 2);
    }

    #[test]
    fn local_root_constant_offsets() {
        let c = [7, 8];
        assert_eq!(load_local_root_constant(&c, 4), ConstantLoad::Value(8));
        assert_eq!(load_local_root_constant(&c, 8), ConstantLoad::PastEnd);
        assert_eq!(load_local_root_constant(&c, 2), ConstantLoad::Misaligned);
    }
}
