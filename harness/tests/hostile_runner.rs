//! Inputs that used to hang the runner, make it read without end, or fool
//! its verdict: files that are not regular files, links that loop, keys
//! written twice, names that split lines, paths the command line gets
//! wrong, outputs that cannot be written, and backends that misstate their
//! claim, fail to start, answer twice, leave children behind or stop
//! speaking the protocol. Each gets a located error or its exact verdict,
//! the run goes on where it can, and the exit status follows the README's
//! table.

mod common;

use common::{served_reference, text, BIN};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn scratch(name: &str) -> PathBuf {
    common::scratch("hostile_runner", name)
}

/// A case file of one good case named `name`.
fn good(name: &str) -> String {
    serde_json::json!({"cases": [{
        "name": name,
        "description": "A well-formed case beside hostile input.",
        "clauses": ["ser.hit_object.get_ray_flags.nop_returns_zero"],
        "profiles": ["0027-maybereorderthread"],
        "library": ["RWStructuredBuffer<uint> Out : register(u0);", "[shader(\"raygeneration\")]", "void RayGen() { HitObject h; Out[0] = h.GetRayFlags(); }"],
        "dispatch": {"raygen": "RayGen"},
        "buffers": {"Out": {"elements": 1}},
        "expect": {"buffers": {"Out": [0]}}
    }]})
    .to_string()
}

/// A folder holding one good case file.
fn cases_with_good(name: &str) -> PathBuf {
    let dir = scratch(name);
    std::fs::write(dir.join("ok.json"), good("good")).unwrap();
    dir
}

fn runner(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn on(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["--cases", dir.to_str().unwrap(), "--timeout", "20"];
    all.extend_from_slice(args);
    runner(&all)
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

fn last_line(o: &Output) -> String {
    text(o)
        .lines()
        .rfind(|l| l.starts_with("verdict:"))
        .unwrap_or("")
        .to_string()
}

#[test]
fn a_fifo_or_a_device_among_the_cases_is_a_located_error_and_the_run_goes_on() {
    let dir = cases_with_good("fifo");
    if !mkfifo(&dir.join("pipe.json")) {
        return;
    }
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.json")).unwrap();
    let out = on(&dir, &[]);
    let t = text(&out);
    assert!(
        t.contains("pipe.json: file: a FIFO; expected a regular file"),
        "{t}"
    );
    assert!(
        t.contains("zero.json: file: a character device; expected a regular file"),
        "{t}"
    );
    assert!(
        last_line(&out).contains("1 of 3 applicable cases pass; 2 error"),
        "{t}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_case_file_over_the_size_limit_is_refused_before_it_is_read() {
    let dir = cases_with_good("big");
    let big = std::fs::File::create(dir.join("big.json")).unwrap();
    big.set_len(ser_harness::files::MAX_CASE_FILE + 1).unwrap();
    let t = text(&on(&dir, &[]));
    assert!(
        t.contains("big.json: file: 16777217 bytes; a file read here holds at most 16 MiB"),
        "{t}"
    );
}

#[test]
fn a_link_loop_is_reported_once_and_every_case_loads_once() {
    let dir = cases_with_good("loop");
    std::os::unix::fs::symlink(".", dir.join("again")).unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::os::unix::fs::symlink("../ok.json", dir.join("sub/same.json")).unwrap();
    let out = on(&dir, &[]);
    let t = text(&out);
    assert!(
        t.contains(
            "again: link: a link back to the cases folder, which holds it: a cycle, not followed"
        ),
        "{t}"
    );
    assert!(
        t.contains("sub/same.json: link: the same file as `ok.json` (reached through a link)"),
        "{t}"
    );
    assert!(
        last_line(&out).contains("1 of 3 applicable cases pass; 2 error"),
        "{t}"
    );
}

#[test]
fn a_key_written_twice_is_a_located_error() {
    let dir = cases_with_good("duplicate");
    let text_with_two = good("two").replacen(
        "\"expect\":",
        "\"expect\":{\"buffers\":{\"Out\":[7]}},\n\"expect\":",
        1,
    );
    std::fs::write(dir.join("dup.json"), text_with_two).unwrap();
    let t = text(&on(&dir, &[]));
    assert!(
        t.contains("dup.json: line 2, column 8: not valid JSON: the key `expect` appears twice (at cases[0].expect); each key is named once"),
        "{t}"
    );
}

#[test]
fn names_that_would_split_or_reorder_lines_are_refused_escaped() {
    let dir = cases_with_good("names");
    std::fs::write(dir.join("new\nline.json"), good("a")).unwrap();
    std::fs::write(dir.join("bidi\u{202e}.json"), good("b")).unwrap();
    let out = on(&dir, &[]);
    let t = text(&out);
    assert!(t.contains("new\\nline.json: file name: the name `new\\nline.json` holds a control or bidirectional formatting character"), "{t}");
    assert!(t.contains("bidi\\u{202e}.json"), "{t}");
    assert!(!t.contains('\u{202e}'), "{t}");
    assert!(!t.contains("new\nline"), "{t}");
    assert!(
        last_line(&out).contains("1 of 3 applicable cases pass; 2 error"),
        "{t}"
    );
}

#[test]
fn paths_the_command_line_gets_wrong_are_exit_2_before_anything_runs() {
    let dir = cases_with_good("paths");
    let fifo = dir.join("fifo");
    let fifo_made = mkfifo(&fifo);
    let missing = dir.join("missing");
    let report = dir.join("x.jsonl");
    let mut tries: Vec<(Vec<String>, String)> = vec![
        (
            vec!["--cases".into(), missing.display().to_string()],
            "--cases".into(),
        ),
        (
            vec!["--cases".into(), "/dev/zero".into()],
            "a character device; expected a folder of case files".into(),
        ),
        (
            vec!["--baseline".into(), "/dev/zero".into()],
            "--baseline /dev/zero: a character device; expected a regular file".into(),
        ),
        (
            vec![
                "--report".into(),
                report.display().to_string(),
                "--junit".into(),
                dir.join(".").join("x.jsonl").display().to_string(),
            ],
            "--report and --junit name the same file".into(),
        ),
    ];
    if fifo_made {
        tries.push((
            vec!["--cases".into(), fifo.display().to_string()],
            "a FIFO; expected a folder of case files".into(),
        ));
    }
    for (args, says) in tries {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = runner(&args);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains(&says), "{args:?}: {t}");
        assert!(!t.contains("running"), "{args:?}: nothing ran: {t}");
        assert!(!t.contains("NOT CONFORMANT"), "{args:?}: no verdict: {t}");
    }
}

#[test]
fn an_output_that_cannot_be_written_whole_is_named_and_exits_4() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = cases_with_good("full");
    for flag in ["--report", "--junit"] {
        let out = on(&dir, &[flag, "/dev/full", "--quiet"]);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(4), "{flag}: {t}");
        assert!(
            t.contains(&format!(
                "{flag} /dev/full: cannot write: No space left on device"
            )),
            "{t}"
        );
        assert!(t.contains("verdict: CONFORMANT"), "{t}");
    }
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(BIN)
        .args(["--cases", dir.to_str().unwrap(), "--format", "json"])
        .stdout(full)
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(4), "{t}");
    assert!(
        t.contains("stdout: cannot write: No space left on device"),
        "{t}"
    );
    assert!(t.contains("verdict: CONFORMANT"), "{t}");
}

