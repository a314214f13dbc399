//! The backend: Slang judged on one HLSL profile (`sm69`, or either
//! proposal revision) for one SPIR-V target (NV or EXT).
//!
//! * A negative case is judged by rejection (capability `rejection`):
//!   Slang must reject the program; its control must compile.
//! * A runtime case must compile, and every module must pass `spirv-val`.
//!   Compile-only ([`Phase::Compile`]), that is the verdict; with a device
//!   (`--run`), the modules then run through the Vulkan backend's device
//!   layer, one device layer for two front ends, and the buffers are judged.

use crate::library::{EntryPoint, Slang};
use crate::target::{slang_stage, Target};
use ser_harness::backend::{Backend, BackendError, Execution, Output};
use ser_harness::claim::Phase;
use ser_harness::load::{Case, Expected};
use ser_lang::ast::Item;
use ser_reference::Profile;
use ser_targets::glsl::Stage;
use ser_targets::interface::Interface;
use ser_vulkan::backend::{empty, needed, stage_flags, Needed, VulkanBackend};
use ser_vulkan::device::Module;
use std::path::PathBuf;
use std::sync::Mutex;

pub struct SlangBackend {
    slang: Mutex<Slang>,
    profile: Profile,
    target: Target,
    /// The device, when the backend runs what it compiles.
    device: Option<VulkanBackend>,
    spirv_val: Option<PathBuf>,
    name: String,
    /// Where to keep the SPIR-V Slang emits ([`SlangBackend::keep_spirv`]).
    spirv_dir: Option<PathBuf>,
}

/// What Slang is judged on when it only compiles: every capability an HLSL
/// program may use, as SPIR-V can express it ([`Target::lacks`] takes out
/// what the NV extension has no instruction for). Not `validation`
/// (Slang's diagnostics are not the suite's codes), nor what no compiler
/// shows (`schedule_control`, `sbt_layout`,
/// `undefined_behaviour_diagnosis`), nor motion blur (no HLSL form).
pub const COMPILE_CAPABILITIES: &[&str] = &[
    "shader_execution_reorder",
    "ray_query",
    "hit_object_from_ray_query",
    "hit_object_set_shader_table_index",
    "hit_object_get_ray_flags",
    "hit_object_load_local_root_table_constant",
    "callable_shaders",
    "wave_operations",
    "opacity_micromaps",
    "rejection",
];

/// What it is judged on when it runs on the device: what the device layer
/// can run (`ser_vulkan::backend::capabilities` on the NVIDIA device) and judging by rejection.
pub const RUN_CAPABILITIES: &[&str] = &[
    "shader_execution_reorder",
    "hit_object_set_shader_table_index",
    "hit_object_get_ray_flags",
    "hit_object_load_local_root_table_constant",
    "callable_shaders",
    "wave_operations",
    "rejection",
];

impl SlangBackend {
    /// `device`: run on it (the target must be one it runs: NV on the
    /// device layer's NVIDIA device).
    pub fn new(
        slang: Slang,
        profile: Profile,
        target: Target,
        device: Option<VulkanBackend>,
        spirv_val: Option<PathBuf>,
    ) -> SlangBackend {
        let phase = match &device {
            Some(d) => format!("run on {}", d.name()),
            None => "compile only".to_string(),
        };
        let name = format!("slang {} ({}, {phase})", slang.version, target.describe());
        SlangBackend {
            slang: Mutex::new(slang),
            profile,
            target,
            device,
            spirv_val,
            name,
            spirv_dir: None,
        }
    }

    /// Writes every module Slang emits to `dir` as `CASE-ENTRY.spv` (the
    /// case id with `/` as `_`), for triage with `spirv-dis` and for bug
    /// reports to Slang.
    pub fn keep_spirv(mut self, dir: Option<PathBuf>) -> SlangBackend {
        self.spirv_dir = dir;
        self
    }

    fn write_spirv(&self, case: &Case, modules: &[(String, Stage, Vec<u32>)]) {
        let Some(dir) = &self.spirv_dir else { return };
        for (entry, _, words) in modules {
            let path = dir.join(format!("{}-{entry}.spv", case.id.replace('/', "_")));
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            if let Err(e) = std::fs::write(&path, bytes) {
                eprintln!("ser-slang: {}: {e}", path.display());
            }
        }
    }

    /// The entry points to compile: for a runtime case those its pipeline
    /// needs, for a negative case every shader of the library.
    fn entry_points(&self, case: &Case) -> Result<Vec<(String, Stage)>, BackendError> {
        let stage_of = |name: &str| {
            case.library().items.iter().find_map(|i| match i {
                Item::Function(f) if f.name == name => f.stage().and_then(Stage::from_name),
                _ => None,
            })
        };
        let names: Vec<String> = if matches!(case.expect, Expected::Diagnostics(_)) {
            case.library()
                .items
                .iter()
                .filter_map(|i| match i {
                    Item::Function(f) if f.stage().is_some() => Some(f.name.clone()),
                    _ => None,
                })
                .collect()
        } else {
            needed(case)?
                .into_iter()
                .filter_map(|n| match n {
                    Needed::Library(name) => Some(name),
                    Needed::Empty(..) => None,
                })
                .collect()
        };
        names
            .into_iter()
            .map(|n| match stage_of(&n) {
                Some(s) => Ok((n, s)),
                None => Err(BackendError::NotSupported(format!(
                    "`{n}` is no shader of the library (no [shader(\"...\")] attribute naming a stage)"
                ))),
            })
            .collect()
    }

