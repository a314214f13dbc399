//! Runner speed: the whole suite against the in-process reference and
//! through the process protocol (`exec:ser-conformance serve`), and the
//! protocol's overhead per case. `cargo bench -p ser-harness --bench runner`.
//!
//! Targets (issue "Backends in any language"): the whole suite in-process
//! under 5 s on a 2-core machine in release mode; the protocol adds under
//! 1 ms per case.

use libtest_mimic::Arguments;
use ser_harness::backend::Backend;
use ser_harness::load::load_dir;
use ser_harness::protocol::client::ExecBackend;
use ser_harness::reference_backend::ReferenceBackend;
use ser_harness::runner::{self, Config};
use ser_harness::verdict::judge;
use ser_reference::Profile;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

const PROFILE: Profile = Profile::MaybeReorderThread0027;

fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cases")
}

fn exec_backend() -> Arc<dyn Backend> {
    let command = vec![
        env!("CARGO_BIN_EXE_ser-conformance").to_string(),
        "serve".into(),
    ];
    Arc::new(ExecBackend::start(command, Some(PROFILE), None).expect("the served reference starts"))
}

/// One whole-suite run through the runner (loading, every case, judging).
fn whole_suite(backend: Arc<dyn Backend>) -> (Duration, usize) {
    let mut config = Config::new(cases_dir(), backend);
    config.args = Arguments {
        quiet: true,
        ..Arguments::default()
    };
    let start = Instant::now();
    let run = runner::run(config).expect("not --list");
    assert!(run.summary.ok(), "the reference passes its suite");
    (start.elapsed(), run.summary.total())
}

fn best_of<T>(n: usize, mut f: impl FnMut() -> (Duration, T)) -> (Duration, T) {
    let mut best = f();
    for _ in 1..n {
        let r = f();
        if r.0 < best.0 {
            best = r;
        }
    }
    best
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to filter.
    let (inproc, cases) = best_of(3, || whole_suite(Arc::new(ReferenceBackend::new(PROFILE))));
    let (exec, _) = best_of(3, || whole_suite(exec_backend()));
    println!("whole suite, {cases} cases, default test threads, best of 3:");
    println!(
        "  in-process reference      {:>8.3} s",
        inproc.as_secs_f64()
    );
    println!(
        "  exec:ser-conformance serve {:>7.3} s   ({:.2}x the in-process time)",
        exec.as_secs_f64(),
        exec.as_secs_f64() / inproc.as_secs_f64()
    );

    // Per-case overhead: the same cheap case, one thread, many times.
    let case = load_dir(&cases_dir())
        .into_iter()
        .filter_map(Result::ok)
        .find(|c| c.id == "hit_object/nop/is_nop")
        .expect("the case exists");
    let reference: Arc<dyn Backend> = Arc::new(ReferenceBackend::new(PROFILE));
    let process = exec_backend();
    let n = 2000;
    let time = |b: &Arc<dyn Backend>| {
        best_of(3, || {
            let start = Instant::now();
            for _ in 0..n {
                assert_eq!(
                    judge(&case, b.as_ref()).verdict,
                    ser_harness::verdict::Verdict::Pass
                );
            }
            (start.elapsed() / n, ())
        })
        .0
    };
    let (a, b) = (time(&reference), time(&process));
    println!(
        "one case (`{}`), {n} runs on one thread, best of 3:",
        case.id
    );
    println!(
        "  in-process                {:>8.1} us per case",
        a.as_secs_f64() * 1e6
    );
    println!(
        "  through the protocol      {:>8.1} us per case",
        b.as_secs_f64() * 1e6
    );
    println!(
        "  protocol overhead         {:>8.1} us per case ({:.1}x)",
        (b.as_secs_f64() - a.as_secs_f64()) * 1e6,
        b.as_secs_f64() / a.as_secs_f64()
    );
}
