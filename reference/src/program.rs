//! A shader library resolved for running: structs, functions, resources and
//! entry points by name, with the names every body uses checked.

use crate::value::StructLayouts;
use ser_lang::ast::*;
use ser_lang::names;
use ser_lang::parser::numeric_type;
use ser_lang::Span;
use std::collections::{BTreeMap, HashSet};

mod calls;
mod check;
mod types;
pub mod typing;

pub use types::MAX_VALUE_SCALARS;

/// A name or signature error in a library, located in its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramError {
    pub span: Span,
    pub within: Option<String>,
    pub message: String,
}

impl std::fmt::Display for ProgramError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.within {
            Some(w) => write!(f, "{} (in `{w}`): {}", self.span, self.message),
            None => write!(f, "{}: {}", self.span, self.message),
        }
    }
}

/// A shader stage: the ray tracing stages, which run, and the stages of
/// the other pipelines, whose entry points only negative cases have (the
/// rules of where SER may be used name them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    RayGeneration,
    ClosestHit,
    AnyHit,
    Miss,
    Intersection,
    Callable,
    Compute,
    Vertex,
    Pixel,
    Hull,
    Domain,
    Geometry,
    Mesh,
    Amplification,
    Node,
}

const STAGE_NAMES: &[(Stage, &str)] = &[
    (Stage::RayGeneration, "raygeneration"),
    (Stage::ClosestHit, "closesthit"),
    (Stage::AnyHit, "anyhit"),
    (Stage::Miss, "miss"),
    (Stage::Intersection, "intersection"),
    (Stage::Callable, "callable"),
    (Stage::Compute, "compute"),
    (Stage::Vertex, "vertex"),
    (Stage::Pixel, "pixel"),
    (Stage::Hull, "hull"),
    (Stage::Domain, "domain"),
    (Stage::Geometry, "geometry"),
    (Stage::Mesh, "mesh"),
    (Stage::Amplification, "amplification"),
    (Stage::Node, "node"),
];

#[cfg(test)]
#[test]
fn every_stage_the_language_names_is_a_stage() {
    let ours: Vec<&str> = STAGE_NAMES.iter().map(|(_, n)| *n).collect();
    assert_eq!(ours, names::STAGES);
}

impl Stage {
    pub fn from_name(name: &str) -> Option<Stage> {
        STAGE_NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(s, _)| *s)
    }

    pub fn name(self) -> &'static str {
        STAGE_NAMES
            .iter()
            .find(|(s, _)| *s == self)
            .map(|(_, n)| *n)
            .expect("every stage has a name")
    }

    /// A stage of the ray tracing pipeline (one a dispatch can run).
    pub fn is_ray_tracing(self) -> bool {
        matches!(
            self,
            Stage::RayGeneration
                | Stage::ClosestHit
                | Stage::AnyHit
                | Stage::Miss
                | Stage::Intersection
                | Stage::Callable
        )
    }

    /// The parameters an entry point of a ray tracing stage takes: how
    /// many, and which is the payload (or callable parameter) and which the
    /// attributes. Other stages' signatures are not checked.
    fn signature(self) -> Option<(usize, Option<usize>, Option<usize>)> {
        Some(match self {
            Stage::RayGeneration | Stage::Intersection => (0, None, None),
            Stage::ClosestHit | Stage::AnyHit => (2, Some(0), Some(1)),
            Stage::Miss | Stage::Callable => (1, Some(0), None),
            _ => return None,
        })
    }
}

/// An output buffer declared in the library.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferDecl {
    pub name: String,
    pub element: Type,
    pub storage: Vec<String>,
}

#[derive(Debug)]
pub struct Program {
    pub library: Library,
    structs: BTreeMap<String, Vec<(String, Type)>>,
    functions: BTreeMap<String, usize>,
    pub buffers: Vec<BufferDecl>,
    pub acceleration_structures: Vec<String>,
    /// Fields of the local root constant buffer (a `cbuffer` in register
    /// space 1): name, type, byte offset.
    pub local_constants: Vec<(String, Type, u32)>,
    /// Payload access qualifiers of the `[raypayload]` structs.
    payloads: BTreeMap<String, crate::payload::PayloadAccess>,
    /// Resources of other kinds than the runtime's two (a negative case's
    /// `StructuredBuffer<T>`, `RWByteAddressBuffer`...), by name.
    pub other_resources: Vec<(String, ResourceKind)>,
    /// The declarations that only a negative case may make, since nothing
    /// here runs them: file-scope variables, other resources, constant
    /// buffers other than the local root constants.
    pub static_only: Vec<String>,
}

impl StructLayouts for Program {
    fn fields_of(&self, name: &str) -> Option<&[(String, Type)]> {
        self.structs.get(name).map(Vec::as_slice)
    }
}

