//! Reuse across the cases one process runs: acceleration structures by
//! scene, pipelines (with their shader binding tables) by everything they
//! are made of. Many cases share a scene, a library and a table and differ
//! only in their dispatch or buffers. `SER_VULKAN_CACHE=0` turns it off
//! (one structure and one pipeline per case), for measuring.

use super::accel::Built;
use super::pipeline::{Pipeline, PipelineDesc};
use ash::vk;
use std::cell::RefCell;
use std::collections::HashMap;

pub struct Cache {
    pub enabled: bool,
    pub scenes: RefCell<HashMap<String, Built>>,
    pub pipelines: RefCell<HashMap<PipelineKey, Pipeline>>,
}

impl Cache {
    pub fn new() -> Cache {
        Cache {
            enabled: std::env::var("SER_VULKAN_CACHE").map_or(true, |v| v != "0"),
            scenes: RefCell::default(),
            pipelines: RefCell::default(),
        }
    }
}

/// Everything a pipeline and its table are made of, compared exactly.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PipelineKey {
    modules: Vec<(String, u32, Vec<u32>)>,
    raygens: Vec<usize>,
    table: String,
    bindings: Vec<(u32, i32)>,
    depth: u32,
    flags: u32,
}

impl PipelineKey {
    pub fn of(d: &PipelineDesc) -> PipelineKey {
        PipelineKey {
            modules: d
                .modules
                .iter()
                .map(|m| (m.entry.clone(), m.stage.as_raw(), m.spirv.clone()))
                .collect(),
            raygens: d.raygens.to_vec(),
            table: serde_json::to_string(d.table).unwrap_or_default(),
            bindings: d
                .bindings
                .iter()
                .map(|(b, t): &(u32, vk::DescriptorType)| (*b, t.as_raw()))
                .collect(),
            depth: d.max_recursion_depth,
            flags: d.flags.as_raw(),
        }
    }
}
