//! Static validation: what a compiler must reject (errors) or point out
//! (warnings) before anything runs, each diagnostic with a stable code and
//! the clause it enforces. The WebAssembly test suite's `assert_invalid`
//! scripts are the model: a negative case names the codes it expects.
//!
//! Rules, one module each: [`stages`] (where HitObject and
//! MaybeReorderThread may be used), [`storage`] (where a HitObject may not
//! live), [`operands`] (constant and undefined operands the DXIL section
//! checks, operand kinds and attribute sizes), [`paq`] (accesses to
//! payload fields), [`paq_declaration`] (the declaration rules of payload
//! access qualifiers), [`paq_use`] (what may be a payload), [`ray_query`]
//! (RayQuery's template arguments and flags). Which rules apply, and as errors or warnings, follows the
//! profile: the DXIL section's warnings are in both proposal revisions and
//! absent from Shader Model 6.9.

mod constant;
mod copies;
mod facts;
mod names;
mod operands;
mod paq;
mod paq_declaration;
mod paq_use;
mod ray_query;
mod stages;
mod storage;

use crate::mutation::{self, Mutation};
use crate::profile::Profile;
use crate::program::Program;
use ser_lang::Span;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }

    pub fn from_name(s: &str) -> Option<Severity> {
        match s {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            _ => None,
        }
    }
}

macro_rules! codes {
    ($($code:ident = $name:literal, $severity:ident, $what:literal;)*) => {
        /// A diagnostic's stable code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum DiagCode {
            $(#[doc = $what] $code,)*
        }

        impl DiagCode {
            pub const ALL: &'static [DiagCode] = &[$(DiagCode::$code,)*];

            pub fn name(self) -> &'static str {
                match self {
                    $(DiagCode::$code => $name,)*
                }
            }

            /// Errors make a program invalid; warnings do not.
            pub fn severity(self) -> Severity {
                match self {
                    $(DiagCode::$code => Severity::$severity,)*
                }
            }

            /// What the code means, for people.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(DiagCode::$code => $what,)*
                }
            }
        }
    };
}

codes! {
    HitObjectStage = "hit_object_stage", Error,
        "HitObject or one of its functions in a stage other than raygeneration, closesthit or miss";
    ReorderStage = "reorder_stage", Error,
        "MaybeReorderThread (ReorderThread) in a stage other than raygeneration";
    TraceRayStage = "trace_ray_stage", Error,
        "TraceRay in a stage other than raygeneration, closesthit or miss";
    HitObjectStorage = "hit_object_storage", Error,
        "a HitObject in a buffer, groupshared memory, a ray payload or intersection attributes";
    RootConstantOffset = "root_constant_offset", Error,
        "a constant LoadLocalRootTableConstant offset that is not a multiple of 4";
    AttributeSize = "attribute_size", Error,
        "an attribute type larger than the pipeline's maximum attribute size";
    AttributeType = "attribute_type", Error,
        "an attribute type that is not a user-defined struct";
    PayloadType = "payload_type", Error,
        "a payload that is not a user-defined struct";
    PayloadNotVariable = "payload_not_variable", Error,
        "a payload operand that is not a variable (it is passed inout)";
    AccelerationStructureOperand = "acceleration_structure_operand", Error,
        "HitObject::TraceRay's first operand is not an acceleration structure";
    RayQueryOperand = "ray_query_operand", Error,
        "HitObject::FromRayQuery's first operand is not a RayQuery";
    UndefinedOperand = "undefined_operand", Error,
        "a coherence hint, hint bit count, record index or root constant offset that is never defined";
    RayQueryTemplate = "ray_query_template", Error,
        "a RayQuery template argument that is not a compile-time constant";
    RayQuerySkipClosestHit = "ray_query_skip_closest_hit", Error,
        "RAY_FLAG_SKIP_CLOSEST_HIT_SHADER in a RayQuery's template flags or a constant TraceRayInline flags operand";
    ReorderCoherentResource = "reordercoherent_resource", Error,
        "[reordercoherent] on a resource that is not a UAV";
    PayloadAttribute = "payload_attribute", Error,
        "a struct whose fields carry payload access qualifiers, used as a payload without the [raypayload] attribute";
    PayloadQualifierMissing = "payload_qualifier_missing", Error,
        "a member of a [raypayload] struct without payload access qualifiers (other than a member of a [raypayload] type)";
    PayloadQualifier = "payload_qualifier", Error,
        "a payload access qualifier other than read and write, or a stage other than anyhit, closesthit, miss and caller";
    PayloadQualifierCount = "payload_qualifier_count", Error,
        "a payload field that does not declare exactly one read and one write qualifier";
    PayloadQualifierType = "payload_qualifier_type", Error,
        "payload access qualifiers on a member whose type is not a scalar, array, struct, vector or matrix";
    PayloadNestedQualified = "payload_nested_qualified", Error,
        "payload access qualifiers on a member whose type is a [raypayload] struct";
    PayloadReadWithoutWrite = "payload_read_without_write", Error,
        "a read stage of a payload field that no write stage precedes";
    PayloadWriteWithoutRead = "payload_write_without_read", Error,
        "a write stage of a payload field that no read stage succeeds";
    IntersectionPayload = "intersection_payload", Error,
        "an intersection shader with a payload parameter";
    PayloadAccess = "payload_access", Warning,
        "a shader reads or writes a payload field its stage has no access to (legal: the access is to its local working copy, and the compiler should warn)";
    InstanceMaskBits = "instance_mask_bits", Warning,
        "a constant instance inclusion mask with bits above the lowest 8";
    RayContributionBits = "ray_contribution_bits", Warning,
        "a constant ray contribution to the hit group index with bits above the lowest 4";
    GeometryMultiplierBits = "geometry_multiplier_bits", Warning,
        "a constant geometry contribution multiplier with bits above the lowest 4";
    MissIndexBits = "miss_index_bits", Warning,
        "a constant miss shader index with bits above the lowest 16";
    HintBits = "hint_bits", Warning,
        "a constant coherence hint bit count over 32";
    HitObjectCopy = "hit_object_copy", Error,
        "a hit object copied (assigned, initialised from another, returned, or passed out or inout): GLSL's hitObject is an opaque type (Vulkan profiles)";
    SerNameUndeclared = "ser_name_undeclared", Error,
        "an unqualified HitObject or MaybeReorderThread with no `using namespace dx;` in scope (Shader Model 6.9 declares them in namespace dx; cases whose names are taken as written)";
    ShaderModel = "shader_model", Error,
        "HitObject, MaybeReorderThread, reordercoherent or REORDER_SCOPE in a library compiled for a shader model below 6.9";
    RayFlagsCombination = "ray_flags_combination", Warning,
        "a constant ray flag combination the traversal rules call invalid";
}

