//! Backends in other processes: the reference through `exec:` gives the
//! same verdicts as in-process; hanging, crashing and garbage-writing
//! backends get their verdicts while the run goes on; baselines, slices,
//! JUnit and bad command lines.

mod common;

use common::{cases, text, BIN};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    common::scratch("exec", name)
}

/// Runs the runner with `args`; `serve` are the arguments of the served
/// reference (`None`: in-process).
fn run(serve: Option<&[&str]>, args: &[&str]) -> Output {
    let mut c = Command::new(BIN);
    c.arg("--cases").arg(cases()).arg("--quiet");
    if let Some(serve) = serve {
        c.arg("--backend").arg("exec:");
        c.arg("--backend-arg")
            .arg(BIN)
            .arg("--backend-arg")
            .arg("serve");
        for a in serve {
            c.arg(format!("--backend-arg={a}"));
        }
    }
    c.args(args).output().unwrap()
}

/// id -> verdict of every case record of a report.
fn verdicts(report: &Path) -> BTreeMap<String, String> {
    ser_harness::report::read(report)
        .unwrap()
        .into_iter()
        .filter(|r| r["type"] == "case")
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                r["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_reference_through_exec_gives_the_same_verdicts_as_in_process() {
    let dir = scratch("same");
    for profile in [
        "0027-maybereorderthread",
        "0027-reorderthread",
        "sm69",
        "vulkan-nv",
    ] {
        let inproc = dir.join(format!("{profile}-in.jsonl"));
        let exec = dir.join(format!("{profile}-exec.jsonl"));
        let a = run(
            None,
            &["--profile", profile, "--report", inproc.to_str().unwrap()],
        );
        let b = run(
            Some(&[]),
            &["--profile", profile, "--report", exec.to_str().unwrap()],
        );
        assert!(a.status.success(), "{}", text(&a));
        assert!(b.status.success(), "{}", text(&b));
        let (a, b) = (verdicts(&inproc), verdicts(&exec));
        assert!(a.len() > 1000, "{profile}: {} cases", a.len());
        assert_eq!(a, b, "{profile}");
        assert!(b.values().any(|v| v == "pass") && b.values().any(|v| v == "not_applicable"));
    }
}

#[test]
fn hanging_crashing_and_garbage_writing_backends_get_their_verdicts_and_the_run_goes_on() {
    let dir = scratch("faults");
    let report = dir.join("r.jsonl");
    let out = run(
        Some(&[
            "--fault=hang=hit_object/nop/get_ray_tmin",
            "--fault=crash=hit_object/nop/get_hit_kind",
            "--fault=garbage=hit_object/nop/is_miss",
            "--fault=wrong_id=hit_object/nop/is_hit",
        ]),
        &[
            "--timeout",
            "3",
            "--report",
            report.to_str().unwrap(),
            "hit_object/nop/",
        ],
    );
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    let v = verdicts(&report);
    assert_eq!(v.len(), 35, "{t}");
    assert_eq!(v["hit_object/nop/get_ray_tmin"], "timeout", "{t}");
    assert_eq!(v["hit_object/nop/get_hit_kind"], "crash", "{t}");
    assert_eq!(v["hit_object/nop/is_miss"], "error", "{t}");
    assert_eq!(v["hit_object/nop/is_hit"], "error", "{t}");
    let others: Vec<_> = v.iter().filter(|(_, v)| *v != "pass").collect();
    assert_eq!(others.len(), 4, "every other case passes: {others:?}");
    assert!(
        t.contains("killed by signal") || t.contains("exited with status"),
        "{t}"
    );
    assert!(
        t.contains("injected crash"),
        "the crash report shows the backend's stderr: {t}"
    );
    assert!(t.contains("broke the protocol"), "{t}");
    assert!(
        t.contains(
            "31 pass, 0 fail, 0 not applicable, 0 not supported, 2 error, 1 timeout, 1 crash"
        ),
        "{t}"
    );
    let records = ser_harness::report::read(&report).unwrap();
    assert_eq!(records.last().unwrap()["type"], "summary");
}

#[test]
fn a_run_killed_half_way_leaves_a_readable_report() {
    let dir = scratch("killed");
    let report = dir.join("r.jsonl");
    // One thread: the cases after the hanging one never run.
    let mut child = Command::new(BIN)
        .arg("--cases")
        .arg(cases())
        .args(["--quiet", "--test-threads", "1", "--backend", "exec:"])
        .arg("--backend-arg")
        .arg(BIN)
        .args([
            "--backend-arg",
            "serve",
            "--backend-arg=--fault=hang=hit_object/nop/is_",
        ])
        .arg("--report")
        .arg(&report)
        .arg("hit_object/nop/")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while verdicts_so_far(&report) < 20 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let records = ser_harness::report::read(&report).unwrap();
    let raw = std::fs::read_to_string(&report).unwrap();
    assert_eq!(
        records.len(),
        raw.lines().count(),
        "every line is a JSON record"
    );
    assert_eq!(records[0]["type"], "run");
    let cases: Vec<&Value> = records.iter().filter(|r| r["type"] == "case").collect();
    assert!(cases.len() >= 20, "{} cases recorded", cases.len());
    assert!(cases.iter().all(|c| c["verdict"] == "pass"));
    assert!(records.iter().all(|r| r["type"] != "summary"));
}

fn verdicts_so_far(report: &Path) -> usize {
    std::fs::read_to_string(report)
        .map(|t| {
            t.lines()
                .filter(|l| l.contains("\"type\":\"case\""))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn an_unexpected_pass_fails_the_run_and_bless_updates_the_baseline() {
    let dir = scratch("baseline");
    let file = dir.join("known.json");
    let f = file.to_str().unwrap();
    let crash = ["--fault=crash=hit_object/nop/get_hit_kind"];
    let filter = "hit_object/nop/";
    // No file yet: --bless writes it from the run; the run itself is judged
    // against the baseline as it was (none), so it is not conformant.
    let out = run(Some(&crash), &["--baseline", f, "--bless", filter]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("now lists 1 known failure(s) (was 0)"), "{t}");
    assert!(t.contains("verdict: NOT CONFORMANT to"), "{t}");
    let b: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(b["known_failures"].as_array().unwrap().len(), 1, "{b}");
    assert_eq!(b["known_failures"][0]["id"], "hit_object/nop/get_hit_kind");
    // The same failure again is expected: the run passes.
    let report = dir.join("r.jsonl");
    let out = run(
        Some(&crash),
        &[
            "--baseline",
            f,
            "--report",
            report.to_str().unwrap(),
            filter,
        ],
    );
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("1 expected fail"), "{t}");
    assert!(t.contains("no change from the baseline"), "{t}");
    assert_eq!(
        verdicts(&report)["hit_object/nop/get_hit_kind"],
        "expected_fail"
    );
    // Fixed: an unexpected pass fails the run.
    let out = run(
        Some(&[]),
        &[
            "--baseline",
            f,
            "--report",
            report.to_str().unwrap(),
            filter,
        ],
    );
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(t.contains("1 unexpected pass"), "{t}");
    assert!(!t.contains("unexpected pass: unexpected pass"), "{t}");
    assert_eq!(
        verdicts(&report)["hit_object/nop/get_hit_kind"],
        "unexpected_pass"
    );
    // --bless drops the entry (the run, an unexpected pass against the old
    // file, still says so); the next run is clean.
    let out = run(None, &["--baseline", f, "--bless", filter]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let b: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(b["known_failures"].as_array().unwrap().is_empty(), "{b}");
    let out = run(None, &["--baseline", f, filter]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("verdict: CONFORMANT"));
    // The file now names the backend and profile, and refuses another's run.
    let b: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(b["backend"], "reference");
    assert_eq!(b["profile"], "0027-maybereorderthread");
    let out = run(None, &["--baseline", f, "--profile", "sm69", filter]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("it is for profile `0027-maybereorderthread`, the run's is `sm69`"),
        "{t}"
    );
}

#[test]
fn a_stale_or_malformed_baseline_is_an_error_naming_the_place() {
    let dir = scratch("bad_baseline");
    let stale = dir.join("stale.json");
    std::fs::write(
        &stale,
        r#"{"version": 1, "known_failures": [{"id": "no/such/case", "reason": "r"}]}"#,
    )
    .unwrap();
    let out = run(
        None,
        &[
            "--baseline",
            stale.to_str().unwrap(),
            "hit_object/nop/is_nop",
        ],
    );
    assert!(!out.status.success());
    assert!(
        text(&out).contains("`no/such/case`, which is no case of the suite"),
        "{}",
        text(&out)
    );
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"version": 1, "known_failures": [{"id": "a", "reasn": "r"}]}"#,
    )
    .unwrap();
    let out = run(None, &["--baseline", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let t = text(&out);
    assert!(
        t.contains("bad.json") && t.contains("known_failures[0]") && t.contains("reasn"),
        "{t}"
    );
}

#[test]
fn fractions_partition_the_suite() {
    let list = |extra: &[&str]| -> Vec<String> {
        let out = run(None, &[&["--list"], extra].concat());
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                l.rsplit_once(": ")
                    .map(|(n, _)| n.rsplit(' ').next().unwrap().to_string())
            })
            .collect()
    };
    let all = list(&[]);
    let mut joined: Vec<String> = (1..=3)
        .flat_map(|i| list(&["--fraction", &format!("{i}/3")]))
        .collect();
    let first = list(&["--fraction", "1/3"]);
    assert!(first.len() * 3 >= all.len() - 2 && first.len() * 3 <= all.len() + 3);
    assert_eq!(first, list(&["--fraction", "1/3"]), "deterministic");
    joined.sort();
    let mut all_sorted = all.clone();
    all_sorted.sort();
    assert_eq!(joined, all_sorted);
}

#[test]
fn junit_has_one_testcase_per_case_with_the_right_elements() {
    let dir = scratch("junit");
    let xml = dir.join("r.xml");
    let out = run(
        Some(&["--fault=crash=invoke/recursion/closesthit_via_invoke_traces_max_depth_2"]),
        &[
            "--junit",
            xml.to_str().unwrap(),
            "--profile",
            "vulkan-nv",
            "invoke/",
        ],
    );
    assert!(!out.status.success());
    let x = std::fs::read_to_string(&xml).unwrap();
    assert!(x.starts_with("<?xml"));
    let cases = x.matches("<testcase ").count();
    assert!(cases > 10, "{x}");
    assert!(
        x.contains(&format!("tests=\"{cases}\" failures=\"0\" errors=\"1\"")),
        "{x}"
    );
    assert_eq!(x.matches("<error type=\"crash\"").count(), 1, "{x}");
    assert!(x.contains("<skipped message=\"not applicable: "), "{x}");
    assert!(
        x.contains(
            "classname=\"invoke.recursion\" name=\"closesthit_via_invoke_traces_max_depth_2\""
        ),
        "{x}"
    );
}

#[test]
fn the_python_example_backend_is_not_conformant_to_the_profile_it_claims() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("not supported: no python3 on this machine");
        return;
    }
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/python-backend/nop_backend.py");
    let dir = scratch("python");
    let report = dir.join("r.jsonl");
    let out = Command::new(BIN)
        .arg("--cases")
        .arg(cases())
        .args(["--quiet", "--backend", "exec:python3", "--backend-arg"])
        .arg(&script)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    let t = text(&out);
    // It claims the profile with SER and no other capability, and declines
    // most of it.
    assert_eq!(out.status.code(), Some(1), "{t}");
    let v = verdicts(&report);
    let pass: Vec<&String> = v
        .iter()
        .filter(|(_, v)| *v == "pass")
        .map(|(k, _)| k)
        .collect();
    assert!(
        pass.len() >= 5 && pass.iter().all(|id| id.starts_with("hit_object/nop/")),
        "{pass:?}"
    );
    assert!(
        v.values()
            .all(|v| ["pass", "not_supported", "not_applicable"].contains(&v.as_str())),
        "{t}"
    );
    assert!(t.contains("backend `python-nop-example`"), "{t}");
    let last = t.lines().rfind(|l| l.starts_with("verdict: ")).unwrap();
    assert!(
        last.starts_with(&format!(
            "verdict: NOT CONFORMANT to 0027-maybereorderthread with {{shader_execution_reorder}}: {} of ",
            pass.len()
        )) && last.contains("not supported (declined inside the claim)"),
        "{last}"
    );
}

