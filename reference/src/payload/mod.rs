//! Payload access qualifiers (PAQ): which shader stages may read and write
//! each field of a `[raypayload]` struct, and which values are guaranteed
//! to arrive where along the flows of the calls.
//!
//! The proposal gives the flows (`ser.paq.flow.caller_between_anyhit_and_shading`):
//! `TraceRay` runs caller -> anyhit -> (closesthit | miss) -> caller;
//! `HitObject::TraceRay` runs caller -> anyhit -> caller, where `read(miss)`
//! or `read(closesthit)` count as `read(caller)`
//! (`ser.paq.rules.trace_ray_read_shading_as_read_caller`); and
//! `HitObject::Invoke` runs caller -> (closesthit | miss) -> caller, where
//! `write(anyhit)` counts as `write(caller)`
//! (`ser.paq.rules.invoke_write_anyhit_as_write_caller`). What a qualifier
//! means at each hop is DXR's "Detailed semantics": each stage works on a
//! local working copy (`dxr.paq.detailed.local_working_copy`);
//! - at the start of a call only `write(caller)` fields are copied into the
//!   actual payload (`dxr.paq.copy.trace_ray_entry_write_caller`);
//! - a stage's copy gets the fields it may read, the others are undefined
//!   (`dxr.paq.copy.stage_entry_read`, `dxr.paq.copy.stage_entry_others_undefined`);
//! - at its end the fields it may write are copied back, "values written to
//!   other fields of the parameter are ignored" (`dxr.paq.copy.stage_exit_write`,
//!   `dxr.paq.copy.stage_exit_others_ignored`);
//! - the caller gets back only `read(caller)` fields
//!   (`dxr.paq.copy.trace_ray_exit_read_caller`).
//!
//! A value that is not guaranteed is unspecified, and so is whatever is
//! computed from it. An access a stage's qualifiers do not allow is legal
//! on the local copy (`dxr.paq.local_copy.compiler_does_not_restrict`);
//! `crate::validate` warns about it.

use crate::mutation::{self, Mutation};
use crate::value::{unspecify, Value};
use ser_lang::ast::{AccessKind, StructDecl};

/// A stage as payload qualifiers name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaqStage {
    Caller,
    AnyHit,
    ClosestHit,
    Miss,
}

