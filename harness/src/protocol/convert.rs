//! Between the harness's types and the wire: a case to a request and back
//! (the server side rebuilds a case without its expectations), and a
//! backend's output to a reply and back.

use super::wire::*;
use crate::backend::{BackendError, Execution, Output};
use crate::case::{DispatchSpec, Pipeline, PipelineFlag};
use crate::expect::layout::LayoutExpect;
use crate::load::{Case, Expected};
use ser_reference::validate::{DiagCode, Diagnostic, Limits, Severity};
use ser_reference::Dispatch;
use std::collections::BTreeMap;
use std::path::PathBuf;

const PIPELINE_FLAGS: [PipelineFlag; 2] = [
    PipelineFlag::SkipTriangles,
    PipelineFlag::SkipProceduralPrimitives,
];

/// The request for a case: everything but its expectations.
pub fn request(case: &Case) -> Request {
    let (task, api) = match &case.expect {
        Expected::Layout(l) => (Task::Layout, Some(l.api())),
        Expected::Diagnostics(_) => (Task::Compile, None),
        Expected::Buffers(_) | Expected::Undefined(_) => (Task::Run, None),
    };
    let d = &case.dispatch;
    Request {
        kind: RunType::Run,
        id: case.id.clone(),
        task,
        api,
        requires: case.requires.clone(),
        schedule: case.schedule.map(|s| s.to_string()),
        scene: case.scene.clone(),
        shader_table: case.shader_table.clone(),
        library: case.source.clone(),
        ir: case.library().clone(),
        dispatch: (task == Task::Run).then(|| DispatchSpec {
            raygen: d.raygen.clone(),
            size: d.size,
            wave_size: d.wave_size,
        }),
        pipeline: Pipeline {
            max_recursion_depth: d.max_recursion_depth,
            flags: PIPELINE_FLAGS
                .into_iter()
                .filter(|f| d.pipeline_flags & f.ray_flag() != 0)
                .collect(),
            max_attribute_size: case.limits.max_attribute_size,
        },
        buffers: d.buffers.clone(),
    }
}

/// The case a request describes, for a backend served over the protocol.
/// It has no expectations: only what the task needs to be told apart.
pub fn case_of(request: &Request) -> Result<Case, String> {
    let expect = match request.task {
        Task::Run => Expected::Buffers(BTreeMap::new()),
        Task::Compile => Expected::Diagnostics(Vec::new()),
        Task::Layout => Expected::Layout(LayoutExpect::Facts {
            api: request
                .api
                .ok_or("a `layout` request needs `api`".to_string())?,
            tables: Vec::new(),
            records: Vec::new(),
        }),
    };
    let dispatch = match (&request.dispatch, request.task) {
        (Some(d), _) => d.clone(),
        (None, Task::Run) => return Err("a `run` request needs `dispatch`".into()),
        (None, _) => DispatchSpec {
            raygen: String::new(),
            size: [1, 1, 1],
            wave_size: 32,
        },
    };
    let schedule = match &request.schedule {
        Some(s) => Some(s.parse().map_err(|e| format!("schedule: {e}"))?),
        None => None,
    };
    Ok(Case {
        id: request.id.clone(),
        file: PathBuf::from("<request>"),
        description: String::new(),
        clauses: Vec::new(),
        ties: Vec::new(),
        profiles: Vec::new(),
        requires: request.requires.clone(),
        reading: None,
        schedule,
        scene: request.scene.clone(),
        shader_table: request.shader_table.clone(),
        source: request.library.clone(),
        program: std::sync::Arc::new(
            ser_reference::program::Program::new(request.ir.clone())
                .map_err(|e| format!("library: {e}"))?,
        ),
        dispatch: Dispatch {
            raygen: dispatch.raygen,
            size: dispatch.size,
            wave_size: dispatch.wave_size,
            max_recursion_depth: request.pipeline.max_recursion_depth,
            pipeline_flags: request
                .pipeline
                .flags
                .iter()
                .fold(0, |acc, f| acc | f.ray_flag()),
            buffers: request.buffers.clone(),
        },
        limits: Limits {
            max_attribute_size: request.pipeline.max_attribute_size,
        },
        expect,
    })
}

/// A backend's answer as a reply.
pub fn reply(id: &str, ran: Result<Execution, BackendError>) -> Reply {
    let id = id.to_string();
    match ran {
        Ok(exec) => match exec.output {
            Output::Buffers(buffers) => Reply::Buffers(BuffersReply { id, buffers }),
            Output::Undefined { code, message } => {
                Reply::Undefined(UndefinedReply { id, code, message })
            }
            Output::Diagnostics(list) => Reply::Diagnostics(DiagnosticsReply {
                id,
                diagnostics: list
                    .iter()
                    .map(|d| WireDiagnostic {
                        code: d.code.name().to_string(),
                        severity: d.severity.name().to_string(),
                        message: format!("{} (in `{}`): {}", d.span, d.within, d.message),
                        clause: Some(d.clause.clone()),
                    })
                    .collect(),
            }),
            Output::Layout(Ok(layout)) => Reply::Layout(LayoutReply { id, layout }),
            Output::Layout(Err(error)) => Reply::LayoutError(LayoutErrorReply { id, error }),
            Output::Compiled { output, invalid } => Reply::Compiled(CompiledReply {
                id,
                output,
                invalid,
            }),
            Output::Rejected { message, lines } => {
                Reply::Rejected(RejectedReply { id, message, lines })
            }
        },
        Err(BackendError::NotSupported(reason)) => {
            Reply::NotSupported(NotSupportedReply { id, reason })
        }
        Err(e) => Reply::Error(ErrorReply {
            id,
            message: e.to_string(),
        }),
    }
}

/// What a reply means, on the runner's side.
pub fn output_of(reply: Reply) -> Result<Execution, BackendError> {
    let output = match reply {
        Reply::Buffers(r) => Output::Buffers(r.buffers),
        Reply::Undefined(r) => Output::Undefined {
            code: r.code,
            message: r.message,
        },
        Reply::Diagnostics(r) => Output::Diagnostics(
            r.diagnostics
                .into_iter()
                .enumerate()
                .map(|(i, d)| diagnostic(d).map_err(|m| format!("diagnostics[{i}]: {m}")))
                .collect::<Result<_, _>>()
                .map_err(|m| BackendError::Failed(format!("a bad reply: {m}")))?,
        ),
        Reply::Layout(r) => Output::Layout(Ok(r.layout)),
        Reply::LayoutError(r) => Output::Layout(Err(r.error)),
        Reply::Compiled(r) => Output::Compiled {
            output: r.output,
            invalid: r.invalid,
        },
        Reply::Rejected(r) => Output::Rejected {
            message: r.message,
            lines: r.lines,
        },
        Reply::NotSupported(r) => return Err(BackendError::NotSupported(r.reason)),
        Reply::Error(r) => return Err(BackendError::Failed(r.message)),
    };
    Ok(Execution {
        output,
        legal: None,
    })
}

fn diagnostic(d: WireDiagnostic) -> Result<Diagnostic, String> {
    let code = DiagCode::from_name(&d.code).ok_or_else(|| {
        format!(
            "unknown diagnostic code `{}`; expected one of {}",
            d.code,
            DiagCode::ALL
                .iter()
                .map(|c| c.name())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    let severity = Severity::from_name(&d.severity).ok_or_else(|| {
        format!(
            "unknown severity `{}`; expected `error` or `warning`",
            d.severity
        )
    })?;
    Ok(Diagnostic {
        code,
        severity,
        clause: d.clause.unwrap_or_default(),
        message: d.message,
        within: String::new(),
        span: Default::default(),
    })
}
