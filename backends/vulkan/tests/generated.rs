//! Generated fuzz cases in the dialect of each claim this backend makes
//! (GL_NV with SER on NVIDIA's driver; GL_EXT with SER on a driver with
//! `VK_EXT_ray_tracing_invocation_reorder`; `vulkan-ext` without SER, with
//! ray queries, on lavapipe) are inside that claim, and every entry point of them
//! emits as GLSL and compiles with glslang: a fuzz campaign on a device
//! judges its cases rather than declining them. No device is needed.

mod common;

use common::par_map;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use ser_generate::case::{self as gen};
use ser_generate::dialect::{Dialect, Language};
use ser_harness::claim::Claim;
use ser_harness::load::load_generated;
use ser_vulkan::backend::{capabilities, modules, profile};
use ser_vulkan::device::Features;
use ser_vulkan::emit::Spelling;
use std::path::Path;

const CASES: usize = 48;

fn check(features: Features, language: Language, spelling: Spelling) {
    let served = profile(features, None);
    let caps = capabilities(features, served);
    let claim = Claim::new(served, &caps);
    let dialect = Dialect::with_capabilities(language, &caps);
    let mut runner = TestRunner::deterministic();
    let strategy = gen::generated(8, dialect);
    let made: Vec<_> = (0..CASES)
        .map(|_| strategy.new_tree(&mut runner).expect("generates").current())
        .collect();
    let failures: Vec<String> = par_map(&made, |n, g| {
        let name = format!("g{n}");
        let file = gen::file(gen::program_case(&name, "test", g));
        let path = Path::new("generated").join(format!("{name}.json"));
        let case = match load_generated(Path::new("generated"), &path, file).pop() {
            Some(Ok(c)) => c,
            other => return Some(format!("case {n} does not load: {other:?}")),
        };
        if let Some(outside) = claim.outside(&case) {
            return Some(format!(
                "case {n} is outside the claim: {}",
                outside.message(&claim)
            ));
        }
        match modules(&case, spelling) {
            Ok(_) => None,
            Err(e) => Some(format!("case {n}: {e}\n{}", case.source)),
        }
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(
        failures.is_empty(),
        "{} of {CASES} generated cases would not be judged:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn generated_cases_under_gl_nv_with_ser_emit_and_compile() {
    let nvidia = Features {
        reorder_nv: true,
        ..Features::default()
    };
    check(nvidia, Language::GlslNv, Spelling::Nv);
}

#[test]
fn generated_cases_under_gl_ext_with_ser_emit_and_compile() {
    let ext_driver = Features {
        reorder_ext: true,
        ray_query: true,
        ..Features::default()
    };
    check(ext_driver, Language::GlslExt, Spelling::Ext);
}

#[test]
fn generated_cases_without_ser_with_ray_queries_emit_and_compile() {
    let lavapipe = Features {
        ray_query: true,
        ..Features::default()
    };
    check(lavapipe, Language::GlslExt, Spelling::Ext);
}
