//! The case file format, as written on disk (see `cases/README.md`).
//!
//! A case file holds one or more cases and optional shared defaults:
//!
//! ```json
//! { "defaults": { ...case fields... }, "cases": [ { "name": "...", ... } ] }
//! ```
//!
//! Each case is the defaults with its own fields laid over them (field by
//! field, not deeper). Unknown fields are errors everywhere.

use schemars::JsonSchema;
use ser_reference::sbt::layout::Api;
use ser_reference::sbt::ShaderTable;
use ser_reference::scene::Scene;
use ser_reference::Profile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a case's SER names are read ([`CaseSpec::names`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NamesSpec {
    #[default]
    Profile,
    AsWritten,
}

/// One case, after the defaults are applied.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseSpec {
    /// The last segment of the case id: `[a-z0-9_]+`. The id is the file's
    /// path under the cases folder, without `.json`, then this name.
    pub name: String,
    /// What the case checks, for people.
    pub description: String,
    /// The spec-map clause IDs the case checks (at least one).
    pub clauses: Vec<String>,
    /// The profiles the case applies to.
    pub profiles: Vec<Profile>,
    /// Capabilities a backend needs beyond those the shaders show.
    #[serde(default)]
    pub requires: Vec<String>,
    /// Where the case cites several clauses: which expected buffer elements
    /// each decides, as `BUFFER`, `BUFFER[i]` or `BUFFER[i..j]` (elements i
    /// to j - 1). A failing element marks only its own clauses broken in the
    /// traceability report; a run whose mismatching elements are all
    /// decided by `should` clauses alone is a recommendation not met, not a
    /// failure.
    #[serde(default)]
    pub ties: BTreeMap<String, Vec<String>>,
    /// Where the spec is silent or ambiguous: the reading the case takes.
    #[serde(default)]
    pub reading: Option<String>,
    /// How SER's names are read: `profile` (the default: as each profile
    /// spells them, the texts' own implicit `using namespace dx`) or
    /// `as_written` (Shader Model 6.9's namespace rule applies to the text:
    /// an unqualified name needs a `using namespace dx;`). `sm69` only.
    #[serde(default)]
    pub names: NamesSpec,
    /// The shader model the library is compiled for, `"6.8"`: the
    /// availability rules read it (`sm69` only; default: the profile's).
    #[serde(default)]
    pub shader_model: Option<String>,
    /// Pins the schedule (`none`, `regroup`, `replace`, `shuffle:SEED`) to
    /// show what one legal policy does at reorder points; only a backend
    /// that can choose its schedule (the reference) runs such a case.
    #[serde(default)]
    pub schedule: Option<String>,
    #[serde(default)]
    pub scene: Scene,
    #[serde(default)]
    pub shader_table: ShaderTable,
    /// The shaders: one HLSL-subset library, as one string or a list of
    /// lines (not needed by layout cases).
    #[serde(default)]
    pub library: Option<Source>,
    #[serde(default)]
    pub dispatch: Option<DispatchSpec>,
    #[serde(default)]
    pub pipeline: Pipeline,
    /// Every output buffer the library declares: its size and contents.
    #[serde(default)]
    pub buffers: BTreeMap<String, BufferSpec>,
    pub expect: ExpectSpec,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Source {
    Text(String),
    Lines(Vec<String>),
}

