//! What every emitted shader and the pipeline agree on: descriptor set 0,
//! the acceleration structure at binding 0, and each `RWStructuredBuffer`
//! of the library at binding 1 + its position among the library's buffers,
//! as a `std430` storage buffer of 32-bit words. A record's local root
//! constants are its shader record data, right after the handle.

use ser_lang::ast::{Item, Library, ResourceKind, ScalarType, Type};
use ser_reference::program::Stage;
use ser_reference::sbt::ShaderTable;

/// Entry names for records without a shader: a miss or callable record
/// needs a shader in Vulkan; an empty one does what no shader does.
pub const EMPTY_MISS: &str = "__empty_miss";
pub const EMPTY_CALLABLE: &str = "__empty_callable";

/// An entry point a case's pipeline needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Needed {
    /// A function of the library, by name.
    Library(String),
    /// The empty shader of a miss or callable record without one.
    Empty(Stage, &'static str),
}

/// The entry points a pipeline of `table` with ray generation shader
/// `raygen` needs, each once, in the order of the table (the ray generation
/// shader first): what any front end (GLSL, HLSL) must compile. `Err` for
/// local root arguments other than constants, which the pipeline does not
/// lay out.
pub fn needed(raygen: &str, table: &ShaderTable) -> Result<Vec<Needed>, String> {
    const ROOT_ARGUMENTS: &str = "local root arguments other than constants";
    let mut out: Vec<Needed> = Vec::new();
    let mut want = |n: Needed| {
        if !out.contains(&n) {
            out.push(n);
        }
    };
    want(Needed::Library(raygen.to_string()));
    // The ray generation record's constants go into the table like any
    // record's (the layout calculator lays them out); handles do not.
    if !table.raygen.local_root_arguments.is_empty() {
        return Err(ROOT_ARGUMENTS.into());
    }
    for r in &table.hit_groups {
        for n in [&r.closest_hit, &r.any_hit, &r.intersection]
            .into_iter()
            .flatten()
        {
            want(Needed::Library(n.clone()));
        }
    }
    for (records, stage, name) in [
        (&table.miss, Stage::Miss, EMPTY_MISS),
        (&table.callable, Stage::Callable, EMPTY_CALLABLE),
    ] {
        for r in records {
            match &r.shader {
                Some(n) => want(Needed::Library(n.clone())),
                None => want(Needed::Empty(stage, name)),
            }
        }
        if records.iter().any(|r| !r.local_root_arguments.is_empty()) {
            return Err(ROOT_ARGUMENTS.into());
        }
    }
    Ok(out)
}

pub const SET: u32 = 0;
pub const ACCELERATION_STRUCTURE_BINDING: u32 = 0;

/// One output buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferBinding {
    pub name: String,
    pub binding: u32,
    /// The element type, as declared.
    pub element: Type,
    /// 32-bit words per element.
    pub words_per_element: u32,
}

/// The resources of a library.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Interface {
    /// The `RaytracingAccelerationStructure`'s name, if declared.
    pub acceleration_structure: Option<String>,
    pub buffers: Vec<BufferBinding>,
}

impl Interface {
    /// Each resource's binding, whatever its element type (a negative case
    /// may declare a buffer no dispatch could fill).
    pub fn bindings(library: &Library) -> Vec<(String, u32)> {
        let mut buffers = 0;
        library
            .items
            .iter()
            .filter_map(|item| {
                let Item::Resource(r) = item else { return None };
                let binding = match r.kind {
                    ResourceKind::AccelerationStructure => ACCELERATION_STRUCTURE_BINDING,
                    // Every other resource a binding of its own, after
                    // the acceleration structure's.
                    ResourceKind::RwStructuredBuffer(_) | ResourceKind::Other { .. } => {
                        buffers += 1;
                        buffers
                    }
                };
                Some((r.name.clone(), binding))
            })
            .collect()
    }

    pub fn of(library: &Library) -> Result<Interface, String> {
        let mut out = Interface::default();
        for item in &library.items {
            let Item::Resource(r) = item else { continue };
            match &r.kind {
                ResourceKind::AccelerationStructure => {
                    if out.acceleration_structure.is_some() {
                        return Err("more than one acceleration structure".into());
                    }
                    out.acceleration_structure = Some(r.name.clone());
                }
                ResourceKind::RwStructuredBuffer(t) => {
                    let words = words(t).ok_or_else(|| {
                        format!("buffer `{}`: elements of a type other than scalars and vectors of 32-bit values", r.name)
                    })?;
                    out.buffers.push(BufferBinding {
                        name: r.name.clone(),
                        binding: 1 + out.buffers.len() as u32,
                        element: t.clone(),
                        words_per_element: words,
                    });
                }
                ResourceKind::Other { name, .. } => {
                    return Err(format!(
                        "`{}`: a {name} is declared only in negative cases; nothing binds it",
                        r.name
                    ))
                }
            }
        }
        Ok(out)
    }

    pub fn buffer(&self, name: &str) -> Option<&BufferBinding> {
        self.buffers.iter().find(|b| b.name == name)
    }
}

/// Words of a buffer element: 32-bit scalars and vectors of them.
fn words(t: &Type) -> Option<u32> {
    let ok = |s: &ScalarType| {
        matches!(
            s,
            ScalarType::Uint | ScalarType::Int | ScalarType::Float | ScalarType::Bool
        )
    };
    match t {
        Type::Scalar(s) if ok(s) => Some(1),
        Type::Vector(s, n) if ok(s) => Some(*n as u32),
        _ => None,
    }
}
