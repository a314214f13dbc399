//! Loading case files: JSON, the defaults, then every check a case must
//! pass before a backend sees it. Every error names the file, the JSON path
//! (or line), what is wrong and what was expected.

mod checks;
pub mod glsl_source;
mod json;
pub mod ties;
pub mod walk;

use checks::*;
pub use ties::Tie;

use crate::capability;
use crate::case::{CaseSpec, DispatchSpec, ExpectSpec};
use crate::expect::layout::LayoutExpect;
use crate::expect::BufferExpect;
use ser_lang::Library;
use ser_reference::outcome::FaultCode;
use ser_reference::program::{Program, ProgramError};
use ser_reference::sbt::ShaderTable;
use ser_reference::scene::Scene;
use ser_reference::validate::{DiagCode, Limits, Severity};
use ser_reference::{Dispatch, Profile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A case ready to run.
#[derive(Clone, Debug)]
pub struct Case {
    /// Hierarchical id: the file's path under the cases folder, without
    /// `.json`, then the case name (`hit_object/nop/get_ray_flags`).
    pub id: String,
    pub file: PathBuf,
    pub description: String,
    pub clauses: Vec<String>,
    /// Which expected elements decide which clause (see [`ties`]).
    pub ties: Vec<Tie>,
    pub profiles: Vec<Profile>,
    /// Every capability the case needs: declared and used by its shaders.
    pub requires: Vec<String>,
    pub reading: Option<String>,
    /// The schedule the case pins, if it does.
    pub schedule: Option<ser_reference::exec::schedule::Schedule>,
    pub scene: Scene,
    pub shader_table: ShaderTable,
    /// The shader text, as written.
    pub source: String,
    /// The library as written, with what the reference works out from it
    /// (see [`Case::library`], [`Case::program_for`]).
    pub program: Arc<Program>,
    pub dispatch: Dispatch,
    /// Pipeline settings the validator reads.
    pub limits: Limits,
    pub expect: Expected,
}

impl Case {
    /// The shaders, as written.
    pub fn library(&self) -> &Library {
        &self.program.library
    }

    /// The program as `profile` reads it: the one built when the case
    /// loaded, unless the profile spells the library differently
    /// ([`Profile::adapted`]).
    pub fn program_for(&self, profile: Profile) -> Result<Arc<Program>, ProgramError> {
        match profile.adapted(self.library()) {
            Some(library) => Program::new(library).map(Arc::new),
            None => Ok(Arc::clone(&self.program)),
        }
    }

    /// What kind of case it is: `negative` (it expects diagnostics; nothing
    /// runs), `layout` (no shaders) or `runtime`.
    pub fn kind(&self) -> &'static str {
        match self.expect {
            Expected::Diagnostics(_) => "negative",
            Expected::Layout(_) => "layout",
            Expected::Buffers(_) | Expected::Undefined(_) => "runtime",
        }
    }
}

/// A diagnostic a negative case expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ExpectedDiagnostic {
    pub code: DiagCode,
    pub severity: Severity,
    /// Recommended, not required: its absence is no failure.
    pub optional: bool,
}

#[derive(Clone, Debug)]
pub enum Expected {
    Buffers(BTreeMap<String, BufferExpect>),
    Undefined(FaultCode),
    /// A negative or control case: exactly these diagnostics (as a set).
    Diagnostics(Vec<ExpectedDiagnostic>),
    /// A layout case: no shaders run.
    Layout(LayoutExpect),
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
    /// When the case names a clause ID the spec-map lacks: that ID (the
    /// traceability report lists them).
    pub unknown_clause: Option<String>,
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

/// Every case file under `dir`, and what in it is an error rather than a
/// case (see [`walk`]).
pub fn case_files(dir: &Path) -> walk::Found {
    walk::case_files(dir, Some(&dir.join(glsl_source::DIR)))
}

/// A case name is `[a-z0-9_]+`: ids are paths and test names.
pub(crate) fn check_case_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!("`{name}`: a case name is [a-z0-9_]+"))
    }
}

/// The first clause ID of `clauses` that the spec-map lacks: its index, the
/// ID and the message that says so.
pub(crate) fn unknown_clause(clauses: &[String]) -> Option<(usize, &String, String)> {
    let (i, id) = clauses
        .iter()
        .enumerate()
        .find(|(_, c)| !crate::spec_map::is_known_clause(c))?;
    let message = format!(
        "`{id}` is no clause of the spec-map (spec-map/*.json); expected the ID of a registered clause"
    );
    Some((i, id, message))
}

