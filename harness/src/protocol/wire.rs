//! The messages, as they travel. Every field means what the field of the
//! same name means in a case file (`cases/README.md`).

use crate::case::{DispatchSpec, Pipeline};
use crate::claim::Phase;
use schemars::JsonSchema;
use ser_lang::Library;
use ser_reference::sbt::layout::{Api, Layout, LayoutError};
use ser_reference::sbt::ShaderTable;
use ser_reference::scene::Scene;
use ser_reference::Profile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `type` of a hello.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HelloType {
    #[default]
    Hello,
}

/// The `type` of a request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunType {
    #[default]
    Run,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BatchType {
    #[default]
    Batch,
}

/// Announces that the next `count` lines are `run` requests the backend may
/// run together (one pipeline and one submission for many generated
/// cases), answered in order, one reply each. Sent only to a backend whose
/// hello says `batch: true`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchHeader {
    #[serde(rename = "type")]
    pub kind: BatchType,
    pub count: u32,
}

/// The runner's first line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunnerHello {
    #[serde(rename = "type")]
    pub kind: HelloType,
    /// The protocol version the runner speaks.
    pub protocol: u32,
    /// The runner and its version, for logs.
    pub runner: String,
    /// The profile the user asked for (`--profile`), if any: a backend that
    /// implements several profiles picks this one.
    #[serde(default)]
    pub profile: Option<Profile>,
}

/// The backend's answer to the runner's hello.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackendHello {
    #[serde(rename = "type")]
    pub kind: HelloType,
    /// The protocol version the backend speaks; the runner stops unless it
    /// is its own.
    pub protocol: u32,
    /// The backend's name, as reports show it.
    pub name: String,
    /// The profile the backend implements.
    pub profile: Profile,
    /// The optional capabilities it has (`ser-conformance capabilities`
    /// lists them); cases that need others are not sent.
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// The wave sizes its device runs (a GPU's subgroup size); a case with
    /// wave operations in waves of another size is not sent. Absent: any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wave_sizes: Vec<u32>,
    /// How far it takes a case: `run` (the default) or `compile` (it
    /// compiles each program and runs nothing; its runtime cases are
    /// judged by whether they compile).
    #[serde(default, skip_serializing_if = "is_run")]
    pub phase: Phase,
    /// Whether the backend takes `batch` headers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub batch: bool,
}

fn is_run(p: &Phase) -> bool {
    *p == Phase::Run
}

/// What a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    /// Compile and run the dispatch; reply `buffers` (or `undefined`).
    Run,
    /// Compile only; reply `diagnostics` (a negative case).
    Compile,
    /// Lay out the shader table for `api`; reply `layout` or `layout_error`.
    Layout,
}

/// One case, without its expectations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Request {
    #[serde(rename = "type")]
    pub kind: RunType,
    /// The case id; the reply repeats it.
    pub id: String,
    pub task: Task,
    /// For `layout`: the API whose rules apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<Api>,
    /// Capabilities the case needs (all of them among the backend's).
    #[serde(default)]
    pub requires: Vec<String>,
    /// For a case that pins the schedule at reorder points (capability
    /// `schedule_control`): `none`, `regroup`, `replace` or `shuffle:SEED`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    #[serde(default)]
    pub scene: Scene,
    #[serde(default)]
    pub shader_table: ShaderTable,
    /// The shaders as the case's HLSL-subset text, as written (a backend
    /// for the earlier revision renames `MaybeReorderThread` itself).
    pub library: String,
    /// The same shaders as the IR (`ser_lang::ast::Library`).
    pub ir: Library,
    /// For `run`: the raygeneration shader, dispatch size and wave size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispatch: Option<DispatchSpec>,
    pub pipeline: Pipeline,
    /// Every output buffer the library declares, with its initial 32-bit
    /// words (its length is the element count times the words per element).
    #[serde(default)]
    pub buffers: BTreeMap<String, Vec<u32>>,
}

/// A diagnostic as a backend reports it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WireDiagnostic {
    /// The suite's stable code (`ser-conformance codes` lists them).
    pub code: String,
    /// `error` or `warning`.
    pub severity: String,
    /// For people.
    #[serde(default)]
    pub message: String,
    /// The clause the rule enforces, if the backend knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clause: Option<String>,
}

/// The backend's answer to a request: one of the messages below, told
/// apart by `type`. Every reply repeats the request's `id`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    Buffers(BuffersReply),
    Diagnostics(DiagnosticsReply),
    Undefined(UndefinedReply),
    Layout(LayoutReply),
    LayoutError(LayoutErrorReply),
    Compiled(CompiledReply),
    Rejected(RejectedReply),
    NotSupported(NotSupportedReply),
    Error(ErrorReply),
}