impl DiagCode {
    pub fn from_name(s: &str) -> Option<DiagCode> {
        DiagCode::ALL.iter().copied().find(|c| c.name() == s)
    }

    /// Whether the profile has the rule. The warnings come from the DXIL
    /// section of the proposal, which Shader Model 6.9 dropped; the
    /// Vulkan extensions are checked for the stage and storage rules only.
    fn applies(self, profile: Profile) -> bool {
        use DiagCode::*;
        match self {
            HitObjectStage | ReorderStage | TraceRayStage | HitObjectStorage => true,
            ReorderCoherentResource => profile.has_reorder_scope(),
            SerNameUndeclared | ShaderModel => profile == Profile::Sm69,
            HitObjectCopy => !profile.is_hlsl(),
            // DXR's payload access qualifiers, which every HLSL profile
            // runs on (`dxr.paq.local_copy.compiler_attempts_to_warn`).
            PayloadAccess => profile.is_hlsl(),
            _ if self.severity() == Severity::Warning => {
                matches!(
                    profile,
                    Profile::MaybeReorderThread0027 | Profile::ReorderThread0027
                ) || profile == Profile::Sm69 && mutation::active(Mutation::Sm69KeepsDxilWarnings)
            }
            _ => profile.is_hlsl(),
        }
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    #[serde(with = "code_name")]
    pub code: DiagCode,
    pub severity: Severity,
    /// The clause the rule enforces.
    pub clause: String,
    pub message: String,
    /// Where: the function or declaration, and the position.
    pub within: String,
    pub span: Span,
}

mod code_name {
    use super::DiagCode;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(c: &DiagCode, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(c.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DiagCode, D::Error> {
        let s = String::deserialize(d)?;
        DiagCode::from_name(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown code `{s}`")))
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} at {} (in `{}`): {} [{}]",
            self.severity.name(),
            self.code.name(),
            self.span,
            self.within,
            self.message,
            self.clause
        )
    }
}

/// Pipeline settings the rules read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// `MaxAttributeSizeInBytes` of the pipeline's shader config.
    pub max_attribute_size: u32,
}

impl Default for Limits {
    /// D3D12's largest attribute size, 32 bytes.
    fn default() -> Self {
        Limits {
            max_attribute_size: 32,
        }
    }
}

/// The diagnostics of a program under a profile, in source order.
pub fn validate(program: &Program, profile: Profile, limits: &Limits) -> Vec<Diagnostic> {
    let facts = facts::ProgramFacts::of(program);
    let mut v = Validator {
        program,
        profile,
        limits,
        facts: &facts,
        out: Vec::new(),
    };
    stages::check(&mut v);
    storage::check(&mut v);
    operands::check(&mut v);
    paq::check(&mut v);
    ray_query::check(&mut v);
    paq_declaration::check(&mut v);
    paq_use::check(&mut v);
    names::check(&mut v);
    copies::check(&mut v);
    v.out.sort_by_key(|d| (d.span.line, d.span.column, d.code));
    // One finding per code and place, however many entry points reach it.
    v.out.dedup_by(|a, b| {
        (a.code, &a.within, a.span.line, a.span.column)
            == (b.code, &b.within, b.span.line, b.span.column)
    });
    v.out
}

/// Whether any diagnostic is an error.
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(|d| d.severity == Severity::Error)
}