/// Loads every case under `dir`: each case, or the error that stopped it.
/// One bad case never hides the others.
pub fn load_dir(dir: &Path) -> Vec<Result<Case, LoadError>> {
    let found = case_files(dir);
    let mut out: Vec<Result<Case, LoadError>> =
        found.files.iter().flat_map(|f| load_file(dir, f)).collect();
    out.extend(found.problems.into_iter().map(Err));
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
                    unknown_clause: None,
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
    match crate::files::read_text(file, crate::files::MAX_CASE_FILE) {
        Ok(text) => load_text(root, file, &text),
        Err(message) => vec![Err(LoadError {
            file: file.to_path_buf(),
            case: None,
            location: "file".into(),
            message,
            unknown_clause: None,
        })],
    }
}

/// Loads the cases of a file's text (`file` names it in errors and ids).
/// A key named twice in one object is an error, as bad JSON is.
pub fn load_text(root: &Path, file: &Path, text: &str) -> Vec<Result<Case, LoadError>> {
    match crate::strict_json::parse(text) {
        Ok(json) => load_json(root, file, json),
        Err(e) => vec![Err(LoadError {
            file: file.to_path_buf(),
            case: None,
            location: e.location,
            message: format!("not valid JSON: {}", e.message),
            unknown_clause: None,
        })],
    }
}

/// Loads the cases of a case file already parsed as JSON; `file` names it
/// in errors and gives the ids' prefix.
pub fn load_json(
    root: &Path,
    file: &Path,
    json: serde_json::Value,
) -> Vec<Result<Case, LoadError>> {
    load_json_as(root, file, json, Expectations::Required)
}

/// Loads a generated case, whose expectations are placeholders (every word
/// unspecified) until the reference's legal outcome replaces them
/// (`ser-generate`, the fuzzer).
pub fn load_generated(
    root: &Path,
    file: &Path,
    json: serde_json::Value,
) -> Vec<Result<Case, LoadError>> {
    load_json_as(root, file, json, Expectations::Placeholder)
}

/// Whether a runtime case must expect at least one specified word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expectations {
    /// A case any implementation passes checks nothing: refused.
    Required,
    /// Generated cases before the reference fills in their expectations.
    Placeholder,
}

