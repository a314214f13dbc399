//! Shader binding table layout: how DXR, Vulkan and OptiX place records
//! and their local root arguments in memory, as "The Shader Binding Table
//! Three Ways" gives the rules.
//!
//! A record is the shader identifier (handle) followed by its local root
//! arguments (`sbt.shader_record.layout_handles_then_parameters`); records of
//! a table are `stride` bytes apart, and record `i` starts at
//! `start + stride * i` (`sbt.hit_group.index_equation`,
//! `sbt.miss.index_equation`).

use super::{LocalArgument, ShaderTable, Table};
use crate::mutation::{self, Mutation};
use crate::profile::Profile;
use serde::{Deserialize, Serialize};

/// The API whose layout rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    Dxr,
    Vulkan,
    Optix,
}

/// How local root arguments pack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// DXR: "8-byte handles ... or pairs of 4-byte constants (any single
    /// 4-byte constant must be padded to 8-bytes)"
    /// (`sbt.dxr.local_constants_padded_to_8`).
    PairsOf4,
    /// Vulkan: "only 4-byte constants, but do not require extra padding"
    /// (`sbt.vulkan.constants_unpadded`); handles are not allowed.
    ConstantsOnly,
    /// OptiX: "arbitrary structs": natural alignment, 4 for constants and 8
    /// for handles (`sbt.optix.arbitrary_struct_parameters`).
    Natural,
}

/// The numbers a layout depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    pub api: Api,
    /// Size of a shader identifier (record header).
    pub identifier_size: u32,
    /// Every stride is a multiple of this.
    pub record_alignment: u32,
    /// Every table starts at a multiple of this.
    pub table_alignment: u32,
    /// The largest stride allowed.
    pub max_stride: u32,
    pub packing: Packing,
}

impl Rules {
    /// DXR: 32-byte shader identifiers (`sbt.dxr.shader_identifier_32_bytes`),
    /// tables aligned to 64 bytes (`sbt.dxr.table_alignment_64_bytes`), stride
    /// at most 4096 (`sbt.dxr.max_stride_4096`). The article calls the 64-byte
    /// alignment the record alignment; DXR itself aligns records to 32 bytes
    /// and tables to 64, the reading the suite takes (a stride of 64 meets
    /// both).
    pub const DXR: Rules = Rules {
        api: Api::Dxr,
        identifier_size: 32,
        record_alignment: 32,
        table_alignment: 64,
        max_stride: 4096,
        packing: Packing::PairsOf4,
    };

    /// Vulkan: handle size, alignments and maximum stride are device
    /// properties (`sbt.vulkan.handle_size_alignment_queried`); these are the
    /// values of the NVIDIA driver the suite runs on (handle 32, handle
    /// alignment 32, base alignment 64, maximum stride 4096).
    pub const VULKAN_NVIDIA: Rules = Rules {
        api: Api::Vulkan,
        identifier_size: 32,
        record_alignment: 32,
        table_alignment: 64,
        max_stride: 4096,
        packing: Packing::ConstantsOnly,
    };

    /// OptiX: a 32-byte record header (`sbt.optix.header_32_bytes`) and
    /// 16-byte record alignment (`sbt.optix.record_alignment_16_bytes`). The
    /// article gives no maximum stride; none is applied.
    pub const OPTIX: Rules = Rules {
        api: Api::Optix,
        identifier_size: 32,
        record_alignment: 16,
        table_alignment: 16,
        max_stride: u32::MAX,
        packing: Packing::Natural,
    };

    pub fn for_api(api: Api) -> Rules {
        match api {
            Api::Dxr => Rules::DXR,
            Api::Vulkan => Rules::VULKAN_NVIDIA,
            Api::Optix => Rules::OPTIX,
        }
    }

    /// The layout a profile's backends use: DXR for the HLSL forms, Vulkan
    /// for the Vulkan extensions.
    pub fn for_profile(p: Profile) -> Rules {
        match p {
            Profile::VulkanNv | Profile::VulkanExt => Rules::VULKAN_NVIDIA,
            _ => Rules::DXR,
        }
    }
}

/// Why a table cannot be laid out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum LayoutError {
    /// The API does not allow this kind of argument in a record.
    ArgumentNotAllowed {
        table: String,
        index: usize,
        what: String,
    },
    /// A record needs a stride above the API's maximum.
    StrideExceedsMaximum {
        table: String,
        stride: u32,
        max: u32,
    },
    /// A chosen stride is not a multiple of the record alignment.
    StrideMisaligned {
        table: String,
        stride: u32,
        alignment: u32,
    },
    /// A chosen stride is smaller than a record of its table.
    StrideTooSmall {
        table: String,
        stride: u32,
        record: u32,
    },
}

