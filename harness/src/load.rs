//! Loading case files: JSON, the defaults, then every check a case must
//! pass before a backend sees it. Every error names the file, the JSON path
//! (or line), what is wrong and what was expected.

use crate::capability;
use crate::case::{CaseFile, CaseSpec, ExpectSpec, Source};
use crate::expect::{self, BufferExpect};
use ser_lang::Library;
use ser_reference::exec::memory::element_of;
use ser_reference::outcome::FaultCode;
use ser_reference::program::{Program, Stage};
use ser_reference::sbt::ShaderTable;
use ser_reference::scene::{Primitives, Scene};
use ser_reference::{Dispatch, Profile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A case ready to run.
#[derive(Clone, Debug)]
pub struct Case {
    /// Hierarchical id: the file's path under the cases folder, without
    /// `.json`, then the case name (`hit_object/nop/get_ray_flags`).
    pub id: String,
    pub file: PathBuf,
    pub description: String,
    pub clauses: Vec<String>,
    pub profiles: Vec<Profile>,
    /// Every capability the case needs: declared and used by its shaders.
    pub requires: Vec<String>,
    pub reading: Option<String>,
    pub scene: Scene,
    pub shader_table: ShaderTable,
    /// The shader text, as written.
    pub source: String,
    pub library: Library,
    pub dispatch: Dispatch,
    pub expect: Expected,
}

#[derive(Clone, Debug)]
pub enum Expected {
    Buffers(BTreeMap<String, BufferExpect>),
    Undefined(FaultCode),
}

/// A case or file that could not be loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadError {
    pub file: PathBuf,
    /// The case id, when the file got far enough to name it.
    pub case: Option<String>,
    /// JSON path (`cases[2].scene.instances[0].mask`) or `line L, column C`.
    pub location: String,
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(c) = &self.case {
            write!(f, " (case `{c}`)")?;
        }
        write!(f, ": {}: {}", self.location, self.message)
    }
}

/// Every `.json` file under `dir`, sorted, skipping `*.schema.json`.
pub fn case_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let p = entry?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "json")
                && !p.to_string_lossy().ends_with(".schema.json")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Loads every case under `dir`: each case, or the error that stopped it.
/// One bad case never hides the others.
pub fn load_dir(dir: &Path) -> Vec<Result<Case, LoadError>> {
    let files = match case_files(dir) {
        Ok(f) => f,
        Err(e) => {
            return vec![Err(LoadError {
                file: dir.to_path_buf(),
                case: None,
                location: "folder".into(),
                message: format!("cannot read the cases folder: {e}"),
            })]
        }
    };
    let mut out: Vec<Result<Case, LoadError>> =
        files.iter().flat_map(|f| load_file(dir, f)).collect();
    // Ids are unique across the suite.
    let mut seen = BTreeMap::new();
    for r in &mut out {
        if let Ok(c) = r {
            if let Some(first) = seen.insert(c.id.clone(), c.file.clone()) {
                *r = Err(LoadError {
                    file: c.file.clone(),
                    case: Some(c.id.clone()),
                    location: "name".into(),
                    message: format!(
                        "the id `{}` is already used by a case in {}",
                        c.id,
                        first.display()
                    ),
                });
            }
        }
    }
    out
}

/// The id prefix of a file: its path under the root, without `.json`.
fn id_prefix(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap_or(file).with_extension("");
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Loads the cases of one file.
pub fn load_file(root: &Path, file: &Path) -> Vec<Result<Case, LoadError>> {
    let fail = |location: String, message: String| {
        vec![Err(LoadError {
            file: file.to_path_buf(),
            case: None,
            location,
            message,
        })]
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return fail("file".into(), format!("cannot read: {e}")),
    };
    let json: serde_json::Value = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(e) => {
            return fail(
                format!("line {}, column {}", e.line(), e.column()),
                format!("not valid JSON: {e}"),
            )
        }
    };
    let parsed: Result<CaseFile, _> = serde_path_to_error::deserialize(json);
    let cf = match parsed {
        Ok(cf) => cf,
        Err(e) => {
            return fail(
                json_path(e.path()),
                format!(
                    "{}; expected {{\"defaults\": {{...}}, \"cases\": [...]}}",
                    e.inner()
                ),
            )
        }
    };
    let prefix = id_prefix(root, file);
    cf.cases
        .iter()
        .enumerate()
        .map(|(i, fields)| load_case(file, &prefix, &cf.defaults, fields, i))
        .collect()
}

