//! The IR of a case library as GLSL 460 with `GL_EXT_ray_tracing` and
//! `GL_NV_shader_invocation_reorder` or `GL_EXT_shader_invocation_reorder`
//! (the [`Spelling`] of the profile), and `GL_EXT_ray_query` in the
//! modules that use a `RayQuery` (`ray_query.rs`; its
//! `rayQueryInitializeEXT` takes the acceleration structure `traceRayEXT`
//! does): one module per entry point, with every struct and helper
//! function it reaches.
//!
//! What the emitted modules and the pipeline share is in
//! [`crate::interface`]; everything else (payload, callable data and
//! attribute locations) is internal to each module:
//!
//! * an entry point's incoming payload (callable data) is the module's
//!   `rayPayloadInEXT` (`callableDataInEXT`) at location 0, named as the
//!   parameter; its attributes are the `hitAttributeEXT` global `_attr_in`,
//!   copied into a local of the parameter's name;
//! * every payload type a module passes to `TraceRay`,
//!   `HitObject::TraceRay` or `HitObject::Invoke` gets one `rayPayloadEXT`
//!   global `_plK` at location K (from 1), and the call copies the argument
//!   in and out of it (HLSL's `inout`); `CallShader` likewise with
//!   `callableDataEXT` `_cdK`;
//! * `GetAttributes<T>()` reads a `hitObjectAttributeNV` global `_hoaK`;
//! * an intersection shader's `ReportHit` writes the `hitAttributeEXT`
//!   global `_ha` first;
//! * a `cbuffer` in register space 1 (the record's local root constants) is
//!   a `shaderRecordEXT` buffer block, 4 bytes a word from offset 0 as the
//!   case format packs them: `std430` when it holds only scalars, the
//!   `scalar` layout (`GL_EXT_scalar_block_layout`, the device's
//!   `scalarBlockLayout` feature) when it holds vectors.

mod builtins;
mod expr;
mod ray_query;
mod stmt;
pub(crate) mod types;

use crate::interface::{Interface, ACCELERATION_STRUCTURE_BINDING, SET};
use ser_lang::ast::{FunctionDecl, Item, Library, ParamMode, ScalarType, Type};
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;
use types::{declare, glsl_type, mangle, unsupported};

/// One GLSL module: the entry point is `main`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glsl {
    pub stage: Stage,
    /// The entry point's name in the library.
    pub entry: String,
    pub source: String,
}

/// The stages are the reference's own.
pub use ser_reference::program::Stage;

/// Which GLSL extension spells the hit object API. The two name the
/// functions they share alike but for the suffix (`hitObjectIsHitNV`,
/// `hitObjectIsHitEXT`); the emitter writes the NV names and, for EXT,
/// [`Spelling::respell`] renames them. Where the two differ (EXT's
/// `hitObjectRecordMissEXT` takes ray flags; each has functions the other
/// lacks) the emitter writes each form itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// `GL_NV_shader_invocation_reorder`, profile `vulkan-nv`.
    Nv,
    /// `GL_EXT_shader_invocation_reorder`, profile `vulkan-ext`.
    Ext,
}

impl Spelling {
    pub fn for_profile(p: ser_reference::Profile) -> Option<Spelling> {
        match p {
            ser_reference::Profile::VulkanNv => Some(Spelling::Nv),
            ser_reference::Profile::VulkanExt => Some(Spelling::Ext),
            _ => None,
        }
    }

    /// GLSL written with the NV names, in this spelling: under EXT every
    /// identifier `hitObject...NV` or `reorderThreadNV` ends in `EXT`, and
    /// the extension directive names GL_EXT. (User names never end in
    /// `NV`: `types::mangle` renames them.)
    pub fn respell(self, glsl: &str) -> String {
        if self == Spelling::Nv {
            return glsl.to_string();
        }
        let mut out = String::with_capacity(glsl.len() + 64);
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            let api = word.starts_with("hitObject") || word.starts_with("reorderThread");
            if api && word.ends_with("NV") {
                out.push_str(&word[..word.len() - 2]);
                out.push_str("EXT");
            } else if word == "GL_NV_shader_invocation_reorder" {
                out.push_str("GL_EXT_shader_invocation_reorder");
            } else {
                out.push_str(word);
            }
            word.clear();
        };
        for c in glsl.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
        out
    }
}

