//! GLSL to SPIR-V with glslang: Vulkan 1.3, SPIR-V 1.6.

use crate::emit::{Glsl, Stage};
use glslang::{
    Compiler, CompilerOptions, ShaderInput, ShaderSource, ShaderStage, SourceLanguage,
    SpirvVersion, Target, VulkanVersion,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn shader_stage(stage: Stage) -> ShaderStage {
    match stage {
        Stage::RayGeneration => ShaderStage::RayGeneration,
        Stage::ClosestHit => ShaderStage::ClosestHit,
        Stage::AnyHit => ShaderStage::AnyHit,
        Stage::Intersection => ShaderStage::Intersect,
        Stage::Miss => ShaderStage::Miss,
        Stage::Callable => ShaderStage::Callable,
        other => unreachable!(
            "the GLSL emitter emits ray tracing stages only, not {}",
            other.name()
        ),
    }
}

/// Compiles one emitted module (entry point `main`) to SPIR-V words, or
/// returns glslang's message.
pub fn spirv(glsl: &Glsl) -> Result<Vec<u32>, String> {
    source_spirv(glsl.stage, &glsl.source)
}

/// Compiles many modules, each distinct text once, spread over the
/// machine's cores: glslang's answer for each, in their order. A batch of
/// generated cases repeats the same closest-hit and miss modules in every
/// case; only the raygeneration ones differ.
pub fn spirv_all(modules: &[&Glsl]) -> Vec<Result<Vec<u32>, String>> {
    let mut distinct: Vec<&Glsl> = Vec::new();
    let mut seen: HashMap<(Stage, &str), usize> = HashMap::new();
    let slots: Vec<usize> = modules
        .iter()
        .map(|g| {
            *seen.entry((g.stage, &g.source)).or_insert_with(|| {
                distinct.push(g);
                distinct.len() - 1
            })
        })
        .collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per = distinct.len().div_ceil(threads).max(1);
    let compiled: Vec<Result<Vec<u32>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = distinct
            .chunks(per)
            .map(|chunk| {
                let h = s.spawn(move || chunk.iter().map(|g| spirv(g)).collect::<Vec<_>>());
                (chunk.len(), h)
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|(n, h)| {
                h.join()
                    .unwrap_or_else(|_| vec![Err("glslang panicked".to_string()); n])
            })
            .collect()
    });
    slots.into_iter().map(|i| compiled[i].clone()).collect()
}

/// Compiles GLSL text of one stage as written (a GLSL-source case, or an
/// emitted module) to SPIR-V words, or returns glslang's message.
pub fn source_spirv(stage: Stage, text: &str) -> Result<Vec<u32>, String> {
    let compiler = Compiler::acquire().ok_or("glslang failed to initialise")?;
    let source = ShaderSource::from(text);
    let options = CompilerOptions {
        source_language: SourceLanguage::GLSL,
        target: Target::Vulkan {
            version: VulkanVersion::Vulkan1_3,
            spirv_version: SpirvVersion::SPIRV1_6,
        },
        version_profile: None,
        ..CompilerOptions::default()
    };
    let input = ShaderInput::new(
        &source,
        shader_stage(stage),
        &options,
        None::<&[(&str, Option<&str>)]>,
        None,
    )
    .map_err(|e| format!("glslang input: {e}"))?;
    let shader = compiler.create_shader(input).map_err(message)?;
    shader.compile().map_err(message)
}

fn message(e: glslang::error::GlslangError) -> String {
    use glslang::error::GlslangError as E;
    match e {
        E::PreprocessError(log) | E::ParseError(log) | E::MapIoError(log) | E::LinkError(log) => {
            format!("{}{}", log.log.trim_end(), {
                let d = log.debug_log.trim();
                if d.is_empty() {
                    String::new()
                } else {
                    format!("\n{d}")
                }
            })
        }
        other => other.to_string(),
    }
}

/// `spirv-val` on PATH, if there is one.
pub fn spirv_val() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("spirv-val"))
        .find(|p| p.is_file())
}

/// Validates SPIR-V words with `spirv-val --target-env vulkan1.3`; `name`
/// tells concurrent callers' files apart. Returns the tool's message.
pub fn validate(tool: &Path, words: &[u32], name: &str) -> Result<(), String> {
    validate_with(tool, words, name, &[])
}

/// [`validate`] with more `spirv-val` options (`--scalar-block-layout`
/// for modules whose buffers use the scalar layout, which the device
/// layer enables).
pub fn validate_with(
    tool: &Path,
    words: &[u32],
    name: &str,
    options: &[&str],
) -> Result<(), String> {
    let file = std::env::temp_dir().join(format!("ser-emit-{}-{name}.spv", std::process::id()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&file, bytes).map_err(|e| e.to_string())?;
    let out = Command::new(tool)
        .args(["--target-env", "vulkan1.3"])
        .args(options)
        .arg(&file)
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&file);
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
