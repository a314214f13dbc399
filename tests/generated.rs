//! Properties of the reference on generated cases, with a fixed seed and
//! few cases so the test run stays short (longer campaigns: raise
//! `PROPTEST_CASES`, or run `ser-conformance fuzz`).

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use ser_generate::dialect::{Dialect, Language};
use ser_generate::probe::{Trace, ACCESSOR_WORDS};
use ser_generate::program::{Accessor, Construct, Program, Stmt, ACCESSORS};
use ser_generate::{case, program, ray, scene};
use ser_harness::load::{load_generated, Case};
use ser_harness::reference_backend::{Evaluation, ReferenceBackend};
use ser_reference::exec::schedule::Schedule;
use ser_reference::outcome::{LegalBuffer, Outcome};
use ser_reference::Profile;
use ser_reference::{FaultCode, RunResult};
use std::collections::BTreeMap;
use std::path::Path;

const HLSL: Dialect = Dialect::full(Language::Hlsl { sm69: false });
const HLSL_SM69: Dialect = Dialect::full(Language::Hlsl { sm69: true });

fn runner() -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(16);
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    )
}

fn load(file: serde_json::Value) -> Case {
    let path = Path::new("generated/case.json");
    match load_generated(Path::new("generated"), path, file).pop() {
        Some(Ok(c)) => c,
        Some(Err(e)) => panic!("the generator made a case the loader rejects: {e}"),
        None => panic!("no case"),
    }
}

/// The reference's legal outcome of a generated case; `None` when it has
/// too many implementation choices to explore (the property cannot be
/// checked on that case, and it is skipped).
fn legal(c: &Case) -> Option<BTreeMap<String, LegalBuffer>> {
    let ran = ReferenceBackend::new(Profile::MaybeReorderThread0027).evaluate(c);
    match ran {
        Ok(Evaluation::Ran(RunResult {
            outcome: Outcome::Completed(b),
            ..
        })) => Some(b),
        Ok(Evaluation::Ran(RunResult {
            outcome: Outcome::Fault(f),
            ..
        })) if f.code == FaultCode::TooManyOutcomes => None,
        other => panic!("the reference did not complete: {other:?}\n{}", c.source),
    }
}

fn floats(b: &LegalBuffer) -> Vec<f32> {
    b.first.iter().map(|w| f32::from_bits(*w)).collect()
}

#[test]
fn generated_programs_print_and_parse_back_to_the_same_ir() {
    runner()
        .run(&program::strategy::program(8, HLSL_SM69), |p| {
            let facts = scene::Facts::default();
            let cx = program::print::Context {
                dialect: HLSL_SM69,
                scene: &facts,
                query_micromaps: false,
            };
            let text = program::print::print(&p, &cx).lines.join("\n");
            let ir = ser_lang::parser::parse(&text)
                .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            let printed = ser_lang::printer::print(&ir);
            let again = ser_lang::parser::parse(&printed)
                .map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
            prop_assert_eq!(ir, again);
            Ok(())
        })
        .unwrap();
}

