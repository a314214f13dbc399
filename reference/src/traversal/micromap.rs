//! Ray opacity micromaps (`vk.opacity_micromap.*`): the opacity of a
//! triangle candidate looked up from the micro-triangle the hit lies in.

use crate::choice::Chooser;
use crate::mutation::{self, Mutation};
use crate::outcome::{Fault, FaultCode};
use crate::scene::{Geometry, MicromapEntry, MicromapFormat, Scene};
use ser_lang::names::{instance_flag, ray_flag};

/// What a micromap lookup makes of a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MicroOpacity {
    Opaque,
    NonOpaque,
    /// Dropped: no further processing (`vk.opacity_micromap.ignored_dropped`).
    Ignored,
}

/// The result column of the chapter's table for a 4-state value (2-state
/// values 0 and 1 read the same as 4-state 0 and 1), with or without the
/// 2-state override (`vk.opacity_micromap.table.*`).
pub fn table(state: u8, two_state_override: bool) -> MicroOpacity {
    match (state, two_state_override) {
        // `vk.opacity_micromap.table.state4_value0_override_y_ignored`, `..._n_ignored`
        (0, _) => MicroOpacity::Ignored,
        // `vk.opacity_micromap.table.state4_value1_override_y_opaque`, `..._n_opaque`
        (1, _) => MicroOpacity::Opaque,
        // `vk.opacity_micromap.table.state4_value2_override_y_ignored`
        (2, true) => MicroOpacity::Ignored,
        // `vk.opacity_micromap.table.state4_value3_override_y_opaque`
        (3, true) => MicroOpacity::Opaque,
        // `vk.opacity_micromap.table.state4_value2_override_n_nonopaque`,
        // `vk.opacity_micromap.table.state4_value3_override_n_nonopaque`
        _ => MicroOpacity::NonOpaque,
    }
}

/// The index of the micro-triangle at barycentrics `(u, v)` (the `b` and
/// `c` coordinates): level 0 has one; at level 1 the curve visits the
/// sub-triangle nearest vertex 0, the middle one, the one nearest vertex 1,
/// then the one nearest vertex 2 (`vk.opacity_micromap.space_filling_curve`).
/// A hit on the border of two micro-triangles may take either.
pub fn micro_triangle(level: u8, u: f64, v: f64, chooser: &mut dyn Chooser) -> usize {
    if level == 0 {
        return 0;
    }
    const EPS: f64 = 1e-6;
    let mut inside = Vec::new();
    let near = |x: f64, y: f64| x > y - EPS;
    if near(0.5, u + v) {
        inside.push(0);
    }
    if near(0.5, u) && near(0.5, v) && near(u + v, 0.5) {
        inside.push(1);
    }
    if near(u, 0.5) {
        inside.push(2);
    }
    if near(v, 0.5) {
        inside.push(3);
    }
    match inside.len() {
        0 | 1 => inside.first().copied().unwrap_or(1),
        n => inside[chooser.choose(n, "a hit on the border of two opacity micro-triangles")],
    }
}

/// The instance flag disabling micromaps "is only valid if the referenced
/// BLAS was originally built with [...] ALLOW_DISABLE_OMMS"
/// (`dxr.omm.trace_ray.disable_needs_build_flag`,
/// `dxr.omm.inline.disable_needs_build_flag`): a trace into a scene with an
/// instance breaking it is undefined. The DXR text's rule; the Vulkan
/// texts of the suite do not state it.
pub fn check_disable_allowed(scene: &Scene, clause: &str) -> Result<(), Fault> {
    for (i, inst) in scene.instances.iter().enumerate() {
        let disables = inst.flag_bits() & instance_flag::DISABLE_OPACITY_MICROMAPS != 0;
        if disables && !scene.blas[inst.blas].allow_disable_opacity_micromaps {
            return Err(Fault::new(
                FaultCode::InvalidFlags,
                format!(
                    "instance {i} sets disable_opacity_micromaps, but BLAS {} was not built with allow_disable_opacity_micromaps",
                    inst.blas
                ),
            )
            .clause(clause));
        }
    }
    Ok(())
}

/// Whether a geometry's micromap is in effect in an instance: it has one,
/// and the instance does not disable micromaps
/// (`vk.opacity_micromap.instance_disable_uses_opaque_bit`,
/// `dxr.omm.trace_ray.disable_omms_instance_flag`).
pub fn in_effect(geometry: &Geometry, instance_flags: u32) -> bool {
    geometry.opacity_micromap.is_some()
        && instance_flags & instance_flag::DISABLE_OPACITY_MICROMAPS == 0
}

/// The opacity the micromap gives a triangle candidate, if the geometry has
/// one and the instance does not disable micromaps
/// (`vk.opacity_micromap.used_instead_of_opaque_bit`,
/// `vk.opacity_micromap.instance_disable_uses_opaque_bit`). The 2-state
/// override comes from the instance flag or the ray flag
/// (`vk.opacity_micromap.interpretation_depends_on_2_state_flags`).
pub fn lookup(
    geometry: &Geometry,
    primitive: usize,
    barycentrics: [f64; 2],
    instance_flags: u32,
    ray_flags: u32,
    chooser: &mut dyn Chooser,
) -> Option<MicroOpacity> {
    if !in_effect(geometry, instance_flags) {
        return None;
    }
    let map = geometry.opacity_micromap.as_ref()?;
    let two_state_override = instance_flags & instance_flag::FORCE_OPACITY_MICROMAP_2_STATE != 0
        || ray_flags & ray_flag::FORCE_OPACITY_MICROMAP_2_STATE != 0;
    let state = match map.triangles.get(primitive)? {
        // The swap turns transparent into opaque and unknown-transparent
        // into unknown-opaque, and back.
        MicromapEntry::Special(s) if mutation::active(Mutation::MicromapSpecialSwapped) => {
            s.state() ^ 1
        }
        MicromapEntry::Special(s) => s.state(),
        MicromapEntry::States(states) => {
            let i = micro_triangle(
                map.subdivision_level,
                barycentrics[0],
                barycentrics[1],
                chooser,
            );
            let raw = *states.get(i)?;
            // `vk.opacity_micromap.format_2_state_one_bit`: a 2-state 1 is opaque.
            match map.format {
                MicromapFormat::TwoState => raw.min(1),
                MicromapFormat::FourState => raw,
            }
        }
    };
    Some(table(state, two_state_override))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::First;

    #[test]
    fn table_rows() {
        use MicroOpacity::*;
        let rows = [
            (0, true, Ignored),
            (0, false, Ignored),
            (1, true, Opaque),
            (1, false, Opaque),
            (2, true, Ignored),
            (2, false, NonOpaque),
            (3, true, Opaque),
            (3, false, NonOpaque),
        ];
        for (state, o, want) in rows {
            assert_eq!(table(state, o), want, "state {state}, override {o}");
        }
    }

    #[test]
    fn level_one_curve_order() {
        assert_eq!(micro_triangle(1, 0.1, 0.1, &mut First), 0);
        assert_eq!(micro_triangle(1, 0.3, 0.3, &mut First), 1);
        assert_eq!(micro_triangle(1, 0.7, 0.1, &mut First), 2);
        assert_eq!(micro_triangle(1, 0.1, 0.7, &mut First), 3);
    }
}