fn load_json_as(
    root: &Path,
    file: &Path,
    json: serde_json::Value,
    expectations: Expectations,
) -> Vec<Result<Case, LoadError>> {
    let fail = |location: String, message: String| {
        vec![Err(LoadError {
            file: file.to_path_buf(),
            case: None,
            location,
            message,
            unknown_clause: None,
        })]
    };
    let cf = match json::case_file(json) {
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
        .into_iter()
        .enumerate()
        .map(|(i, fields)| load_case(file, &prefix, &cf.defaults, fields, i, expectations))
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
    fields: serde_json::Map<String, serde_json::Value>,
    index: usize,
    expectations: Expectations,
) -> Result<Case, LoadError> {
    let name = fields
        .get("name")
        .and_then(|n| n.as_str())
        .map(str::to_string);
    let id = name.as_ref().map(|n| format!("{prefix}/{n}"));
    // Where a top-level field came from, for error paths: only a field the
    // defaults also have can come from either (none, without defaults).
    let own: Vec<String> = fields
        .keys()
        .filter(|k| defaults.contains_key(*k))
        .cloned()
        .collect();
    let origin = |key: &str| -> String {
        if own.iter().any(|k| k == key) || !defaults.contains_key(key) {
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
        unknown_clause: None,
    };
    let at = |path: &str| -> String {
        let key = path.split(['.', '[']).next().unwrap_or("");
        format!("{}.{path}", origin(key))
    };
    let mut merged = defaults.clone();
    merged.extend(fields);
    let spec: CaseSpec = json::case_spec(&serde_json::Value::Object(merged)).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." {
            format!("cases[{index}]")
        } else {
            at(&path)
        };
        error(path, e.inner().to_string())
    })?;
    check_case_name(&spec.name).map_err(|m| error(at("name"), m))?;
    check_case(&spec, &at).map_err(|(p, m)| error(p, m))?;
    if let Some((i, unknown, message)) = unknown_clause(&spec.clauses) {
        return Err(LoadError {
            unknown_clause: Some(unknown.clone()),
            ..error(at(&format!("clauses[{i}]")), message)
        });
    }
    let ties = ties::parse(&spec, &at).map_err(|(p, m)| error(p, m))?;
    if let Some(layout) = layout_expectation(&spec, &at).map_err(|(p, m)| error(p, m))? {
        return Ok(layout_case(file, prefix, &spec, layout));
    }
    // A negative case only compiles its library: it needs no dispatch.
    let negative = matches!(spec.expect, ExpectSpec::Diagnostics(_));
    let Some(source) = &spec.library else {
        return Err(error(
            at("library"),
            "a case with shaders needs `library`".into(),
        ));
    };
    let dispatch = match &spec.dispatch {
        Some(d) => d.clone(),
        None if negative => DispatchSpec {
            raygen: String::new(),
            size: [1, 1, 1],
            wave_size: 32,
        },
        None => {
            return Err(error(
                at("dispatch"),
                "a case that runs shaders needs `dispatch`".into(),
            ))
        }
    };
    check_dispatch(&dispatch, &at).map_err(|(p, m)| error(p, m))?;
    let source = source.text();
    let mut library = parse_library(&spec, &source, &at).map_err(|(p, m)| error(p, m))?;
    checks::library_options(&spec, &mut library, &at).map_err(|(p, m)| error(p, m))?;
    check_profile_forms(&spec, &library, &at).map_err(|(p, m)| error(p, m))?;
    // The program keeps the library as it was given.
    let program = Program::new(library).map_err(|e| {
        let (p, m) = library_error(&spec, e.span.line, &at, format!("{e}"));
        error(p, m)
    })?;
    if !negative {
        if let Some(what) = program.static_only.first() {
            return Err(error(
                at("library"),
                format!("{what} is declared only in negative cases (`expect.diagnostics`): nothing runs a program that declares it"),
            ));
        }
    }
    check_shader_table(&spec, &program, &at).map_err(|(p, m)| error(p, m))?;
    let (buffers, expected) = match &spec.expect {
        ExpectSpec::Diagnostics(list) => (
            BTreeMap::new(),
            Expected::Diagnostics(
                diagnostics_expectation(list, &at).map_err(|(p, m)| error(p, m))?,
            ),
        ),
        _ => check_buffers(&spec, &program, &at, expectations).map_err(|(p, m)| error(p, m))?,
    };
    let schedule = match &spec.schedule {
        None => None,
        Some(s) => Some(s.parse().map_err(|m: String| error(at("schedule"), m))?),
    };
    // Capabilities: declared, used by the shaders, and implied by the case.
    let mut requires = spec.requires.clone();
    let mut need = |c: &str| {
        if !requires.iter().any(|r| r == c) {
            requires.push(c.to_string());
        }
    };
    capability::used_by(&program.library)
        .into_iter()
        .for_each(&mut need);
    if spec
        .scene
        .blas
        .iter()
        .flat_map(|b| &b.geometries)
        .any(|g| g.opacity_micromap.is_some())
    {
        need("opacity_micromaps");
    }
    if spec.scene.has_motion() {
        need("motion_blur");
    }
    if matches!(expected, Expected::Undefined(_)) {
        need("undefined_behaviour_diagnosis");
    }
    if negative {
        need("validation");
    }
    if schedule.is_some() {
        need("schedule_control");
    }
    Ok(Case {
        // The case takes the spec's parts over: moved, not copied.
        id: format!("{prefix}/{}", spec.name),
        file: file.to_path_buf(),
        description: spec.description,
        clauses: spec.clauses,
        ties,
        profiles: spec.profiles,
        requires,
        reading: spec.reading,
        schedule,
        scene: spec.scene,
        shader_table: spec.shader_table,
        source,
        program: Arc::new(program),
        dispatch: Dispatch {
            raygen: dispatch.raygen.clone(),
            size: dispatch.size,
            wave_size: dispatch.wave_size,
            max_recursion_depth: spec.pipeline.max_recursion_depth,
            pipeline_flags: spec
                .pipeline
                .flags
                .iter()
                .fold(0, |acc, f| acc | f.ray_flag()),
            buffers,
        },
        limits: Limits {
            max_attribute_size: spec.pipeline.max_attribute_size,
        },
        expect: expected,
    })
}

/// A case that checks how an API lays out its shader table.
fn layout_case(file: &Path, prefix: &str, spec: &CaseSpec, layout: LayoutExpect) -> Case {
    Case {
        id: format!("{prefix}/{}", spec.name),
        file: file.to_path_buf(),
        description: spec.description.clone(),
        clauses: spec.clauses.clone(),
        ties: Vec::new(),
        profiles: spec.profiles.clone(),
        requires: vec!["sbt_layout".to_string()],
        reading: spec.reading.clone(),
        schedule: None,
        scene: spec.scene.clone(),
        shader_table: spec.shader_table.clone(),
        source: String::new(),
        program: Arc::new(Program::new(Library::default()).expect("an empty library is a program")),
        dispatch: Dispatch {
            raygen: String::new(),
            size: [1, 1, 1],
            wave_size: 1,
            max_recursion_depth: 0,
            pipeline_flags: 0,
            buffers: BTreeMap::new(),
        },
        limits: Limits::default(),
        expect: Expected::Layout(layout),
    }
}
