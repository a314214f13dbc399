//! The case language as real shader compilers read it. A case's library
//! is HLSL-like text; a compiler under test wants one of:
//!
//! * [`glsl`]: GLSL 460 with `GL_EXT_ray_tracing` and the NV or EXT hit
//!   object extension, one module per entry point (a translation: GLSL is
//!   another language);
//! * [`hlsl`]: the library as HLSL, in the spelling of the profile under
//!   test (the case language's own printer, `ser_lang::printer`, with a
//!   target spelling), for Slang and, later, DXC;
//!
//! and both bind resources as [`interface`] says, which is what a Vulkan
//! device layer builds its descriptor set from.

pub mod glsl;
pub mod hlsl;
pub mod interface;