#[test]
fn bad_command_lines_are_errors_that_say_what_was_expected() {
    for (args, expect) in [
        (vec!["--fraction", "0/3"], "expected I/N"),
        (vec!["--fraction", "4/3"], "expected I/N"),
        (
            vec!["--timeout=-1"],
            "expected a number of seconds (0 for no limit)",
        ),
        (vec!["--timeout=nan"], "expected a number of seconds"),
        (
            vec!["--backend", "nope"],
            "expected `reference`, `vulkan`, `mutant:NAME` or `exec:PATH [ARGS]`",
        ),
        (
            vec!["--backend", "mutant:nope"],
            "unknown mutant `nope`; the mutants are:",
        ),
        (vec!["fuzz", "--backend", "nope"], "unknown backend `nope`"),
        (
            vec!["fuzz", "--cases", "x"],
            "invalid value 'x' for '--cases",
        ),
        (
            vec!["--backend", "exec:/no/such/program"],
            "cannot start `/no/such/program`",
        ),
        (vec!["--backend", "exec:"], "needs a program"),
        (vec!["--profile", "sm70"], "unknown profile `sm70`"),
        (vec!["--bless"], "--baseline"),
    ] {
        let out = Command::new(BIN).args(&args).output().unwrap();
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains(expect), "{args:?}: {t}");
    }
}