/// `buffers`: the dispatch completed; the final words of every output
/// buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BuffersReply {
    pub id: String,
    pub buffers: BTreeMap<String, Vec<u32>>,
}

/// `diagnostics`: the compiler's diagnostics, warnings included (`[]` for
/// a valid program). Also the answer to a `run` whose program has errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiagnosticsReply {
    pub id: String,
    pub diagnostics: Vec<WireDiagnostic>,
}

/// `undefined`: the program broke a rule the spec states for run time
/// (capability `undefined_behaviour_diagnosis`): the fault code.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndefinedReply {
    pub id: String,
    pub code: String,
    #[serde(default)]
    pub message: String,
}

/// `layout`: the shader table's layout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LayoutReply {
    pub id: String,
    pub layout: Layout,
}

/// `layout_error`: why the shader table cannot be laid out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LayoutErrorReply {
    pub id: String,
    pub error: LayoutError,
}

/// `compiled`: the program compiled and the backend ran nothing (a
/// compile-only backend, `phase: compile`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompiledReply {
    pub id: String,
    /// What it compiled to, for people (`SPIR-V, valid`).
    #[serde(default)]
    pub output: String,
    /// Why the compiled output is invalid, when the backend's own check of
    /// it failed (`spirv-val`'s message); absent when it passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
}

/// `rejected`: the compiler rejected the program; the backend cannot name
/// the suite's code (capability `rejection`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RejectedReply {
    pub id: String,
    /// The compiler's message.
    pub message: String,
    /// The lines of the case's library text (1-based) its errors point at,
    /// when the backend can tell; a negative case then passes only when
    /// one of them is where the case breaks its rule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<u32>,
}

/// `not_supported`: the backend cannot run this case (a feature it lacks).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotSupportedReply {
    pub id: String,
    pub reason: String,
}

/// `error`: the backend failed on the case (a compiler crash, a device
/// error, a request it could not read).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorReply {
    pub id: String,
    pub message: String,
}

/// The `type` of each reply.
pub const REPLY_TYPES: [&str; 9] = [
    "compiled",
    "rejected",
    "buffers",
    "diagnostics",
    "undefined",
    "layout",
    "layout_error",
    "not_supported",
    "error",
];

impl Reply {
    pub fn id(&self) -> &str {
        match self {
            Reply::Buffers(r) => &r.id,
            Reply::Diagnostics(r) => &r.id,
            Reply::Undefined(r) => &r.id,
            Reply::Layout(r) => &r.id,
            Reply::LayoutError(r) => &r.id,
            Reply::Compiled(r) => &r.id,
            Reply::Rejected(r) => &r.id,
            Reply::NotSupported(r) => &r.id,
            Reply::Error(r) => &r.id,
        }
    }

    /// Decodes the fields of a reply of type `kind` (the object without
    /// its `type`), so that errors carry the path inside the reply.
    pub fn from_fields<'de, D: serde::Deserializer<'de>>(
        kind: &str,
        fields: D,
    ) -> Result<Reply, serde_path_to_error::Error<D::Error>> {
        use serde_path_to_error::deserialize as de;
        Ok(match kind {
            "buffers" => Reply::Buffers(de(fields)?),
            "diagnostics" => Reply::Diagnostics(de(fields)?),
            "undefined" => Reply::Undefined(de(fields)?),
            "layout" => Reply::Layout(de(fields)?),
            "layout_error" => Reply::LayoutError(de(fields)?),
            "compiled" => Reply::Compiled(de(fields)?),
            "rejected" => Reply::Rejected(de(fields)?),
            "not_supported" => Reply::NotSupported(de(fields)?),
            _ => Reply::Error(de(fields)?),
        })
    }
}

/// The JSON Schema of each message, by file name under `docs/protocol/`.
pub fn schemas() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        (
            "runner-hello.schema.json",
            schemars::schema_for!(RunnerHello).to_value(),
        ),
        (
            "backend-hello.schema.json",
            schemars::schema_for!(BackendHello).to_value(),
        ),
        (
            "batch-header.schema.json",
            schemars::schema_for!(BatchHeader).to_value(),
        ),
        (
            "request.schema.json",
            schemars::schema_for!(Request).to_value(),
        ),
        ("reply.schema.json", schemars::schema_for!(Reply).to_value()),
    ]
}