    /// `spirv-val` on each module: the first entry point it rejects, with
    /// its message.
    fn validate(&self, case: &Case, modules: &[(String, Stage, Vec<u32>)]) -> Option<String> {
        let tool = self.spirv_val.as_ref()?;
        modules.iter().find_map(|(entry, _, words)| {
            let name = format!("slang-{}-{entry}", case.id.replace('/', "_"));
            // The scalar layout, as Slang is told to lay buffers out.
            ser_vulkan::compile::validate_with(tool, words, &name, &["--scalar-block-layout"])
                .err()
                .map(|m| format!("`{entry}`: {}", m.trim()))
        })
    }

    fn run_on_device(
        &self,
        device: &VulkanBackend,
        case: &Case,
        compiled: Vec<(String, Stage, Vec<u32>)>,
    ) -> Result<Execution, BackendError> {
        let interface = Interface::of(case.library()).map_err(BackendError::NotSupported)?;
        let mut modules: Vec<Module> = compiled
            .into_iter()
            .map(|(entry, stage, spirv)| Module {
                entry,
                stage: stage_flags(stage),
                spirv,
            })
            .collect();
        for n in needed(case)? {
            if let Needed::Empty(stage, name) = n {
                let spirv = ser_vulkan::compile::spirv(&empty(stage, name))
                    .map_err(|e| BackendError::Failed(format!("the empty {name}: {e}")))?;
                modules.push(Module {
                    entry: name.to_string(),
                    stage: stage_flags(stage),
                    spirv,
                });
            }
        }
        device.execute(case, &interface, &modules)
    }
}

impl Backend for SlangBackend {
    fn name(&self) -> &str {
        &self.name
    }

    fn profile(&self) -> Profile {
        self.profile
    }

    fn capabilities(&self) -> Vec<String> {
        let caps = match self.device {
            Some(_) => RUN_CAPABILITIES,
            None => COMPILE_CAPABILITIES,
        };
        caps.iter()
            .filter(|c| !self.target.lacks().contains(c))
            .map(|c| c.to_string())
            .collect()
    }

    fn phase(&self) -> Phase {
        match self.device {
            Some(_) => Phase::Run,
            None => Phase::Compile,
        }
    }

    fn run(&self, case: &Case) -> Result<Execution, BackendError> {
        let negative = match case.expect {
            Expected::Diagnostics(_) => true,
            Expected::Buffers(_) | Expected::Undefined(_) => false,
            Expected::Layout(_) => {
                return Err(BackendError::NotSupported(
                    "a layout case: a compiler lays out no shader table".into(),
                ))
            }
        };
        // `#line` directives: Slang's errors then name lines of the case.
        let hlsl = ser_targets::hlsl::located(case.library(), self.profile, true)
            .map_err(BackendError::NotSupported)?;
        let entries = self.entry_points(case)?;
        let asked: Vec<EntryPoint> = entries
            .iter()
            .map(|(n, s)| EntryPoint {
                name: n,
                stage: slang_stage(*s),
            })
            .collect();
        let out = {
            let slang = self.slang.lock().unwrap_or_else(|e| e.into_inner());
            slang
                .compile(&hlsl, &asked, Target::PROFILE, self.target.capability())
                .map_err(BackendError::Failed)?
        };
        let done = |output| {
            Ok(Execution {
                output,
                legal: None,
            })
        };
        let Some(words) = out.modules else {
            return done(Output::Rejected {
                lines: error_lines(&out.diagnostics),
                message: out.diagnostics.trim().to_string(),
            });
        };
        let compiled: Vec<(String, Stage, Vec<u32>)> = entries
            .into_iter()
            .zip(words)
            .map(|((n, s), w)| (n, s, w))
            .collect();
        self.write_spirv(case, &compiled);
        let invalid = self
            .validate(case, &compiled)
            .map(|m| format!("spirv-val rejects the SPIR-V Slang emitted for {m}"));
        let output = format!(
            "{} module(s) of {}{}",
            compiled.len(),
            self.target.describe(),
            match (&self.spirv_val, &invalid) {
                (None, _) => ", not validated (no spirv-val)",
                (Some(_), None) => ", valid under spirv-val",
                (Some(_), Some(_)) => "",
            }
        );
        match &self.device {
            Some(device) if !negative && invalid.is_none() => {
                self.run_on_device(device, case, compiled)
            }
            _ => done(Output::Compiled { output, invalid }),
        }
    }
}

/// The lines of the case Slang's errors point at: each
/// `--> case.hlsl:LINE:COLUMN` of an `error[E...]` and of the notes under
/// it (`see using of 'GetRayTCurrent'` names the use an entry point's
/// error is about), not those of warnings nor of Slang's own modules.
pub fn error_lines(diagnostics: &str) -> Vec<u32> {
    let mut lines = Vec::new();
    let mut in_error = false;
    for l in diagnostics.lines() {
        if l.starts_with("error") {
            in_error = true;
        } else if l.starts_with("warning") {
            in_error = false;
        } else if let Some(at) = l.trim_start().strip_prefix("--> case.hlsl:") {
            let line = at.split(':').next().and_then(|n| n.parse().ok());
            if let (true, Some(n)) = (in_error, line) {
                if !lines.contains(&n) {
                    lines.push(n);
                }
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::error_lines;

    #[test]
    fn error_lines_are_the_errors_own_not_their_notes() {
        let d = "error[E36107]: unavailable features in entry point
  --> case.hlsl:21:6
   |
note: see using of 'GetRayTCurrent'
  --> case.hlsl:29:17
warning[E1]: something
  --> case.hlsl:3:1
error[E30015]: undefined identifier
  --> case.hlsl:28:13
error[E30015]: undefined identifier
  --> case.hlsl:28:25
";
        assert_eq!(error_lines(d), vec![21, 29, 28]);
        assert!(error_lines("error: internal").is_empty());
    }
}