#[test]
fn a_backend_that_is_not_speaking_the_protocol_is_named() {
    // `cat` echoes the runner's hello: a hello of the wrong kind.
    let out = Command::new(BIN)
        .args(["--backend", "exec:cat"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("the backend's hello") && t.contains("runner"),
        "{t}"
    );
}

/// `fuzz` through `exec:` with the served reference, in batches of `batch`.
fn fuzz_served(batch: &str, faults: &[&str], out: &Path) -> Output {
    let mut c = common::served_reference(&["fuzz"], faults);
    c.args(["--quiet", "--cases", "12", "--seed", "3"]);
    c.args(["--timeout", "2", "--shrink-budget", "0", "--batch", batch]);
    c.arg("--out").arg(out);
    c.output().unwrap()
}

/// A campaign's last line, without its rate.
fn summary(out: &Output) -> String {
    let t = String::from_utf8_lossy(&out.stdout).to_string();
    let last = t.lines().last().unwrap_or("").to_string();
    last.split(" (").next().unwrap_or("").to_string()
}

#[test]
fn fuzzing_through_the_protocol_in_batches_judges_as_one_by_one() {
    let dir = scratch("fuzz-batch");
    let one = fuzz_served("1", &[], &dir.join("one"));
    let many = fuzz_served("5", &[], &dir.join("many"));
    assert!(one.status.success(), "{}", text(&one));
    assert!(many.status.success(), "{}", text(&many));
    assert_eq!(summary(&one), summary(&many));
    assert!(
        summary(&one).contains("agree, 0 disagree"),
        "{}",
        summary(&one)
    );
}

#[test]
fn a_case_that_hangs_inside_a_batch_is_the_one_found() {
    let dir = scratch("fuzz-batch-hang");
    let out = fuzz_served("5", &["hang=seed3_case2"], &dir);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("disagreement: case 2 (timeout"), "{t}");
    assert!(summary(&out).contains(" 1 disagree"), "{t}");
    assert!(dir
        .join("0027_maybereorderthread_seed3_case2.json")
        .exists());
}