/// What the NV extension or this emitter cannot express: the case is then
/// reported not supported, with this reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

/// One GLSL module for one entry point of the library (its stage from its
/// `[shader("...")]` attribute), with every struct and helper function it
/// reaches.
pub fn entry_point(
    library: &Library,
    entry: &str,
    interface: &Interface,
    spelling: Spelling,
) -> Result<Glsl, Unsupported> {
    let f = library
        .items
        .iter()
        .find_map(|i| match i {
            Item::Function(f) if f.name == entry => Some(f),
            _ => None,
        })
        .ok_or_else(|| Unsupported(format!("no function `{entry}` in the library")))?;
    let stage = f
        .stage()
        .and_then(Stage::from_name)
        .ok_or_else(|| Unsupported(format!("`{entry}` is not an entry point")))?;
    if !stage.is_ray_tracing() {
        return unsupported(format!(
            "`{entry}` is a {} shader: only ray tracing stages are emitted",
            stage.name()
        ));
    }
    let mut e = Emitter::new(library, interface, stage, spelling);
    let source = spelling.respell(&e.module(f)?);
    Ok(Glsl {
        stage,
        entry: entry.to_string(),
        source,
    })
}

/// Which optional extensions a module uses.
#[derive(Default)]
pub(crate) struct Uses {
    pub reorder: bool,
    pub subgroup_basic: bool,
    pub subgroup_ballot: bool,
    pub subgroup_vote: bool,
    pub subgroup_arithmetic: bool,
    pub scalar_layout: bool,
    /// The shader record of a hit object read through a buffer reference
    /// (`HitObject::LoadLocalRootTableConstant`).
    pub shader_record: bool,
    /// GL_NV_ray_tracing_motion_blur: the motion forms and hitObjectGetCurrentTime*.
    pub motion: bool,
    /// GL_EXT_ray_query: `RayQuery` (`rayQueryEXT`).
    pub ray_query: bool,
}

pub(crate) struct Emitter<'a> {
    pub lib: &'a Library,
    pub spelling: Spelling,
    pub iface: &'a Interface,
    pub stage: Stage,
    pub structs: HashMap<String, Vec<(String, Type)>>,
    pub functions: HashMap<String, &'a FunctionDecl>,
    /// Local root constants (`cbuffer` fields).
    pub constants: HashMap<String, Type>,
    pub scopes: Vec<HashMap<String, Type>>,
    /// Statements the current statement needs first (hoisted calls).
    pub pre: Vec<String>,
    /// Non-zero inside a short-circuit operand, a ternary branch or a loop
    /// condition: nothing may be hoisted there.
    pub conditional: u32,
    pub out: String,
    pub indent: usize,
    pub tmp: u32,
    /// Outgoing payload types: `_plK` at location K = 1 + position.
    pub payloads: Vec<Type>,
    /// Outgoing callable data types: `_cdK` at location K = 1 + position.
    pub callables: Vec<Type>,
    /// `hitObjectAttributeNV` types: `_hoaK` at location K = position.
    pub hit_attrs: Vec<Type>,
    /// The type `ReportHit` writes (intersection shaders).
    pub report_attr: Option<Type>,
    pub uses: Uses,
    /// The return type of the function being emitted.
    pub ret: Type,
}

pub(crate) fn builtin_structs() -> Vec<(String, Vec<(String, Type)>)> {
    ser_lang::names::BUILTIN_STRUCTS
        .iter()
        .map(|(n, fields)| {
            (
                n.to_string(),
                fields
                    .iter()
                    .map(|(f, t)| {
                        (
                            f.to_string(),
                            ser_lang::parser::numeric_type(t)
                                .expect("built-in field types are numeric"),
                        )
                    })
                    .collect(),
            )
        })
        .collect()
}

