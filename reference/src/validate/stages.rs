//! Where HitObject and MaybeReorderThread may be used: "The HitObject type
//! and related functions are available only in the following shader
//! stages: raygeneration, closesthit, miss"
//! (`ser.hit_object.stages.raygen_closesthit_miss_only`); "MaybeReorderThread
//! is available only in shaders of type raygeneration"
//! (`ser.maybe_reorder_thread.stage.raygen_only`). A helper function is
//! checked for every stage whose entry points reach it through calls (a
//! hull shader's `[patchconstantfunc]` too); a function no entry point
//! reaches belongs to no stage. `TraceRay` may be
//! called in raygeneration, closesthit and miss shaders only
//! (`sbt.dxr.traceray_callable_stages`, `sbt.vulkan.tracenv_callable_stages`).

use super::facts::Facts;
use super::{DiagCode, Validator};
use crate::mutation::{self, Mutation};
use crate::program::Stage;
use ser_lang::ast::{ExprKind, FunctionDecl, Item};
use ser_lang::Span;
use std::collections::HashSet;

const HIT_CLAUSE: &str = "ser.hit_object.stages.raygen_closesthit_miss_only";
const REORDER_CLAUSE: &str = "ser.maybe_reorder_thread.stage.raygen_only";
const TRACE_CLAUSE_DXR: &str = "sbt.dxr.traceray_callable_stages";
const TRACE_CLAUSE_VULKAN: &str = "sbt.vulkan.tracenv_callable_stages";

pub fn check(v: &mut Validator) {
    let program = v.program;
    let mut seen = HashSet::new();
    for item in &program.library.items {
        let Item::Function(f) = item else { continue };
        if let Some(stage) = f.stage().and_then(Stage::from_name) {
            visit(v, f, stage, &f.name, &mut seen);
            // A hull shader's patch constant function runs in its stage.
            if let Some(pcf) = patch_constant_function(f).and_then(|n| program.function(n)) {
                visit(v, pcf, stage, &f.name, &mut seen);
            }
        }
    }
}

/// The function `[patchconstantfunc("name")]` names.
fn patch_constant_function(f: &FunctionDecl) -> Option<&str> {
    f.attributes
        .iter()
        .find(|a| a.name == "patchconstantfunc")
        .and_then(|a| a.arg(0))
}

/// The variable an lvalue-like expression starts from: `h`, `hs[1]`, `s.h`.
fn root_variable(e: &ser_lang::ast::Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n),
        ExprKind::Index(base, _) | ExprKind::Member(base, _) => root_variable(base),
        _ => None,
    }
}

/// Checks `f` as part of `entry`'s stage, then the functions it calls.
fn visit<'p>(
    v: &mut Validator<'p>,
    f: &'p FunctionDecl,
    stage: Stage,
    entry: &str,
    seen: &mut HashSet<(String, Stage)>,
) {
    if !seen.insert((f.name.clone(), stage)) {
        return;
    }
    check_function(v, f, stage, entry);
    let facts = v.facts;
    for e in &facts.function(f).exprs {
        if let ExprKind::Call { name, .. } = &e.kind {
            if let Some(g) = v.program.function(name) {
                visit(v, g, stage, entry, seen);
            }
        }
    }
}