struct Validator<'p> {
    program: &'p Program,
    profile: Profile,
    limits: &'p Limits,
    facts: &'p facts::ProgramFacts<'p>,
    out: Vec<Diagnostic>,
}

impl Validator<'_> {
    fn report(&mut self, code: DiagCode, clause: &str, within: &str, span: Span, message: String) {
        if code.applies(self.profile) {
            let severity = if code == DiagCode::PayloadAccess
                && mutation::active(Mutation::PayloadAccessAsError)
            {
                Severity::Error
            } else {
                code.severity()
            };
            self.out.push(Diagnostic {
                code,
                severity,
                clause: clause.to_string(),
                message,
                within: within.to_string(),
                span,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(src: &str, profile: Profile) -> Vec<&'static str> {
        let lib = ser_lang::parser::parse(src).expect("parses");
        let program = Program::new(lib).expect("names resolve");
        validate(&program, profile, &Limits::default())
            .iter()
            .map(|d| d.code.name())
            .collect()
    }

    const HELPER: &str = r#"
        struct P { uint v; };
        uint Helper() { HitObject h; MaybeReorderThread(0, 0); return h.GetRayFlags(); }
        uint Unused() { HitObject h; return h.GetRayFlags(); }
    "#;

    #[test]
    fn helpers_take_the_stages_that_reach_them() {
        let p = Profile::MaybeReorderThread0027;
        let raygen =
            format!("{HELPER}[shader(\"raygeneration\")] void RG() {{ uint x = Helper(); }}");
        assert_eq!(codes(&raygen, p), Vec::<&str>::new());
        let miss = format!("{HELPER}[shader(\"miss\")] void M(inout P p) {{ p.v = Helper(); }}");
        assert_eq!(codes(&miss, p), ["reorder_stage"]);
        let callable =
            format!("{HELPER}[shader(\"callable\")] void C(inout P p) {{ p.v = Helper(); }}");
        // The variable's declaration, then the call, then its use.
        assert_eq!(
            codes(&callable, p),
            ["hit_object_stage", "reorder_stage", "hit_object_stage"]
        );
    }

    #[test]
    fn trace_ray_only_in_raygen_closesthit_and_miss() {
        let p = Profile::MaybeReorderThread0027;
        let lib = |stage: &str, sig: &str| {
            format!(
                "struct P {{ uint v; }}; struct A {{ uint x; }};
                RaytracingAccelerationStructure Scene : register(t0);
                void Trace() {{ P q; RayDesc r; TraceRay(Scene, 0, 0xFF, 0, 1, 0, r, q); }}
                [shader(\"{stage}\")] void E({sig}) {{ Trace(); }}"
            )
        };
        for (stage, sig) in [
            ("raygeneration", ""),
            ("closesthit", "inout P p, in A a"),
            ("miss", "inout P p"),
        ] {
            assert!(codes(&lib(stage, sig), p).is_empty(), "{stage}");
        }
        for (stage, sig) in [
            ("anyhit", "inout P p, in A a"),
            ("intersection", ""),
            ("callable", "inout P p"),
        ] {
            assert_eq!(codes(&lib(stage, sig), p), ["trace_ray_stage"], "{stage}");
            assert_eq!(
                codes(&lib(stage, sig), Profile::VulkanExt),
                ["trace_ray_stage"]
            );
        }
    }

    #[test]
    fn undefined_only_when_never_assigned() {
        let p = Profile::MaybeReorderThread0027;
        let src = |body: &str| format!("[shader(\"raygeneration\")] void RG() {{ {body} }}");
        assert_eq!(
            codes(&src("uint h; MaybeReorderThread(h, 4);"), p),
            ["undefined_operand"]
        );
        assert!(codes(
            &src("uint h; if (DispatchRaysIndex().x > 0) h = 1; MaybeReorderThread(h, 4);"),
            p
        )
        .is_empty());
        assert!(codes(&src("uint h = 3; MaybeReorderThread(h, 4);"), p).is_empty());
    }

    #[test]
    fn warnings_follow_the_profile() {
        let src = "[shader(\"raygeneration\")] void RG() { const uint B = 40; MaybeReorderThread(1, B); }";
        assert_eq!(codes(src, Profile::MaybeReorderThread0027), ["hint_bits"]);
        assert_eq!(codes(src, Profile::ReorderThread0027), ["hint_bits"]);
        assert!(codes(src, Profile::Sm69).is_empty());
    }

    #[test]
    fn payload_declarations() {
        let p = Profile::Sm69;
        let decl = |fields: &str| {
            format!(
                "struct [raypayload] Base {{ uint x : read(caller) : write(caller); }};
                struct [raypayload] P {{ {fields} }};
                [shader(\"miss\")] void M(inout P p) {{ }}"
            )
        };
        let cases = [
            ("uint a : read(caller) : write(caller);", vec![]),
            ("Base b;", vec![]),
            ("uint a : read() : write();", vec![]),
            ("uint a;", vec!["payload_qualifier_missing"]),
            (
                "Base b : read(caller) : write(caller);",
                vec!["payload_nested_qualified"],
            ),
            (
                "uint a : read(caller) : modify(caller) : write(caller);",
                vec!["payload_qualifier"],
            ),
            (
                "uint a : read(caller, intersection) : write(caller);",
                vec!["payload_qualifier"],
            ),
            (
                "uint a : read(caller) : read(miss) : write(caller);",
                vec!["payload_qualifier_count"],
            ),
            (
                "uint a : write(caller) : read(anyhit) : write(anyhit);",
                vec!["payload_qualifier_count"],
            ),
            (
                "HitObject h : read(caller) : write(caller);",
                vec!["hit_object_storage", "payload_qualifier_type"],
            ),
            (
                "uint a : read(closesthit) : write(miss);",
                vec!["payload_read_without_write", "payload_write_without_read"],
            ),
            (
                "uint a : read(caller, closesthit) : write(miss);",
                vec!["payload_read_without_write"],
            ),
            (
                "uint a : read(closesthit) : write(caller, miss);",
                vec!["payload_write_without_read"],
            ),
            // "'anyhit' both precedes and succeeds itself".
            ("uint a : read(anyhit) : write(anyhit);", vec![]),
            ("uint a : read(caller) : write(closesthit, miss);", vec![]),
            ("uint a : read(closesthit) : write(caller, anyhit);", vec![]),
        ];
        for (fields, want) in cases {
            assert_eq!(codes(&decl(fields), p), want, "{fields}");
        }
        // GLSL has no payload access qualifiers.
        assert!(codes(&decl("uint a;"), Profile::VulkanExt).is_empty());
    }

    #[test]
    fn payload_uses() {
        let p = Profile::Sm69;
        let lib = |attr: &str, stage: &str, sig: &str| {
            format!(
                "struct {attr} P {{ uint a : read(caller) : write(caller); }};
                [shader(\"{stage}\")] void E({sig}) {{ }}"
            )
        };
        assert!(codes(&lib("[raypayload]", "miss", "inout P p"), p).is_empty());
        assert_eq!(
            codes(&lib("", "miss", "inout P p"), p),
            ["payload_attribute"]
        );
        assert_eq!(
            codes(
                &lib(
                    "",
                    "closesthit",
                    "inout P p, in BuiltInTriangleIntersectionAttributes a"
                ),
                p
            ),
            ["payload_attribute"]
        );
        assert!(codes(&lib("", "callable", "inout P p"), p).is_empty());
        assert_eq!(
            codes(&lib("[raypayload]", "intersection", "inout P p"), p),
            ["intersection_payload"]
        );
        let trace = "struct P { uint a : read(caller) : write(caller); };
            RaytracingAccelerationStructure Scene : register(t0);
            [shader(\"raygeneration\")] void RG() { P q; RayDesc r; TraceRay(Scene, 0, 0xFF, 0, 1, 0, r, q); }";
        assert_eq!(codes(trace, p), ["payload_attribute"]);
        assert!(codes(&trace.replace(" : read(caller) : write(caller)", ""), p).is_empty());
    }

    #[test]
    fn storage_follows_the_revision() {
        let src = "groupshared HitObject G; RWStructuredBuffer<HitObject> B : register(u0);";
        assert_eq!(
            codes(src, Profile::MaybeReorderThread0027),
            ["hit_object_storage", "hit_object_storage"]
        );
        assert_eq!(
            codes(src, Profile::ReorderThread0027),
            ["hit_object_storage"]
        );
    }
}
