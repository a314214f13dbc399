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

type Prepared = Result<(Interface, Vec<Module>), BackendError>;

/// Every case emitted and compiled, each distinct module text once.
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
    let texts: Vec<&Glsl> = emitted.iter().flatten().flat_map(|(_, g)| g).collect();
    let mut compiled = time("compile", || crate::compile::spirv_all(&texts)).into_iter();
    emitted
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
            Ok((interface, modules))
        })
        .collect()
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
                let (interface, modules) = prepared[i].as_ref().expect("admitted");
                Job {
                    scene: &cases[i].scene,
                    table: &cases[i].shader_table,
                    dispatch: &cases[i].dispatch,
                    interface,
                    modules,
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
            Ok((interface, modules)) => b.execute(cases[i], interface, modules),
            Err(e) => Err(e.clone()),
        });
    }
    answers
        .into_iter()
        .map(|a| a.expect("every case answered"))
        .collect()
}
