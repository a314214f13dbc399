//! Many cases on the GPU at once. Cases that share every module but their
//! raygeneration shader, their shader table, their bindings, recursion
//! depth and pipeline flags (every generated case of a campaign does) share
//! one pipeline, with one raygeneration group and record per distinct
//! raygeneration shader. Every scene of the batch is built, and every
//! case traced, in one command buffer: one submission, one wait.

use super::accel::{Built, PendingScene};
use super::pipeline::{Pipeline, PipelineDesc};
use super::run::{CaseBuffers, Job, Module, Outputs};
use super::Gpu;
use crate::timing;
use ash::vk;
use std::collections::HashMap;
use std::time::Instant;

/// What a group's cases share: the modules other than raygeneration ones,
/// the table (as JSON), bindings, depth and flags.
type GroupKey<'a> = (
    Vec<(&'a str, i32, &'a [u32])>,
    String,
    Vec<(u32, i32)>,
    u32,
    u32,
);

fn group_key<'a>(job: &Job<'a>) -> GroupKey<'a> {
    (
        job.modules
            .iter()
            .filter(|m| m.stage != vk::ShaderStageFlags::RAYGEN_KHR)
            .map(|m| (m.entry.as_str(), m.stage.as_raw() as i32, &m.spirv[..]))
            .collect(),
        serde_json::to_string(job.table).unwrap_or_default(),
        job.bindings()
            .iter()
            .map(|(b, t)| (*b, t.as_raw()))
            .collect(),
        job.dispatch.max_recursion_depth,
        job.flags().as_raw(),
    )
}

/// One pipeline's cases: the modules (shared ones, then one per distinct
/// raygeneration shader) and, per case, its job and raygeneration group.
struct Group {
    modules: Vec<Module>,
    raygens: Vec<usize>,
    cases: Vec<(usize, usize)>,
}

impl Group {
    fn of(first: &Job) -> Group {
        Group {
            modules: first
                .modules
                .iter()
                .filter(|m| m.stage != vk::ShaderStageFlags::RAYGEN_KHR)
                .cloned()
                .collect(),
            raygens: Vec::new(),
            cases: Vec::new(),
        }
    }

    /// Adds job `j`, sharing a raygeneration group with an earlier case of
    /// the same shader.
    fn add(&mut self, j: usize, job: &Job) -> Result<(), String> {
        let rg = &job.modules[job.raygen()?];
        let group = match self
            .raygens
            .iter()
            .position(|&m| self.modules[m].spirv == rg.spirv)
        {
            Some(g) => g,
            None => {
                self.modules.push(rg.clone());
                self.raygens.push(self.modules.len() - 1);
                self.raygens.len() - 1
            }
        };
        self.cases.push((j, group));
        Ok(())
    }
}

impl Gpu {
    /// Runs `jobs`, one answer each. `Err` when the shared submission
    /// failed (every case's answer is then unknown); inside, a case whose
    /// scene, pipeline or buffers could not be made has its own error.
    pub fn run_many(&self, jobs: &[Job]) -> Result<Vec<Result<Outputs, String>>, String> {
        self.in_arena(|| self.run_many_in_arena(jobs))
    }