fn json_path(p: &serde_path_to_error::Path) -> String {
    let s = p.to_string();
    if s == "." {
        "top level".into()
    } else {
        s
    }
}

fn load_case(
    file: &Path,
    prefix: &str,
    defaults: &serde_json::Map<String, serde_json::Value>,
    fields: &serde_json::Map<String, serde_json::Value>,
    index: usize,
) -> Result<Case, LoadError> {
    let name = fields
        .get("name")
        .and_then(|n| n.as_str())
        .map(str::to_string);
    let id = name.as_ref().map(|n| format!("{prefix}/{n}"));
    // Where a top-level field came from, for error paths.
    let origin = |key: &str| -> String {
        if fields.contains_key(key) || !defaults.contains_key(key) {
            format!("cases[{index}]")
        } else {
            "defaults".to_string()
        }
    };
    let error = |path: String, message: String| LoadError {
        file: file.to_path_buf(),
        case: id.clone(),
        location: path,
        message,
    };
    let at = |path: &str| -> String {
        let key = path.split(['.', '[']).next().unwrap_or("");
        format!("{}.{path}", origin(key))
    };
    let mut merged = defaults.clone();
    for (k, v) in fields {
        merged.insert(k.clone(), v.clone());
    }
    let spec: CaseSpec = serde_path_to_error::deserialize(serde_json::Value::Object(merged))
        .map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." {
                format!("cases[{index}]")
            } else {
                at(&path)
            };
            error(path, e.inner().to_string())
        })?;
    let name_ok = !spec.name.is_empty()
        && spec
            .name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !name_ok {
        return Err(error(
            at("name"),
            format!("`{}`: a case name is [a-z0-9_]+", spec.name),
        ));
    }
    check_case(&spec, &at).map_err(|(p, m)| error(p, m))?;
    let source = spec.library.text();
    let library = parse_library(&spec, &at).map_err(|(p, m)| error(p, m))?;
    let program = Program::new(library.clone()).map_err(|e| {
        let (p, m) = library_error(&spec, e.span.line, &at, format!("{e}"));
        error(p, m)
    })?;
    check_shader_table(&spec, &program, &at).map_err(|(p, m)| error(p, m))?;
    let (buffers, expected) = check_buffers(&spec, &program, &at).map_err(|(p, m)| error(p, m))?;
    let mut requires = spec.requires.clone();
    for c in capability::used_by(&library) {
        if !requires.iter().any(|r| r == c) {
            requires.push(c.to_string());
        }
    }
    if matches!(expected, Expected::Undefined(_))
        && !requires
            .iter()
            .any(|r| r == "undefined_behaviour_diagnosis")
    {
        requires.push("undefined_behaviour_diagnosis".into());
    }
    Ok(Case {
        id: format!("{prefix}/{}", spec.name),
        file: file.to_path_buf(),
        description: spec.description.clone(),
        clauses: spec.clauses.clone(),
        profiles: spec.profiles.clone(),
        requires,
        reading: spec.reading.clone(),
        scene: spec.scene.clone(),
        shader_table: spec.shader_table.clone(),
        source,
        library,
        dispatch: Dispatch {
            raygen: spec.dispatch.raygen.clone(),
            size: spec.dispatch.size,
            wave_size: spec.dispatch.wave_size,
            max_recursion_depth: spec.pipeline.max_recursion_depth,
            pipeline_flags: spec
                .pipeline
                .flags
                .iter()
                .fold(0, |acc, f| acc | f.ray_flag()),
            buffers,
        },
        expect: expected,
    })
}

type Check<T> = Result<T, (String, String)>;

