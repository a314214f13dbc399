//! The declaration rules of payload access qualifiers (DXR, "Payload
//! access qualifiers" > Syntax, and "Shader stage sequence"), each an
//! error: the text states them as requirements ("must", "require", "is not
//! allowed", "only") or as "enforced by the compiler at the payload
//! declaration".
//!
//! For every member of a `[raypayload]` struct:
//! - it carries qualifiers (`dxr.paq.syntax.every_member_annotated`),
//!   unless its type is itself a `[raypayload]` struct, whose member
//!   carries none (`dxr.paq.syntax.nested_payload_member_not_annotated`,
//!   `dxr.paq.example.nested_payload_struct_unannotated_member`);
//! - its type is a scalar, array, struct, vector or matrix
//!   (`dxr.paq.syntax.allowed_types`);
//! - it declares one `read` and one `write` (`dxr.paq.syntax.one_read_one_write`);
//! - a write precedes each read stage and a read succeeds each write stage
//!   (`dxr.paq.sequence.read_preceded_by_write`,
//!   `dxr.paq.sequence.write_succeeded_by_read`).
//!
//! And in any struct, a qualifier is `read` or `write` over the stages
//! `anyhit`, `closesthit`, `miss` and `caller`
//! (`dxr.paq.syntax.qualifiers_and_stages`).

use super::{DiagCode, Validator};
use crate::payload::{is_raypayload, FieldAccess, PaqStage};
use ser_lang::ast::{AccessKind, Field, Item, StructDecl, Type};

pub fn check(v: &mut Validator) {
    let program = v.program;
    for item in &program.library.items {
        let Item::Struct(s) = item else { continue };
        for f in &s.fields {
            qualifier_names(v, s, f);
            if is_raypayload(s) {
                member(v, s, f);
            }
        }
    }
}

/// `read` and `write`, over DXR's four stages.
fn qualifier_names(v: &mut Validator, s: &StructDecl, f: &Field) {
    for q in &f.access {
        if let AccessKind::Other(name) = &q.kind {
            report(
                v,
                DiagCode::PayloadQualifier,
                "dxr.paq.syntax.qualifiers_and_stages",
                s,
                f,
                format!("`{name}` is not a payload access qualifier: expected read or write"),
            );
        }
        for stage in q.stages.iter().filter(|n| PaqStage::from_name(n).is_none()) {
            report(
                v,
                DiagCode::PayloadQualifier,
                "dxr.paq.syntax.qualifiers_and_stages",
                s,
                f,
                format!(
                    "`{stage}` is not a payload stage: expected anyhit, closesthit, miss or caller"
                ),
            );
        }
    }
}

/// The rules for one member of a `[raypayload]` struct.
fn member(v: &mut Validator, s: &StructDecl, f: &Field) {
    let nested = matches!(&f.ty, Type::Struct(n) if v.program.payload_access(n).is_some());
    if f.access.is_empty() {
        if !nested {
            report(
                v,
                DiagCode::PayloadQualifierMissing,
                "dxr.paq.syntax.every_member_annotated",
                s,
                f,
                "has no payload access qualifiers".into(),
            );
        }
        return;
    }
    if nested {
        report(
            v,
            DiagCode::PayloadNestedQualified,
            "dxr.paq.syntax.nested_payload_member_not_annotated",
            s,
            f,
            "is of a [raypayload] type, whose own qualifiers apply: the member takes none".into(),
        );
        return;
    }
    if !matches!(
        f.ty,
        Type::Scalar(_) | Type::Vector(..) | Type::Matrix(..) | Type::Struct(_) | Type::Array(..)
    ) {
        report(
            v,
            DiagCode::PayloadQualifierType,
            "dxr.paq.syntax.allowed_types",
            s,
            f,
            "carries payload access qualifiers but is not a scalar, array, struct, vector or matrix".into(),
        );
    }
    let count = |k: AccessKind| f.access.iter().filter(|q| q.kind == k).count();
    let (reads, writes) = (count(AccessKind::Read), count(AccessKind::Write));
    if (reads, writes) != (1, 1) {
        report(
            v,
            DiagCode::PayloadQualifierCount,
            "dxr.paq.syntax.one_read_one_write",
            s,
            f,
            format!("declares {reads} read and {writes} write qualifier(s), not one of each"),
        );
    }
    let access = FieldAccess::of(&f.access);
    let unwritten = access.reads_without_write();
    if !unwritten.is_empty() {
        report(
            v,
            DiagCode::PayloadReadWithoutWrite,
            "dxr.paq.sequence.read_preceded_by_write",
            s,
            f,
            format!("reads in {} with no write stage before", names(&unwritten)),
        );
    }
    let unread = access.writes_without_read();
    if !unread.is_empty() {
        report(
            v,
            DiagCode::PayloadWriteWithoutRead,
            "dxr.paq.sequence.write_succeeded_by_read",
            s,
            f,
            format!("writes in {} with no read stage after", names(&unread)),
        );
    }
}

fn names(stages: &[PaqStage]) -> String {
    stages
        .iter()
        .map(|s| s.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn report(
    v: &mut Validator,
    code: DiagCode,
    clause: &str,
    s: &StructDecl,
    f: &Field,
    what: String,
) {
    v.report(
        code,
        clause,
        &s.name,
        f.span,
        format!("field `{}` of struct `{}`: {what}", f.name, s.name),
    );
}
