//! The seam between the suite and an implementation under test.

use crate::load::Case;
use ser_reference::{Profile, RunResult};
use std::collections::BTreeMap;

/// What a backend produced for a case.
#[derive(Clone, Debug)]
pub enum Output {
    /// The words of every output buffer.
    Buffers(BTreeMap<String, Vec<u32>>),
    /// The backend found that the program's behaviour is undefined (only
    /// a backend with `undefined_behaviour_diagnosis` can): the fault code.
    Undefined { code: String, message: String },
    /// The backend's compiler rejected the program or warned about it (a
    /// backend with `validation` reports them with the suite's codes; one
    /// without reports only errors, and the verdict then shows them).
    Diagnostics(Vec<ser_reference::validate::Diagnostic>),
    /// The program compiled and the backend ran nothing: a negative case,
    /// or any case of a compile-only claim ([`crate::claim::Phase::Compile`]).
    Compiled {
        /// What it compiled to, for people.
        output: String,
        /// Why the compiled output is invalid, when the backend's own check
        /// of it (such as `spirv-val`) failed: a compiler that accepts a
        /// valid program and emits invalid code fails it.
        invalid: Option<String>,
    },
    /// The compiler rejected the program; the backend cannot name the
    /// suite's code (capability `rejection`).
    Rejected {
        /// The compiler's message.
        message: String,
        /// The lines of the case's library text its errors point at, when
        /// it can tell: a negative case then passes only when one of them
        /// is a line where the case breaks its rule.
        lines: Vec<u32>,
    },
    /// For a layout case (capability `sbt_layout`): the layout of the case's
    /// shader table, or why it has none.
    Layout(Result<ser_reference::sbt::layout::Layout, ser_reference::sbt::layout::LayoutError>),
}

/// A backend's run of a case.
#[derive(Clone, Debug)]
pub struct Execution {
    pub output: Output,
    /// The reference's legal outcomes, when the backend is the reference:
    /// the case's expectations are then checked against them too.
    pub legal: Option<RunResult>,
}

/// Why a backend produced nothing.
#[derive(Clone, Debug)]
pub enum BackendError {
    /// The backend cannot run this case (a feature it lacks), with the reason.
    NotSupported(String),
    /// The backend rejected or failed on the case, or answered nonsense.
    Failed(String),
    /// The backend did not answer within the per-case time limit.
    Timeout(String),
    /// The backend crashed (a process that died, an in-process panic).
    Crashed(String),
}

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BackendError::NotSupported(m) => write!(f, "not supported: {m}"),
            BackendError::Failed(m) => write!(f, "{m}"),
            BackendError::Timeout(m) => write!(f, "timeout: {m}"),
            BackendError::Crashed(m) => write!(f, "crash: {m}"),
        }
    }
}

/// An implementation the suite can check.
pub trait Backend: Send + Sync {
    fn name(&self) -> &str;
    /// The profile the backend implements.
    fn profile(&self) -> Profile;
    /// The capabilities it has (see [`crate::capability::CAPABILITIES`]).
    fn capabilities(&self) -> Vec<String>;
    /// The wave sizes its device runs, for cases with wave operations; empty
    /// (the default) where it does not say, or any size runs (the
    /// reference). A case in waves of another size is outside its claim.
    fn wave_sizes(&self) -> Vec<u32> {
        Vec::new()
    }
    /// How far it takes a case: run it (the default), or compile it only.
    fn phase(&self) -> crate::claim::Phase {
        crate::claim::Phase::Run
    }
    /// Runs a case to its output buffers.
    fn run(&self, case: &Case) -> Result<Execution, BackendError>;
    /// Runs several cases, one answer each in their order. A backend that
    /// can share work between cases (one pipeline and one submission for
    /// many generated cases) overrides it; the default runs them one by
    /// one. The runner judges each answer as if [`Backend::run`] gave it,
    /// and where a batch as a whole panics or overruns its time it runs
    /// the cases one by one again, so one bad case never takes the others
    /// with it ([`crate::verdict::judge_batch`]).
    fn run_batch(&self, cases: &[&Case]) -> Vec<Result<Execution, BackendError>> {
        cases.iter().map(|c| self.run(c)).collect()
    }
    /// Whether the backend enforces the per-case time limit itself (a
    /// process it can kill); otherwise the runner watches the call.
    fn enforces_timeout(&self) -> bool {
        false
    }
    /// What the backend did since the last call that no case's verdict
    /// shows (a process backend's output after a reply already judged):
    /// the runner prints them and the report's summary keeps them.
    fn notices(&self) -> Vec<String> {
        Vec::new()
    }
}
