//! `ser-conformance`: runs the SER conformance suite against a backend.
//!
//! ```text
//! ser-conformance [--backend reference | --backend 'exec:PATH ARGS']
//!                 [--profile P] [--cases DIR] [--report FILE] [--junit FILE]
//!                 [--timeout SECONDS] [--baseline FILE [--bless]]
//!                 [--fraction I/N] [libtest options] [FILTER]
//! ser-conformance schema      # prints the JSON Schema of case files
//! ser-conformance report [--results FILE]... [--out DIR]   # traceability report
//! ser-conformance serve [--profile P] # the reference as a process backend
//! ser-conformance protocol-schemas DIR   # writes the protocol's JSON Schemas
//! ser-conformance capabilities | codes   # what backends may claim and report
//! ser-conformance fuzz --backend B [--cases N] [--seed S] [--out DIR]  # differential fuzzing (default out: ./ser-fuzz-out)
//! ser-conformance mutants [--cases DIR] [--out FILE.md]   # the suite against every mutant
//! ser-conformance emit --lang hlsl|glsl [--profile P] ID  # a case as a compiler reads it
//! ```

use clap::{Parser, Subcommand};
use ser_harness::backend::Backend;
use ser_harness::baseline::Baseline;
use ser_harness::console;
use ser_harness::fuzz::{Campaign, Differential};
use ser_harness::mutant_backend::MutantBackend;
use ser_harness::output::Output;
use ser_harness::pool::Pool;
use ser_harness::protocol::client::ExecBackend;
use ser_harness::protocol::serve::{serve, Fault};
use ser_harness::reference_backend::ReferenceBackend;
use ser_harness::report::Report;
use ser_harness::runner::{self, Config, Fraction, DEFAULT_TIMEOUT};
use ser_reference::exec::schedule::Schedule;
use ser_reference::Profile;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// mimalloc ([`ser_harness::alloc`]) rather than the system's allocator:
/// the reference allocates values as it evaluates, and glibc's
/// malloc took a quarter of its time (`cargo bench -p ser-harness --bench
/// generated`: 1.6 times the cases/s through the reference). Set per
/// binary, not in the library: the backends' binaries and the
/// sanitizer-built fuzz targets link it too.
#[global_allocator]
static ALLOCATOR: ser_harness::alloc::Allocator = ser_harness::alloc::Allocator;

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
    /// Serve the reference over the process protocol on stdin/stdout
    /// (`--backend 'exec:ser-conformance serve'`).
    Serve(ServeArgs),
    /// Write the JSON Schema of each protocol message into DIR.
    ProtocolSchemas { dir: PathBuf },
    /// List the capabilities a backend may claim.
    Capabilities,
    /// List the validator's diagnostic codes.
    Codes,
    /// Differential fuzzing: run generated cases on a backend and on the
    /// reference, shrink each disagreement and write it as a regression
    /// case.
    Fuzz(FuzzArgs),
    /// Run the suite against every mutant of the reference and print which
    /// cases kill each; fails if a bug mutant survives or a control fails.
    Mutants(MutantsArgs),
    /// Print one case's shaders as a compiler reads them: HLSL in the
    /// spelling of an HLSL profile (with Vulkan bindings), or the GLSL
    /// modules of a Vulkan profile. For reports to compiler teams.
    Emit(EmitArgs),
}

#[derive(clap::Args)]
struct EmitArgs {
    /// The case's id (`hit_object/hit/closest_hit_wins`).
    id: String,
    /// `hlsl` or `glsl`.
    #[arg(long, value_parser = ["hlsl", "glsl"])]
    lang: String,
    /// The profile whose spelling to use (default: the case's first of the
    /// language's profiles).
    #[arg(long)]
    profile: Option<String>,
    /// The folder of case files (default: the repository's `cases/`).
    #[arg(long)]
    cases: Option<PathBuf>,
}

