//! The Slang library as the backend drives it: a valid SER program compiles
//! to one module per entry point for both extensions, and a rejection names
//! the lines of the case. Without Slang (README: `pip install --no-deps
//! slangpy==0.43.1`) each test says "not supported" and why.

use ser_slang::backend::error_lines;
use ser_slang::library::{EntryPoint, Slang};
use ser_slang::target::{slang_stage, Target};
use ser_targets::glsl::Stage;

fn slang() -> Option<Slang> {
    match Slang::find(None).and_then(|p| Slang::load(&p)) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("not supported: no Slang library: {e}");
            None
        }
    }
}

const LIBRARY: &str = "struct P { uint v; };
RWStructuredBuffer<uint> Out : register(u0);
RaytracingAccelerationStructure Scene : register(t0);
[shader(\"raygeneration\")]
void RayGen() {
  HitObject h = HitObject::MakeNop();
  MaybeReorderThread(h);
  Out[0] = h.IsNop() ? 1 : 0;
}
[shader(\"closesthit\")]
void CH(inout P p, in BuiltInTriangleIntersectionAttributes a) {
  p.v = 1;
}";

fn entries() -> Vec<EntryPoint<'static>> {
    vec![
        EntryPoint {
            name: "RayGen",
            stage: slang_stage(Stage::RayGeneration),
        },
        EntryPoint {
            name: "CH",
            stage: slang_stage(Stage::ClosestHit),
        },
    ]
}

#[test]
fn the_earlier_revision_compiles_for_both_extensions() {
    let Some(s) = slang() else { return };
    let lib = ser_lang::parse(LIBRARY).unwrap();
    let hlsl = ser_targets::hlsl::library(&lib, ser_reference::Profile::ReorderThread0027).unwrap();
    for target in [Target::Nv, Target::Ext] {
        let out = s
            .compile(&hlsl, &entries(), Target::PROFILE, target.capability())
            .unwrap();
        let modules = out
            .modules
            .unwrap_or_else(|| panic!("{target:?}: {}", out.diagnostics));
        assert_eq!(modules.len(), 2);
        for m in modules {
            assert_eq!(m[0], 0x0723_0203, "SPIR-V magic");
        }
    }
}

#[test]
fn a_rejection_points_at_the_cases_own_lines() {
    let Some(s) = slang() else { return };
    let lib = ser_lang::parse(&LIBRARY.replace("p.v = 1;", "p.v = undefinedName;")).unwrap();
    let hlsl =
        ser_targets::hlsl::located(&lib, ser_reference::Profile::ReorderThread0027, true).unwrap();
    let out = s
        .compile(&hlsl, &entries(), Target::PROFILE, Target::Nv.capability())
        .unwrap();
    assert!(out.modules.is_none());
    assert!(
        out.diagnostics.contains("undefinedName"),
        "{}",
        out.diagnostics
    );
    assert_eq!(
        error_lines(&out.diagnostics),
        vec![12],
        "{}",
        out.diagnostics
    );
}