fn err(span: Span, within: Option<&str>, message: impl Into<String>) -> ProgramError {
    ProgramError {
        span,
        within: within.map(str::to_string),
        message: message.into(),
    }
}

impl Program {
    pub fn new(library: Library) -> Result<Program, ProgramError> {
        let mut structs = BTreeMap::new();
        for (name, fields) in names::BUILTIN_STRUCTS {
            let fields = fields
                .iter()
                .map(|(f, t)| {
                    (
                        f.to_string(),
                        numeric_type(t).expect("built-in field types are numeric"),
                    )
                })
                .collect();
            structs.insert(name.to_string(), fields);
        }
        let mut program = Program {
            library: Library::default(),
            structs,
            functions: BTreeMap::new(),
            buffers: Vec::new(),
            acceleration_structures: Vec::new(),
            local_constants: Vec::new(),
            payloads: BTreeMap::new(),
            other_resources: Vec::new(),
            static_only: Vec::new(),
        };
        let mut shapes = types::Shapes::new(&program.structs);
        let mut seen = HashSet::new();
        for (i, item) in library.items.iter().enumerate() {
            let (span, name) = (item.span(), item.name());
            if !seen.insert(name)
                || program.structs.contains_key(name) && !matches!(item, Item::Struct(_))
            {
                return Err(err(span, None, format!("`{name}` is declared twice")));
            }
            match item {
                Item::Struct(s) => {
                    if program.structs.contains_key(&s.name) {
                        return Err(err(
                            s.span,
                            None,
                            format!(
                                "struct `{}` is declared twice or shadows a built-in",
                                s.name
                            ),
                        ));
                    }
                    // A derived struct is read with the fields it inherits.
                    let flat = StructDecl {
                        base: None,
                        fields: library.fields_of(s).into_iter().cloned().collect(),
                        ..s.clone()
                    };
                    if let Some(access) =
                        crate::payload::PayloadAccess::of(&flat, &program.payloads)
                    {
                        program.payloads.insert(s.name.clone(), access);
                    }
                    shapes.add_struct(&flat)?;
                    program.structs.insert(
                        s.name.clone(),
                        flat.fields
                            .iter()
                            .map(|f| (f.name.clone(), f.ty.clone()))
                            .collect(),
                    );
                }
                Item::Resource(r) => match &r.kind {
                    ResourceKind::RwStructuredBuffer(t) => {
                        // A buffer of HitObject is the validator's to
                        // diagnose (`ser.hit_object.type.storage_restrictions`).
                        let numeric = matches!(t, Type::Scalar(s) | Type::Vector(s, _) if *s != ScalarType::Bool);
                        if !numeric && !program.holds_hit_object(t) {
                            return Err(err(
                                r.span,
                                None,
                                "buffer elements must be int, uint or float scalars or vectors",
                            ));
                        }
                        program.buffers.push(BufferDecl {
                            name: r.name.clone(),
                            element: t.clone(),
                            storage: r.storage.clone(),
                        });
                    }
                    ResourceKind::AccelerationStructure => {
                        program.acceleration_structures.push(r.name.clone())
                    }
                    ResourceKind::Other { name, .. } => {
                        program.static_only.push(format!("the {name} `{}`", r.name));
                        program
                            .other_resources
                            .push((r.name.clone(), r.kind.clone()));
                    }
                },
                Item::Global(g) => program
                    .static_only
                    .push(format!("the file-scope variable `{}`", g.name)),
                // A constant buffer other than the local root constants
                // (register space 1).
                Item::CBuffer(c) if c.texture || !is_local_root_table(c) => program
                    .static_only
                    .push(format!("the constant buffer `{}`", c.name)),
                // Declared, never usable by a ray tracing stage: the
                // validator rules on what it holds.
                Item::GroupShared(_) => {}
                Item::CBuffer(c) => {
                    if !program.local_constants.is_empty() {
                        return Err(err(
                            c.span,
                            None,
                            "only one local root constant buffer is supported",
                        ));
                    }
                    let mut offset = 0;
                    for f in &c.fields {
                        let words = match &f.ty {
                            Type::Scalar(_) => 1,
                            Type::Vector(_, n) => *n as u32,
                            _ => {
                                return Err(err(
                                    f.span,
                                    Some(&c.name),
                                    "local root constants must be scalars or vectors",
                                ))
                            }
                        };
                        program
                            .local_constants
                            .push((f.name.clone(), f.ty.clone(), offset));
                        offset += 4 * words;
                    }
                }
                Item::Function(f) => {
                    if let Some(stage) = f.stage() {
                        let Some(stage) = Stage::from_name(stage) else {
                            return Err(err(
                                f.span,
                                Some(&f.name),
                                format!(
                                    "unknown shader stage \"{stage}\"; expected one of {}",
                                    names::STAGES.join(", ")
                                ),
                            ));
                        };
                        check_entry_signature(f, stage)?;
                    }
                    program.functions.insert(f.name.clone(), i);
                }
            }
        }
        program.library = library;
        calls::check(&program.library, &program.functions)?;
        for item in &program.library.items {
            if let Item::Function(f) = item {
                shapes.check_function(f)?;
            }
        }
        for item in &program.library.items {
            if let Item::Function(f) = item {
                check::function(&program, f)?;
            }
        }
        Ok(program)
    }

