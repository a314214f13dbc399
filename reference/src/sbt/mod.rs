//! The shader binding table: records, the rules that pick one, and (in
//! [`layout`]) how each API lays them out in memory.

pub mod layout;

use crate::mutation::{self, Mutation};
use serde::{Deserialize, Deserializer, Serialize};

/// The shader table of one dispatch: hit-group, miss and callable records.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShaderTable {
    /// The ray generation record's embedded parameters; its shader is the
    /// dispatch's (`sbt.raygen.record_contents`).
    #[serde(default, skip_serializing_if = "RayGenRecord::is_empty")]
    pub raygen: RayGenRecord,
    #[serde(default)]
    pub hit_groups: Vec<HitGroupRecord>,
    #[serde(default)]
    pub miss: Vec<ShaderRecord>,
    #[serde(default)]
    pub callable: Vec<ShaderRecord>,
    /// Strides the application chooses per table (bytes); the smallest legal
    /// stride when absent.
    #[serde(default, skip_serializing_if = "Strides::is_empty")]
    pub strides: Strides,
}

/// Application-chosen strides.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Strides {
    #[serde(default)]
    pub raygen: Option<u32>,
    #[serde(default)]
    pub miss: Option<u32>,
    #[serde(default)]
    pub hit_groups: Option<u32>,
    #[serde(default)]
    pub callable: Option<u32>,
}

impl Strides {
    pub fn is_empty(&self) -> bool {
        *self == Strides::default()
    }
}

/// A local root argument of a record (`sbt.dxr.local_constants_padded_to_8`,
/// `sbt.vulkan.constants_unpadded`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LocalArgument {
    /// 4-byte root constants.
    Constants(Vec<u32>),
    /// An 8-byte handle (a descriptor handle or GPU virtual address): a
    /// number or a `"0x..."` string (written as the string, which JSON
    /// readers with 53-bit numbers keep exact).
    Handle(
        #[serde(deserialize_with = "u64_or_hex", serialize_with = "hex")]
        #[schemars(with = "U64OrHex")]
        u64,
    ),
}

/// How a 64-bit handle may be written.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)] // only its schema is used
#[serde(untagged)]
enum U64OrHex {
    Number(u64),
    /// `"0x"` and up to 16 hexadecimal digits.
    Hex(String),
}

fn hex<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:#x}"))
}

fn u64_or_hex<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        N(u64),
        S(String),
    }
    match Raw::deserialize(d)? {
        Raw::N(n) => Ok(n),
        Raw::S(s) => s
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "`{s}`: expected a number or a \"0x...\" 64-bit handle"
                ))
            }),
    }
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
    /// Local root constants, 4 bytes each: shorthand for one `constants`
    /// argument.
    #[serde(default)]
    pub local_root_constants: Vec<u32>,
    /// Local root arguments, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_root_arguments: Vec<LocalArgument>,
}

/// A miss or callable record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShaderRecord {
    #[serde(default)]
    pub shader: Option<String>,
    #[serde(default)]
    pub local_root_constants: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_root_arguments: Vec<LocalArgument>,
}

/// The ray generation record: "a single function referring to the ray
/// generation shader to be used, along with any desired embedded parameters
/// for the function" (`sbt.raygen.record_contents`). The dispatch names the
/// shader; the record holds the parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RayGenRecord {
    #[serde(default)]
    pub local_root_constants: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_root_arguments: Vec<LocalArgument>,
}

impl RayGenRecord {
    pub fn is_empty(&self) -> bool {
        *self == RayGenRecord::default()
    }
}

/// The local root arguments of a record: the arguments, or the constants
/// shorthand.
fn arguments(constants: &[u32], arguments: &[LocalArgument]) -> Vec<LocalArgument> {
    if !arguments.is_empty() {
        arguments.to_vec()
    } else if constants.is_empty() {
        Vec::new()
    } else {
        vec![LocalArgument::Constants(constants.to_vec())]
    }
}

/// Which table a record index refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    RayGen,
    HitGroup,
    Miss,
    Callable,
}

impl Table {
    pub fn name(self) -> &'static str {
        match self {
            Table::RayGen => "raygeneration",
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
    let mut offset = ray_contribution & RAY_CONTRIBUTION_MASK;
    let mut stride = multiplier & RAY_CONTRIBUTION_MASK;
    let mut instance = instance_contribution & INSTANCE_CONTRIBUTION_MASK;
    // Mutants (`crate::mutation`) get one term wrong.
    if mutation::active(Mutation::RayContributionUnmasked) {
        offset = ray_contribution;
    }
    if mutation::active(Mutation::MultiplierUnmasked) {
        stride = multiplier;
    }
    if mutation::active(Mutation::InstanceOffsetTimesStride) {
        instance = instance.wrapping_mul(stride);
    }
    let geometry = if mutation::active(Mutation::GeometryIndexNotMultiplied) {
        geometry_index
    } else {
        stride.wrapping_mul(geometry_index)
    };
    offset.wrapping_add(geometry).wrapping_add(instance)
}

/// The miss record index `R_miss` (`sbt.miss.index_equation`), of which only
/// the low 16 bits are used.
pub fn miss_record_index(miss_shader_index: u32) -> u32 {
    if mutation::active(Mutation::TraceMissIndexUnmasked) {
        return miss_shader_index;
    }
    miss_shader_index & MISS_INDEX_MASK
}

impl ShaderTable {
    /// The local root arguments of a record, if the index is in its table.
    /// The raygeneration table has the dispatch's one record.
    pub fn arguments(&self, table: Table, index: u32) -> Option<Vec<LocalArgument>> {
        let i = index as usize;
        match table {
            Table::RayGen => (i == 0).then(|| {
                arguments(
                    &self.raygen.local_root_constants,
                    &self.raygen.local_root_arguments,
                )
            }),
            Table::HitGroup => self
                .hit_groups
                .get(i)
                .map(|r| arguments(&r.local_root_constants, &r.local_root_arguments)),
            Table::Miss => self
                .miss
                .get(i)
                .map(|r| arguments(&r.local_root_constants, &r.local_root_arguments)),
            Table::Callable => self
                .callable
                .get(i)
                .map(|r| arguments(&r.local_root_constants, &r.local_root_arguments)),
        }
    }

    /// The root constants a shader's local constant buffer reads: those of
    /// the record's first `constants` argument.
    pub fn root_constants(&self, table: Table, index: u32) -> Vec<u32> {
        self.arguments(table, index)
            .unwrap_or_default()
            .into_iter()
            .find_map(|a| match a {
                LocalArgument::Constants(c) => Some(c),
                LocalArgument::Handle(_) => None,
            })
            .unwrap_or_default()
    }

    pub fn len(&self, table: Table) -> usize {
        match table {
            Table::RayGen => 1,
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
}
