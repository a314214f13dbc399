//! `VK_EXT_ray_tracing_invocation_reorder`, the ratified SER extension
//! (November 2025). ash 0.38 is generated from Vulkan 1.3.281, which
//! predates it, so its name, structures and enum are declared here from
//! the registry (`vk.xml`: extension 582), as wgpu declares the
//! extensions its ash lacks; the layout tests below pin them.

use ash::vk;
use std::ffi::{c_void, CStr};
use std::marker::PhantomData;

pub const NAME: &CStr = c"VK_EXT_ray_tracing_invocation_reorder";

/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_INVOCATION_REORDER_FEATURES_EXT`.
pub const FEATURES_TYPE: vk::StructureType = vk::StructureType::from_raw(1_000_581_000);
/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_INVOCATION_REORDER_PROPERTIES_EXT`.
pub const PROPERTIES_TYPE: vk::StructureType = vk::StructureType::from_raw(1_000_581_001);

/// `VkRayTracingInvocationReorderModeEXT`: whether the implementation may
/// reorder at the reorder calls (`_REORDER_EXT`, 1) or will not
/// (`_NONE_EXT`, 0).
pub const MODE_REORDER: i32 = 1;

/// `VkPhysicalDeviceRayTracingInvocationReorderFeaturesEXT`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Features<'a> {
    pub s_type: vk::StructureType,
    pub p_next: *mut c_void,
    pub ray_tracing_invocation_reorder: vk::Bool32,
    pub _marker: PhantomData<&'a ()>,
}

impl Default for Features<'_> {
    fn default() -> Self {
        Features {
            s_type: FEATURES_TYPE,
            p_next: std::ptr::null_mut(),
            ray_tracing_invocation_reorder: vk::FALSE,
            _marker: PhantomData,
        }
    }
}

impl Features<'_> {
    pub fn enabled() -> Self {
        Features {
            ray_tracing_invocation_reorder: vk::TRUE,
            ..Features::default()
        }
    }
}

// SAFETY: the struct is `repr(C)` with `sType` and `pNext` first, as every
// structure of a Vulkan pNext chain, and its type is the one the registry
// gives for extending these structures.
unsafe impl vk::ExtendsPhysicalDeviceFeatures2 for Features<'_> {}
unsafe impl vk::ExtendsDeviceCreateInfo for Features<'_> {}

/// `VkPhysicalDeviceRayTracingInvocationReorderPropertiesEXT`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Properties<'a> {
    pub s_type: vk::StructureType,
    pub p_next: *mut c_void,
    /// `VkRayTracingInvocationReorderModeEXT`: "a hint indicating if the
    /// implementation may reorder at the reorder calls".
    pub reordering_hint: i32,
    /// "the maximum shader binding table record index allowed to be passed
    /// in to OpHitObjectSetShaderBindingTableRecordIndexEXT".
    pub max_shader_binding_table_record_index: u32,
    pub _marker: PhantomData<&'a ()>,
}

impl Default for Properties<'_> {
    fn default() -> Self {
        Properties {
            s_type: PROPERTIES_TYPE,
            p_next: std::ptr::null_mut(),
            reordering_hint: 0,
            max_shader_binding_table_record_index: 0,
            _marker: PhantomData,
        }
    }
}

// SAFETY: as for `Features`.
unsafe impl vk::ExtendsPhysicalDeviceProperties2 for Properties<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The layouts of the C structures on a 64-bit target.
    #[test]
    fn the_structures_have_the_registry_layout() {
        assert_eq!(offset_of!(Features, s_type), 0);
        assert_eq!(offset_of!(Features, p_next), 8);
        assert_eq!(offset_of!(Features, ray_tracing_invocation_reorder), 16);
        assert_eq!(size_of::<Features>(), 24);
        assert_eq!(offset_of!(Properties, reordering_hint), 16);
        assert_eq!(
            offset_of!(Properties, max_shader_binding_table_record_index),
            20
        );
        assert_eq!(size_of::<Properties>(), 24);
        // The NV structure, which ash has, is laid out the same.
        assert_eq!(
            size_of::<vk::PhysicalDeviceRayTracingInvocationReorderFeaturesNV>(),
            size_of::<Features>()
        );
    }

    #[test]
    fn the_structures_chain_into_features_and_properties() {
        let mut features = Features::enabled();
        let at = &mut features as *mut Features as *mut c_void;
        let f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut features);
        assert_eq!(f2.p_next, at);
        assert_eq!(features.s_type.as_raw(), 1_000_581_000);
        assert_eq!(features.ray_tracing_invocation_reorder, vk::TRUE);
        let mut props = Properties::default();
        let at = &mut props as *mut Properties as *mut c_void;
        let p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut props);
        assert_eq!(p2.p_next, at);
        assert_eq!(props.s_type.as_raw(), 1_000_581_001);
    }
}
