//! `ser-vulkan`: the Vulkan backend as a process backend of
//! `ser-conformance` (`--backend vulkan`, or `--backend exec:ser-vulkan`).
//! `ser-vulkan --probe` prints the device it would use. Without a device it
//! does not start (exit status 2, the reason on stderr).

use ser_harness::backend::Backend;
use ser_harness::protocol::serve::serve;
use ser_vulkan::backend::VulkanBackend;
use ser_vulkan::emit::Spelling;
use std::process::ExitCode;

/// `ser-vulkan --emit CASES_DIR ID`: prints the GLSL of every module of a
/// case, for people debugging the emitter.
fn emit(dir: &str, id: &str) -> ExitCode {
    let Some(case) = ser_harness::load::load_dir(std::path::Path::new(dir))
        .into_iter()
        .filter_map(Result::ok)
        .find(|c| c.id == id)
    else {
        eprintln!("ser-vulkan: no case `{id}` under {dir}");
        return ExitCode::from(2);
    };
    // The case's GL_EXT form where it applies only to vulkan-ext.
    let ext_only = case.profiles.contains(&ser_reference::Profile::VulkanExt)
        && !case.profiles.contains(&ser_reference::Profile::VulkanNv);
    let spelling = if ext_only {
        Spelling::Ext
    } else {
        Spelling::Nv
    };
    match ser_vulkan::backend::glsl(&case, spelling) {
        Ok((_, modules)) => {
            for g in modules {
                println!("// ---- {} ({:?})\n{}", g.entry, g.stage, g.source);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// `ser-vulkan --compile-glsl STAGE FILE OUT`: compiles GLSL text as
/// written with the backend's glslang, writing the SPIR-V to OUT (exit 0),
/// or glslang's message to stderr (exit 1). A GLSL-source case runs here,
/// in its own process, so a compiler crash costs one case.
fn compile_glsl(stage: &str, file: &str, out: &str) -> ExitCode {
    let Some(stage) = ser_vulkan::emit::Stage::from_name(stage) else {
        eprintln!("ser-vulkan: `{stage}` is no stage; expected raygeneration, closesthit, anyhit, miss, intersection or callable");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ser-vulkan: {file}: {e}");
            return ExitCode::from(2);
        }
    };
    match ser_vulkan::compile::source_spirv(stage, &text) {
        Ok(words) => {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            match std::fs::write(out, bytes) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("ser-vulkan: {out}: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Err(m) => {
            eprintln!("{m}");
            ExitCode::FAILURE
        }
    }
}

/// `ser-vulkan --batch DIR`: runs every case under DIR as one batch (one
/// submission; `SER_VULKAN_PIPELINE_THREADS=1` makes it one pipeline) and
/// prints each verdict: to run a batch-only finding again with the cases
/// it ran with, or with fewer of them. Exit 0 when every case passes.
fn batch(dir: &str) -> ExitCode {
    let mut cases = Vec::new();
    for c in ser_harness::load::load_dir(std::path::Path::new(dir)) {
        match c {
            Ok(c) => cases.push(std::sync::Arc::new(c)),
            Err(e) => {
                eprintln!("ser-vulkan: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let backend = VulkanBackend::new();
    if let Err(e) = backend.device() {
        eprintln!("ser-vulkan: no Vulkan device to run cases on: {e}");
        return ExitCode::from(2);
    }
    let backend: std::sync::Arc<dyn Backend> = std::sync::Arc::new(backend);
    let results = ser_harness::verdict::judge_batch(&cases, &backend, None);
    let failed = results.iter().filter(|r| r.verdict.is_failure()).count();
    for r in &results {
        println!("{} {}: {}", r.verdict.name(), r.id, r.message);
    }
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for r in &results {
        match counts.iter_mut().find(|(n, _)| *n == r.verdict.name()) {
            Some((_, k)) => *k += 1,
            None => counts.push((r.verdict.name(), 1)),
        }
    }
    let counts: Vec<String> = counts.iter().map(|(n, k)| format!("{k} {n}")).collect();
    println!("{} ({}): {failed} failed", results.len(), counts.join(", "));
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    match args.as_slice() {
        [_, flag, dir, id] if flag == "--emit" => return emit(dir, id),
        [_, flag, dir] if flag == "--batch" => return batch(dir),
        [_, flag, count, batch, rest @ ..] if flag == "--bench-batch" => {
            let only_batched = rest == ["--batched-only"];
            let (Ok(count), Ok(batch), true) = (
                count.parse(),
                batch.parse(),
                rest.is_empty() || only_batched,
            ) else {
                eprintln!("ser-vulkan: --bench-batch COUNT BATCH [--batched-only]");
                return ExitCode::from(2);
            };
            return ser_vulkan::bench::bench(count, batch, only_batched);
        }
        [_, flag, stage, file, out] if flag == "--compile-glsl" => {
            return compile_glsl(stage, file, out)
        }
        _ => {}
    }
    if std::env::args().any(|a| a == "--probe") {
        let b = VulkanBackend::new();
        println!("{}", b.name());
        return match b.device() {
            Ok(g) => {
                if let Ok(g) = &*g {
                    println!("{:?}", g.props);
                    println!("{:?}", g.features);
                    println!("claims: {}", b.capabilities().join(", "));
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                println!("no device: {e}");
                ExitCode::FAILURE
            }
        };
    }
    // Without a device nothing can be judged: the backend does not start,
    // rather than declining every case inside its claim.
    let backend = VulkanBackend::new();
    if let Err(e) = backend.device() {
        eprintln!("ser-vulkan: no Vulkan device to run cases on: {e}");
        return ExitCode::from(2);
    }
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    match serve(|asked| Box::new(backend.serving(asked)), stdin, stdout, &[]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ser-vulkan: {e}");
            ExitCode::from(2)
        }
    }
}
