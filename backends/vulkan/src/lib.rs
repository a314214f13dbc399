//! A backend that runs SER conformance cases on a GPU: the case IR is
//! emitted as GLSL 460 with `GL_EXT_ray_tracing` and
//! `GL_NV_shader_invocation_reorder` (`emit`), compiled to SPIR-V with
//! glslang (`compile`), and run in a Vulkan ray tracing pipeline built from
//! the case's scene and shader table (`device`). `interface` fixes what the
//! emitted shaders and the pipeline share.

pub mod backend;
pub mod batch;
pub mod bench;
pub mod compile;
pub mod device;
pub mod timing;
pub use ser_targets::glsl as emit;
pub use ser_targets::interface;

#[cfg(test)]
mod emit_tests;
