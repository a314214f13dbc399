//! [`Backend::run_batch`](ser_harness::backend::Backend::run_batch) on the
//! device: every case of the batch is emitted, its distinct modules are
//! compiled once each over all cores, and the cases that can run go to the
//! device together ([`Gpu::run_many`](crate::device::Gpu::run_many): shared
//! pipelines, one submission). Each answer is the one [`VulkanBackend::run`]
//! would give: a case the emitter declines stays not supported in its
//! slot, and a case that fails inside the batch (or all of them, when the
//! shared submission fails or loses the device) runs again on its own.

use crate::backend::{
    admit, classify, execution, glsl, lost, module, reopen, runs_shaders, unexpressible,
    VulkanBackend,
};
use crate::device::{Job, Module};
use crate::emit::Glsl;
use crate::interface::Interface;
use crate::timing::time;
use ser_harness::backend::{BackendError, Execution};
use ser_harness::load::Case;
use std::sync::atomic::Ordering;

/// A case emitted and compiled: its interface, its modules, and where its
/// raygeneration module can be a merged one ([`crate::merge`]), its index
/// in it and its modules with that one (a case run again alone runs its
/// own).
type Prepared = Result<(Interface, Vec<Module>, Option<(u32, Vec<Module>)>), BackendError>;

/// Cases per merged raygeneration module: on a device that compiles each
/// shader apart (a GPU), the batch shared over the cores, so that the
/// merged modules' pipelines are made in parallel; on a CPU device
/// (lavapipe compiles a whole pipeline as one program, so merging saves
/// nothing) 1, no merging. `SER_VULKAN_MERGE` sets it (1: no merging, for
/// measuring).
fn merge_per(b: &VulkanBackend, cases: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let default = if b.compiles_shaders_apart() {
        cases.div_ceil(cores)
    } else {
        1
    };
    std::env::var("SER_VULKAN_MERGE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
        .max(1)
}

/// What cases must share to share a merged raygeneration module: their
/// other modules, table, recursion depth and pipeline flags.
fn merge_key(case: &Case, glsl: &[Glsl]) -> String {
    let mut key = serde_json::to_string(&case.shader_table).unwrap_or_default();
    key += &format!(
        "\n{} {}\n",
        case.dispatch.max_recursion_depth, case.dispatch.pipeline_flags
    );
    for g in glsl.iter().filter(|g| g.entry != case.dispatch.raygen) {
        key += &format!("{:?} {}\n{}", g.stage, g.entry, g.source);
    }
    key
}

/// Every case emitted and compiled, each distinct module text once, the
/// raygeneration modules of cases that can share one merged.
fn prepare(b: &VulkanBackend, cases: &[&Case]) -> Vec<Prepared> {
    let spelling = b.spelling();
    let emitted: Vec<Result<(Interface, Vec<Glsl>), BackendError>> = time("emit", || {
        cases
            .iter()
            .map(|c| {
                runs_shaders(c)?;
                glsl(c, spelling)
            })
            .collect()
    });
    let merged = time("merge", || {
        let items: Vec<(usize, String, &Glsl)> = emitted
            .iter()
            .zip(cases)
            .enumerate()
            .filter_map(|(i, (e, c))| {
                let (_, glsl) = e.as_ref().ok()?;
                let raygen = glsl.iter().find(|g| g.entry == c.dispatch.raygen)?;
                Some((i, merge_key(c, glsl), raygen))
            })
            .collect();
        crate::merge::merge(&items, merge_per(b, cases.len()))
    });
    let mut texts: Vec<&Glsl> = emitted.iter().flatten().flat_map(|(_, g)| g).collect();
    texts.extend(merged.iter().map(|m| &m.glsl));
    let mut compiled = time("compile", || crate::compile::spirv_all(&texts)).into_iter();
    let mut prepared: Vec<Prepared> = emitted
        .into_iter()
        .zip(cases)
        .map(|(e, c)| {
            let (interface, glsl) = e?;
            let modules: Vec<Result<Module, BackendError>> = glsl
                .iter()
                .map(|g| module(g, compiled.next().expect("one answer per module")))
                .collect();
            let modules = modules.into_iter().collect::<Result<_, _>>()?;
            // In the order `run` checks: emitted and compiled, then the scene.
            unexpressible(c).map_err(BackendError::NotSupported)?;
            Ok((interface, modules, None))
        })
        .collect();
    // A merged module that does not compile leaves its cases their own.
    for m in &merged {
        let Ok(merged) = module(&m.glsl, compiled.next().expect("one answer per module")) else {
            continue;
        };
        for &(i, n) in &m.members {
            if let Ok((_, modules, with_merged)) = &mut prepared[i] {
                let mut modules = modules.clone();
                if let Some(raygen) = modules.iter_mut().find(|g| g.entry == merged.entry) {
                    *raygen = merged.clone();
                    *with_merged = Some((n, modules));
                }
            }
        }
    }
    prepared
}

pub fn run_batch(b: &VulkanBackend, cases: &[&Case]) -> Vec<Result<Execution, BackendError>> {
    let prepared = prepare(b, cases);
    let mut answers: Vec<Option<Result<Execution, BackendError>>> =
        (0..cases.len()).map(|_| None).collect();
    // Cases to run again on their own.
    let mut alone: Vec<usize> = Vec::new();
    {
        let mut guard = match b.device() {
            Ok(g) => g,
            Err(e) => {
                let m = format!("no Vulkan device: {e}");
                return prepared
                    .into_iter()
                    .map(|p| p.and(Err(BackendError::Failed(m.clone()))))
                    .collect();
            }
        };
        let Ok(gpu) = &*guard else {
            unreachable!("device() returns only a present device")
        };
        let mut batch: Vec<usize> = Vec::new();
        for (i, p) in prepared.iter().enumerate() {
            match p
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|_| admit(cases[i], gpu))
            {
                Ok(()) => batch.push(i),
                Err(e) => answers[i] = Some(Err(e)),
            }
        }
        let jobs: Vec<Job> = batch
            .iter()
            .map(|&i| {
                let (interface, own, merged) = prepared[i].as_ref().expect("admitted");
                let (raygen_case, modules) = match merged {
                    Some((n, modules)) => (Some(*n), modules),
                    None => (None, own),
                };
                Job {
                    scene: &cases[i].scene,
                    table: &cases[i].shader_table,
                    dispatch: &cases[i].dispatch,
                    interface,
                    modules,
                    raygen_case,
                }
            })
            .collect();
        match gpu.run_many(&jobs) {
            Ok(outputs) => {
                for (&i, o) in batch.iter().zip(outputs) {
                    match o.map_err(classify) {
                        Err(BackendError::Failed(_)) => alone.push(i),
                        other => answers[i] = Some(other.map(execution)),
                    }
                }
            }
            Err(e) => {
                if lost(&e) {
                    reopen(&mut guard);
                }
                alone = batch;
            }
        }
    }
    b.retried.fetch_add(alone.len(), Ordering::Relaxed);
    for i in alone {
        answers[i] = Some(match &prepared[i] {
            Ok((interface, modules, _)) => b.execute(cases[i], interface, modules),
            Err(e) => Err(e.clone()),
        });
    }
    answers
        .into_iter()
        .map(|a| a.expect("every case answered"))
        .collect()
}
