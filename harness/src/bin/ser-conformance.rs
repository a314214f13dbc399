//! `ser-conformance`: runs the SER conformance suite against a backend.
//!
//! ```text
//! ser-conformance [--backend reference] [--profile 0027-maybereorderthread]
//!                 [--cases DIR] [--report FILE] [libtest options] [FILTER]
//! ser-conformance schema      # prints the JSON Schema of case files
//! ser-conformance report [--results FILE]... [--out DIR]   # traceability report
//! ```

use clap::{Parser, Subcommand};
use ser_harness::reference_backend::ReferenceBackend;
use ser_harness::runner::{self, Config};
use ser_reference::Profile;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Parser)]
#[command(
    name = "ser-conformance",
    about = "Runs the Shader Execution Reordering conformance suite against a backend"
)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Print the JSON Schema of case files.
    Schema,
    /// Write the traceability report: coverage of the spec-map by cases,
    /// and with `--results`, which clauses each backend passes or fails.
    Report(ReportArgs),
}

#[derive(clap::Args)]
struct ReportArgs {
    /// The clause registry (default: the repository's `spec-map/`).
    #[arg(long)]
    spec_map: Option<PathBuf>,
    /// The case files (default: the repository's `cases/`).
    #[arg(long)]
    cases: Option<PathBuf>,
    /// Results of runs (`--report` files of ser-conformance), one per backend.
    #[arg(long = "results")]
    results: Vec<PathBuf>,
    /// Where to write traceability.md, traceability.html and traceability.json.
    #[arg(long, default_value = "target/traceability")]
    out: PathBuf,
}

#[derive(clap::Args)]
struct RunArgs {
    /// The backend to check.
    #[arg(long, default_value = "reference")]
    backend: String,
    /// The profile the reference backend implements.
    #[arg(long, default_value = "0027-maybereorderthread")]
    profile: String,
    /// The reference's schedule at reorder points: none, regroup, replace
    /// or shuffle:SEED (the legal outcomes are the same; the concrete
    /// results follow the schedule).
    #[arg(long, default_value = "none")]
    schedule: String,
    /// The folder of case files (default: the repository's `cases/`).
    #[arg(long)]
    cases: Option<PathBuf>,
    /// Write machine-readable results (JSON Lines) to this file.
    #[arg(long)]
    report: Option<PathBuf>,
    #[command(flatten)]
    test: libtest_mimic::Arguments,
}

/// A folder of the repository: relative to the working directory when it
/// is there, else next to the harness sources.
fn repo_dir(name: &str) -> PathBuf {
    let here = PathBuf::from(name);
    if here.is_dir() {
        return here;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
}

fn report(args: ReportArgs) -> ExitCode {
    let spec_map = args.spec_map.unwrap_or_else(|| repo_dir("spec-map"));
    let cases_dir = args.cases.unwrap_or_else(|| repo_dir("cases"));
    match ser_harness::traceability::write_report(&spec_map, &cases_dir, &args.results, &args.out) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ser-conformance report: {e}");
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Schema) => {
            let schema = ser_harness::case::schema();
            println!(
                "{}",
                serde_json::to_string_pretty(&schema).expect("a schema serializes")
            );
            return ExitCode::SUCCESS;
        }
        Some(Command::Report(r)) => return report(r),
        None => {}
    }
    let args = cli.run;
    let Some(profile) = Profile::from_name(&args.profile) else {
        let known: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
        eprintln!(
            "ser-conformance: unknown profile `{}`; expected one of {}",
            args.profile,
            known.join(", ")
        );
        return ExitCode::from(2);
    };
    let backend: Arc<dyn ser_harness::backend::Backend> = match args.backend.as_str() {
        "reference" => match args.schedule.parse() {
            Ok(schedule) => Arc::new(ReferenceBackend::new(profile).with_schedule(schedule)),
            Err(e) => {
                eprintln!("ser-conformance: --schedule {e}");
                return ExitCode::from(2);
            }
        },
        other => {
            eprintln!("ser-conformance: unknown backend `{other}`; expected `reference`");
            return ExitCode::from(2);
        }
    };
    let cases_dir = args.cases.unwrap_or_else(|| repo_dir("cases"));
    let config = Config {
        cases_dir: cases_dir.clone(),
        report: args.report.clone(),
        backend: backend.clone(),
        args: args.test,
    };
    let summary = match runner::run(config) {
        Ok(Some(s)) => s.summary,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ser-conformance: cannot write the report: {e}");
            return ExitCode::from(2);
        }
    };
    let verdict = if summary.ok() {
        "CONFORMANT"
    } else {
        "NOT CONFORMANT"
    };
    println!(
        "\nser-conformance: backend `{}`, profile {}, cases from {}: {} case(s): {} pass, {} fail, {} not supported, {} error",
        backend.name(),
        backend.profile(),
        cases_dir.display(),
        summary.total(),
        summary.pass,
        summary.fail,
        summary.not_supported,
        summary.error
    );
    println!("verdict: {verdict}");
    if let Some(r) = &args.report {
        println!("report: {}", r.display());
    }
    if summary.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