    fn run_many_in_arena(&self, jobs: &[Job]) -> Result<Vec<Result<Outputs, String>>, String> {
        let mut answers: Vec<Option<Result<Outputs, String>>> =
            (0..jobs.len()).map(|_| None).collect();
        // Scenes, each distinct one once.
        let started = Instant::now();
        let mut scene_of = Vec::with_capacity(jobs.len());
        let mut scene_keys: HashMap<String, usize> = HashMap::new();
        let mut scenes: Vec<(Built, Result<PendingScene, String>)> = Vec::new();
        for job in jobs {
            let key = serde_json::to_string(job.scene).map_err(|e| e.to_string())?;
            let next = scenes.len();
            let s = *scene_keys.entry(key).or_insert(next);
            if s == next {
                let mut built = Built::empty();
                let pending = self.prepare_scene(job.scene, &mut built);
                scenes.push((built, pending));
            }
            scene_of.push(s);
        }
        timing::add("scenes", started.elapsed(), scenes.len());
        // Groups and their pipelines. A group holds at most its share of
        // the batch over the cores, so that the pipelines (where the
        // driver compiles every raygeneration shader) are made in parallel.
        let cores = super::pipeline::creation_threads();
        let share = jobs.len().div_ceil(cores).max(1);
        let mut group_keys: HashMap<GroupKey, usize> = HashMap::new();
        let mut groups: Vec<Group> = Vec::new();
        for (j, job) in jobs.iter().enumerate() {
            if let Err(e) = &scenes[scene_of[j]].1 {
                answers[j] = Some(Err(e.clone()));
                continue;
            }
            let next = groups.len();
            let open = group_keys.entry(group_key(job)).or_insert(next);
            if *open != next && groups[*open].cases.len() >= share {
                *open = next;
            }
            let g = *open;
            if g == next {
                groups.push(Group::of(job));
            }
            if let Err(e) = groups[g].add(j, job) {
                answers[j] = Some(Err(e));
            }
        }
        let used: Vec<&Group> = groups.iter().filter(|g| !g.cases.is_empty()).collect();
        let bindings: Vec<_> = used.iter().map(|g| jobs[g.cases[0].0].bindings()).collect();
        let descs: Vec<PipelineDesc> = used
            .iter()
            .zip(&bindings)
            .map(|(g, bindings)| {
                let job = &jobs[g.cases[0].0];
                PipelineDesc {
                    modules: &g.modules,
                    raygens: &g.raygens,
                    table: job.table,
                    bindings,
                    max_recursion_depth: job.dispatch.max_recursion_depth,
                    flags: job.flags(),
                }
            })
            .collect();
        let mut pipelines: Vec<Option<Pipeline>> = Vec::new();
        for (g, p) in used.iter().zip(self.pipelines(&descs)) {
            match p {
                Ok(p) => pipelines.push(Some(p)),
                Err(e) => {
                    for &(j, _) in &g.cases {
                        answers[j] = Some(Err(e.clone()));
                    }
                    pipelines.push(None);
                }
            }
        }
        // Buffers and descriptor sets of the cases that can run.
        let started = Instant::now();
        let mut ready: Vec<(usize, &Pipeline, usize, CaseBuffers)> = Vec::new();
        for (g, p) in used.iter().zip(&pipelines) {
            let Some(p) = p else { continue };
            for &(j, rg) in &g.cases {
                match self.case_buffers(&jobs[j]) {
                    Ok(b) => ready.push((j, p, rg, b)),
                    Err(e) => answers[j] = Some(Err(e)),
                }
            }
        }
        timing::add("buffers", started.elapsed(), ready.len());
        let result = timing::time("trace", || self.trace_all(jobs, &scenes, &scene_of, &ready));
        let started = Instant::now();
        for (j, _, _, buffers) in ready {
            let out = self.read_back(buffers, result.is_ok());
            answers[j] = Some(Ok(out));
        }
        for p in pipelines.into_iter().flatten() {
            self.free_pipeline(p);
        }
        for (built, _) in scenes {
            self.free_scene(built);
        }
        timing::add("read back and free", started.elapsed(), jobs.len());
        result?;
        Ok(answers
            .into_iter()
            .map(|a| a.expect("every job answered"))
            .collect())
    }

    /// Builds the scenes and traces the ready cases in one submission.
    fn trace_all(
        &self,
        jobs: &[Job],
        scenes: &[(Built, Result<PendingScene, String>)],
        scene_of: &[usize],
        ready: &[(usize, &Pipeline, usize, CaseBuffers)],
    ) -> Result<(), String> {
        if ready.is_empty() {
            return Ok(());
        }
        let d = &self.device;
        let buffers: usize = ready.iter().map(|r| r.3.len()).sum();
        let pool = self.descriptor_pool(ready.len() as u32, buffers as u32)?;
        let layouts: Vec<vk::DescriptorSetLayout> = ready.iter().map(|r| r.1.set_layout).collect();
        let sets = unsafe {
            d.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&layouts),
            )
        };
        let sets = match sets {
            Ok(s) => s,
            Err(e) => {
                unsafe { d.destroy_descriptor_pool(pool, None) };
                return Err(format!("vkAllocateDescriptorSets: {e}"));
            }
        };
        for ((j, _, _, b), &set) in ready.iter().zip(&sets) {
            self.write_set(set, &jobs[*j], scenes[scene_of[*j]].0.tlas, b);
        }
        let pending: Vec<&PendingScene> = scenes.iter().filter_map(|s| s.1.as_ref().ok()).collect();
        let serial = serial_traces();
        let r = self.submit(|cmd| {
            self.record_builds(cmd, &pending);
            for (i, ((j, p, rg, _), &set)) in ready.iter().zip(&sets).enumerate() {
                if serial && i > 0 {
                    self.record_trace_barrier(cmd);
                }
                self.record_trace(cmd, &jobs[*j], p, &p.raygen_regions[*rg], set);
            }
            self.record_host_barrier(cmd);
        });
        unsafe { d.destroy_descriptor_pool(pool, None) };
        r
    }
}

/// `SER_VULKAN_SERIAL_TRACES=1`: a barrier between one case's trace and
/// the next, so that no two run at once (for triage: a disagreement that
/// goes away with it depends on traces overlapping).
fn serial_traces() -> bool {
    std::env::var("SER_VULKAN_SERIAL_TRACES").is_ok_and(|v| v == "1")
}
