//! What a run of the reference produces: the legal contents of every output
//! buffer, or a fault.

use ser_lang::Span;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Stable codes of the ways a run can end without a result.
///
/// Codes in the first group mean the *program* broke a rule the spec states
/// for run time ("must not be invoked if the maximum trace recursion depth
/// has already been reached"): its behaviour is undefined, and a case may
/// expect the reference to report exactly that. The others are limits of
/// the reference or inputs it cannot judge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum FaultCode {
    /// `TraceRay`, `HitObject::TraceRay` or `HitObject::Invoke` at the
    /// maximum recursion depth.
    RecursionDepthExceeded,
    /// A hit-group record index outside the hit-group table.
    HitGroupRecordOutOfRange,
    /// A miss record index outside the miss table.
    MissRecordOutOfRange,
    /// A callable record index outside the callable table.
    CallableRecordOutOfRange,
    /// The payload type passed to a call differs from the invoked shader's.
    PayloadTypeMismatch,
    /// `GetAttributes` or an invoked shader's attribute type differs from the
    /// committed attributes' type.
    AttributeTypeMismatch,
    /// `LoadLocalRootTableConstant` with an offset that is not a multiple of 4.
    MisalignedRootConstantOffset,
    /// A function called in a shader stage where it is not available.
    InvalidStage,
    /// A ray or instance flag combination the spec calls invalid.
    InvalidFlags,
    /// A value the spec requires to be valid was out of range (an instance
    /// transform that is not invertible, a hit kind over 127).
    InvalidValue,
    /// A `RayQuery` method called in a state that does not support it
    /// (DXR's "RayQuery intrinsics" tables).
    RayQueryState,
    /// Traversal meets a triangle with an opacity micromap from a pipeline
    /// or `RayQuery` that did not allow micromaps.
    OpacityMicromapsNotAllowed,

    /// The interpreter's step budget ran out (an endless loop).
    StepBudgetExhausted,
    /// Statements, expressions, calls and shader invocations nested deeper
    /// at run time than the reference evaluates
    /// ([`crate::exec::MAX_EVALUATION_DEPTH`]): its evaluator recurses on the
    /// machine stack.
    EvaluationDepthExceeded,
    /// `CallShader` nested deeper than the reference follows
    /// ([`crate::exec::MAX_CALL_SHADER_DEPTH`]). DXR and Vulkan bound
    /// callable shader nesting only by the pipeline's stack size, which the
    /// reference does not model.
    CallShaderDepthExceeded,
    /// The number of legal outcomes is too large to enumerate.
    TooManyOutcomes,
    /// A program the reference cannot run (unknown name, wrong argument
    /// count, an unsupported construct, an out-of-bounds array index).
    Unsupported,
    /// A value needed to decide what to run is unspecified.
    UnspecifiedControl,
}

