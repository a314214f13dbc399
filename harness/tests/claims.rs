//! The runner's word as a hostile tester would try it: no verdict when
//! nothing was judged, gaps inside the claim counted against it, a profile
//! the backend does not implement refused at start, time limits on a silent
//! backend, outputs checked before the run, JSON that is only JSON, and no
//! panic when the reader of stdout goes away.

mod common;

use common::{cases, text, BIN};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    common::scratch("claims", name)
}

fn runner(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("--cases")
        .arg(cases())
        .arg("--quiet")
        .args(args)
        .output()
        .unwrap()
}

fn last_line(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .last()
        .unwrap_or("")
        .to_string()
}

#[test]
fn a_filter_matching_nothing_or_an_empty_folder_is_no_verdict() {
    let out = runner(&["no/such/case/anywhere"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        last_line(&out).starts_with("verdict: NO VERDICT on 0027-maybereorderthread"),
        "{}",
        text(&out)
    );
    assert!(last_line(&out).contains("no case was selected"));
    let empty = scratch("empty");
    let out = Command::new(BIN)
        .arg("--cases")
        .arg(&empty)
        .arg("--quiet")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(last_line(&out).contains("the cases folder holds no case"));
}

/// The served reference, misbehaving as `faults` say.
fn served(faults: &[&str], args: &[&str]) -> Output {
    let mut c = common::served_reference(&[], faults);
    c.arg("--cases").arg(cases()).arg("--quiet");
    c.args(args).output().unwrap()
}

#[test]
fn a_backend_declining_every_case_inside_its_claim_is_not_conformant() {
    let out = served(&["decline="], &["hit_object/nop/"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let last = last_line(&out);
    assert!(
        last.starts_with(&format!(
            "verdict: NOT CONFORMANT to 0027-maybereorderthread with all {} capabilities, on 35 of ",
            ser_harness::capability::CAPABILITIES.len()
        )),
        "{last}"
    );
    assert!(
        last.contains(
            ": 0 of 35 applicable cases pass; 35 not supported (declined inside the claim)"
        ),
        "{last}"
    );
    assert!(t.contains("declined a case inside its claim"), "{t}");
}

#[test]
fn a_profile_the_backend_does_not_implement_is_an_error_at_start() {
    let Ok(v) = Command::new("python3").arg("--version").output() else {
        eprintln!("not supported: no python3 on this machine");
        return;
    };
    assert!(v.status.success());
    let dir = scratch("fixed_profile");
    let script = dir.join("sm69_only.py");
    std::fs::write(
        &script,
        "import json, sys\nsys.stdin.readline()\nprint(json.dumps({'type': 'hello', 'protocol': 1, 'name': 'sm69-only', 'profile': 'sm69', 'capabilities': []}), flush=True)\nfor line in sys.stdin:\n    pass\n",
    )
    .unwrap();
    let start = Instant::now();
    let out = Command::new(BIN)
        .args(["--profile", "vulkan-nv", "--backend", "exec:python3"])
        .arg("--backend-arg")
        .arg(&script)
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("(backend `sm69-only`) implements profile sm69, not vulkan-nv"),
        "{t}"
    );
    assert!(!t.contains("running"), "nothing ran: {t}");
    assert!(start.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_backend_that_never_says_hello_is_held_to_the_timeout() {
    let start = Instant::now();
    let out = Command::new(BIN)
        .args(["--timeout", "1", "--backend", "exec:sleep 30"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("no hello within 1 s"), "{t}");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn help_states_the_default_timeout() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    assert!(
        text(&out).contains("(default 30; 0 for none)"),
        "{}",
        text(&out)
    );
}

#[test]
fn unwritable_output_paths_are_found_before_the_run_and_named() {
    for flag in ["--report", "--junit"] {
        let out = runner(&[flag, "/no/such/folder/out.file"]);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{flag}: {t}");
        assert!(
            t.contains(&format!("{flag} /no/such/folder/out.file: cannot write")),
            "{t}"
        );
        assert!(!t.contains("running"), "{flag}: nothing ran: {t}");
    }
}

#[test]
fn format_json_prints_only_json_on_stdout_with_the_reasons_and_the_verdict() {
    // (`--format` and `--quiet` are exclusive, as in libtest.)
    let out = Command::new(BIN)
        .arg("--cases")
        .arg(cases())
        .args(["--format", "json", "--profile", "vulkan-nv", "reorder/"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let records: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l:?}: {e}")))
        .collect();
    assert!(records.len() > 3, "{stdout}");
    assert_eq!(records[0]["type"], "run");
    let last = records.last().unwrap();
    assert_eq!(last["type"], "summary");
    assert_eq!(last["verdict"]["standing"], "conformant");
    assert!(last["not_applicable"].as_u64().unwrap() > 0);
    let na = records
        .iter()
        .find(|r| r["verdict"] == "not_applicable")
        .expect("a not-applicable case under vulkan-nv");
    assert_eq!(na["outside_claim"], "other profiles");
    assert!(
        na["message"]
            .as_str()
            .unwrap()
            .contains("the backend implements vulkan-nv"),
        "{na}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("verdict: CONFORMANT to vulkan-nv"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(0));
}

/// Reads one line of the runner's stdout, then closes it.
fn read_one_line_then_close(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(BIN)
        .arg("--cases")
        .arg(cases())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_reader_that_goes_away_does_not_panic_the_runner() {
    let (status, stderr) = read_one_line_then_close(&["--list"]);
    assert!(status.success(), "{status}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let dir = scratch("closed_stdout");
    let report = dir.join("r.jsonl");
    let (status, stderr) =
        read_one_line_then_close(&["--test-threads", "1", "--report", report.to_str().unwrap()]);
    assert!(status.success(), "{status}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let records = ser_harness::report::read(&report).unwrap();
    assert_eq!(
        records.last().unwrap()["type"],
        "summary",
        "the run went on to the end"
    );
}
