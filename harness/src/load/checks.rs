//! The checks a case must pass before a backend sees it: dispatch, scene,
//! shaders, shader table, buffers and expectations.

use super::Expected;
use crate::capability;
use crate::case::{CaseSpec, ExpectSpec, Source};
use crate::expect::layout::{self as layout_expect, LayoutExpect};
use crate::expect::{self, Expect};
use ser_lang::Library;
use ser_reference::exec::memory::element_of;
use ser_reference::outcome::FaultCode;
use ser_reference::program::{Program, Stage};
use ser_reference::scene::{MicromapEntry, MicromapFormat, Primitives, Transform};
use std::collections::BTreeMap;

pub(super) type Check<T> = Result<T, (String, String)>;

/// The largest `MaxTraceRecursionDepth` a pipeline may declare: DXR's
/// `D3D12_RAYTRACING_MAX_DECLARABLE_TRACE_RECURSION_DEPTH` (Vulkan devices
/// report their own `maxRayRecursionDepth`, 31 on NVIDIA's).
pub const MAX_TRACE_RECURSION_DEPTH: u32 = 31;

pub(super) fn check_case(spec: &CaseSpec, at: &dyn Fn(&str) -> String) -> Check<()> {
    if spec.pipeline.max_recursion_depth > MAX_TRACE_RECURSION_DEPTH {
        return Err((
            at("pipeline.max_recursion_depth"),
            format!(
                "{} is past the largest a pipeline may declare, {MAX_TRACE_RECURSION_DEPTH} (D3D12_RAYTRACING_MAX_DECLARABLE_TRACE_RECURSION_DEPTH)",
                spec.pipeline.max_recursion_depth
            ),
        ));
    }
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
        if let Some(t1) = &inst.transform_t1 {
            check_motion_instance(spec, t1, &at(&format!("scene.instances[{i}].transform_t1")))?;
        }
    }
    for (b, blas) in spec.scene.blas.iter().enumerate() {
        let triangles = blas
            .geometries
            .iter()
            .filter(|g| matches!(g.primitives, Primitives::Triangles(_)))
            .count();
        if triangles != 0 && triangles != blas.geometries.len() {
            return Err((
                at(&format!("scene.blas[{b}].geometries")),
                "mixes triangle and AABB geometries; expected one type per bottom-level structure, as the APIs require (Vulkan: VUID-VkAccelerationStructureBuildGeometryInfoKHR-type-03792): put each type in a BLAS of its own".into(),
            ));
        }
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
            check_micromap(geom, &|| {
                at(&format!("scene.blas[{b}].geometries[{g}].opacity_micromap"))
            })?;
        }
    }
    Ok(())
}

/// A matrix motion instance: VK_NV_ray_tracing_motion_blur's, so only the
/// Vulkan profiles have it, and its transform at time 1.0 is invertible as
/// the one at 0.0 must be.
fn check_motion_instance(spec: &CaseSpec, t1: &Transform, path: &str) -> Check<()> {
    let outside: Vec<&str> = spec
        .profiles
        .iter()
        .map(|p| p.name())
        .filter(|p| !matches!(*p, "vulkan-nv" | "vulkan-ext"))
        .collect();
    if !outside.is_empty() {
        return Err((
            path.to_string(),
            format!(
                "a motion instance (VK_NV_ray_tracing_motion_blur) exists only in the profiles vulkan-nv and vulkan-ext, but the case lists {}",
                outside.join(", ")
            ),
        ));
    }
    if ser_reference::scene::inverse(t1).is_none() {
        return Err((
            path.to_string(),
            "the transform at time 1.0 must be invertible, as `transform` (time 0.0) must".into(),
        ));
    }
    Ok(())
}

