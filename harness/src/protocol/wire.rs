//! The messages, as they travel. Every field means what the field of the
//! same name means in a case file (`cases/README.md`).

use crate::case::{DispatchSpec, Pipeline};
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

/// The backend's answer to a request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Reply {
    /// The dispatch completed: the final words of every output buffer.
    Buffers {
        id: String,
        buffers: BTreeMap<String, Vec<u32>>,
    },
    /// The compiler's diagnostics (every one, warnings included; `[]` for a
    /// valid program). Also the answer to a `run` whose program has errors.
    Diagnostics {
        id: String,
        diagnostics: Vec<WireDiagnostic>,
    },
    /// The program broke a rule the spec states for run time (capability
    /// `undefined_behaviour_diagnosis`): the fault code.
    Undefined {
        id: String,
        code: String,
        #[serde(default)]
        message: String,
    },
    /// The shader table's layout.
    Layout { id: String, layout: Layout },
    /// Why the shader table cannot be laid out.
    LayoutError { id: String, error: LayoutError },
    /// The backend cannot run this case (a feature it lacks).
    NotSupported { id: String, reason: String },
    /// The backend failed on the case (a compiler crash, a device error).
    Error { id: String, message: String },
}

impl Reply {
    pub fn id(&self) -> &str {
        match self {
            Reply::Buffers { id, .. }
            | Reply::Diagnostics { id, .. }
            | Reply::Undefined { id, .. }
            | Reply::Layout { id, .. }
            | Reply::LayoutError { id, .. }
            | Reply::NotSupported { id, .. }
            | Reply::Error { id, .. } => id,
        }
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
            "request.schema.json",
            schemars::schema_for!(Request).to_value(),
        ),
        ("reply.schema.json", schemars::schema_for!(Reply).to_value()),
    ]
}