impl LayoutError {
    /// A stable code, for cases.
    pub fn code(&self) -> &'static str {
        match self {
            LayoutError::ArgumentNotAllowed { .. } => "argument_not_allowed",
            LayoutError::StrideExceedsMaximum { .. } => "stride_exceeds_maximum",
            LayoutError::StrideMisaligned { .. } => "stride_misaligned",
            LayoutError::StrideTooSmall { .. } => "stride_too_small",
        }
    }
}

impl std::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LayoutError::ArgumentNotAllowed { table, index, what } => {
                write!(f, "{table} record {index}: {what}")
            }
            LayoutError::StrideExceedsMaximum { table, stride, max } => write!(
                f,
                "{table} table: stride {stride} exceeds the maximum {max}"
            ),
            LayoutError::StrideMisaligned {
                table,
                stride,
                alignment,
            } => {
                write!(
                    f,
                    "{table} table: stride {stride} is not a multiple of {alignment}"
                )
            }
            LayoutError::StrideTooSmall {
                table,
                stride,
                record,
            } => write!(
                f,
                "{table} table: stride {stride} is smaller than a {record}-byte record"
            ),
        }
    }
}

/// The bytes of a record's local root arguments; `None` marks padding,
/// whose contents the application leaves undefined.
pub fn argument_bytes(rules: &Rules, args: &[LocalArgument]) -> Result<Vec<Option<u8>>, String> {
    let mut out: Vec<Option<u8>> = Vec::new();
    let pad_to = |out: &mut Vec<Option<u8>>, align: usize| {
        while !out.len().is_multiple_of(align) {
            out.push(None);
        }
    };
    for a in args {
        match (a, rules.packing) {
            (LocalArgument::Constants(c), _) => {
                for v in c {
                    out.extend(v.to_le_bytes().map(Some));
                }
                let padded = match rules.packing {
                    Packing::PairsOf4 => !mutation::active(Mutation::DxrConstantsUnpadded),
                    Packing::ConstantsOnly => mutation::active(Mutation::VulkanConstantsPadded),
                    Packing::Natural => false,
                };
                if padded {
                    pad_to(&mut out, 8);
                }
            }
            (LocalArgument::Handle(_), Packing::ConstantsOnly) => {
                return Err("Vulkan shader records hold only 4-byte constants (sbt.vulkan.constants_unpadded)".into());
            }
            (LocalArgument::Handle(h), _) => {
                pad_to(&mut out, 8);
                out.extend(h.to_le_bytes().map(Some));
            }
        }
    }
    Ok(out)
}

/// One table: where it starts, its stride, and its records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TableLayout {
    pub start: u64,
    pub stride: u32,
    /// Per record: its size, and the bytes of its arguments.
    pub records: Vec<RecordLayout>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RecordLayout {
    /// Identifier plus arguments, in bytes.
    pub size: u32,
    pub arguments: Vec<Option<u8>>,
}

/// The whole table in one buffer: raygeneration, miss, hit-group and
/// callable tables in that order, each aligned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Layout {
    pub api: Api,
    pub raygen: TableLayout,
    pub miss: TableLayout,
    pub hit_groups: TableLayout,
    pub callable: TableLayout,
}

impl Layout {
    pub fn table(&self, t: Table) -> &TableLayout {
        match t {
            Table::RayGen => &self.raygen,
            Table::Miss => &self.miss,
            Table::HitGroup => &self.hit_groups,
            Table::Callable => &self.callable,
        }
    }

    /// Where record `index` of a table starts: `start + stride * index`
    /// (`ser.hit_object.set_shader_table_index.hit_group_record_address`,
    /// `ser.hit_object.set_shader_table_index.miss_record_address`).
    pub fn record_address(&self, t: Table, index: u32) -> u64 {
        let table = self.table(t);
        table.start + table.stride as u64 * index as u64
    }
}

fn round_up(x: u64, align: u32) -> u64 {
    x.div_ceil(align as u64) * align as u64
}

