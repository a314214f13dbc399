//! The library as HLSL for a compiler that targets Vulkan (Slang; DXC is
//! one more reader of the same text): the case language's own printer with
//! the spelling of the profile under test.
//!
//! * `sm69`: SER's names in namespace `dx` (`dx::HitObject`,
//!   `dx::MaybeReorderThread`), as Shader Model 6.9 declares them
//!   (`sm69.solution.namespace_dx.types_and_intrinsics_in_dx`);
//! * `0027-maybereorderthread`: the proposal's names, unqualified;
//! * `0027-reorderthread`: the earlier revision's `ReorderThread`
//!   ([`ser_reference::Profile::adapt`]).
//!
//! Every resource gets `[[vk::binding(B, 0)]]` as [`crate::interface`]
//! binds it, and the `cbuffer` of register space 1 (a record's local root
//! constants) is the shader record (`[[vk::shader_record]]`), which a
//! compiler lays out 4 bytes a word from offset 0 under the scalar layout,
//! as the case format packs it.

use crate::interface::{Interface, ACCELERATION_STRUCTURE_BINDING, SET};
use ser_lang::ast::Library;
use ser_lang::printer::{print_as, Spelling};
use ser_reference::Profile;

/// The register space of local root constants (`cases/README.md`).
pub const SHADER_RECORD_SPACE: &str = "space1";

/// The spelling of `profile`, with the bindings of `interface`; `None` for
/// the Vulkan profiles, whose shaders are GLSL ([`crate::glsl`]).
pub fn spelling(profile: Profile, interface: &Interface) -> Option<Spelling> {
    if !profile.is_hlsl() {
        return None;
    }
    let mut vk_bindings = std::collections::BTreeMap::new();
    if let Some(a) = &interface.acceleration_structure {
        vk_bindings.insert(a.clone(), (ACCELERATION_STRUCTURE_BINDING, SET));
    }
    for b in &interface.buffers {
        vk_bindings.insert(b.name.clone(), (b.binding, SET));
    }
    Some(Spelling {
        dx: profile == Profile::Sm69,
        vk_bindings,
        shader_record_space: Some(SHADER_RECORD_SPACE.to_string()),
    })
}

/// The whole library as HLSL in `profile`'s spelling, or why it has none.
pub fn library(library: &Library, profile: Profile) -> Result<String, String> {
    let interface = Interface::of(library)?;
    let spelling = spelling(profile, &interface).ok_or_else(|| {
        format!("profile {profile} is written in GLSL, not HLSL (--lang glsl)")
    })?;
    Ok(print_as(&profile.adapt(library), &spelling))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = "struct P { uint v; };
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<float> OutF : register(u1);
RaytracingAccelerationStructure Scene : register(t0);
cbuffer Rec : register(b0, space1) { uint k; };
[shader(\"raygeneration\")]
void RG() {
  HitObject h = HitObject::MakeNop();
  MaybeReorderThread(h);
  Out[0] = k;
}";

    fn hlsl(profile: Profile) -> String {
        library(&ser_lang::parse(LIB).expect("parses"), profile).expect("HLSL")
    }

    #[test]
    fn resources_carry_the_interfaces_bindings() {
        let h = hlsl(Profile::MaybeReorderThread0027);
        assert!(h.contains("[[vk::binding(1, 0)]] RWStructuredBuffer<uint> Out : register(u0);"));
        assert!(h.contains("[[vk::binding(2, 0)]] RWStructuredBuffer<float> OutF : register(u1);"));
        assert!(h.contains(
            "[[vk::binding(0, 0)]] RaytracingAccelerationStructure Scene : register(t0);"
        ));
        assert!(h.contains("[[vk::shader_record]] cbuffer Rec : register(b0, space1)"));
    }

    #[test]
    fn each_profile_spells_ser_its_own_way() {
        let later = hlsl(Profile::MaybeReorderThread0027);
        assert!(later.contains("    HitObject h = HitObject::MakeNop();"));
        assert!(later.contains("    MaybeReorderThread(h);"));
        let earlier = hlsl(Profile::ReorderThread0027);
        assert!(earlier.contains("    ReorderThread(h);"));
        assert!(!earlier.contains("MaybeReorderThread"));
        let sm69 = hlsl(Profile::Sm69);
        assert!(sm69.contains("    dx::HitObject h = dx::HitObject::MakeNop();"));
        assert!(sm69.contains("    dx::MaybeReorderThread(h);"));
        assert!(library(&ser_lang::parse(LIB).unwrap(), Profile::VulkanNv).is_err());
    }

    #[test]
    fn the_canonical_print_has_no_target_attributes() {
        let lib = ser_lang::parse(LIB).unwrap();
        let text = ser_lang::print(&lib);
        assert!(!text.contains("vk::"));
        assert_eq!(ser_lang::parse(&text).unwrap().items.len(), lib.items.len());
    }
}