fn check_case(spec: &CaseSpec, at: &dyn Fn(&str) -> String) -> Check<()> {
    if spec.clauses.is_empty() {
        return Err((
            at("clauses"),
            "a case names at least one spec-map clause ID".into(),
        ));
    }
    for (i, c) in spec.clauses.iter().enumerate() {
        let ok = c.split('.').count() >= 2
            && c.split('.').all(|s| {
                !s.is_empty()
                    && s.chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
            });
        if !ok {
            return Err((
                at(&format!("clauses[{i}]")),
                format!("`{c}` is not a clause ID (dot-separated [a-z0-9_] segments)"),
            ));
        }
    }
    if spec.profiles.is_empty() {
        return Err((
            at("profiles"),
            "a case applies to at least one profile".into(),
        ));
    }
    for (i, r) in spec.requires.iter().enumerate() {
        if !capability::is_known(r) {
            let known: Vec<&str> = capability::CAPABILITIES.iter().map(|(n, _)| *n).collect();
            return Err((
                at(&format!("requires[{i}]")),
                format!(
                    "unknown capability `{r}`; expected one of {}",
                    known.join(", ")
                ),
            ));
        }
    }
    let d = &spec.dispatch;
    if d.size.contains(&0) || d.size.iter().product::<u32>() > 4096 {
        return Err((
            at("dispatch.size"),
            "each dimension is at least 1, and a case has at most 4096 threads".into(),
        ));
    }
    if !(1..=128).contains(&d.wave_size) {
        return Err((at("dispatch.wave_size"), "a wave has 1 to 128 lanes".into()));
    }
    for (i, inst) in spec.scene.instances.iter().enumerate() {
        if inst.blas >= spec.scene.blas.len() {
            return Err((
                at(&format!("scene.instances[{i}].blas")),
                format!(
                    "{} is not an index into scene.blas ({} entries)",
                    inst.blas,
                    spec.scene.blas.len()
                ),
            ));
        }
        if inst.world_to_object().is_none() {
            return Err((
                at(&format!("scene.instances[{i}].transform")),
                "the transform must be invertible".into(),
            ));
        }
    }
    for (b, blas) in spec.scene.blas.iter().enumerate() {
        for (g, geom) in blas.geometries.iter().enumerate() {
            if let Primitives::Aabbs(boxes) = &geom.primitives {
                for (k, bx) in boxes.iter().enumerate() {
                    if (0..3).any(|a| bx.min[a] > bx.max[a]) {
                        return Err((
                            at(&format!("scene.blas[{b}].geometries[{g}].aabbs[{k}]")),
                            "min exceeds max".into(),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Maps a library line to the JSON path of that line.
fn library_error(
    spec: &CaseSpec,
    line: u32,
    at: &dyn Fn(&str) -> String,
    message: String,
) -> (String, String) {
    let path = match &spec.library {
        Source::Lines(_) => at(&format!("library[{}]", line.saturating_sub(1))),
        Source::Text(_) => at("library"),
    };
    (path, format!("library {message}"))
}

fn parse_library(spec: &CaseSpec, at: &dyn Fn(&str) -> String) -> Check<Library> {
    ser_lang::parse(&spec.library.text())
        .map_err(|e| library_error(spec, e.span.line, at, e.to_string()))
}

fn check_shader_table(
    spec: &CaseSpec,
    program: &Program,
    at: &dyn Fn(&str) -> String,
) -> Check<()> {
    let check = |name: &Option<String>, stage: Stage, path: String| -> Check<()> {
        match name {
            None => Ok(()),
            Some(n) if program.entry_stage(n) == Some(stage) => Ok(()),
            Some(n) => Err((
                path,
                format!("`{n}` is not a {} shader of the library", stage.name()),
            )),
        }
    };
    let t = &spec.shader_table;
    for (i, r) in t.hit_groups.iter().enumerate() {
        check(
            &r.closest_hit,
            Stage::ClosestHit,
            at(&format!("shader_table.hit_groups[{i}].closest_hit")),
        )?;
        check(
            &r.any_hit,
            Stage::AnyHit,
            at(&format!("shader_table.hit_groups[{i}].any_hit")),
        )?;
        check(
            &r.intersection,
            Stage::Intersection,
            at(&format!("shader_table.hit_groups[{i}].intersection")),
        )?;
    }
    for (i, r) in t.miss.iter().enumerate() {
        check(
            &r.shader,
            Stage::Miss,
            at(&format!("shader_table.miss[{i}].shader")),
        )?;
    }
    for (i, r) in t.callable.iter().enumerate() {
        check(
            &r.shader,
            Stage::Callable,
            at(&format!("shader_table.callable[{i}].shader")),
        )?;
    }
    check(
        &Some(spec.dispatch.raygen.clone()),
        Stage::RayGeneration,
        at("dispatch.raygen"),
    )
}

type Buffers = BTreeMap<String, Vec<u32>>;

fn check_buffers(
    spec: &CaseSpec,
    program: &Program,
    at: &dyn Fn(&str) -> String,
) -> Check<(Buffers, Expected)> {
    let mut init = BTreeMap::new();
    for decl in &program.buffers {
        let Some(b) = spec.buffers.get(&decl.name) else {
            return Err((
                at("buffers"),
                format!(
                    "the library declares buffer `{}`; give its size here",
                    decl.name
                ),
            ));
        };
        let element = element_of(&decl.element);
        if b.elements == 0 {
            return Err((
                at(&format!("buffers.{}.elements", decl.name)),
                "a buffer has at least one element".into(),
            ));
        }
        let words = match &b.init {
            None => vec![0; b.elements as usize * element.components as usize],
            Some(list) => {
                let path = at(&format!("buffers.{}.init", decl.name));
                let entries = expect::expand_repeats(list, &path)?;
                if entries.len() != b.elements as usize {
                    return Err((
                        path,
                        format!(
                            "{} initial element(s) given, the buffer has {}",
                            entries.len(),
                            b.elements
                        ),
                    ));
                }
                let mut words = Vec::new();
                for (p, j) in entries {
                    match (element.components, j.as_array()) {
                        (1, _) => words.push(expect::parse_number(&j, element.scalar, &p)?),
                        (n, Some(c)) if c.len() == n as usize => {
                            for (k, v) in c.iter().enumerate() {
                                words.push(expect::parse_number(
                                    v,
                                    element.scalar,
                                    &format!("{p}[{k}]"),
                                )?);
                            }
                        }
                        (n, _) => return Err((p, format!("expected a list of {n} components"))),
                    }
                }
                words
            }
        };
        init.insert(decl.name.clone(), words);
    }
    if let Some(extra) = spec
        .buffers
        .keys()
        .find(|k| program.buffer_index(k).is_none())
    {
        return Err((
            at(&format!("buffers.{extra}")),
            format!("the library declares no buffer `{extra}`"),
        ));
    }
    let expected = match &spec.expect {
        ExpectSpec::Undefined(code) => match FaultCode::from_name(code) {
            Some(c) if c.is_undefined_behaviour() => Expected::Undefined(c),
            _ => {
                let known: Vec<&str> = FaultCode::ALL
                    .iter()
                    .filter(|c| c.is_undefined_behaviour())
                    .map(|c| c.name())
                    .collect();
                return Err((
                    at("expect.undefined"),
                    format!(
                        "`{code}` is not an undefined-behaviour code; expected one of {}",
                        known.join(", ")
                    ),
                ));
            }
        },
        ExpectSpec::Buffers(map) => {
            let mut out = BTreeMap::new();
            for decl in &program.buffers {
                let Some(list) = map.get(&decl.name) else {
                    return Err((
                        at("expect.buffers"),
                        format!("no expectations for buffer `{}`", decl.name),
                    ));
                };
                let elements = spec.buffers[&decl.name].elements;
                let path = at(&format!("expect.buffers.{}", decl.name));
                out.insert(
                    decl.name.clone(),
                    expect::parse_buffer(list, element_of(&decl.element), elements, &path)?,
                );
            }
            if let Some(extra) = map.keys().find(|k| program.buffer_index(k).is_none()) {
                return Err((
                    at(&format!("expect.buffers.{extra}")),
                    format!("the library declares no buffer `{extra}`"),
                ));
            }
            Expected::Buffers(out)
        }
    };
    Ok((init, expected))
}