fn check_function(v: &mut Validator, f: &FunctionDecl, stage: Stage, entry: &str) {
    let program = v.program;
    let place = if f.name == entry {
        format!("the {} shader `{entry}`", stage.name())
    } else {
        format!(
            "`{}`, which the {} shader `{entry}` calls",
            f.name,
            stage.name()
        )
    };
    if !matches!(
        stage,
        Stage::RayGeneration | Stage::ClosestHit | Stage::Miss
    ) {
        let holds = |t: &ser_lang::ast::Type| program.holds_hit_object(t);
        let mut uses = Vec::new();
        if holds(&f.return_type) || f.params.iter().any(|p| holds(&p.ty)) {
            uses.push((f.span, "a HitObject parameter or result".to_string()));
        }
        let mut holders: Vec<String> = f
            .params
            .iter()
            .filter(|p| holds(&p.ty))
            .map(|p| p.name.clone())
            .collect();
        for (name, ty, span) in &v.facts.function(f).decls {
            if holds(ty) {
                uses.push((*span, format!("the HitObject variable `{name}`")));
                holders.push(name.to_string());
            }
        }
        for e in &v.facts.function(f).exprs {
            match &e.kind {
                ExprKind::StaticCall { ty, method, .. } if ty == "HitObject" => {
                    uses.push((e.span, format!("`HitObject::{method}`")));
                }
                // A method of a HitObject variable (or of an element or
                // member of one): each use is a use of the type.
                ExprKind::MethodCall {
                    receiver, method, ..
                } if root_variable(receiver).is_some_and(|n| holders.iter().any(|h| h == n)) => {
                    uses.push((e.span, format!("`HitObject::{method}`")));
                }
                _ => {}
            }
        }
        for (span, what) in uses {
            if stage == Stage::AnyHit && mutation::active(Mutation::ValidatorHitObjectInAnyHit) {
                continue;
            }
            v.report(
                DiagCode::HitObjectStage,
                HIT_CLAUSE,
                &f.name,
                span,
                format!("{what} in {place}: HitObject is available only in raygeneration, closesthit and miss shaders"),
            );
        }
    }
    check_trace_ray(v, f, stage, &place);
    if stage != Stage::RayGeneration {
        let reorders = [
            "MaybeReorderThread",
            "ReorderThread",
            // GL_EXT's shorthands that reorder (`glsl_ext.functions.invocation_repack_functions`).
            "HitObject::ReorderExecute",
            "HitObject::TraceReorderExecute",
            "HitObject::TraceMotionReorderExecute",
        ];
        for (span, name) in calls_to(v.facts.function(f), &reorders) {
            if stage == Stage::ClosestHit
                && mutation::active(Mutation::ValidatorReorderInClosestHit)
            {
                continue;
            }
            v.report(
                DiagCode::ReorderStage,
                REORDER_CLAUSE,
                &f.name,
                span,
                format!("`{name}` in {place}: it is available only in raygeneration shaders"),
            );
        }
    }
}

/// "In the ray generation, closest hit and miss shaders the HLSL TraceRay
/// function can be called" (`sbt.dxr.traceray_callable_stages`; the same
/// for `traceNV`, `sbt.vulkan.tracenv_callable_stages`): DXR and GLSL
/// compilers reject it in any other stage (any-hit, intersection,
/// callable).
fn check_trace_ray(v: &mut Validator, f: &FunctionDecl, stage: Stage, place: &str) {
    if matches!(
        stage,
        Stage::RayGeneration | Stage::ClosestHit | Stage::Miss
    ) {
        return;
    }
    let clause = if v.profile.is_hlsl() {
        TRACE_CLAUSE_DXR
    } else {
        TRACE_CLAUSE_VULKAN
    };
    for (span, name) in calls_to(v.facts.function(f), &["TraceRay", "TraceRayMotion"]) {
        if stage == Stage::Callable && mutation::active(Mutation::ValidatorTraceRayInCallable) {
            continue;
        }
        v.report(
            DiagCode::TraceRayStage,
            clause,
            &f.name,
            span,
            format!("`{name}` in {place}: it can be called only in raygeneration, closesthit and miss shaders"),
        );
    }
}

/// The calls in a function (its `facts`) of the functions `names` (free
/// functions, or `Type::method`), with where they are.
fn calls_to(facts: &Facts, names: &[&str]) -> Vec<(Span, String)> {
    let mut calls = Vec::new();
    for e in &facts.exprs {
        let name = match &e.kind {
            ExprKind::Call { name, .. } => name.clone(),
            ExprKind::StaticCall { ty, method, .. } => format!("{ty}::{method}"),
            _ => continue,
        };
        if names.contains(&name.as_str()) {
            calls.push((e.span, name));
        }
    }
    calls
}