#[test]
fn generated_cases_are_valid_and_run_on_the_reference() {
    let ran = std::cell::Cell::new(0);
    runner()
        .run(&case::generated(8, HLSL), |g| {
            let c = load(case::file(case::program_case("g", "test", &g)));
            if legal(&c).is_some() {
                ran.set(ran.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    assert!(ran.get() > 0, "every generated case had too many outcomes");
}

#[test]
fn specified_outputs_do_not_depend_on_the_schedule() {
    let schedules = [
        Schedule::Shuffle(1),
        Schedule::Shuffle(2),
        Schedule::Regroup,
        Schedule::Replace,
    ];
    runner()
        .run(&case::generated(8, HLSL), |g| {
            let c = load(case::file(case::program_case("g", "test", &g)));
            let base =
                ser_tests::shape(&c, &ReferenceBackend::new(Profile::MaybeReorderThread0027));
            for s in schedules {
                let other = ser_tests::shape(
                    &c,
                    &ReferenceBackend::new(Profile::MaybeReorderThread0027).with_schedule(s),
                );
                prop_assert_eq!(&base, &other, "schedule {:?}\n{}", s, c.source);
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn hit_object_trace_ray_then_invoke_equals_trace_ray() {
    let rays = ray::ray().prop_filter("Invoke and SKIP_CLOSEST_HIT is an open question", |r| {
        r.flags & ser_lang::names::ray_flag::SKIP_CLOSEST_HIT_SHADER == 0
    });
    runner()
        .run(&(scene::scene(true), rays), |(s, r)| {
            let origin = format!("scene {s}, ray {r:?}");
            let a = legal(&load(case::probe_file(
                "a",
                &origin,
                &s,
                &r,
                Trace::TraceRay,
            )));
            let b = legal(&load(case::probe_file(
                "b",
                &origin,
                &s,
                &r,
                Trace::HitObjectThenInvoke,
            )));
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
        .run(&(scene::scene(true), ray::ray()), |(s, r)| {
            let origin = format!("scene {s}, ray {r:?}");
            let Some(out) = legal(&load(case::probe_file(
                "accessors",
                &origin,
                &s,
                &r,
                Trace::Accessors,
            ))) else {
                return Err(TestCaseError::reject("too many choices to explore"));
            };
            let w = floats(&out["OutF"]);
            let mut parts = BTreeMap::new();
            let mut at = 0;
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

/// Where each accessor's words land when a program reads every accessor of
/// one hit object in [`ACCESSORS`] order: (uint slot, float slots).
fn accessor_slots() -> Vec<(Accessor, Option<usize>, std::ops::Range<usize>)> {
    let (mut u, mut f) = (0, 0);
    ACCESSORS
        .iter()
        .map(|a| {
            let width = match a {
                Accessor::Bool(_) | Accessor::Uint(_) => 0,
                Accessor::Float(_) => 1,
                Accessor::Float3(_) => 3,
                Accessor::Matrix(_) => 12,
                Accessor::Barycentrics => 2,
            };
            let slot = (width == 0).then(|| {
                u += 1;
                u - 1
            });
            f += width;
            (*a, slot, f - width..f)
        })
        .collect()
}

fn read_all(h: u8) -> Vec<Stmt> {
    ACCESSORS
        .iter()
        .map(|a| Stmt::Read { h, accessor: *a })
        .collect()
}

#[test]
fn nop_accessors_are_zero_and_a_miss_keeps_its_world_ray() {
    let strategy = (
        scene::scene(true),
        ray::ray(),
        ray::flags(false),
        0..program::RECORDS,
    );
    runner()
        .run(&strategy, |(s, r, flags, miss)| {
            let mut body = vec![Stmt::Construct {
                h: 0,
                how: Construct::MakeNop,
            }];
            body.extend(read_all(0));
            body.push(Stmt::Construct {
                h: 1,
                how: Construct::MakeMiss {
                    flags,
                    miss,
                    ray: 0,
                },
            });
            body.extend(read_all(1));
            let p = Program {
                threads: 1,
                rays: vec![r.clone()],
                waves: Vec::new(),
                body,
            };
            let Some(out) = legal(&load(case::file(case::program_case(
                "laws",
                "test",
                &case::Generated::new(s, p, HLSL),
            )))) else {
                return Err(TestCaseError::reject("too many choices to explore"));
            };
            let (u, f) = (&out["Out"].first, floats(&out["OutF"]));
            let slots = accessor_slots();
            let n_uint = slots.iter().filter(|s| s.1.is_some()).count();
            let n_float = slots.last().map_or(0, |s| s.2.end);
            for (a, slot, range) in &slots {
                let name = format!("{a:?}");
                // The NOP object: IsNop 1, every other scalar and vector 0,
                // matrices identity-like (`ser.hit_object.type.default_initialized_to_nop`
                // and each accessor's NOP clause).
                let want_u = if name.contains("IsNop") { 1 } else { 0 };
                if let Some(k) = slot {
                    prop_assert_eq!(u[*k], want_u, "NOP {}", name);
                }
                for (i, k) in range.clone().enumerate() {
                    let want = match a {
                        Accessor::Matrix(m) if m.ends_with("3x4") => (i / 4 == i % 4) as u32 as f32,
                        Accessor::Matrix(_) => (i / 3 == i % 3) as u32 as f32,
                        _ => 0.0,
                    };
                    prop_assert_eq!(f[k], want, "NOP {}[{}]", name, i);
                }
                // The miss: object ray is the world ray, TCurrent is TMax.
                let miss_f = |k: usize| f[n_float + k];
                match a {
                    Accessor::Float3("GetObjectRayOrigin") => {
                        for i in 0..3 {
                            prop_assert_eq!(miss_f(range.start + i), miss_f(range.start - 6 + i));
                        }
                    }
                    Accessor::Float3("GetObjectRayDirection") => {
                        for i in 0..3 {
                            prop_assert_eq!(miss_f(range.start + i), miss_f(range.start - 6 + i));
                        }
                    }
                    Accessor::Float("GetRayTCurrent") => {
                        prop_assert_eq!(miss_f(range.start), r.tmax)
                    }
                    Accessor::Bool("IsMiss") => prop_assert_eq!(u[n_uint + slot.unwrap()], 1),
                    _ => {}
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn arbitrary_bytes_give_valid_cases_without_hanging() {
    use arbitrary::{Arbitrary, Unstructured};
    // The empty input (on which a pass-through RNG would give zeros, and
    // rejection sampling never end), all-ones, and a counting pattern.
    let inputs: [Vec<u8>; 3] = [vec![], vec![0xFF; 64], (0..=255).collect()];
    for bytes in inputs {
        let g = case::Generated::arbitrary(&mut Unstructured::new(&bytes)).expect("generates");
        load(case::file(case::program_case("a", "arbitrary", &g)));
    }
}