/// A program that says `hello` as `json` says, then declines every case.
fn scripted_backend(dir: &Path, hello: &str) -> PathBuf {
    let path = dir.join("backend.sh");
    let script = format!(
        "#!/bin/sh\nread hello\necho '{hello}'\nwhile read line; do echo '{{\"type\":\"error\",\"id\":\"x\",\"message\":\"no\"}}'; done\n"
    );
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn a_misspelt_capability_or_an_impossible_wave_size_is_refused_at_start() {
    let dir = cases_with_good("claims");
    for (hello, says) in [
        (
            r#"{"type":"hello","protocol":1,"name":"typo","profile":"0027-maybereorderthread","capabilities":["shader_execution_reorder","ray_querry","callable_shader"]}"#,
            "it claims `ray_querry`, `callable_shader`, which are no capability the suite knows; expected some of shader_execution_reorder",
        ),
        (
            r#"{"type":"hello","protocol":1,"name":"waves","profile":"0027-maybereorderthread","wave_sizes":[0,4294967295]}"#,
            "its wave_sizes hold 0, which no wave has; expected sizes of 1 to 128 lanes",
        ),
    ] {
        let script = scripted_backend(&dir, hello);
        let report = dir.join("run.jsonl");
        let backend = format!("exec:{}", script.display());
        let out = on(
            &dir,
            &["--backend", &backend, "--report", report.to_str().unwrap()],
        );
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{t}");
        assert!(t.contains(says), "{t}");
        let records = ser_harness::report::read(&report).unwrap();
        assert_eq!(records.len(), 2, "{records:?}");
        assert_eq!(records[0]["started"], false);
        assert_eq!(records[1]["verdict"]["standing"], "not_started");
        assert_eq!(records[1]["verdict"]["exit_code"], 2);
    }
}

#[test]
fn a_backend_that_fails_to_start_is_named_whole_and_the_report_is_complete() {
    let dir = cases_with_good("no_start");
    let report = dir.join("run.jsonl");
    let out = on(
        &dir,
        &[
            "--backend",
            "exec:python3 no/such/backend.py",
            "--report",
            report.to_str().unwrap(),
        ],
    );
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("`python3 no/such/backend.py` did not start"),
        "{t}"
    );
    let records = ser_harness::report::read(&report).unwrap();
    assert_eq!(records[0]["type"], "run");
    assert_eq!(records[0]["backend"], "exec:python3 no/such/backend.py");
    assert_eq!(records[1]["type"], "summary");
    assert!(
        records[1]["verdict"]["line"]
            .as_str()
            .unwrap()
            .starts_with("NOT STARTED: --backend `python3 no/such/backend.py` did not start"),
        "{records:?}"
    );
}

