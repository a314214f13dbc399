//! Every GLSL-source case (`cases/glsl_source/`) compiled with glslang, as
//! the Vulkan backend compiles its own modules: a case expected to compile
//! must compile (and pass `spirv-val` where that tool is on PATH); a case
//! expected to be rejected must fail to compile. Where glslang disagrees
//! with a text, `glslang.baseline.json` names the case and the reason; the
//! test fails on any other disagreement, and on a baselined case that now
//! agrees (so the baseline never outlives the bug).

mod common;

use common::par_map;
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

/// What became of one case's source.
enum Compiled {
    Spirv(Vec<u32>),
    /// glslang reported a compile-time error (its message).
    Rejected(String),
    /// glslang did not finish (a crash), or the test could not run it: no
    /// verdict on the source, always a problem.
    Failed(String),
}

/// Compiles one case in a `ser-vulkan --compile-glsl` process, so that a
/// glslang crash costs that case only.
fn compile(case: &GlslSourceCase) -> Compiled {
    let dir = std::env::temp_dir().join(format!("ser-glsl-source-{}", std::process::id()));
    let name = case.id.replace('/', ".");
    let (src, spv) = (
        dir.join(format!("{name}.glsl")),
        dir.join(format!("{name}.spv")),
    );
    let run = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&src, &case.source))
        .and_then(|()| {
            Command::new(env!("CARGO_BIN_EXE_ser-vulkan"))
                .arg("--compile-glsl")
                .arg(case.stage.name())
                .arg(&src)
                .arg(&spv)
                .output()
        });
    let words = std::fs::read(&spv).ok();
    let _ = (std::fs::remove_file(&src), std::fs::remove_file(&spv));
    let out = match run {
        Ok(out) => out,
        Err(e) => return Compiled::Failed(format!("could not run ser-vulkan --compile-glsl: {e}")),
    };
    let stderr = String::from_utf8_lossy(&out.stderr).trim_end().to_string();
    match (out.status.code(), words) {
        (Some(0), Some(bytes)) => Compiled::Spirv(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
        (Some(1), _) => Compiled::Rejected(stderr),
        (status, _) => Compiled::Failed(format!(
            "glslang did not finish ({}): {stderr}",
            status.map_or("killed by a signal".to_string(), |c| format!(
                "exit status {c}"
            ))
        )),
    }
}

/// What glslang did with one case, in words, or `None` when it agrees.
fn disagreement(case: &GlslSourceCase, tool: Option<&Path>) -> Option<String> {
    match (compile(case), case.expect) {
        (Compiled::Spirv(words), Outcome::Compiles) => {
            let name = case.id.replace('/', ".");
            validate(tool?, &words, &name)
                .err()
                .map(|m| format!("compiled, and spirv-val rejects the module: {m}"))
        }
        (Compiled::Failed(m), _) => Some(m),
        (Compiled::Rejected(_), Outcome::Rejected) => None,
        (Compiled::Spirv(_), Outcome::Rejected) => {
            Some("compiled; the text makes it a compile-time error".into())
        }
        (Compiled::Rejected(m), Outcome::Compiles) => Some(format!("rejected: {m}")),
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
    let judged = par_map(&cases, |_, c| disagreement(c, tool.as_deref()));
    for (case, what) in cases.iter().zip(judged) {
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