impl PaqStage {
    pub fn from_name(s: &str) -> Option<PaqStage> {
        Some(match s {
            "caller" => PaqStage::Caller,
            "anyhit" => PaqStage::AnyHit,
            "closesthit" => PaqStage::ClosestHit,
            "miss" => PaqStage::Miss,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            PaqStage::Caller => "caller",
            PaqStage::AnyHit => "anyhit",
            PaqStage::ClosestHit => "closesthit",
            PaqStage::Miss => "miss",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The qualifiers of one field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FieldAccess {
    read: u8,
    write: u8,
}

impl FieldAccess {
    pub fn reads(&self, s: PaqStage) -> bool {
        self.read & s.bit() != 0
    }

    pub fn writes(&self, s: PaqStage) -> bool {
        self.write & s.bit() != 0
    }
}

/// The qualifiers of a `[raypayload]` struct, field by field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PayloadAccess {
    pub fields: Vec<(String, FieldAccess)>,
}

impl PayloadAccess {
    /// The qualifiers of a struct, if it is a `[raypayload]` struct; an
    /// error names an unknown stage or a field without qualifiers.
    pub fn of(decl: &StructDecl) -> Result<Option<PayloadAccess>, String> {
        if !decl.attributes.iter().any(|a| a.name == "raypayload") {
            return Ok(None);
        }
        let mut fields = Vec::new();
        for f in &decl.fields {
            if f.access.is_empty() {
                return Err(format!(
                    "field `{}` of [raypayload] struct `{}` has no payload access qualifiers",
                    f.name, decl.name
                ));
            }
            let mut acc = FieldAccess::default();
            for q in &f.access {
                for s in &q.stages {
                    let stage = PaqStage::from_name(s).ok_or_else(|| format!("`{s}` in a payload access qualifier: expected caller, anyhit, closesthit or miss"))?;
                    match q.kind {
                        AccessKind::Read => acc.read |= stage.bit(),
                        AccessKind::Write => acc.write |= stage.bit(),
                    }
                }
            }
            fields.push((f.name.clone(), acc));
        }
        Ok(Some(PayloadAccess { fields }))
    }

    fn fields_mut<'v>(
        &self,
        v: &'v mut Value,
    ) -> impl Iterator<Item = (&FieldAccess, &'v mut Value)> {
        let items = match v {
            Value::Struct { fields, .. } => fields.as_mut_slice(),
            _ => &mut [],
        };
        self.fields.iter().map(|(_, a)| a).zip(items.iter_mut())
    }

    /// Marks unspecified every field for which `keep` is false.
    fn mask(&self, v: &mut Value, keep: impl Fn(&FieldAccess) -> bool, why: &str) {
        for (a, f) in self.fields_mut(v) {
            if !keep(a) {
                *f = unspecify(f.clone(), why);
            }
        }
    }

    /// Into a call: the caller passes the fields it may write; for
    /// `HitObject::Invoke` also those any-hit may write.
    pub fn enter_call(&self, v: &mut Value, invoke: bool) {
        let invoke = invoke && !mutation::active(Mutation::PaqInvokeAnyhitWriteIgnored);
        self.mask(
            v,
            |a| a.writes(PaqStage::Caller) || invoke && a.writes(PaqStage::AnyHit),
            "a payload field the caller has no write access to does not flow into the call",
        );
    }

    /// Out of a call: the caller gets back the fields it may read; for
    /// `HitObject::TraceRay` also those closest-hit or miss shaders read.
    pub fn leave_call(&self, v: &mut Value, hit_object_trace: bool) {
        let hit_object_trace =
            hit_object_trace && !mutation::active(Mutation::PaqTraceShadingReadIgnored);
        self.mask(
            v,
            |a| {
                a.reads(PaqStage::Caller)
                    || hit_object_trace
                        && (a.reads(PaqStage::ClosestHit) || a.reads(PaqStage::Miss))
            },
            "a payload field the caller has no read access to does not come back from the call",
        );
    }

    /// Into a shader: a field it may not read holds no defined value in
    /// it (for a field it may write, DXR's rule; for one it may not touch,
    /// so that no copy or helper function can observe it: `leave_stage`
    /// restores it).
    pub fn enter_stage(&self, v: &mut Value, s: PaqStage) {
        self.mask(
            v,
            |a| a.reads(s),
            "a payload field a stage may not read has no defined value in it",
        );
    }

    /// Out of a shader: a field it may not write is as it was before.
    pub fn leave_stage(&self, before: &Value, after: Value, s: PaqStage) -> Value {
        let mut out = after;
        let kept: Vec<Value> = match before {
            Value::Struct { fields, .. } => fields.clone(),
            _ => return out,
        };
        for ((a, f), old) in self.fields_mut(&mut out).zip(kept) {
            if !a.writes(s) && !mutation::active(Mutation::PaqStageWriteNotRestored) {
                *f = old;
            }
        }
        out
    }

    pub fn field(&self, name: &str) -> Option<&FieldAccess> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, a)| a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Scalar;

    fn access(read: &[PaqStage], write: &[PaqStage]) -> FieldAccess {
        FieldAccess {
            read: read.iter().fold(0, |m, s| m | s.bit()),
            write: write.iter().fold(0, |m, s| m | s.bit()),
        }
    }

    fn payload(values: &[u32]) -> Value {
        Value::Struct {
            name: "P".into(),
            fields: values.iter().map(|v| Value::uint(*v)).collect(),
        }
    }

    fn defined(v: &Value) -> Vec<bool> {
        match v {
            Value::Struct { fields, .. } => fields
                .iter()
                .map(|f| {
                    matches!(
                        f,
                        Value::Scalar(Scalar {
                            unspecified: None,
                            ..
                        })
                    )
                })
                .collect(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn the_two_extra_rules_of_the_proposal() {
        use PaqStage::*;
        let paq = PayloadAccess {
            fields: vec![
                ("a".into(), access(&[ClosestHit], &[AnyHit])),
                ("b".into(), access(&[Miss], &[Caller])),
                ("c".into(), access(&[Caller], &[Caller])),
            ],
        };
        // At HitObject::TraceRay, read(closesthit) / read(miss) count as read(caller).
        let mut v = payload(&[1, 2, 3]);
        paq.leave_call(&mut v, true);
        assert_eq!(defined(&v), [true, true, true]);
        let mut v = payload(&[1, 2, 3]);
        paq.leave_call(&mut v, false);
        assert_eq!(defined(&v), [false, false, true]);
        // At HitObject::Invoke, write(anyhit) counts as write(caller).
        let mut v = payload(&[1, 2, 3]);
        paq.enter_call(&mut v, true);
        assert_eq!(defined(&v), [true, true, true]);
        let mut v = payload(&[1, 2, 3]);
        paq.enter_call(&mut v, false);
        assert_eq!(defined(&v), [false, true, true]);
    }

    #[test]
    fn a_stage_keeps_what_it_may_not_write() {
        use PaqStage::*;
        let paq = PayloadAccess {
            fields: vec![
                ("a".into(), access(&[ClosestHit], &[ClosestHit])),
                ("b".into(), access(&[], &[ClosestHit])),
                ("c".into(), access(&[ClosestHit], &[])),
            ],
        };
        let before = payload(&[1, 2, 3]);
        let mut inside = before.clone();
        paq.enter_stage(&mut inside, ClosestHit);
        assert_eq!(defined(&inside), [true, false, true]);
        let mut untouched = payload(&[1]);
        let none = PayloadAccess {
            fields: vec![("a".into(), access(&[Caller], &[Caller]))],
        };
        none.enter_stage(&mut untouched, ClosestHit);
        assert_eq!(defined(&untouched), [false]);
        assert_eq!(
            none.leave_stage(&payload(&[1]), untouched, ClosestHit),
            payload(&[1])
        );
        let after = paq.leave_stage(&before, payload(&[7, 8, 9]), ClosestHit);
        assert_eq!(after, payload(&[7, 8, 3]));
    }
}