    /// Whether a value of the type holds a `HitObject` (itself, or in a
    /// field or element).
    pub fn holds_hit_object(&self, t: &Type) -> bool {
        match t {
            Type::HitObject => true,
            Type::Array(e, _) => self.holds_hit_object(e),
            Type::Object { element, .. } => self.holds_hit_object(element),
            Type::Struct(n) => self
                .structs
                .get(n)
                .is_some_and(|fields| fields.iter().any(|(_, t)| self.holds_hit_object(t))),
            _ => false,
        }
    }

    /// What a file-scope name of a negative case's library is: a resource
    /// of another kind, or a file-scope variable.
    pub fn file_scope(&self, name: &str) -> Option<typing::Ty> {
        if let Some((_, k)) = self.other_resources.iter().find(|(n, _)| n == name) {
            return Some(typing::Ty::Resource(k.clone()));
        }
        self.library.items.iter().find_map(|i| match i {
            Item::Global(g) if g.name == name => Some(typing::Ty::Value(g.ty.clone())),
            _ => None,
        })
    }

    pub fn function(&self, name: &str) -> Option<&FunctionDecl> {
        match &self.library.items[*self.functions.get(name)?] {
            Item::Function(f) => Some(f),
            _ => None,
        }
    }

    /// The stage of an entry point.
    pub fn entry_stage(&self, name: &str) -> Option<Stage> {
        self.function(name)?.stage().and_then(Stage::from_name)
    }

    pub fn buffer_index(&self, name: &str) -> Option<usize> {
        self.buffers.iter().position(|b| b.name == name)
    }

    /// The payload access qualifiers of a `[raypayload]` struct.
    pub fn payload_access(&self, name: &str) -> Option<&crate::payload::PayloadAccess> {
        self.payloads.get(name)
    }

    pub fn has_struct(&self, name: &str) -> bool {
        self.structs.contains_key(name)
    }

    /// Index of a field in a struct.
    pub fn field_index(&self, struct_name: &str, field: &str) -> Option<(usize, &Type)> {
        self.structs
            .get(struct_name)?
            .iter()
            .enumerate()
            .find(|(_, (n, _))| names::same(n.as_bytes(), field.as_bytes()))
            .map(|(i, (_, t))| (i, t))
    }
}

/// A `cbuffer` in register space 1: the shader record's local root
/// constants (`cases/README.md`).
fn is_local_root_table(c: &CBufferDecl) -> bool {
    c.register
        .as_ref()
        .and_then(|r| r.space.as_deref())
        .is_some_and(|s| s == "space1")
}

fn check_entry_signature(f: &FunctionDecl, stage: Stage) -> Result<(), ProgramError> {
    let Some((count, payload, attributes)) = stage.signature() else {
        return Ok(());
    };
    let within = Some(f.name.as_str());
    if f.return_type != Type::Void {
        return Err(err(f.span, within, "an entry point returns void"));
    }
    // An intersection shader with a payload parameter is the validator's
    // `intersection_payload` (`dxr.paq.sequence.intersection_has_no_payload`).
    if stage == Stage::Intersection
        && matches!(f.params.as_slice(), [p] if p.mode == ParamMode::InOut && matches!(p.ty, Type::Struct(_)))
    {
        return Ok(());
    }
    if f.params.len() != count {
        return Err(err(
            f.span,
            within,
            format!(
                "a {} shader takes {count} parameter(s), found {}",
                stage.name(),
                f.params.len()
            ),
        ));
    }
    if let Some(i) = payload {
        let p = &f.params[i];
        if p.mode != ParamMode::InOut || !matches!(p.ty, Type::Struct(_)) {
            return Err(err(
                f.span,
                within,
                format!(
                    "parameter `{}` of a {} shader is an `inout` struct",
                    p.name,
                    stage.name()
                ),
            ));
        }
    }
    if let Some(i) = attributes {
        let p = &f.params[i];
        if matches!(p.mode, ParamMode::Out | ParamMode::InOut) || !matches!(p.ty, Type::Struct(_)) {
            return Err(err(
                f.span,
                within,
                format!(
                    "parameter `{}` of a {} shader is an `in` attribute struct",
                    p.name,
                    stage.name()
                ),
            ));
        }
    }
    Ok(())
}
