//! Ray intersection culling (`vk.culling.*`): primitive type, mask, face
//! and opacity. Each test only drops candidates, so their order does not
//! matter (`vk.culling.no_ordering_between_culling_ops`).

use crate::mutation::{self, Mutation};
use crate::outcome::{Fault, FaultCode};
use ser_lang::names::{instance_flag, ray_flag};

/// `vk.culling.primitive.skip_triangles_drops`,
/// `vk.culling.primitive.skip_aabbs_drops`
pub fn primitive_culled(ray_flags: u32, is_triangle: bool) -> bool {
    if is_triangle {
        ray_flags & ray_flag::SKIP_TRIANGLES != 0
            && !mutation::active(Mutation::SkipTrianglesIgnored)
    } else {
        ray_flags & ray_flag::SKIP_PROCEDURAL_PRIMITIVES != 0
            && !mutation::active(Mutation::SkipAabbsIgnored)
    }
}

/// An instance is invisible when its mask and the ray's cull mask share no
/// bit (`vk.culling.mask.and_zero_drops`); only the low 8 bits of the cull
/// mask take part (`ser.dxil.hitobject_traceray.warn_instance_mask_8_bits`).
pub fn mask_culled(instance_mask: u8, cull_mask: u32) -> bool {
    let disjoint = u32::from(instance_mask) & cull_mask & 0xFF == 0;
    if mutation::active(Mutation::MaskTestInverted) {
        return !disjoint;
    }
    disjoint && !mutation::active(Mutation::MaskTestIgnored)
}

/// Which face of a triangle a ray meets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Facing {
    Front,
    Back,
    /// Zero area in ray space: no face (`vk.culling.face.zero_area_no_face`).
    Neither,
}

/// Face determination from the signed area `a` in ray space: negative is
/// front (`vk.culling.face.negative_area_front`), the instance's flip-facing
/// flag reverses it (`vk.culling.face.flip_facing_reverses`), zero is no
/// face whatever the flag (`vk.culling.face.zero_area_no_face`).
pub fn facing(area: f64, flip: bool) -> Facing {
    let flip = flip && !mutation::active(Mutation::FlipFacingIgnored);
    let front = if mutation::active(Mutation::FrontFaceClockwise) {
        area > 0.0
    } else {
        area < 0.0
    };
    if area == 0.0 {
        Facing::Neither
    } else if front != flip {
        Facing::Front
    } else {
        Facing::Back
    }
}

/// Face culling: the cull-back and cull-front ray flags
/// (`vk.culling.face.cull_back_facing_drops`, `vk.culling.face.cull_front_facing_drops`),
/// disabled by the instance's cull-disable flag
/// (`vk.culling.face.cull_disable_instance_flag`); a candidate with no face
/// is always culled (`vk.culling.face.zero_area_always_culled`).
pub fn face_culled(facing: Facing, ray_flags: u32, instance_flags: u32) -> bool {
    if facing == Facing::Neither {
        return true;
    }
    if instance_flags & instance_flag::TRIANGLE_CULL_DISABLE != 0
        && !mutation::active(Mutation::CullDisableIgnored)
    {
        return false;
    }
    match facing {
        Facing::Back => {
            ray_flags & ray_flag::CULL_BACK_FACING_TRIANGLES != 0
                && !mutation::active(Mutation::CullBackIgnored)
        }
        Facing::Front => ray_flags & ray_flag::CULL_FRONT_FACING_TRIANGLES != 0,
        Facing::Neither => true,
    }
}

/// Opacity determination: the geometry's opaque flag
/// (`vk.culling.opacity.geometry_opaque_bit`), overridden by the
/// instance's force flags (`vk.culling.opacity.instance_force_opaque`,
/// `vk.culling.opacity.instance_force_no_opaque`), overridden again by the
/// ray's opaque / no-opaque flags (`vk.culling.opacity.ray_opaque_forces_opaque`, `vk.culling.opacity.ray_no_opaque_forces_nonopaque`).
pub fn is_opaque(geometry_opaque: bool, instance_flags: u32, ray_flags: u32) -> bool {
    let mut opaque = geometry_opaque;
    let instance_force_opaque = instance_flags & instance_flag::FORCE_OPAQUE != 0;
    if instance_force_opaque && !mutation::active(Mutation::InstanceForceOpaqueIgnored) {
        opaque = true;
    }
    if instance_flags & instance_flag::FORCE_NON_OPAQUE != 0 {
        opaque = false;
    }
    if ray_flags & ray_flag::FORCE_OPAQUE != 0 {
        opaque = true;
    }
    if ray_flags & ray_flag::FORCE_NON_OPAQUE != 0 {
        opaque = false;
    }
    if instance_force_opaque && mutation::active(Mutation::RayNoOpaqueNotOverriding) {
        opaque = true;
    }
    opaque
}

/// Opacity culling (`vk.culling.opacity.cull_opaque_drops`,
/// `vk.culling.opacity.cull_no_opaque_drops`).
pub fn opacity_culled(opaque: bool, ray_flags: u32) -> bool {
    if opaque {
        ray_flags & ray_flag::CULL_OPAQUE != 0 && !mutation::active(Mutation::CullOpaqueIgnored)
    } else {
        ray_flags & ray_flag::CULL_NON_OPAQUE != 0
            && !mutation::active(Mutation::CullNonOpaqueIgnored)
    }
}

/// Ray flag combinations the chapter calls mutually exclusive are invalid
/// input: `vk.culling.primitive.skip_triangles_skip_aabbs_exclusive`,
/// `vk.culling.primitive.skip_triangles_cull_facing_exclusive`,
/// `vk.culling.face.cull_flags_exclusive`, `vk.culling.opacity.flags_exclusive`.
pub fn validate_ray_flags(flags: u32) -> Result<(), Fault> {
    use ray_flag::*;
    let both = |a: u32, b: u32| flags & a != 0 && flags & b != 0;
    let invalid = |what: &str, clause: &str| {
        Err(Fault::new(
            FaultCode::InvalidFlags,
            format!("ray flags {flags:#x}: {what}"),
        )
        .clause(clause))
    };
    if both(SKIP_TRIANGLES, SKIP_PROCEDURAL_PRIMITIVES) {
        return invalid(
            "SKIP_TRIANGLES and SKIP_PROCEDURAL_PRIMITIVES are mutually exclusive",
            "vk.culling.primitive.skip_triangles_skip_aabbs_exclusive",
        );
    }
    if both(
        SKIP_TRIANGLES,
        CULL_BACK_FACING_TRIANGLES | CULL_FRONT_FACING_TRIANGLES,
    ) {
        return invalid(
            "SKIP_TRIANGLES is mutually exclusive with the face culling flags",
            "vk.culling.primitive.skip_triangles_cull_facing_exclusive",
        );
    }
    if both(CULL_BACK_FACING_TRIANGLES, CULL_FRONT_FACING_TRIANGLES) {
        return invalid(
            "CULL_BACK_FACING_TRIANGLES and CULL_FRONT_FACING_TRIANGLES are mutually exclusive",
            "vk.culling.face.cull_flags_exclusive",
        );
    }
    let opacity = flags & (FORCE_OPAQUE | FORCE_NON_OPAQUE | CULL_OPAQUE | CULL_NON_OPAQUE);
    if opacity.count_ones() > 1 {
        return invalid(
            "FORCE_OPAQUE, FORCE_NON_OPAQUE, CULL_OPAQUE and CULL_NON_OPAQUE are mutually exclusive",
            "vk.culling.opacity.flags_exclusive",
        );
    }
    Ok(())
}
