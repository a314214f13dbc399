//! GLSL-source cases (`cases/glsl_source/`): one GLSL shader as written,
//! and whether a GLSL compiler must accept or reject it.
//!
//! The case language is an HLSL subset that the Vulkan backend spells in
//! GLSL itself, so rules about GLSL text (directives, keywords, where
//! `hitObjectNV` may be declared, `hitObjectAttributeNV` qualifiers, the
//! `hitobjectshaderrecordnv` layout) cannot be written as ordinary cases.
//! These cases check them on GLSL front ends, as test262's negative tests
//! check only that a phase rejects a program. The reference interprets the
//! case language and judges none of them; `ser-vulkan`'s glslang does
//! (`backends/vulkan/tests/glsl_source.rs`).

use super::{check_case_name, unknown_clause, LoadError};
use ser_reference::program::Stage;
use ser_reference::Profile;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The folder under the cases folder that holds GLSL-source cases; the
/// ordinary loader skips it.
pub const DIR: &str = "glsl_source";

/// What a GLSL compiler must do with the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Compile it (the rule permits or requires the text).
    Compiles,
    /// Reject it with a compile-time error (the rule forbids the text).
    Rejected,
}

/// One GLSL-source case, ready to compile.
#[derive(Clone, Debug)]
pub struct GlslSourceCase {
    /// `glsl_source/<file>/<name>`, like every case id.
    pub id: String,
    pub file: PathBuf,
    pub description: String,
    pub clauses: Vec<String>,
    /// `vulkan-nv` or `vulkan-ext`: whose text decides the outcome.
    pub profiles: Vec<Profile>,
    pub stage: Stage,
    /// The shader, one string per line as written in the file.
    pub source: String,
    pub expect: Outcome,
    /// For a rejected case, the accepted case it differs from in the one
    /// construct the rule forbids (so a compiler that rejects everything
    /// fails the control).
    pub control: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    #[serde(default)]
    defaults: Defaults,
    cases: Vec<CaseSpec>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Defaults {
    profiles: Option<Vec<String>>,
    stage: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseSpec {
    name: String,
    description: String,
    clauses: Vec<String>,
    profiles: Option<Vec<String>>,
    stage: Option<String>,
    source: Vec<String>,
    expect: Outcome,
    control: Option<String>,
}

/// Loads every GLSL-source case under `cases_dir/glsl_source`, each case or
/// the error that stopped it. A missing folder holds no cases.
pub fn load_dir(cases_dir: &Path) -> Vec<Result<GlslSourceCase, LoadError>> {
    let dir = cases_dir.join(DIR);
    if !dir.is_dir() {
        return Vec::new();
    }
    let found = super::walk::case_files(&dir, None);
    let mut out: Vec<_> = found.files.iter().flat_map(|f| load_file(f)).collect();
    out.extend(found.problems.into_iter().map(Err));
    check_controls(&mut out);
    out
}

fn error(file: &Path, case: Option<&str>, location: String, message: String) -> LoadError {
    LoadError {
        file: file.to_path_buf(),
        case: case.map(str::to_string),
        location,
        message,
        unknown_clause: None,
    }
}

fn load_file(file: &Path) -> Vec<Result<GlslSourceCase, LoadError>> {
    let json = crate::files::read_text(file, crate::files::MAX_CASE_FILE).and_then(|text| {
        crate::strict_json::parse(&text)
            .map_err(|e| format!("{}: not valid JSON: {}", e.location, e.message))
    });
    let json = match json {
        Ok(j) => j,
        Err(m) => return vec![Err(error(file, None, "file".into(), m))],
    };
    let spec: FileSpec = match serde_path_to_error::deserialize(json) {
        Ok(s) => s,
        Err(e) => {
            return vec![Err(error(
                file,
                None,
                e.path().to_string(),
                format!(
                    "{}; expected {{\"defaults\": {{\"profiles\", \"stage\"}}, \"cases\": [{{\"name\", \"description\", \"clauses\", \"source\": [lines], \"expect\": \"compiles\" | \"rejected\", \"control\"}}]}}",
                    e.inner()
                ),
            ))]
        }
    };
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    spec.cases
        .into_iter()
        .enumerate()
        .map(|(i, c)| load_case(file, &stem, &spec.defaults, c, i))
        .collect()
}

fn load_case(
    file: &Path,
    stem: &str,
    defaults: &Defaults,
    c: CaseSpec,
    i: usize,
) -> Result<GlslSourceCase, LoadError> {
    let id = format!("{DIR}/{stem}/{}", c.name);
    let err =
        |path: &str, message: String| error(file, Some(&id), format!("cases[{i}].{path}"), message);
    check_case_name(&c.name).map_err(|m| err("name", m))?;
    if c.clauses.is_empty() {
        return Err(err(
            "clauses",
            "no clause: expected the IDs of the clauses whose rule decides the outcome".into(),
        ));
    }
    if let Some((k, unknown, message)) = unknown_clause(&c.clauses) {
        return Err(LoadError {
            unknown_clause: Some(unknown.clone()),
            ..err(&format!("clauses[{k}]"), message)
        });
    }
    let names = c
        .profiles
        .or_else(|| defaults.profiles.clone())
        .ok_or_else(|| {
            err(
                "profiles",
                "missing: expected [\"vulkan-nv\"] or [\"vulkan-ext\"] here or in the defaults"
                    .into(),
            )
        })?;
    let mut profiles = Vec::new();
    for (k, n) in names.iter().enumerate() {
        match Profile::from_name(n) {
            Some(p @ (Profile::VulkanNv | Profile::VulkanExt)) => profiles.push(p),
            _ => {
                return Err(err(
                    &format!("profiles[{k}]"),
                    format!("`{n}`: a GLSL-source case belongs to a GLSL profile; expected `vulkan-nv` or `vulkan-ext`"),
                ))
            }
        }
    }
    let stage_name = c.stage.or_else(|| defaults.stage.clone()).ok_or_else(|| {
        err(
            "stage",
            "missing: expected the shader's stage here or in the defaults".into(),
        )
    })?;
    // GLSL source cases are ray tracing modules.
    let stage = Stage::from_name(&stage_name).filter(|s| s.is_ray_tracing()).ok_or_else(|| {
        err(
            "stage",
            format!("`{stage_name}`: expected raygeneration, closesthit, anyhit, miss, intersection or callable"),
        )
    })?;
    if !c.source.first().is_some_and(|l| l.starts_with("#version")) {
        return Err(err(
            "source[0]",
            "expected the `#version` line first: the source is compiled as written".into(),
        ));
    }
    match (c.expect, &c.control) {
        (Outcome::Rejected, None) => {
            return Err(err("control", "missing: a rejected case names the accepted case (same file) it differs from, so that a compiler rejecting everything fails".into()))
        }
        (Outcome::Compiles, Some(_)) => {
            return Err(err("control", "a case expected to compile is its own control; expected no `control`".into()))
        }
        _ => {}
    }
    Ok(GlslSourceCase {
        id,
        file: file.to_path_buf(),
        description: c.description,
        clauses: c.clauses,
        profiles,
        stage,
        source: c.source.join("\n") + "\n",
        expect: c.expect,
        control: c.control.map(|n| format!("{DIR}/{stem}/{n}")),
    })
}

/// A control must be a case of the same file that compiles; ids are unique.
fn check_controls(cases: &mut [Result<GlslSourceCase, LoadError>]) {
    let mut compiles = BTreeMap::new();
    for c in cases.iter().flatten() {
        compiles.insert(c.id.clone(), c.expect == Outcome::Compiles);
    }
    let mut seen = BTreeMap::new();
    for r in cases.iter_mut() {
        let Ok(c) = r else { continue };
        let problem = if seen.insert(c.id.clone(), ()).is_some() {
            Some(("name", format!("the id `{}` is used twice", c.id)))
        } else {
            c.control.as_ref().and_then(|ctl| match compiles.get(ctl) {
                Some(true) => None,
                Some(false) => Some((
                    "control",
                    format!(
                        "`{ctl}` is itself expected to be rejected; expected a case that compiles"
                    ),
                )),
                None => Some(("control", format!("`{ctl}` is no case of this file"))),
            })
        };
        if let Some((path, message)) = problem {
            *r = Err(error(&c.file, Some(&c.id), path.into(), message));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loads one file holding `cases` (JSON) and returns each result's error
    /// message, or `ok`.
    fn load(cases: &str) -> Vec<String> {
        let root = std::env::temp_dir().join(format!(
            "ser-glsl-source-load-{}-{}",
            std::process::id(),
            cases.len()
        ));
        std::fs::create_dir_all(root.join(DIR)).unwrap();
        let text = format!(
            r##"{{"defaults": {{"profiles": ["vulkan-nv"], "stage": "raygeneration"}}, "cases": {cases}}}"##
        );
        std::fs::write(root.join(DIR).join("t.json"), text).unwrap();
        let out = load_dir(&root)
            .into_iter()
            .map(|r| {
                r.map_or_else(
                    |e| format!("{}: {}", e.location, e.message),
                    |_| "ok".into(),
                )
            })
            .collect();
        std::fs::remove_dir_all(&root).unwrap();
        out
    }

    const OK: &str = r##"{"name": "good", "description": "d", "clauses": ["glsl_nv.types.hit_object.no_struct_members"], "source": ["#version 460"], "expect": "compiles"}"##;

    #[test]
    fn a_rejected_case_needs_a_control_that_compiles() {
        let bad = r##"{"name": "bad", "description": "d", "clauses": ["glsl_nv.types.hit_object.no_struct_members"], "source": ["#version 460"], "expect": "rejected"}"##;
        assert!(load(&format!("[{OK}, {bad}]"))[1].starts_with("cases[1].control: missing"));
        let bad = bad.replace(r##""expect""##, r##""control": "bad", "expect""##);
        assert!(load(&format!("[{OK}, {bad}]"))[1].contains("is itself expected to be rejected"));
        let good = bad.replace(r##""control": "bad""##, r##""control": "good""##);
        assert_eq!(load(&format!("[{OK}, {good}]")), ["ok", "ok"]);
    }

    #[test]
    fn profiles_clauses_and_version_are_checked() {
        let hlsl = OK.replace(r##""name""##, r##""profiles": ["sm69"], "name""##);
        assert!(load(&format!("[{hlsl}]"))[0].contains("expected `vulkan-nv` or `vulkan-ext`"));
        let unknown = OK.replace(
            "glsl_nv.types.hit_object.no_struct_members",
            "glsl_nv.no_such_clause",
        );
        assert!(load(&format!("[{unknown}]"))[0].contains("is no clause of the spec-map"));
        let no_version = OK.replace("#version 460", "void main() {}");
        assert!(load(&format!("[{no_version}]"))[0].starts_with("cases[0].source[0]"));
        let stage = OK.replace(r##""name""##, r##""stage": "vertex", "name""##);
        assert!(load(&format!("[{stage}]"))[0].contains("`vertex`: expected raygeneration"));
    }
}
