//! One program, one meaning. Two cases whose emitted GLSL (for a Vulkan
//! profile) or HLSL (for an HLSL profile) is the same program, run on the
//! same scene, shader table and dispatch, must have the same legal
//! outcomes: a driver or compiler sees only the program, so a suite that
//! gave it two meanings would fail every implementation on one of them.
//! (`FromRayQuery(q)` and `RecordFromQuery(q, 0, a)` were such a pair under
//! GL_EXT: both are `hitObjectRecordFromQueryEXT(h, q, 0u, ...)`.)

use ser_harness::backend::Backend;
use ser_harness::load::{load_dir, Case, Expected};
use ser_harness::reference_backend::ReferenceBackend;
use ser_reference::Profile;
use std::collections::BTreeMap;

/// The program a compiler of `profile` reads, with everything else a run
/// depends on; `None` where the case cannot be printed for it.
fn program_key(case: &Case, profile: Profile) -> Option<String> {
    let text = if profile.is_hlsl() {
        ser_targets::hlsl::library(case.library(), profile).ok()?
    } else {
        let spelling = ser_targets::glsl::Spelling::for_profile(profile)?;
        let interface = ser_targets::interface::Interface::of(case.library()).ok()?;
        let needed =
            ser_targets::interface::needed(&case.dispatch.raygen, &case.shader_table).ok()?;
        let mut modules = Vec::new();
        for n in needed {
            if let ser_targets::interface::Needed::Library(entry) = n {
                let g =
                    ser_targets::glsl::entry_point(case.library(), &entry, &interface, spelling)
                        .ok()?;
                modules.push(g.source);
            }
        }
        modules.join("\n// ----\n")
    };
    Some(format!(
        "{profile}\n{text}\n{}\n{}\n{:?}\n{:?}",
        serde_json::to_string(&case.scene).ok()?,
        serde_json::to_string(&case.shader_table).ok()?,
        case.dispatch,
        case.schedule,
    ))
}

#[test]
fn cases_that_are_one_program_have_one_meaning() {
    let cases: Vec<Case> = load_dir(&ser_tests::cases_dir())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|c| matches!(c.expect, Expected::Buffers(_) | Expected::Undefined(_)))
        .collect();
    let mut programs: BTreeMap<String, Vec<(&Case, Profile)>> = BTreeMap::new();
    for case in &cases {
        for &profile in &case.profiles {
            if let Some(key) = program_key(case, profile) {
                programs.entry(key).or_default().push((case, profile));
            }
        }
    }
    let shared: Vec<&Vec<(&Case, Profile)>> = programs.values().filter(|v| v.len() > 1).collect();
    let mut meanings = Vec::new();
    for group in &shared {
        let outcomes: Vec<(String, String)> = group
            .iter()
            .map(|(case, profile)| {
                let run = ReferenceBackend::new(*profile).run(case);
                let outcome = match run {
                    Ok(e) => format!("{:?}", e.legal.map(|l| l.outcome)),
                    Err(e) => format!("declined: {e}"),
                };
                (format!("{} ({profile})", case.id), outcome)
            })
            .collect();
        if outcomes.iter().any(|(_, o)| *o != outcomes[0].1) {
            meanings.push(
                outcomes
                    .iter()
                    .map(|(id, o)| format!("  {id}: {}", o.chars().take(300).collect::<String>()))
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        }
    }
    eprintln!(
        "{} programs shared by two or more (case, profile) pairs",
        shared.len()
    );
    // The pair this test was written for is among them.
    let ids = |v: &Vec<(&Case, Profile)>| v.iter().map(|(c, _)| c.id.clone()).collect::<Vec<_>>();
    assert!(
        shared.iter().any(|v| ids(v)
            == [
                "hit_object/glsl/one_program/from_ray_query_executes_record_0_or_nothing",
                "hit_object/glsl/one_program/record_from_query_0_executes_record_0_or_nothing"
            ]),
        "FromRayQuery(q, a) and RecordFromQuery(q, 0, a) print as one GLSL program"
    );
    assert!(
        meanings.is_empty(),
        "{} programs have two meanings:\n{}",
        meanings.len(),
        meanings.join("\n\n")
    );
}
