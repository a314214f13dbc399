//! Judging a compiler's backend: a compile-only claim's runtime cases, and
//! negative cases judged by rejection (capability `rejection`), located at
//! the line where the case breaks its rule.

use ser_harness::backend::{Backend, BackendError, Execution, Output};
use ser_harness::claim::Phase;
use ser_harness::load::{load_dir, Case, Expected};
use ser_harness::verdict::{judge, Verdict};
use ser_reference::validate::Severity;
use ser_reference::Profile;
use std::path::Path;

struct Compiler {
    phase: Phase,
    capabilities: Vec<String>,
    answer: Output,
}

impl Backend for Compiler {
    fn name(&self) -> &str {
        "a compiler"
    }
    fn profile(&self) -> Profile {
        Profile::MaybeReorderThread0027
    }
    fn capabilities(&self) -> Vec<String> {
        self.capabilities.clone()
    }
    fn phase(&self) -> Phase {
        self.phase
    }
    fn run(&self, _: &Case) -> Result<Execution, BackendError> {
        Ok(Execution {
            output: self.answer.clone(),
            legal: None,
        })
    }
}

fn compiler(phase: Phase, answer: Output) -> Compiler {
    Compiler {
        phase,
        capabilities: vec![
            "shader_execution_reorder".into(),
            "rejection".into(),
            "callable_shaders".into(),
        ],
        answer,
    }
}

fn case(id: &str) -> Case {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    load_dir(&dir)
        .into_iter()
        .filter_map(Result::ok)
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no case {id}"))
}

fn compiled(invalid: Option<&str>) -> Output {
    Output::Compiled {
        output: "SPIR-V".into(),
        invalid: invalid.map(str::to_string),
    }
}

fn rejected(lines: &[u32]) -> Output {
    Output::Rejected {
        message: "error[E1]: no".into(),
        lines: lines.to_vec(),
    }
}

#[test]
fn a_compile_only_claim_passes_a_runtime_case_that_compiles_to_valid_code() {
    let c = case("hit_object/nop/is_nop");
    let r = judge(&c, &compiler(Phase::Compile, compiled(None)));
    assert_eq!(r.verdict, Verdict::Pass, "{}", r.message);
    assert!(r.message.contains("compiled, not run"), "{}", r.message);
    let r = judge(
        &c,
        &compiler(Phase::Compile, compiled(Some("spirv-val: bad"))),
    );
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(r.message.contains("its output is invalid: spirv-val: bad"));
    let r = judge(&c, &compiler(Phase::Compile, rejected(&[])));
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(r.message.contains("rejected a valid program"));
    // A backend whose claim says it runs cases must run them.
    let r = judge(&c, &compiler(Phase::Run, compiled(None)));
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(r.message.contains("ran nothing"), "{}", r.message);
}

#[test]
fn a_negative_case_passes_only_when_rejected_where_the_rule_is_broken() {
    // `HitObject hs[2];` in an any-hit shader, at line 9 of the library.
    let c = case("validate/stages/hit_object_array_variable_in_anyhit");
    let r = judge(&c, &compiler(Phase::Compile, rejected(&[9])));
    assert_eq!(r.verdict, Verdict::Pass, "{}", r.message);
    assert!(r.message.contains("judged by rejection"));
    let r = judge(&c, &compiler(Phase::Compile, rejected(&[3])));
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(
        r.message.contains("rejected for another reason"),
        "{}",
        r.message
    );
    let r = judge(&c, &compiler(Phase::Compile, rejected(&[])));
    assert_eq!(r.verdict, Verdict::Pass);
    assert!(r.message.contains("no location"), "{}", r.message);
    let r = judge(&c, &compiler(Phase::Compile, compiled(None)));
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(r.message.contains("accepted the program"));
}

#[test]
fn a_control_must_be_accepted_with_valid_code() {
    let c = case("validate/stages/hit_object_make_miss_in_anyhit_control");
    assert!(matches!(&c.expect, Expected::Diagnostics(d) if d.is_empty()));
    let r = judge(&c, &compiler(Phase::Compile, compiled(None)));
    assert_eq!(r.verdict, Verdict::Pass, "{}", r.message);
    let r = judge(&c, &compiler(Phase::Compile, compiled(Some("bad"))));
    assert_eq!(r.verdict, Verdict::Fail);
    let r = judge(&c, &compiler(Phase::Compile, rejected(&[10])));
    assert_eq!(r.verdict, Verdict::Fail);
}

#[test]
fn rejection_judges_no_warning_only_case_and_needs_claiming() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let warning_only = load_dir(&dir)
        .into_iter()
        .filter_map(Result::ok)
        .find(|c| {
            c.profiles.contains(&Profile::MaybeReorderThread0027)
                && matches!(&c.expect, Expected::Diagnostics(d)
                    if d.iter().any(|e| !e.optional)
                        && d.iter().all(|e| e.severity == Severity::Warning))
        })
        .expect("a case that requires warnings only");
    let r = judge(&warning_only, &compiler(Phase::Compile, compiled(None)));
    assert_eq!(r.verdict, Verdict::NotApplicable, "{}", warning_only.id);
    let c = case("validate/stages/hit_object_array_variable_in_anyhit");
    let mut none = compiler(Phase::Compile, rejected(&[9]));
    none.capabilities.clear();
    assert_eq!(judge(&c, &none).verdict, Verdict::NotApplicable);
}
