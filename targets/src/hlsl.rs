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

use crate::interface::{Interface, SET};
use ser_lang::ast::Library;
use ser_lang::printer::{print_as, Spelling};
use ser_reference::Profile;

/// The register space of local root constants (`cases/README.md`).
pub const SHADER_RECORD_SPACE: &str = "space1";

/// The spelling of `profile` for `library`, with the bindings
/// [`Interface::bindings`] gives; `None` for the Vulkan profiles, whose
/// shaders are GLSL ([`crate::glsl`]).
pub fn spelling(profile: Profile, library: &Library) -> Option<Spelling> {
    if !profile.is_hlsl() {
        return None;
    }
    Some(Spelling {
        dx: profile == Profile::Sm69,
        as_written: library.names_as_written,
        vk_bindings: Interface::bindings(library)
            .into_iter()
            .map(|(name, binding)| (name, (binding, SET)))
            .collect(),
        shader_record_space: Some(SHADER_RECORD_SPACE.to_string()),
        line_directives: false,
    })
}

/// The whole library as HLSL in `profile`'s spelling, or why it has none.
pub fn library(library: &Library, profile: Profile) -> Result<String, String> {
    located(library, profile, false)
}

/// [`library`], with `#line` directives when `lines`: a compiler's messages
/// then give lines of the case's own text, which the verdict compares with
/// where the suite's rule is broken.
pub fn located(library: &Library, profile: Profile, lines: bool) -> Result<String, String> {
    let mut spelling = spelling(profile, library)
        .ok_or_else(|| format!("profile {profile} is written in GLSL, not HLSL (--lang glsl)"))?;
    spelling.line_directives = lines;
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