/// The served reference misbehaving on case `b` of a folder of cases `a`,
/// `b`, `c`, one at a time.
fn served_on_three(name: &str, fault: &str) -> (Output, PathBuf) {
    let dir = scratch(name);
    let cases = dir.join("cases");
    std::fs::create_dir(&cases).unwrap();
    for n in ["a", "b", "c"] {
        std::fs::write(cases.join(format!("{n}.json")), good(n)).unwrap();
    }
    let report = dir.join("run.jsonl");
    let fault = format!("{fault}=b/");
    let out = served_reference(&[], &[&fault])
        .args([
            "--cases",
            cases.to_str().unwrap(),
            "--test-threads",
            "1",
            "--timeout",
            "20",
            "--report",
            report.to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out, report)
}

fn verdict_of(report: &Path, id: &str) -> (String, String) {
    let records = ser_harness::report::read(report).unwrap();
    let r = records
        .iter()
        .find(|r| r["type"] == "case" && r["id"] == id)
        .unwrap_or_else(|| panic!("no record of {id}: {records:?}"));
    (
        r["verdict"].as_str().unwrap().to_string(),
        r["message"].as_str().unwrap().to_string(),
    )
}

#[test]
fn a_second_reply_is_the_fault_of_the_case_that_caused_it() {
    let (out, report) = served_on_three("twice", "twice");
    let t = text(&out);
    let (verdict, message) = verdict_of(&report, "b/b");
    assert_eq!(verdict, "error", "{t}");
    assert!(
        message.contains("after its reply it wrote more"),
        "{message}"
    );
    assert_eq!(
        verdict_of(&report, "c/c").0,
        "pass",
        "the next case is innocent: {t}"
    );
    assert_eq!(verdict_of(&report, "a/a").0, "pass");
}

#[test]
fn a_late_second_reply_fails_the_run_as_a_notice_and_the_next_case_still_passes() {
    let (out, report) = served_on_three("late", "late");
    let t = text(&out);
    assert_eq!(verdict_of(&report, "c/c").0, "pass", "{t}");
    assert!(
        t.contains(
            "backend notice: after its reply for `b/b` had been judged, the backend wrote more"
        ),
        "{t}"
    );
    assert!(
        last_line(&out).contains("1 protocol violation outside any case"),
        "{t}"
    );
    assert_eq!(out.status.code(), Some(1));
    let records = ser_harness::report::read(&report).unwrap();
    let summary = records.last().unwrap();
    assert_eq!(
        summary["notices"].as_array().map(Vec::len),
        Some(1),
        "{summary}"
    );
}

#[test]
fn a_backend_that_exits_leaving_a_child_on_its_stdout_crashed_and_the_child_is_ended() {
    let (out, report) = served_on_three("orphan", "orphan");
    let t = text(&out);
    let (verdict, message) = verdict_of(&report, "b/b");
    assert_eq!(verdict, "crash", "{t}");
    assert!(message.contains("exited with status 3"), "{message}");
    assert_eq!(verdict_of(&report, "c/c").0, "pass", "{t}");
}

#[test]
fn output_that_stops_being_the_protocol_ends_the_backend_at_once() {
    let start = std::time::Instant::now();
    let (out, report) = served_on_three("binary", "binary");
    let t = text(&out);
    let (verdict, message) = verdict_of(&report, "b/b");
    assert_eq!(verdict, "error", "{t}");
    assert!(
        message.contains("a line must be a JSON object"),
        "{message}"
    );
    assert_eq!(verdict_of(&report, "c/c").0, "pass", "{t}");
    // Not a wait for the 20 s limit.
    assert!(start.elapsed().as_secs() < 15, "{:?}", start.elapsed());
}
