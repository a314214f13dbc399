//! Every GLSL-source case (`cases/glsl_source/`) compiled with glslang, as
//! the Vulkan backend compiles its own modules: a case expected to compile
//! must compile (and pass `spirv-val` where that tool is on PATH); a case
//! expected to be rejected must fail to compile. Where glslang disagrees
//! with a text, `glslang.baseline.json` names the case and the reason; the
//! test fails on any other disagreement, and on a baselined case that now
//! agrees (so the baseline never outlives the bug).

use ser_harness::load::glsl_source::{load_dir, GlslSourceCase, Outcome};
use ser_vulkan::compile::{spirv_val, validate};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// A known disagreement: why, and whether only `spirv-val` sees it.
struct Known {
    reason: String,
    needs_spirv_val: bool,
}

/// Case id to the known disagreement.
fn baseline() -> BTreeMap<String, Known> {
    let path = root().join("glslang.baseline.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    json["known_failures"]
        .as_array()
        .unwrap_or_else(|| panic!("{}: expected {{\"known_failures\": [...]}}", path.display()))
        .iter()
        .map(|f| {
            let s = |k: &str| {
                f[k].as_str()
                    .unwrap_or_else(|| panic!("{}: each known failure has `{k}`", path.display()))
                    .to_string()
            };
            let known = Known {
                reason: s("reason"),
                needs_spirv_val: f["seen_by"].as_str() == Some("spirv-val"),
            };
            (s("case"), known)
        })
        .collect()
}

/// Compiles one case in a `ser-vulkan --compile-glsl` process, so that a
/// glslang crash costs that case only: the SPIR-V words, or what went wrong.
fn compile(case: &GlslSourceCase) -> Result<Vec<u32>, String> {
    let dir = std::env::temp_dir().join(format!("ser-glsl-source-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let name = case.id.replace('/', ".");
    let (src, spv) = (
        dir.join(format!("{name}.glsl")),
        dir.join(format!("{name}.spv")),
    );
    std::fs::write(&src, &case.source).map_err(|e| e.to_string())?;
    let out = Command::new(env!("CARGO_BIN_EXE_ser-vulkan"))
        .arg("--compile-glsl")
        .arg(case.stage.name())
        .arg(&src)
        .arg(&spv)
        .output()
        .map_err(|e| e.to_string())?;
    let words = std::fs::read(&spv).ok();
    let _ = (std::fs::remove_file(&src), std::fs::remove_file(&spv));
    let stderr = String::from_utf8_lossy(&out.stderr).trim_end().to_string();
    match (out.status.code(), words) {
        (Some(0), Some(bytes)) => Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()),
        (Some(1), _) => Err(stderr),
        (status, _) => Err(format!(
            "{CRASHED} ({}): {stderr}",
            status.map_or("killed by a signal".to_string(), |c| format!(
                "exit status {c}"
            ))
        )),
    }
}

const CRASHED: &str = "glslang did not finish";

/// What glslang did with one case, in words, or `None` when it agrees.
fn disagreement(case: &GlslSourceCase, tool: Option<&Path>) -> Option<String> {
    match (compile(case), case.expect) {
        (Ok(words), Outcome::Compiles) => {
            let name = case.id.replace('/', ".");
            validate(tool?, &words, &name)
                .err()
                .map(|m| format!("compiled, and spirv-val rejects the module: {m}"))
        }
        (Err(m), _) if m.starts_with(CRASHED) => Some(m),
        (Err(_), Outcome::Rejected) => None,
        (Ok(_), Outcome::Rejected) => {
            Some("compiled; the text makes it a compile-time error".into())
        }
        (Err(m), Outcome::Compiles) => Some(format!("rejected: {m}")),
    }
}

#[test]
fn glslang_judges_every_glsl_source_case() {
    let tool = spirv_val();
    if tool.is_none() {
        println!("spirv-val not found: SPIR-V not validated");
    }
    let known = baseline();
    let mut problems = Vec::new();
    let mut agree = 0;
    let mut baselined = 0;
    let mut cases = Vec::new();
    for loaded in load_dir(&root().join("../../cases")) {
        match loaded {
            Ok(c) => cases.push(c),
            Err(e) => problems.push(format!("load error: {e}")),
        }
    }
    assert!(!cases.is_empty(), "no GLSL-source case found");
    // One compiler process per case, a few at a time.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let judged: Vec<(&GlslSourceCase, Option<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .chunks(cases.len().div_ceil(threads))
            .map(|chunk| {
                let tool = tool.as_deref();
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|c| (c, disagreement(c, tool)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a compile thread"))
            .collect()
    });
    for (case, what) in judged {
        match (what, known.get(&case.id)) {
            (None, None) => agree += 1,
            (Some(_), Some(_)) => baselined += 1,
            (Some(what), None) => problems.push(format!("{} ({}): {what}", case.id, case.clauses.join(", "))),
            (None, Some(k)) if k.needs_spirv_val && tool.is_none() => baselined += 1,
            (None, Some(Known { reason, .. })) => problems.push(format!(
                "{}: glslang now agrees with the text; remove it from glslang.baseline.json (it said: {reason})",
                case.id
            )),
        }
    }
    println!("GLSL-source cases: {agree} agree with glslang, {baselined} known disagreements (glslang.baseline.json)");
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