impl FaultCode {
    pub fn name(self) -> &'static str {
        match self {
            FaultCode::RecursionDepthExceeded => "recursion_depth_exceeded",
            FaultCode::HitGroupRecordOutOfRange => "hit_group_record_out_of_range",
            FaultCode::MissRecordOutOfRange => "miss_record_out_of_range",
            FaultCode::CallableRecordOutOfRange => "callable_record_out_of_range",
            FaultCode::PayloadTypeMismatch => "payload_type_mismatch",
            FaultCode::AttributeTypeMismatch => "attribute_type_mismatch",
            FaultCode::MisalignedRootConstantOffset => "misaligned_root_constant_offset",
            FaultCode::InvalidStage => "invalid_stage",
            FaultCode::InvalidFlags => "invalid_flags",
            FaultCode::InvalidValue => "invalid_value",
            FaultCode::RayQueryState => "ray_query_state",
            FaultCode::OpacityMicromapsNotAllowed => "opacity_micromaps_not_allowed",
            FaultCode::StepBudgetExhausted => "step_budget_exhausted",
            FaultCode::EvaluationDepthExceeded => "evaluation_depth_exceeded",
            FaultCode::CallShaderDepthExceeded => "call_shader_depth_exceeded",
            FaultCode::TooManyOutcomes => "too_many_outcomes",
            FaultCode::Unsupported => "unsupported",
            FaultCode::UnspecifiedControl => "unspecified_control",
        }
    }

    pub const ALL: [FaultCode; 18] = [
        FaultCode::RecursionDepthExceeded,
        FaultCode::HitGroupRecordOutOfRange,
        FaultCode::MissRecordOutOfRange,
        FaultCode::CallableRecordOutOfRange,
        FaultCode::PayloadTypeMismatch,
        FaultCode::AttributeTypeMismatch,
        FaultCode::MisalignedRootConstantOffset,
        FaultCode::InvalidStage,
        FaultCode::InvalidFlags,
        FaultCode::InvalidValue,
        FaultCode::RayQueryState,
        FaultCode::OpacityMicromapsNotAllowed,
        FaultCode::StepBudgetExhausted,
        FaultCode::EvaluationDepthExceeded,
        FaultCode::CallShaderDepthExceeded,
        FaultCode::TooManyOutcomes,
        FaultCode::Unsupported,
        FaultCode::UnspecifiedControl,
    ];

    pub fn from_name(name: &str) -> Option<FaultCode> {
        FaultCode::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether the code means the program's behaviour is undefined by the
    /// spec (as opposed to a limit of the reference).
    pub fn is_undefined_behaviour(self) -> bool {
        !matches!(
            self,
            FaultCode::StepBudgetExhausted
                | FaultCode::EvaluationDepthExceeded
                | FaultCode::CallShaderDepthExceeded
                | FaultCode::TooManyOutcomes
                | FaultCode::Unsupported
                | FaultCode::UnspecifiedControl
        )
    }
}

/// A run that ended without a result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fault {
    pub code: FaultCode,
    /// The clause of the spec the program broke, when there is one.
    pub clause: Option<String>,
    pub message: String,
    /// The function and position in the shader text.
    pub at: Option<(String, Span)>,
    /// The dispatch index of the thread, when one thread caused it.
    pub thread: Option<[u32; 3]>,
}

impl Fault {
    pub fn new(code: FaultCode, message: impl Into<String>) -> Fault {
        Fault {
            code,
            clause: None,
            message: message.into(),
            at: None,
            thread: None,
        }
    }

    pub fn clause(mut self, clause: &str) -> Fault {
        self.clause = Some(clause.to_string());
        self
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.name(), self.message)?;
        if let Some(c) = &self.clause {
            write!(f, " [{c}]")?;
        }
        if let Some((func, span)) = &self.at {
            write!(f, " at `{func}` {span}")?;
        }
        if let Some(t) = self.thread {
            write!(f, " (thread {:?})", t)?;
        }
        Ok(())
    }
}

/// One legal value of a 32-bit word: its bits, and for floats the error
/// bound an implementation's result may have around it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    pub bits: u32,
    pub err: f64,
}

/// What the spec allows a word of an output buffer to hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Legal {
    /// Any of these values (one, when the result is determined).
    Values(Vec<Observed>),
    /// Anything: the spec leaves the value open, for this reason.
    Unspecified(String),
}

impl Legal {
    pub fn add(&mut self, o: Observed) {
        if let Legal::Values(v) = self {
            if !v.contains(&o) {
                v.push(o);
            }
        }
    }
}

/// The element type of an output buffer: scalar type and components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Element {
    pub scalar: ser_lang::ast::ScalarType,
    pub components: u8,
}

/// The legal contents of one output buffer, word by word.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LegalBuffer {
    pub element: Element,
    pub words: Vec<Legal>,
    /// The words of the first run: one concrete legal result.
    pub first: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Outcome {
    Completed(BTreeMap<String, LegalBuffer>),
    Fault(Fault),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub outcome: Outcome,
    /// How many runs it took to explore every choice.
    pub runs: usize,
    /// What the explored choices were about.
    pub choices: Vec<String>,
}