/// The most threads a dispatch may have: the reference runs every thread
/// on a stack of its own (`ser_reference::exec`), two memory maps each, and
/// maps at most 24,576 stacks at once, under Linux's default limit of 65,530
/// maps per process; a dispatch waits while others hold them. The Vulkan
/// CTS's large dispatches (349,830 threads and more) are ported at this size
/// (`cases/peers/vk_cts/large_dim.json`, `docs/peers/vk-cts.md`).
pub(crate) const MAX_THREADS: u64 = 16_384;

/// The dispatch size and wave size are in range.
pub(super) fn check_dispatch(
    d: &crate::case::DispatchSpec,
    at: &dyn Fn(&str) -> String,
) -> Check<()> {
    let threads = d
        .size
        .iter()
        .fold(1u64, |t, &n| t.saturating_mul(u64::from(n)));
    if d.size.contains(&0) || threads > MAX_THREADS {
        return Err((
            at("dispatch.size"),
            format!("each dimension is at least 1, and a case has at most {MAX_THREADS} threads"),
        ));
    }
    if !crate::claim::WAVE_LANES.contains(&d.wave_size) {
        return Err((at("dispatch.wave_size"), "a wave has 1 to 128 lanes".into()));
    }
    Ok(())
}

/// The expectation of a layout case, parsed; `None` for other cases.
pub(super) fn layout_expectation(
    spec: &CaseSpec,
    at: &dyn Fn(&str) -> String,
) -> Check<Option<LayoutExpect>> {
    let parsed = match &spec.expect {
        ExpectSpec::Layout(l) => layout_expect::parse(l, &at("expect.layout"))?,
        ExpectSpec::LayoutError { api, code } => {
            if !layout_expect::ERROR_CODES.contains(&code.as_str()) {
                return Err((
                    at("expect.layout_error.code"),
                    format!(
                        "`{code}`: expected one of {}",
                        layout_expect::ERROR_CODES.join(", ")
                    ),
                ));
            }
            LayoutExpect::Error {
                api: *api,
                code: code.clone(),
            }
        }
        _ => return Ok(None),
    };
    if !spec.buffers.is_empty() {
        return Err((
            at("buffers"),
            "a layout case runs no shaders and has no buffers".into(),
        ));
    }
    Ok(Some(parsed))
}

/// Maps a library line to the JSON path of that line.
pub(super) fn library_error(
    spec: &CaseSpec,
    line: u32,
    at: &dyn Fn(&str) -> String,
    message: String,
) -> (String, String) {
    let path = match &spec.library {
        Some(Source::Lines(_)) => at(&format!("library[{}]", line.saturating_sub(1))),
        _ => at("library"),
    };
    (path, format!("library {message}"))
}

pub(super) fn parse_library(
    spec: &CaseSpec,
    source: &str,
    at: &dyn Fn(&str) -> String,
) -> Check<Library> {
    ser_lang::parse(source).map_err(|e| library_error(spec, e.span.line, at, e.to_string()))
}

/// The case-level options that change how its library reads: SER's names
/// as written, and a shader model. Both are Shader Model 6.9's rules, so a
/// case that sets them lists `sm69` alone.
pub(super) fn library_options(
    spec: &CaseSpec,
    library: &mut Library,
    at: &dyn Fn(&str) -> String,
) -> Check<()> {
    let only_sm69 = spec
        .profiles
        .iter()
        .all(|p| *p == ser_reference::Profile::Sm69);
    if spec.names == crate::case::NamesSpec::AsWritten {
        if !only_sm69 {
            return Err((
                at("names"),
                "`as_written` names are Shader Model 6.9's namespace rule: the case must list `sm69` alone".into(),
            ));
        }
        library.names_as_written = true;
    }
    if let Some(model) = &spec.shader_model {
        if ser_lang::ast::shader_model_version(model).is_none() {
            return Err((
                at("shader_model"),
                format!("`{model}` is not a shader model; expected MAJOR.MINOR, e.g. \"6.8\""),
            ));
        }
        if !only_sm69 {
            return Err((
                at("shader_model"),
                "a shader model is Shader Model 6.9's notion: the case must list `sm69` alone"
                    .into(),
            ));
        }
        library.shader_model = Some(model.clone());
    }
    Ok(())
}

