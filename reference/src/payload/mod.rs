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
use ser_lang::ast::{AccessKind, StructDecl, Type};
use std::collections::BTreeMap;

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

    const ALL: [PaqStage; 4] = [
        PaqStage::Caller,
        PaqStage::AnyHit,
        PaqStage::ClosestHit,
        PaqStage::Miss,
    ];

    fn bit(self) -> u8 {
        1 << self as u8
    }

    /// The stages before a `read` of this one in the sequence
    /// `caller -> anyhit -> (closesthit|miss) -> caller`, where anyhit
    /// "both precedes and succeeds itself"
    /// (`dxr.paq.sequence.caller_anyhit_shading_caller`,
    /// `dxr.paq.sequence.anyhit_precedes_and_succeeds_itself`): a caller
    /// reads at the end, after every stage, its own write included (the
    /// `caller -> caller` transition, `dxr.paq.sequence.no_shader_caller_to_caller`).
    fn preceded_by(self) -> &'static [PaqStage] {
        use PaqStage::*;
        match self {
            Caller => &[Caller, AnyHit, ClosestHit, Miss],
            AnyHit | ClosestHit | Miss => &[Caller, AnyHit],
        }
    }

    /// The stages after a `write` of this one in the same sequence: a
    /// caller writes at the start, before every stage.
    fn succeeded_by(self) -> &'static [PaqStage] {
        use PaqStage::*;
        match self {
            Caller | AnyHit => &[AnyHit, ClosestHit, Miss, Caller],
            ClosestHit | Miss => &[Caller],
        }
    }
}

/// The qualifiers of one field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FieldAccess {
    read: u8,
    write: u8,
}

impl FieldAccess {
    /// The stages a field's qualifiers name; a name outside DXR's
    /// qualifiers and stages names none (`crate::validate` reports it).
    pub fn of(qualifiers: &[ser_lang::ast::PayloadAccess]) -> FieldAccess {
        let mut acc = FieldAccess::default();
        for q in qualifiers {
            let mask = match q.kind {
                AccessKind::Read => &mut acc.read,
                AccessKind::Write => &mut acc.write,
                AccessKind::Other(_) => continue,
            };
            for stage in q.stages.iter().filter_map(|s| PaqStage::from_name(s)) {
                *mask |= stage.bit();
            }
        }
        acc
    }

    pub fn reads(&self, s: PaqStage) -> bool {
        self.read & s.bit() != 0
    }

    pub fn writes(&self, s: PaqStage) -> bool {
        self.write & s.bit() != 0
    }

    /// The `read` stages no `write` stage precedes in the sequence
    /// (`dxr.paq.sequence.read_preceded_by_write`).
    pub fn reads_without_write(&self) -> Vec<PaqStage> {
        PaqStage::ALL
            .into_iter()
            .filter(|&s| self.reads(s) && !s.preceded_by().iter().any(|&w| self.writes(w)))
            .collect()
    }

    /// The `write` stages no `read` stage succeeds in the sequence
    /// (`dxr.paq.sequence.write_succeeded_by_read`).
    pub fn writes_without_read(&self) -> Vec<PaqStage> {
        PaqStage::ALL
            .into_iter()
            .filter(|&s| self.writes(s) && !s.succeeded_by().iter().any(|&r| self.reads(r)))
            .collect()
    }
}

/// What applies to one member of a `[raypayload]` struct: its own
/// qualifiers, or, for a member of a `[raypayload]` type, that type's
/// qualifiers field by field (`dxr.paq.syntax.nested_payload_member_not_annotated`,
/// `dxr.paq.example.nested_payload_struct_unannotated_member`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Member {
    Field(FieldAccess),
    Nested(PayloadAccess),
}

/// The qualifiers of a `[raypayload]` struct, member by member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PayloadAccess {
    pub fields: Vec<(String, Member)>,
}

impl PayloadAccess {
    /// The qualifiers of a struct, if it is a `[raypayload]` struct;
    /// `payloads` holds those of the `[raypayload]` structs declared before
    /// it. The declaration rules are `crate::validate`'s: a member without
    /// qualifiers (other than a nested payload) names no stage here.
    pub fn of(
        decl: &StructDecl,
        payloads: &BTreeMap<String, PayloadAccess>,
    ) -> Option<PayloadAccess> {
        if !is_raypayload(decl) {
            return None;
        }
        let fields = decl
            .fields
            .iter()
            .map(|f| {
                let nested = match &f.ty {
                    Type::Struct(n) => payloads.get(n).filter(|_| f.access.is_empty()),
                    _ => None,
                };
                let member = match nested {
                    Some(p) => Member::Nested(p.clone()),
                    None => Member::Field(FieldAccess::of(&f.access)),
                };
                (f.name.clone(), member)
            })
            .collect();
        Some(PayloadAccess { fields })
    }

