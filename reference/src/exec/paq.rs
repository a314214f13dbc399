//! Payload access qualifiers along the calls of a thread: where a call or a
//! shader stage masks the payload (see [`crate::payload`] for the rules).

use super::thread::Thread;
use crate::payload::{PaqStage, PayloadAccess};
use crate::program::Stage;
use crate::value::Value;

/// The calls that take a payload, each with its flow
/// (`ser.paq.flow.caller_between_anyhit_and_shading`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// caller -> anyhit -> (closesthit | miss) -> caller
    TraceRay,
    /// caller -> anyhit -> caller
    HitObjectTraceRay,
    /// caller -> (closesthit | miss) -> caller
    Invoke,
}

impl<'a> Thread<'a> {
    fn access(&self, payload: &Value) -> Option<&'a PayloadAccess> {
        match payload {
            Value::Struct { name, .. } => self.w.program.payload_access(name),
            _ => None,
        }
    }

    /// The payload as it flows into a call: only what the caller may write,
    /// and at `HitObject::Invoke` also what any-hit may write
    /// (`ser.paq.rules.invoke_write_anyhit_as_write_caller`).
    pub(super) fn enter_call(&self, mut payload: Value, call: Call) -> Value {
        if let Some(a) = self.access(&payload) {
            a.enter_call(&mut payload, call == Call::Invoke);
        }
        payload
    }

    /// The payload as it comes back to the caller: only what the caller may
    /// read, and at `HitObject::TraceRay` also what closest-hit or miss
    /// shaders read (`ser.paq.rules.trace_ray_read_shading_as_read_caller`).
    pub(super) fn leave_call(&self, mut payload: Value, call: Call) -> Value {
        if let Some(a) = self.access(&payload) {
            a.leave_call(&mut payload, call == Call::HitObjectTraceRay);
        }
        payload
    }

    /// The qualifiers that apply to a payload in a shader stage, if any.
    pub(super) fn payload_stage(
        &self,
        payload: &Value,
        stage: Stage,
    ) -> Option<(&'a PayloadAccess, PaqStage)> {
        let s = match stage {
            Stage::AnyHit => PaqStage::AnyHit,
            Stage::ClosestHit => PaqStage::ClosestHit,
            Stage::Miss => PaqStage::Miss,
            _ => return None,
        };
        Some((self.access(payload)?, s))
    }

    /// A closest-hit or miss stage whose record names no shader (a NULL
    /// shader identifier, or a hit group without a closest-hit shader):
    /// it runs as an empty shader, whose copy-in and copy-back apply
    /// (`dxr.paq.semantics.write.null_shader_counts_as_executed`).
    pub(super) fn null_shader_stage(&self, payload: Value, stage: Stage) -> Value {
        match self.payload_stage(&payload, stage) {
            Some((access, s)) => access.empty_stage(payload, s),
            None => payload,
        }
    }
}