impl Source {
    pub fn text(&self) -> String {
        match self {
            Source::Text(t) => t.clone(),
            Source::Lines(l) => l.join("\n"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DispatchSpec {
    /// The raygeneration entry point.
    pub raygen: String,
    /// Dispatch width, height and depth.
    #[serde(default = "one_thread")]
    pub size: [u32; 3],
    /// Lanes per wave (default 32).
    #[serde(default = "default_wave_size")]
    pub wave_size: u32,
}

fn one_thread() -> [u32; 3] {
    [1, 1, 1]
}

/// The wave size of a case that names none (every generated case).
pub const DEFAULT_WAVE_SIZE: u32 = 32;

fn default_wave_size() -> u32 {
    DEFAULT_WAVE_SIZE
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pipeline {
    /// `MaxTraceRecursionDepth` (default 1).
    #[serde(default = "default_depth")]
    pub max_recursion_depth: u32,
    /// Pipeline flags: `skip_triangles`, `skip_procedural_primitives`.
    #[serde(default)]
    pub flags: Vec<PipelineFlag>,
    /// `MaxAttributeSizeInBytes` of the shader config (default 32, D3D12's
    /// largest).
    #[serde(default = "default_attribute_size")]
    pub max_attribute_size: u32,
}

fn default_attribute_size() -> u32 {
    32
}

impl Default for Pipeline {
    fn default() -> Self {
        Pipeline {
            max_recursion_depth: default_depth(),
            flags: Vec::new(),
            max_attribute_size: default_attribute_size(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PipelineFlag {
    SkipTriangles,
    SkipProceduralPrimitives,
}

impl PipelineFlag {
    /// The ray flag the pipeline flag acts as.
    pub fn ray_flag(self) -> u32 {
        match self {
            PipelineFlag::SkipTriangles => ser_lang::names::ray_flag::SKIP_TRIANGLES,
            PipelineFlag::SkipProceduralPrimitives => {
                ser_lang::names::ray_flag::SKIP_PROCEDURAL_PRIMITIVES
            }
        }
    }
}

fn default_depth() -> u32 {
    1
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    /// Number of elements.
    pub elements: u32,
    /// Initial contents, one entry per element (zeros when absent): numbers,
    /// or `"0x..."` strings for exact bits.
    #[serde(default)]
    pub init: Option<Vec<serde_json::Value>>,
}

/// What the output must be.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum ExpectSpec {
    /// The contents of every output buffer, element by element. An element
    /// is a number (exact), `"0x..."` (exact bits), `"unspecified"`,
    /// `{"any_of": [...]}`, `{"approx": x, "tolerance": t}`,
    /// `{"approx": x, "ulps": n}`,
    /// `{"bits": "0x..."}`, a list of components for vector elements, or
    /// `{"repeat": element, "count": n}` for n equal elements.
    Buffers(BTreeMap<String, Vec<serde_json::Value>>),
    /// The program breaks a rule the spec states for run time, so its
    /// behaviour is undefined: the code the reference reports (see
    /// `ser_reference::FaultCode`).
    Undefined(String),
    /// A negative (or control) case: the diagnostics a validator must
    /// report for the library, by code and severity; `[]` for a valid
    /// program. Nothing runs.
    Diagnostics(Vec<DiagnosticExpectSpec>),
    /// How an API lays out the case's shader table (no shaders run).
    Layout(LayoutExpectSpec),
    /// The case's shader table cannot be laid out by an API: the error code
    /// (`argument_not_allowed`, `stride_exceeds_maximum`,
    /// `stride_misaligned`, `stride_too_small`) and the API.
    LayoutError { api: Api, code: String },
}

/// One expected diagnostic.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiagnosticExpectSpec {
    /// The stable code (see `ser_reference::validate::DiagCode`).
    pub code: String,
    /// `error` or `warning`.
    pub severity: String,
    /// The diagnostic is recommended, not required (a text says the
    /// compiler "should" or "will attempt to" give it): a backend that
    /// omits it still passes, one that gives anything else still fails.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
}

/// Expected facts of a layout: only those given are checked.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LayoutExpectSpec {
    pub api: Api,
    /// Per table (`raygen`, `miss`, `hit_groups`, `callable`): start offset
    /// in the buffer and stride, in bytes.
    #[serde(default)]
    pub tables: BTreeMap<String, TableExpect>,
    #[serde(default)]
    pub records: Vec<RecordExpect>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableExpect {
    #[serde(default)]
    pub start: Option<u64>,
    #[serde(default)]
    pub stride: Option<u32>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordExpect {
    pub table: String,
    pub index: u32,
    /// Byte offset of the record in the buffer: start + stride * index.
    #[serde(default)]
    pub address: Option<u64>,
    /// Identifier plus arguments, in bytes.
    #[serde(default)]
    pub size: Option<u32>,
    /// The argument bytes as 32-bit little-endian words: numbers, `"0x..."`,
    /// or `"padding"` for bytes the API leaves undefined.
    #[serde(default)]
    pub arguments: Option<Vec<serde_json::Value>>,
}

/// A case file.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// Fields every case of the file starts from.
    #[serde(default)]
    pub defaults: serde_json::Map<String, serde_json::Value>,
    pub cases: Vec<serde_json::Map<String, serde_json::Value>>,
}

/// The JSON Schema of case files, as the loader accepts them.
pub fn schema() -> serde_json::Value {
    let mut file = schemars::schema_for!(CaseFile).to_value();
    let case = schemars::schema_for!(CaseSpec).to_value();
    if let Some(obj) = file.as_object_mut() {
        obj.insert("title".into(), "SER conformance case file".into());
        let defs = obj.entry("$defs").or_insert_with(|| serde_json::json!({}));
        if let (Some(defs), Some(case_obj)) = (defs.as_object_mut(), case.as_object()) {
            for (k, v) in case_obj
                .get("$defs")
                .and_then(|d| d.as_object())
                .into_iter()
                .flatten()
            {
                defs.insert(k.clone(), v.clone());
            }
            let mut case_schema = case_obj.clone();
            case_schema.remove("$defs");
            case_schema.remove("$schema");
            // In a file, a case may leave required fields to the defaults.
            let mut fields = case_schema.clone();
            fields.remove("required");
            fields.insert("description".into(), "Case fields; after the defaults are applied, those `Case` requires must be present.".into());
            defs.insert("Case".into(), serde_json::Value::Object(case_schema));
            defs.insert("CaseFields".into(), serde_json::Value::Object(fields));
        }
    }
    for pointer in ["/properties/cases/items", "/properties/defaults"] {
        if let Some(slot) = file.pointer_mut(pointer) {
            *slot = serde_json::json!({ "$ref": "#/$defs/CaseFields" });
        }
    }
    file
}