    fn members_mut<'v>(&self, v: &'v mut Value) -> impl Iterator<Item = (&Member, &'v mut Value)> {
        let items = match v {
            Value::Struct { fields, .. } => fields.as_mut_slice(),
            _ => &mut [],
        };
        self.fields.iter().map(|(_, m)| m).zip(items.iter_mut())
    }

    /// Marks unspecified every field for which `keep` is false.
    fn mask(&self, v: &mut Value, keep: &dyn Fn(&FieldAccess) -> bool, why: &str) {
        for (m, f) in self.members_mut(v) {
            match m {
                Member::Field(a) if !keep(a) => *f = unspecify(f.clone(), why),
                Member::Field(_) => {}
                Member::Nested(p) => p.mask(f, keep, why),
            }
        }
    }

    /// Into a call: the caller passes the fields it may write; for
    /// `HitObject::Invoke` also those any-hit may write.
    pub fn enter_call(&self, v: &mut Value, invoke: bool) {
        let invoke = invoke && !mutation::active(Mutation::PaqInvokeAnyhitWriteIgnored);
        self.mask(
            v,
            &|a| a.writes(PaqStage::Caller) || invoke && a.writes(PaqStage::AnyHit),
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
            &|a| {
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
            &|a| a.reads(s),
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
        for ((m, f), old) in self.members_mut(&mut out).zip(kept) {
            match m {
                Member::Field(a)
                    if !a.writes(s) && !mutation::active(Mutation::PaqStageWriteNotRestored) =>
                {
                    *f = old
                }
                Member::Field(_) => {}
                Member::Nested(p) => *f = p.leave_stage(&old, f.clone(), s),
            }
        }
        out
    }

    /// A stage that runs no code: a NULL shader identifier "is equivalent
    /// to executing an empty shader, so in that case the stage counts as
    /// executed" (`dxr.paq.semantics.write.null_shader_counts_as_executed`):
    /// its copy-in and copy-back still apply, so a field it may write but
    /// not read is overwritten with an undefined value.
    pub fn empty_stage(&self, payload: Value, s: PaqStage) -> Value {
        let mut inside = payload.clone();
        self.enter_stage(&mut inside, s);
        self.leave_stage(&payload, inside, s)
    }

    /// The qualifiers of a field (not of a nested payload member).
    pub fn field(&self, name: &str) -> Option<&FieldAccess> {
        self.fields.iter().find_map(|(n, m)| match m {
            Member::Field(a) if n == name => Some(a),
            _ => None,
        })
    }
}

/// Whether a struct is declared `[raypayload]`.
pub fn is_raypayload(decl: &StructDecl) -> bool {
    decl.attributes.iter().any(|a| a.name == "raypayload")
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
                ("a".into(), Member::Field(access(&[ClosestHit], &[AnyHit]))),
                ("b".into(), Member::Field(access(&[Miss], &[Caller]))),
                ("c".into(), Member::Field(access(&[Caller], &[Caller]))),
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
                (
                    "a".into(),
                    Member::Field(access(&[ClosestHit], &[ClosestHit])),
                ),
                ("b".into(), Member::Field(access(&[], &[ClosestHit]))),
                ("c".into(), Member::Field(access(&[ClosestHit], &[]))),
            ],
        };
        let before = payload(&[1, 2, 3]);
        let mut inside = before.clone();
        paq.enter_stage(&mut inside, ClosestHit);
        assert_eq!(defined(&inside), [true, false, true]);
        let mut untouched = payload(&[1]);
        let none = PayloadAccess {
            fields: vec![("a".into(), Member::Field(access(&[Caller], &[Caller])))],
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

    #[test]
    fn a_null_shader_runs_as_an_empty_stage() {
        use PaqStage::*;
        let paq = PayloadAccess {
            fields: vec![
                (
                    "a".into(),
                    Member::Field(access(&[Caller], &[Caller, Miss])),
                ),
                (
                    "b".into(),
                    Member::Field(access(&[Caller, Miss], &[Caller, Miss])),
                ),
                ("c".into(), Member::Field(access(&[Caller], &[Caller]))),
            ],
        };
        let after = paq.empty_stage(payload(&[1, 2, 3]), Miss);
        assert_eq!(defined(&after), [false, true, true]);
    }

    #[test]
    fn a_nested_payload_follows_its_own_qualifiers() {
        use PaqStage::*;
        let base = PayloadAccess {
            fields: vec![
                ("x".into(), Member::Field(access(&[Caller], &[Caller]))),
                ("y".into(), Member::Field(access(&[Caller], &[Miss]))),
            ],
        };
        let paq = PayloadAccess {
            fields: vec![("b".into(), Member::Nested(base))],
        };
        let mut v = Value::Struct {
            name: "P".into(),
            fields: vec![payload(&[1, 2])],
        };
        paq.enter_call(&mut v, false);
        let Value::Struct { fields, .. } = &v else {
            unreachable!()
        };
        assert_eq!(defined(&fields[0]), [true, false]);
    }
}