#[derive(clap::Args)]
struct MutantsArgs {
    /// The folder of case files (default: the repository's `cases/`).
    #[arg(long)]
    cases: Option<PathBuf>,
    /// Also write the table (Markdown) to this file.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
struct ServeArgs {
    /// The profile to implement when the runner's hello names none.
    #[arg(long, default_value = "0027-maybereorderthread")]
    profile: String,
    /// The schedule at reorder points (as for a run).
    #[arg(long, default_value = "none")]
    schedule: String,
    /// Misbehave on chosen cases, for testing runners: KIND=TEXT with KIND
    /// one of hang, crash, garbage, wrong_id, decline, twice, late, binary,
    /// orphan (docs/protocol.md says what each does), on cases whose id
    /// contains TEXT (an empty TEXT: every case). Repeatable.
    #[arg(long = "fault", value_parser = clap::value_parser!(Fault))]
    faults: Vec<Fault>,
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

/// Which backend, how it is started, and its time limit.
#[derive(clap::Args)]
struct BackendArgs {
    /// The backend to check: `reference` (the interpreter, in process),
    /// `vulkan` or `slang` (the `ser-vulkan` or `ser-slang` program next to
    /// this one: `cargo build --release -p ser-vulkan -p ser-slang`),
    /// `mutant:NAME` (the reference with one rule broken), or `exec:PATH
    /// ARGS` for a program speaking the process protocol (docs/protocol.md;
    /// the words after `exec:` are split at spaces, use --backend-arg for
    /// arguments with spaces).
    #[arg(long, default_value = "reference")]
    backend: String,
    /// An argument for an `exec:` backend's program, after those in
    /// --backend. Repeatable.
    #[arg(long = "backend-arg", allow_hyphen_values = true)]
    backend_args: Vec<String>,
    /// The profile to check (the reference's default:
    /// 0027-maybereorderthread; an `exec:` backend is told it in the
    /// handshake and states the profile it implements).
    #[arg(long)]
    profile: Option<String>,
    /// Per-case time limit in seconds (default 30; 0 for none): a backend
    /// that exceeds it gets a `timeout` verdict (a process backend is
    /// stopped and restarted). A process backend's hello is held to it too.
    #[arg(long)]
    timeout: Option<f64>,
    /// The reference's schedule at reorder points: none, regroup, replace
    /// or shuffle:SEED (the legal outcomes are the same; the concrete
    /// results follow the schedule).
    #[arg(long, default_value = "none")]
    schedule: String,
}

#[derive(clap::Args)]
struct FuzzArgs {
    #[command(flatten)]
    backend: BackendArgs,
    /// Generated cases to run.
    #[arg(long, default_value_t = 1000)]
    cases: u64,
    /// The generators' seed: the same seed gives the same cases.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Start at this case: the cases before it are generated and dropped,
    /// so the cases run are those a campaign from 0 makes there (to run
    /// again the batch a finding came from).
    #[arg(long, default_value_t = 0)]
    first: u64,
    /// Most top-level statements of a generated program.
    #[arg(long, default_value_t = 8)]
    max_statements: usize,
    /// Where regression cases are written (default: `./ser-fuzz-out`, or
    /// `ser-fuzz-out` in the temporary folder when the current folder is
    /// inside this repository: never into the suite's `cases/`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Most shrinking steps per disagreement.
    #[arg(long, default_value_t = 2000)]
    shrink_budget: usize,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Generated cases handed to the backend at once (a GPU backend runs
    /// a batch as one pipeline and one submission).
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// Threads that work out the reference's legal outcomes of a batch
    /// (default: the machine's cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Instances of the backend (for `vulkan`, `slang` and `exec:`
    /// backends: processes), each running an equal share of every batch
    /// at once: a driver that compiles one pipeline at a time per process
    /// then compiles several.
    #[arg(long, default_value_t = 1)]
    backends: usize,
    /// Also write every generated case the reference decides to this
    /// folder, its legal outcomes as expectations (a corpus for `--cases`).
    #[arg(long)]
    emit: Option<PathBuf>,
    /// Generate as for a backend that claims only these capabilities
    /// (comma-separated; default: the backend's claim): with `--backend
    /// reference --profile P`, makes the cases a campaign on another
    /// backend made, without it.
    #[arg(long, value_delimiter = ',')]
    capabilities: Option<Vec<String>>,
    /// Start no batch after this many seconds (a device's time limit): the
    /// summary counts the cases that ran.
    #[arg(long)]
    max_seconds: Option<f64>,
}

#[derive(clap::Args)]
struct RunArgs {
    #[command(flatten)]
    backend: BackendArgs,
    /// The backend's known failures (a baseline file): those that fail
    /// again are expected failures, those that pass fail the run.
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Rewrite the --baseline file from this run.
    #[arg(long, requires = "baseline")]
    bless: bool,
    /// Run only the I-th of N deterministic slices of the suite.
    #[arg(long, value_parser = clap::value_parser!(Fraction))]
    fraction: Option<Fraction>,
    /// Write JUnit XML to this file.
    #[arg(long)]
    junit: Option<PathBuf>,
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

fn mutants(args: MutantsArgs) -> ExitCode {
    let dir = args.cases.unwrap_or_else(|| repo_dir("cases"));
    let results = match ser_harness::mutants::run_dir(&dir) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let table = ser_harness::mutants::table(&results);
    print!("{table}");
    if let Some(out) = &args.out {
        if let Err(e) = std::fs::write(out, &table) {
            return fail(format!("cannot write {}: {e}", out.display()));
        }
    }
    if ser_harness::mutants::all_ok(&results) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `emit`: the case's shaders in the language a compiler reads.
fn emit(args: EmitArgs) -> ExitCode {
    let dir = args.cases.unwrap_or_else(|| repo_dir("cases"));
    let Some(case) = ser_harness::load::load_dir(&dir)
        .into_iter()
        .filter_map(Result::ok)
        .find(|c| c.id == args.id)
    else {
        return fail(format!("no case `{}` under {}", args.id, dir.display()));
    };
    if case.kind() == "layout" {
        return fail(format!(
            "case `{}` is a layout case: it has no shaders to emit (it checks where the shader binding table's records lie; its expectations are in {})",
            case.id,
            case.file.display()
        ));
    }
    let hlsl = args.lang == "hlsl";
    let profile = match args.profile.as_deref().map(parse_profile).transpose() {
        Ok(Some(p)) if !case.profiles.contains(&p) => {
            let listed: Vec<&str> = case.profiles.iter().map(|p| p.name()).collect();
            return fail(format!(
                "case `{}` does not apply to profile {p}: it lists {}",
                case.id,
                listed.join(", ")
            ));
        }
        Ok(Some(p)) => p,
        Ok(None) => match case.profiles.iter().find(|p| p.is_hlsl() == hlsl) {
            Some(p) => *p,
            None => {
                return fail(format!(
                    "case `{}` applies to no {} profile",
                    case.id, args.lang
                ))
            }
        },
        Err(e) => return fail(e),
    };
    if profile.is_hlsl() != hlsl {
        return fail(format!(
            "profile {profile} is written in {}; ask for --lang {}",
            if hlsl { "GLSL" } else { "HLSL" },
            if hlsl { "glsl" } else { "hlsl" }
        ));
    }
    if hlsl {
        return match ser_targets::hlsl::library(case.library(), profile) {
            Ok(text) => {
                say(&format!(
                    "// {} ({profile}), HLSL for Vulkan\n{text}",
                    case.id
                ));
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        };
    }
    let spelling = ser_targets::glsl::Spelling::for_profile(profile).expect("a Vulkan profile");
    let interface = match ser_targets::interface::Interface::of(case.library()) {
        Ok(i) => i,
        Err(e) => return fail(e),
    };
    let needed = match ser_targets::interface::needed(&case.dispatch.raygen, &case.shader_table) {
        Ok(n) => n,
        Err(e) => return fail(e),
    };
    for n in needed {
        let ser_targets::interface::Needed::Library(entry) = n else {
            continue;
        };
        match ser_targets::glsl::entry_point(case.library(), &entry, &interface, spelling) {
            Ok(g) => say(&format!(
                "// ---- {entry} ({:?}, {profile})\n{}",
                g.stage, g.source
            )),
            Err(e) => return fail(format!("`{entry}`: {e}")),
        }
    }
    ExitCode::SUCCESS
}

fn fail(message: String) -> ExitCode {
    eprintln!("ser-conformance: {message}");
    ExitCode::from(2)
}

fn parse_profile(name: &str) -> Result<Profile, String> {
    Profile::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
        format!(
            "unknown profile `{name}`; expected one of {}",
            known.join(", ")
        )
    })
}

fn parse_schedule(s: &str) -> Result<Schedule, String> {
    s.parse().map_err(|e| format!("--schedule {e}"))
}

fn serve_reference(args: ServeArgs) -> ExitCode {
    let (profile, schedule) = match (parse_profile(&args.profile), parse_schedule(&args.schedule)) {
        (Ok(p), Ok(s)) => (p, s),
        (Err(e), _) | (_, Err(e)) => return fail(e),
    };
    let make = move |asked: Option<Profile>| -> Box<dyn Backend> {
        Box::new(ReferenceBackend::new(asked.unwrap_or(profile)).with_schedule(schedule))
    };
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    match serve(make, stdin, stdout, &args.faults) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(format!("serve: {e}")),
    }
}

fn protocol_schemas(dir: &Path) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(dir) {
        return fail(format!("{}: {e}", dir.display()));
    }
    for (name, schema) in ser_harness::protocol::schemas() {
        let text = serde_json::to_string_pretty(&schema).expect("a schema serializes") + "\n";
        if let Err(e) = std::fs::write(dir.join(name), text) {
            return fail(format!("{}: {e}", dir.join(name).display()));
        }
    }
    ExitCode::SUCCESS
}

fn fuzz(args: FuzzArgs) -> ExitCode {
    let (mut backend, timeout) = match backend_with_timeout(&args.backend) {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    if args.backends > 1 {
        let mut members = vec![backend];
        for _ in 1..args.backends {
            match self::backend(&args.backend, timeout) {
                Ok(b) => members.push(b),
                Err(e) => return fail(e),
            }
        }
        backend = match Pool::new(members) {
            Ok(p) => Arc::new(p),
            Err(e) => return fail(format!("--backends {}: {e}", args.backends)),
        };
    }
    let campaign = Campaign {
        cases: args.cases,
        seed: args.seed,
        first: args.first,
        max_statements: args.max_statements,
        out: args.out.unwrap_or_else(|| {
            let cwd = std::env::current_dir().unwrap_or_default();
            let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
            ser_harness::fuzz::out_dir::default_out(&cwd, &repo)
        }),
        shrink_budget: args.shrink_budget,
        timeout,
        progress: !args.quiet,
        batch: args.batch.max(1),
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        emit: args.emit,
        capabilities: args.capabilities,
        max_time: args.max_seconds.map(Duration::from_secs_f64),
    };
    let diff = Differential::new(backend.clone(), timeout);
    eprintln!(
        "ser-conformance fuzz: regression cases go to {} (--out)",
        campaign.out.display()
    );
    let summary = match ser_harness::fuzz::run(&campaign, &diff) {
        Ok(s) => s,
        Err(e) => return fail(format!("cannot write a regression case: {e}")),
    };
    for why in &summary.invalid {
        println!("generator bug: {why}");
    }
    for f in &summary.findings {
        println!(
            "disagreement: case {} ({}, shrunk from {} to {}): {}\n  {}",
            f.case,
            f.verdict.name(),
            f.statements.0,
            f.statements.1,
            f.file.display(),
            f.message.replace('\n', "\n  ")
        );
    }
    println!(
        "ser-conformance fuzz: backend `{}`, profile {}, seed {}: {summary}",
        backend.name(),
        backend.profile(),
        args.seed
    );
    if summary.findings.is_empty() && summary.invalid.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn parse_timeout(t: Option<f64>) -> Result<Option<Duration>, String> {
    match t {
        None => Ok(Some(DEFAULT_TIMEOUT)),
        Some(0.0) => Ok(None),
        Some(t) if t.is_finite() && t > 0.0 && t < 1e9 => Ok(Some(Duration::from_secs_f64(t))),
        Some(t) => Err(format!(
            "--timeout {t}: expected a number of seconds (0 for no limit)"
        )),
    }
}

/// The backend `--backend` names, and the per-case time limit.
fn backend_with_timeout(
    args: &BackendArgs,
) -> Result<(Arc<dyn Backend>, Option<Duration>), String> {
    let timeout = parse_timeout(args.timeout)?;
    Ok((backend(args, timeout)?, timeout))
}

/// The backend `--backend` names.
fn backend(args: &BackendArgs, timeout: Option<Duration>) -> Result<Arc<dyn Backend>, String> {
    let profile = args.profile.as_deref().map(parse_profile).transpose()?;
    // `vulkan`, `slang`: the backend's program, next to this one.
    let sibling = |program: &str, package: &str| {
        std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(|d| d.join(program)))
            .filter(|p| p.exists())
            .map(|p| format!("exec:{}", p.display()))
            .ok_or(format!("--backend {}: no `{program}` next to `ser-conformance` (build it: cargo build --release -p {package})", args.backend))
    };
    let named = match args.backend.as_str() {
        "vulkan" => sibling("ser-vulkan", "ser-vulkan")?,
        "slang" => sibling("ser-slang", "ser-slang")?,
        other => other.to_string(),
    };
    if let Some(rest) = named.strip_prefix("exec:") {
        let mut command: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
        command.extend(args.backend_args.iter().cloned());
        return Ok(Arc::new(
            ExecBackend::start(command, profile, timeout).map_err(|e| format!("--backend {e}"))?,
        ));
    }
    if !args.backend_args.is_empty() {
        return Err("--backend-arg is for `exec:` backends".into());
    }
    if let Some(name) = args.backend.strip_prefix("mutant:") {
        let profile = profile.unwrap_or(Profile::MaybeReorderThread0027);
        return Ok(Arc::new(MutantBackend::by_name(name, profile)?));
    }
    match args.backend.as_str() {
        "reference" => {
            let profile = profile.unwrap_or(Profile::MaybeReorderThread0027);
            let schedule = parse_schedule(&args.schedule)?;
            Ok(Arc::new(
                ReferenceBackend::new(profile).with_schedule(schedule),
            ))
        }
        other => Err(format!(
            "unknown backend `{other}`; expected `reference`, `vulkan`, `mutant:NAME` or `exec:PATH [ARGS]`"
        )),
    }
}

fn main() -> ExitCode {
    ser_harness::alloc::keep_freed_memory();
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
        Some(Command::Mutants(m)) => return mutants(m),
        Some(Command::Serve(s)) => return serve_reference(s),
        Some(Command::Fuzz(f)) => return fuzz(f),
        Some(Command::Emit(e)) => return emit(e),
        Some(Command::ProtocolSchemas { dir }) => return protocol_schemas(&dir),
        Some(Command::Capabilities) => {
            for (name, what) in ser_harness::capability::CAPABILITIES {
                say(&format!("{name}\t{what}"));
            }
            return ExitCode::SUCCESS;
        }
        Some(Command::Codes) => {
            for c in ser_reference::validate::DiagCode::ALL {
                say(&format!(
                    "{}\t{}\t{}",
                    c.name(),
                    c.severity().name(),
                    c.meaning()
                ));
            }
            return ExitCode::SUCCESS;
        }
        None => {}
    }
    run_suite(cli.run)
}

/// The paths a run is given, checked before anything is opened or runs:
/// each is what its flag needs, and no two name the same file (a report
/// and a JUnit file would overwrite each other, an output the baseline).
fn check_paths(args: &RunArgs) -> Result<(), String> {
    let named: Vec<(&str, &Path)> = [
        ("--report", &args.report),
        ("--junit", &args.junit),
        ("--baseline", &args.baseline),
    ]
    .into_iter()
    .filter_map(|(flag, p)| p.as_deref().map(|p| (flag, p)))
    .collect();
    for (i, (a, pa)) in named.iter().enumerate() {
        for (b, pb) in &named[i + 1..] {
            if ser_harness::files::same_file(pa, pb) {
                return Err(format!(
                    "{a} and {b} name the same file, {}: each needs its own",
                    pa.display()
                ));
            }
        }
    }
    if let Some(dir) = &args.cases {
        check_cases_dir(dir).map_err(|e| format!("--cases {}: {e}", dir.display()))?;
    }
    if let Some(b) = &args.baseline {
        if !args.bless || b.exists() {
            ser_harness::files::check_regular(b)
                .map_err(|e| format!("--baseline {}: {e}", b.display()))?;
        }
    }
    Ok(())
}

/// A folder of case files that can be read.
fn check_cases_dir(dir: &Path) -> Result<(), String> {
    match std::fs::metadata(dir) {
        Err(e) => Err(format!("cannot read: {e}")),
        Ok(m) if !m.is_dir() => Err(format!(
            "{}; expected a folder of case files",
            if m.is_file() {
                "a file"
            } else {
                ser_harness::files::kind_of(&m)
            }
        )),
        Ok(_) => std::fs::read_dir(dir)
            .map(|_| ())
            .map_err(|e| format!("cannot read: {e}")),
    }
}

/// A run of the suite: paths checked and outputs opened first (a mistake
/// of the command line is found before anything runs), then the backend,
/// the baseline, the run, the verdict. Once the report is open, a run that
/// cannot start still writes its run and summary records.
fn run_suite(args: RunArgs) -> ExitCode {
    let json = console::json(&args.test);
    if let Err(e) = check_paths(&args) {
        return fail(e);
    }
    let open = |flag: &str, path: &Option<PathBuf>| {
        path.as_deref().map(|p| Output::create(flag, p)).transpose()
    };
    let (report, junit) = match (open("--report", &args.report), open("--junit", &args.junit)) {
        (Ok(r), Ok(j)) => (r, j),
        (Err(e), _) | (_, Err(e)) => return fail(e),
    };
    let cases_dir = args.cases.clone().unwrap_or_else(|| repo_dir("cases"));
    let refuse = |report: Option<Output>, message: String| {
        if let Some(out) = report {
            let r = Report::new(vec![out]);
            r.not_started(
                &args.backend.backend,
                args.backend.profile.as_deref(),
                &cases_dir,
                &message,
            );
            for e in r.finish() {
                eprintln!("ser-conformance: {e}");
            }
        }
        fail(message)
    };
    let (backend, timeout) = match backend_with_timeout(&args.backend) {
        Ok(b) => b,
        Err(e) => return refuse(report, e),
    };
    let profile = backend.profile().name().to_string();
    let baseline = match &args.baseline {
        Some(p) if args.bless && !p.exists() => Some(Baseline {
            version: ser_harness::baseline::BASELINE_VERSION,
            backend: backend.name().to_string(),
            profile: profile.clone(),
            known_failures: Vec::new(),
        }),
        Some(p) => match Baseline::load(p) {
            Ok(b) => match b.check_for(backend.name(), &profile) {
                Ok(()) => Some(b),
                Err(e) => return refuse(report, format!("--baseline {}: {e}", p.display())),
            },
            Err(e) => return refuse(report, format!("--baseline {e}")),
        },
        None => None,
    };
    let config = Config {
        cases_dir: cases_dir.clone(),
        backend: backend.clone(),
        args: args.test,
        timeout,
        baseline: args
            .baseline
            .as_ref()
            .zip(baseline.clone())
            .map(|(p, b)| (p.display().to_string(), b)),
        fraction: args.fraction,
        report: report.into_iter().collect(),
        junit,
    };
    let Some(run) = runner::run(config) else {
        return ExitCode::SUCCESS;
    };
    console::say(
        json,
        &format!(
            "ser-conformance: backend `{}`, cases from {}: {}",
            backend.name(),
            cases_dir.display(),
            run.summary
        ),
    );
    let mut blessed = None;
    if let (Some(path), Some(b)) = (&args.baseline, &baseline) {
        for id in &run.stale {
            console::say(
                json,
                &format!(
                    "baseline: {} lists `{id}`, which is no case of the suite (remove it or run with --bless)",
                    path.display()
                ),
            );
        }
        if args.bless {
            let mut new = b.blessed(&run.results, &run.ids);
            new.backend = backend.name().to_string();
            new.profile = profile;
            if let Err(e) = new.write(path) {
                blessed = Some(format!("--baseline {}: cannot write: {e}", path.display()));
            }
            console::say(
                json,
                &format!(
                    "baseline: {} now lists {} known failure(s) (was {}); the verdict below is this run's against the baseline as it was",
                    path.display(),
                    new.known_failures.len(),
                    b.known_failures.len()
                ),
            );
        }
    }
    for (what, path) in [("report", &args.report), ("junit", &args.junit)] {
        if let Some(p) = path {
            console::say(json, &format!("{what}: {}", p.display()));
        }
    }
    console::say(json, &format!("verdict: {}", run.conclusion.line));
    let mut failed_outputs = run.output_errors;
    failed_outputs.extend(blessed);
    let stdout_failed = console::stdout_failure();
    if let Some(e) = &stdout_failed {
        failed_outputs.push(e.clone());
        eprintln!("verdict: {}", run.conclusion.line);
    }
    if !failed_outputs.is_empty() {
        for e in &failed_outputs {
            eprintln!(
                "ser-conformance: {e}: that output is incomplete (exit status {})",
                ser_harness::output::OUTPUT_FAILED
            );
        }
        return ExitCode::from(ser_harness::output::OUTPUT_FAILED);
    }
    ExitCode::from(run.conclusion.exit_code)
}

/// One line of a listing on standard output. A reader that stops early
/// (`| head`) ends the listing quietly, not with a panic.
fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{line}") {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("ser-conformance: standard output: {e}");
        std::process::exit(4);
    }
}