/// A case that uses a form only some profiles have (a GL_NV-only or
/// GL_EXT-only function, a Shader Model 6.9 spelling) lists only those.
pub(super) fn check_profile_forms(
    spec: &CaseSpec,
    library: &Library,
    at: &dyn Fn(&str) -> String,
) -> Check<()> {
    for form in ser_lang::forms::used(library) {
        let outside: Vec<String> = spec
            .profiles
            .iter()
            .map(|p| p.name().to_string())
            .filter(|p| !form.profiles.contains(&p.as_str()))
            .collect();
        if !outside.is_empty() {
            return Err((
                at("profiles"),
                format!(
                    "the library uses {}, which only {} has ({}), but the case lists {}",
                    form.form,
                    form.profiles.join(", "),
                    form.clause,
                    outside.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

pub(super) fn check_shader_table(
    spec: &CaseSpec,
    program: &Program,
    at: &dyn Fn(&str) -> String,
) -> Check<()> {
    // The path is written only for an error.
    let check = |name: &Option<String>, stage: Stage, path: &dyn Fn() -> String| -> Check<()> {
        match name {
            None => Ok(()),
            Some(n) if program.entry_stage(n) == Some(stage) => Ok(()),
            Some(n) => Err((
                at(&path()),
                format!("`{n}` is not a {} shader of the library", stage.name()),
            )),
        }
    };
    let t = &spec.shader_table;
    for (i, r) in t.hit_groups.iter().enumerate() {
        check(&r.closest_hit, Stage::ClosestHit, &|| {
            format!("shader_table.hit_groups[{i}].closest_hit")
        })?;
        check(&r.any_hit, Stage::AnyHit, &|| {
            format!("shader_table.hit_groups[{i}].any_hit")
        })?;
        check(&r.intersection, Stage::Intersection, &|| {
            format!("shader_table.hit_groups[{i}].intersection")
        })?;
    }
    for (i, r) in t.miss.iter().enumerate() {
        check(&r.shader, Stage::Miss, &|| {
            format!("shader_table.miss[{i}].shader")
        })?;
    }
    for (i, r) in t.callable.iter().enumerate() {
        check(&r.shader, Stage::Callable, &|| {
            format!("shader_table.callable[{i}].shader")
        })?;
    }
    check(
        &spec.dispatch.as_ref().map(|d| d.raygen.clone()),
        Stage::RayGeneration,
        &|| "dispatch.raygen".to_string(),
    )
}

pub(super) type Buffers = BTreeMap<String, Vec<u32>>;

pub(super) fn check_buffers(
    spec: &CaseSpec,
    program: &Program,
    at: &dyn Fn(&str) -> String,
    expectations: super::Expectations,
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
        if b.elements > expect::MAX_BUFFER_ELEMENTS {
            return Err((
                at(&format!("buffers.{}.elements", decl.name)),
                format!(
                    "{} elements; a buffer has at most {} (the case format's limit, see \
                     cases/README.md)",
                    b.elements,
                    expect::MAX_BUFFER_ELEMENTS
                ),
            ));
        }
        let words = match &b.init {
            None => vec![0; b.elements as usize * element.components as usize],
            Some(list) => {
                let path = at(&format!("buffers.{}.init", decl.name));
                let words_of =
                    |j: &serde_json::Value, p: &str| match (element.components, j.as_array()) {
                        (1, _) => Ok(vec![expect::parse_number(j, element.scalar, p)?]),
                        (n, Some(c)) if c.len() == n as usize => c
                            .iter()
                            .enumerate()
                            .map(|(k, v)| {
                                expect::parse_number(v, element.scalar, &format!("{p}[{k}]"))
                            })
                            .collect(),
                        (n, _) => {
                            Err((p.to_string(), format!("expected a list of {n} components")))
                        }
                    };
                expect::expand_repeats(
                    list,
                    &path,
                    b.elements,
                    "initial element(s) given",
                    words_of,
                )?
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
            // A case every implementation passes checks nothing.
            let open = |b: &expect::BufferExpect| b.words.iter().all(|w| *w == Expect::Unspecified);
            if expectations == super::Expectations::Required && out.values().all(open) {
                return Err((
                    at("expect.buffers"),
                    "every expected word is `unspecified`, so any implementation passes the case whatever it does; expected at least one word that the case's clauses decide".into(),
                ));
            }
            Expected::Buffers(out)
        }
        ExpectSpec::Layout(_) | ExpectSpec::LayoutError { .. } | ExpectSpec::Diagnostics(_) => {
            unreachable!("layout and negative cases are loaded apart")
        }
    };
    Ok((init, expected))
}

/// An opacity micromap: on triangles, one entry per triangle, `4^level`
/// states each within the format's range.
fn check_micromap(geom: &ser_reference::scene::Geometry, path: &dyn Fn() -> String) -> Check<()> {
    // The path is written only for an error.
    let Some(map) = &geom.opacity_micromap else {
        return Ok(());
    };
    let Primitives::Triangles(tris) = &geom.primitives else {
        return Err((
            path(),
            "opacity micromaps apply to triangle geometries only".into(),
        ));
    };
    if map.subdivision_level > 1 {
        return Err((
            format!("{}.subdivision_level", path()),
            "the reference implements levels 0 and 1: deeper levels need the space-filling curve of the chapter's appendix, which is not among the spec documents".into(),
        ));
    }
    if map.triangles.len() != tris.len() {
        return Err((
            format!("{}.triangles", path()),
            format!(
                "{} entries for {} triangles",
                map.triangles.len(),
                tris.len()
            ),
        ));
    }
    let count = 4usize.pow(map.subdivision_level as u32);
    let max = match map.format {
        MicromapFormat::TwoState => 1,
        MicromapFormat::FourState => 3,
    };
    for (i, e) in map.triangles.iter().enumerate() {
        if let MicromapEntry::States(states) = e {
            if states.len() != count || states.iter().any(|v| *v > max) {
                return Err((
                    format!("{}.triangles[{i}]", path()),
                    format!("expected {count} states of 0..={max}, or a special index (fully_transparent, fully_opaque, fully_unknown_transparent, fully_unknown_opaque)"),
                ));
            }
        }
    }
    Ok(())
}

/// The diagnostics a negative case expects: known codes, each with the
/// severity the code has.
pub(super) fn diagnostics_expectation(
    list: &[crate::case::DiagnosticExpectSpec],
    at: &dyn Fn(&str) -> String,
) -> Check<Vec<super::ExpectedDiagnostic>> {
    use ser_reference::validate::{DiagCode, Severity};
    let mut out = Vec::new();
    for (i, d) in list.iter().enumerate() {
        let Some(code) = DiagCode::from_name(&d.code) else {
            let known: Vec<&str> = DiagCode::ALL.iter().map(|c| c.name()).collect();
            return Err((
                at(&format!("expect.diagnostics[{i}].code")),
                format!("`{}`: expected one of {}", d.code, known.join(", ")),
            ));
        };
        let Some(severity) = Severity::from_name(&d.severity) else {
            return Err((
                at(&format!("expect.diagnostics[{i}].severity")),
                format!("`{}`: expected error or warning", d.severity),
            ));
        };
        if severity != code.severity() {
            return Err((
                at(&format!("expect.diagnostics[{i}].severity")),
                format!("`{}` is always {}", d.code, code.severity().name()),
            ));
        }
        out.push(super::ExpectedDiagnostic {
            code,
            severity,
            optional: d.optional,
        });
    }
    out.sort();
    out.dedup();
    Ok(out)
}
