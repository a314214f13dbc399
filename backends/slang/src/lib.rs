//! The Slang compiler as a backend of the suite: each case's library as
//! HLSL in the spelling of the profile under test (`ser_targets::hlsl`),
//! compiled by Slang's library (`library`, loaded at run time) to SPIR-V
//! for the NV or EXT hit object extension (`target`), checked with
//! `spirv-val`, and, with a device, run through the Vulkan backend's
//! device layer (`backend`).

pub mod backend;
pub mod library;
pub mod target;