impl<'a> Emitter<'a> {
    pub fn new(
        lib: &'a Library,
        iface: &'a Interface,
        stage: Stage,
        spelling: Spelling,
    ) -> Emitter<'a> {
        let mut structs: HashMap<_, _> = builtin_structs().into_iter().collect();
        let mut functions = HashMap::new();
        let mut constants = HashMap::new();
        for item in &lib.items {
            match item {
                Item::Struct(s) => {
                    structs.insert(
                        s.name.clone(),
                        lib.fields_of(s)
                            .iter()
                            .map(|f| (f.name.clone(), f.ty.clone()))
                            .collect(),
                    );
                }
                Item::Function(f) => {
                    functions.insert(f.name.clone(), f);
                }
                Item::CBuffer(c) => {
                    for f in &c.fields {
                        constants.insert(f.name.clone(), f.ty.clone());
                    }
                }
                _ => {}
            }
        }
        Emitter {
            lib,
            spelling,
            iface,
            stage,
            structs,
            functions,
            constants,
            scopes: Vec::new(),
            pre: Vec::new(),
            conditional: 0,
            out: String::new(),
            indent: 0,
            tmp: 0,
            payloads: Vec::new(),
            callables: Vec::new(),
            hit_attrs: Vec::new(),
            report_attr: None,
            uses: Uses::default(),
            ret: Type::Void,
        }
    }

    pub fn fresh(&mut self) -> String {
        self.tmp += 1;
        format!("_t{}", self.tmp)
    }

    pub fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Writes the hoisted statements.
    pub fn flush_pre(&mut self) {
        for l in std::mem::take(&mut self.pre) {
            self.line(&l);
        }
    }

    pub fn push_pre(&mut self, line: String) -> Result<(), Unsupported> {
        if self.conditional > 0 {
            return unsupported(
                "a ray tracing call or hit object operation inside a short-circuit operand, a ternary branch or a loop condition",
            );
        }
        self.pre.push(line);
        Ok(())
    }

    pub fn struct_fields(&self, name: &str) -> Result<&Vec<(String, Type)>, Unsupported> {
        self.structs
            .get(name)
            .ok_or_else(|| Unsupported(format!("unknown struct `{name}`")))
    }

    pub fn holds_hit_object(&self, t: &Type) -> bool {
        match t {
            Type::HitObject | Type::RayQuery(..) => true,
            Type::Array(e, _) => self.holds_hit_object(e),
            Type::Struct(n) => self
                .structs
                .get(n)
                .is_some_and(|f| f.iter().any(|(_, t)| self.holds_hit_object(t))),
            _ => false,
        }
    }

    /// Location of the outgoing payload global of a type.
    pub fn payload_location(&mut self, t: &Type) -> u32 {
        let i = match self.payloads.iter().position(|p| p == t) {
            Some(i) => i,
            None => {
                self.payloads.push(t.clone());
                self.payloads.len() - 1
            }
        };
        1 + i as u32
    }

    pub fn callable_location(&mut self, t: &Type) -> u32 {
        let i = match self.callables.iter().position(|p| p == t) {
            Some(i) => i,
            None => {
                self.callables.push(t.clone());
                self.callables.len() - 1
            }
        };
        1 + i as u32
    }

    pub fn hit_attr_location(&mut self, t: &Type) -> u32 {
        match self.hit_attrs.iter().position(|p| p == t) {
            Some(i) => i as u32,
            None => {
                self.hit_attrs.push(t.clone());
                (self.hit_attrs.len() - 1) as u32
            }
        }
    }

    /// User functions reachable from `f` (not `f`), callees first.
    fn reachable(&self, f: &FunctionDecl) -> Result<Vec<&'a FunctionDecl>, Unsupported> {
        fn visit<'a>(
            e: &Emitter<'a>,
            f: &FunctionDecl,
            seen: &mut BTreeSet<String>,
            stack: &mut Vec<String>,
            order: &mut Vec<&'a FunctionDecl>,
        ) -> Result<(), Unsupported> {
            let mut callees = Vec::new();
            ser_lang::visit::function_exprs(f, &mut |x| {
                if let ser_lang::ast::ExprKind::Call { name, .. } = &x.kind {
                    if e.functions.contains_key(name) {
                        callees.push(name.clone());
                    }
                }
            });
            for c in callees {
                if stack.contains(&c) {
                    return unsupported(format!("recursive function `{c}`"));
                }
                if seen.insert(c.clone()) {
                    let g = e.functions[&c];
                    stack.push(c.clone());
                    visit(e, g, seen, stack, order)?;
                    stack.pop();
                    order.push(g);
                }
            }
            Ok(())
        }
        let mut order = Vec::new();
        let mut seen = BTreeSet::new();
        visit(self, f, &mut seen, &mut vec![f.name.clone()], &mut order)?;
        Ok(order)
    }

    /// Structs to declare: those the library declares (and the built-in
    /// ones), in dependency order, except those holding a hit object (NV
    /// allows no hit object in a struct: a use of one fails at the use).
    fn struct_decls(&self) -> Result<String, Unsupported> {
        let mut out = String::new();
        let mut all: Vec<(String, Vec<(String, Type)>)> = builtin_structs();
        for item in &self.lib.items {
            if let Item::Struct(s) = item {
                // GLSL has no inheritance: a derived struct is declared
                // with its inherited fields written out.
                all.push((
                    s.name.clone(),
                    self.lib
                        .fields_of(s)
                        .iter()
                        .map(|f| (f.name.clone(), f.ty.clone()))
                        .collect(),
                ));
            }
        }
        let mut done: BTreeSet<String> = BTreeSet::new();
        fn deps(t: &Type, out: &mut Vec<String>) {
            match t {
                Type::Struct(n) => out.push(n.clone()),
                Type::Array(e, _) => deps(e, out),
                _ => {}
            }
        }
        let mut progress = true;
        while progress {
            progress = false;
            for (name, fields) in &all {
                if done.contains(name) {
                    continue;
                }
                let mut d = Vec::new();
                for (_, t) in fields {
                    deps(t, &mut d);
                }
                if !d.iter().all(|n| done.contains(n)) {
                    continue;
                }
                done.insert(name.clone());
                progress = true;
                if self.holds_hit_object(&Type::Struct(name.clone()))
                    || fields.iter().any(|(_, t)| glsl_type(t).is_err())
                {
                    continue;
                }
                let _ = writeln!(out, "struct {} {{", mangle(name));
                for (f, t) in fields {
                    let _ = writeln!(out, "    {};", declare(t, &mangle(f))?);
                }
                out.push_str("};\n");
            }
        }
        Ok(out)
    }

    fn resources(&mut self) -> Result<String, Unsupported> {
        let mut out = String::new();
        if let Some(a) = &self.iface.acceleration_structure {
            let _ = writeln!(
                out,
                "layout(set = {SET}, binding = {ACCELERATION_STRUCTURE_BINDING}) uniform accelerationStructureEXT {};",
                mangle(a)
            );
        }
        for item in &self.lib.items {
            let Item::Resource(r) = item else { continue };
            let Some(b) = self.iface.buffer(&r.name) else {
                continue;
            };
            let scalar = match types::scalar_of(&b.element) {
                Some(ScalarType::Bool) | Some(ScalarType::Uint) => "uint",
                Some(ScalarType::Int) => "int",
                Some(ScalarType::Float) => "float",
                None => return unsupported(format!("buffer `{}` of {:?}", r.name, b.element)),
            };
            let coherent = if r
                .storage
                .iter()
                .any(|s| s == "globallycoherent" || s == "reordercoherent")
            {
                "coherent "
            } else {
                ""
            };
            let name = mangle(&r.name);
            let _ = writeln!(
                out,
                "layout(set = {SET}, binding = {}, std430) {coherent}buffer {name}_block {{ {scalar} {name}[]; }};",
                b.binding
            );
        }
        for item in &self.lib.items {
            let Item::CBuffer(c) = item else { continue };
            // 4 bytes a word from offset 0: std430 lays scalars out so;
            // vectors need the scalar layout (no 8/16-byte alignment).
            let vectors = c.fields.iter().any(|f| matches!(f.ty, Type::Vector(..)));
            let layout = if vectors {
                self.uses.scalar_layout = true;
                "scalar"
            } else {
                "std430"
            };
            let _ = writeln!(
                out,
                "layout(shaderRecordEXT, {layout}) buffer {}_record {{",
                mangle(&c.name)
            );
            for f in &c.fields {
                if !matches!(f.ty, Type::Scalar(_) | Type::Vector(..))
                    || types::scalar_of(&f.ty) == Some(ScalarType::Bool)
                {
                    return unsupported(format!(
                        "local root constant `{}` of type {:?}",
                        f.name, f.ty
                    ));
                }
                let _ = writeln!(out, "    {};", declare(&f.ty, &mangle(&f.name))?);
            }
            out.push_str("};\n");
        }
        Ok(out)
    }

    fn function(&mut self, f: &FunctionDecl) -> Result<(String, String), Unsupported> {
        let mut params = Vec::new();
        let mut scope = HashMap::new();
        for p in &f.params {
            let mode = match p.mode {
                ParamMode::Default | ParamMode::In => "in",
                ParamMode::Out => "out",
                ParamMode::InOut => "inout",
            };
            let by_value = matches!(p.mode, ParamMode::Default | ParamMode::In);
            if self.holds_hit_object(&p.ty) && !matches!(p.ty, Type::HitObject | Type::RayQuery(..))
            {
                return unsupported(
                    "a parameter holding a HitObject or RayQuery in a struct or array",
                );
            }
            if p.ty == Type::HitObject && !by_value {
                return unsupported("an out or inout HitObject parameter");
            }
            if ray_query::is_query(&p.ty) {
                // An opaque `rayQueryEXT` parameter is the caller's query
                // (ray_query.rs); GLSL has no out opaque parameters.
                if !by_value || !matches!(p.ty, Type::RayQuery(..)) {
                    return unsupported(
                        "an out or inout RayQuery parameter, or an array of RayQuery as a parameter",
                    );
                }
                ray_query::template_flags(&p.ty)?;
                self.uses.ray_query = true;
            }
            params.push(format!("{mode} {}", declare(&p.ty, &mangle(&p.name))?));
            scope.insert(p.name.clone(), p.ty.clone());
        }
        if self.holds_hit_object(&f.return_type) {
            return unsupported("a function returning a HitObject or a RayQuery");
        }
        let head = format!(
            "{} {}({})",
            glsl_type(&f.return_type)?,
            mangle(&f.name),
            params.join(", ")
        );
        self.ret = f.return_type.clone();
        self.scopes = vec![scope];
        let saved = std::mem::take(&mut self.out);
        self.line(&format!("{head} {{"));
        self.indent += 1;
        self.block_body(&f.body)?;
        self.indent -= 1;
        self.line("}");
        let body = std::mem::replace(&mut self.out, saved);
        Ok((format!("{head};"), body))
    }

    fn entry(&mut self, f: &FunctionDecl) -> Result<(String, String), Unsupported> {
        let mut globals = String::new();
        let mut scope = HashMap::new();
        let mut copies = Vec::new();
        match self.stage {
            Stage::ClosestHit | Stage::AnyHit | Stage::Miss | Stage::Callable => {
                let p = &f.params[0];
                let storage = if self.stage == Stage::Callable {
                    "callableDataInEXT"
                } else {
                    "rayPayloadInEXT"
                };
                if self.holds_hit_object(&p.ty) {
                    return unsupported("a HitObject in a payload");
                }
                let _ = writeln!(
                    globals,
                    "layout(location = 0) {storage} {};",
                    declare(&p.ty, &mangle(&p.name))?
                );
                scope.insert(p.name.clone(), p.ty.clone());
                if let Some(a) = f.params.get(1) {
                    let _ = writeln!(globals, "hitAttributeEXT {};", declare(&a.ty, "_attr_in")?);
                    copies.push(format!("{} = _attr_in;", declare(&a.ty, &mangle(&a.name))?));
                    scope.insert(a.name.clone(), a.ty.clone());
                }
            }
            _ => {}
        }
        self.ret = Type::Void;
        self.scopes = vec![scope];
        let saved = std::mem::take(&mut self.out);
        self.line("void main() {");
        self.indent += 1;
        for c in copies {
            self.line(&c);
        }
        self.block_body(&f.body)?;
        self.indent -= 1;
        self.line("}");
        let body = std::mem::replace(&mut self.out, saved);
        Ok((globals, body))
    }

    fn module(&mut self, f: &FunctionDecl) -> Result<String, Unsupported> {
        let helpers = self.reachable(f)?;
        let mut prototypes = String::new();
        let mut bodies = String::new();
        for h in helpers {
            let (proto, body) = self.function(h)?;
            prototypes.push_str(&proto);
            prototypes.push('\n');
            bodies.push_str(&body);
        }
        let (entry_globals, main) = self.entry(f)?;
        let resources = self.resources()?;
        let structs = self.struct_decls()?;

        let mut globals = entry_globals;
        for (i, t) in self.payloads.clone().iter().enumerate() {
            let _ = writeln!(
                globals,
                "layout(location = {}) rayPayloadEXT {};",
                i + 1,
                declare(t, &format!("_pl{}", i + 1))?
            );
        }
        for (i, t) in self.callables.clone().iter().enumerate() {
            let _ = writeln!(
                globals,
                "layout(location = {}) callableDataEXT {};",
                i + 1,
                declare(t, &format!("_cd{}", i + 1))?
            );
        }
        for (i, t) in self.hit_attrs.clone().iter().enumerate() {
            let _ = writeln!(
                globals,
                "layout(location = {i}) hitObjectAttributeNV {};",
                declare(t, &format!("_hoa{i}"))?
            );
        }
        if let Some(t) = &self.report_attr {
            let _ = writeln!(globals, "hitAttributeEXT {};", declare(t, "_ha")?);
        }

        let mut out = String::from("#version 460\n#extension GL_EXT_ray_tracing : require\n");
        if self.uses.reorder {
            out.push_str("#extension GL_NV_shader_invocation_reorder : require\n");
        }
        if self.uses.motion {
            out.push_str("#extension GL_NV_ray_tracing_motion_blur : require\n");
        }
        if self.uses.ray_query {
            out.push_str("#extension GL_EXT_ray_query : require\n");
        }
        if self.uses.subgroup_basic
            || self.uses.subgroup_ballot
            || self.uses.subgroup_vote
            || self.uses.subgroup_arithmetic
        {
            out.push_str("#extension GL_KHR_shader_subgroup_basic : require\n");
        }
        if self.uses.subgroup_ballot {
            out.push_str("#extension GL_KHR_shader_subgroup_ballot : require\n");
        }
        if self.uses.subgroup_vote {
            out.push_str("#extension GL_KHR_shader_subgroup_vote : require\n");
        }
        if self.uses.subgroup_arithmetic {
            out.push_str("#extension GL_KHR_shader_subgroup_arithmetic : require\n");
        }
        if self.uses.scalar_layout {
            out.push_str("#extension GL_EXT_scalar_block_layout : require\n");
        }
        if self.uses.shader_record {
            out.push_str("#extension GL_EXT_buffer_reference : require\n");
            out.push_str("#extension GL_EXT_buffer_reference_uvec2 : require\n");
            // The layout of the NV text's table; GL_EXT's table names it
            // hitobjectshaderrecordext (`glsl_*.types.shader_record_buffer.layout_table`).
            let layout = match self.spelling {
                Spelling::Nv => "hitobjectshaderrecordnv",
                Spelling::Ext => "hitobjectshaderrecordext",
            };
            let _ = writeln!(
                globals,
                "layout(buffer_reference, {layout}, std430, buffer_reference_align = 4) readonly buffer _ShaderRecord {{ uint data[]; }};"
            );
        }
        let _ = writeln!(
            out,
            "// {} shader `{}`",
            format!("{:?}", self.stage).to_lowercase(),
            f.name
        );
        for part in [structs, resources, globals, prototypes, bodies, main] {
            if !part.is_empty() {
                out.push('\n');
                out.push_str(&part);
            }
        }
        Ok(out)
    }
}
