//! Properties of the reference on generated cases, with a fixed seed and
//! few cases so the test run stays short (longer campaigns: raise
//! `PROPTEST_CASES`).

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use ser_generate::program::{Trace, ACCESSOR_WORDS};
use ser_generate::{case, ray, scene};
use ser_harness::backend::Backend;
use ser_harness::reference_backend::ReferenceBackend;
use ser_reference::outcome::{LegalBuffer, Outcome};
use ser_reference::Profile;
use std::collections::BTreeMap;

fn runner() -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(12);
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    )
}

/// The reference's legal outcome of a generated case; `None` when it has
/// too many implementation choices to explore (the property cannot be
/// checked on that case, and it is skipped).
fn legal(file: &serde_json::Value) -> Option<BTreeMap<String, LegalBuffer>> {
    let c = case::load(file)
        .unwrap_or_else(|e| panic!("the generator made a case the loader rejects: {e}"));
    match ReferenceBackend::new(Profile::MaybeReorderThread0027).run(&c) {
        Err(e) if e.to_string().contains("too_many_outcomes") => None,
        Err(e) => panic!("{e}"),
        Ok(exec) => match exec.legal.map(|l| l.outcome) {
            Some(Outcome::Completed(b)) => Some(b),
            other => panic!("the reference did not complete: {other:?}"),
        },
    }
}

#[test]
fn generated_programs_print_and_parse_back_to_the_same_ir() {
    runner()
        .run(
            &(
                ray::ray(),
                prop::sample::select(vec![
                    Trace::TraceRay,
                    Trace::HitObjectThenInvoke,
                    Trace::Accessors,
                ]),
            ),
            |(r, t)| {
                let text = ser_generate::program::library(&r, t).join("\n");
                let ir = ser_lang::parser::parse(&text)
                    .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
                let printed = ser_lang::printer::print(&ir);
                let again = ser_lang::parser::parse(&printed)
                    .map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
                prop_assert_eq!(ir, again);
                Ok(())
            },
        )
        .unwrap();
}

#[test]
fn hit_object_trace_ray_then_invoke_equals_trace_ray() {
    let rays = ray::ray().prop_filter("Invoke and SKIP_CLOSEST_HIT is an open question", |r| {
        !r.flags.contains("SKIP_CLOSEST_HIT")
    });
    runner()
        .run(&(scene::scene(), rays), |(s, r)| {
            let origin = format!("scene {s}, ray {r:?}");
            let a = legal(&case::file("trace_ray", &origin, &s, &r, Trace::TraceRay));
            let b = legal(&case::file(
                "hit_object",
                &origin,
                &s,
                &r,
                Trace::HitObjectThenInvoke,
            ));
            let (Some(a), Some(b)) = (a, b) else {
                return Err(TestCaseError::reject("too many choices to explore"));
            };
            prop_assert_eq!(&a["Out"].words, &b["Out"].words, "{}", origin);
            Ok(())
        })
        .unwrap();
}

#[test]
fn accessor_laws_hold_on_generated_hit_objects() {
    runner()
        .run(&(scene::scene(), ray::ray()), |(s, r)| {
            let origin = format!("scene {s}, ray {r:?}");
            let Some(out) = legal(&case::file("accessors", &origin, &s, &r, Trace::Accessors))
            else {
                return Err(TestCaseError::reject("too many choices to explore"));
            };
            let w: Vec<f32> = out["OutF"]
                .first
                .iter()
                .map(|b| f32::from_bits(*b))
                .collect();
            let mut at = 0;
            let mut parts = BTreeMap::new();
            for (name, n) in ACCESSOR_WORDS {
                parts.insert(name, w[at..at + n].to_vec());
                at += n;
            }
            // 4x3 is the transpose of 3x4, exactly.
            for (a, b) in [
                ("GetObjectToWorld3x4", "GetObjectToWorld4x3"),
                ("GetWorldToObject3x4", "GetWorldToObject4x3"),
            ] {
                for row in 0..3 {
                    for col in 0..4 {
                        prop_assert_eq!(
                            parts[a][row * 4 + col].to_bits(),
                            parts[b][col * 3 + row].to_bits(),
                            "{} {}",
                            a,
                            origin
                        );
                    }
                }
            }
            // Object-to-world times world-to-object is the identity (the
            // affine parts, within tolerance).
            let (o2w, w2o) = (&parts["GetObjectToWorld3x4"], &parts["GetWorldToObject3x4"]);
            for row in 0..3 {
                for col in 0..4 {
                    let mut v: f32 = (0..3).map(|k| o2w[row * 4 + k] * w2o[k * 4 + col]).sum();
                    if col == 3 {
                        v += o2w[row * 4 + 3];
                    }
                    let want = if row == col { 1.0 } else { 0.0 };
                    prop_assert!(
                        (v - want).abs() < 1e-4,
                        "O2W*W2O[{}][{}] = {} ({})",
                        row,
                        col,
                        v,
                        origin
                    );
                }
            }
            Ok(())
        })
        .unwrap();
}