/// Lays out a shader table by the rules of an API.
pub fn layout(rules: &Rules, table: &ShaderTable) -> Result<Layout, LayoutError> {
    let mut next = 0u64;
    let mut one =
        |t: Table, name: &'static str, chosen: Option<u32>| -> Result<TableLayout, LayoutError> {
            let mut records = Vec::new();
            for i in 0..table.len(t) {
                let args = table.arguments(t, i as u32).unwrap_or_default();
                let arguments = argument_bytes(rules, &args).map_err(|what| {
                    LayoutError::ArgumentNotAllowed {
                        table: name.to_string(),
                        index: i,
                        what,
                    }
                })?;
                records.push(RecordLayout {
                    size: rules.identifier_size + arguments.len() as u32,
                    arguments,
                });
            }
            let largest = records
                .iter()
                .map(|r| r.size)
                .max()
                .unwrap_or(rules.identifier_size);
            let stride = match chosen {
                Some(s) if s % rules.record_alignment != 0 => {
                    return Err(LayoutError::StrideMisaligned {
                        table: name.to_string(),
                        stride: s,
                        alignment: rules.record_alignment,
                    })
                }
                Some(s) if s < largest => {
                    return Err(LayoutError::StrideTooSmall {
                        table: name.to_string(),
                        stride: s,
                        record: largest,
                    })
                }
                Some(s) => s,
                None => round_up(largest as u64, rules.record_alignment) as u32,
            };
            if stride > rules.max_stride {
                return Err(LayoutError::StrideExceedsMaximum {
                    table: name.to_string(),
                    stride,
                    max: rules.max_stride,
                });
            }
            let start = if mutation::active(Mutation::TableStartUnaligned) {
                next
            } else {
                round_up(next, rules.table_alignment)
            };
            next = start + stride as u64 * records.len() as u64;
            Ok(TableLayout {
                start,
                stride,
                records,
            })
        };
    let raygen = one(Table::RayGen, "raygeneration", table.strides.raygen)?;
    let miss = one(Table::Miss, "miss", table.strides.miss)?;
    let hit_groups = one(Table::HitGroup, "hit-group", table.strides.hit_groups)?;
    let callable = one(Table::Callable, "callable", table.strides.callable)?;
    Ok(Layout {
        api: rules.api,
        raygen,
        miss,
        hit_groups,
        callable,
    })
}

/// The result of reading a 4-byte local root constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstantLoad {
    Value(u32),
    /// The offset is not a multiple of 4
    /// (`ser.hit_object.load_local_root_table_constant.offset_multiple_of_4`).
    Misaligned,
    /// The bytes are padding, or lie past the record's arguments: whatever
    /// the application left in the table.
    Undefined,
}

/// Loads the 4 bytes at `offset` from the start of a record's local root
/// arguments, after the shader identifier
/// (`ser.hit_object.load_local_root_table_constant.offset_after_shader_identifier`).
pub fn load_constant(arguments: &[Option<u8>], offset: u32) -> ConstantLoad {
    if !offset.is_multiple_of(4) {
        return ConstantLoad::Misaligned;
    }
    let o = offset as usize;
    match arguments.get(o..o + 4) {
        Some([Some(a), Some(b), Some(c), Some(d)]) => {
            ConstantLoad::Value(u32::from_le_bytes([*a, *b, *c, *d]))
        }
        _ => ConstantLoad::Undefined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sbt::{HitGroupRecord, ShaderRecord};

    fn record(args: Vec<LocalArgument>) -> HitGroupRecord {
        HitGroupRecord {
            closest_hit: Some("CH".into()),
            local_root_arguments: args,
            ..Default::default()
        }
    }

    #[test]
    fn dxr_pads_a_lone_constant_to_8_and_vulkan_does_not() {
        let args = vec![LocalArgument::Constants(vec![7, 8, 9])];
        let dxr = argument_bytes(&Rules::DXR, &args).unwrap();
        assert_eq!(dxr.len(), 16);
        assert_eq!(load_constant(&dxr, 8), ConstantLoad::Value(9));
        assert_eq!(load_constant(&dxr, 12), ConstantLoad::Undefined);
        let vk = argument_bytes(&Rules::VULKAN_NVIDIA, &args).unwrap();
        assert_eq!(vk.len(), 12);
        assert!(argument_bytes(&Rules::VULKAN_NVIDIA, &[LocalArgument::Handle(1)]).is_err());
    }

    #[test]
    fn tables_align_and_strides_round_up() {
        let t = ShaderTable {
            hit_groups: vec![
                record(vec![
                    LocalArgument::Constants(vec![1]),
                    LocalArgument::Handle(0xAB),
                ]),
                record(vec![]),
            ],
            miss: vec![ShaderRecord::default()],
            ..Default::default()
        };
        let l = layout(&Rules::DXR, &t).unwrap();
        assert_eq!((l.raygen.start, l.raygen.stride), (0, 32));
        assert_eq!((l.miss.start, l.miss.stride), (64, 32));
        // 32 + 8 (padded constant) + 8 (handle) = 48, rounded to 64.
        assert_eq!((l.hit_groups.start, l.hit_groups.stride), (128, 64));
        assert_eq!(l.record_address(Table::HitGroup, 1), 192);
        let o = layout(&Rules::OPTIX, &t).unwrap();
        assert_eq!(o.hit_groups.stride, 48);
    }
}
