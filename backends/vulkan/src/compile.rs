//! GLSL to SPIR-V with glslang: Vulkan 1.3, SPIR-V 1.6.

use crate::emit::{Glsl, Stage};
use glslang::{
    Compiler, CompilerOptions, ShaderInput, ShaderSource, ShaderStage, SourceLanguage,
    SpirvVersion, Target, VulkanVersion,
};

fn shader_stage(stage: Stage) -> ShaderStage {
    match stage {
        Stage::RayGeneration => ShaderStage::RayGeneration,
        Stage::ClosestHit => ShaderStage::ClosestHit,
        Stage::AnyHit => ShaderStage::AnyHit,
        Stage::Intersection => ShaderStage::Intersect,
        Stage::Miss => ShaderStage::Miss,
        Stage::Callable => ShaderStage::Callable,
    }
}

/// Compiles one emitted module (entry point `main`) to SPIR-V words, or
/// returns glslang's message.
pub fn spirv(glsl: &Glsl) -> Result<Vec<u32>, String> {
    let compiler = Compiler::acquire().ok_or("glslang failed to initialise")?;
    let source = ShaderSource::from(glsl.source.as_str());
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
        shader_stage(glsl.stage),
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
