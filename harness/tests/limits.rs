//! The built `ser-conformance` over a folder of hostile case files (each of
//! which used to kill the process) and a good one: the process ends on its
//! own, and the report has a record for every case and its summary.

#[path = "../../tests/hostile_cases.rs"]
mod hostile_cases;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

#[test]
fn hostile_cases_do_not_take_the_runner_down() {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("limits");
    let _ = std::fs::remove_dir_all(&scratch);
    let cases = scratch.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    let hostile = hostile_cases::hostile();
    for h in &hostile {
        std::fs::write(cases.join(format!("{}.json", h.name)), &h.text).unwrap();
    }
    let good = hostile_cases::file(hostile_cases::good());
    std::fs::write(cases.join("good.json"), good).unwrap();
    let report = scratch.join("report.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_ser-conformance"))
        .arg("--cases")
        .arg(&cases)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // No code: killed by a signal (a stack overflow aborts).
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{:?}\n{stderr}",
        out.status
    );
    let text = std::fs::read_to_string(&report).unwrap();
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let results: BTreeMap<&str, (&str, &str)> = records
        .iter()
        .filter(|r| r["type"] == "case")
        .map(|r| {
            let field = |k: &str| r[k].as_str().unwrap_or_default();
            (field("id"), (field("verdict"), field("message")))
        })
        .collect();
    for h in &hostile {
        let id = format!("{0}/{0}", h.name);
        let (verdict, message) = results[id.as_str()];
        assert!(matches!(verdict, "error" | "fail"), "{id}: {verdict}");
        assert!(message.contains(h.names), "{id}: {message}");
    }
    assert_eq!(results["good/good"].0, "pass", "{text}");
    assert_eq!(results.len(), hostile.len() + 1, "{text}");
    assert_eq!(records.last().unwrap()["type"], "summary", "{text}");
}

/// Cases nested almost to the language's limit run through the process
/// protocol as they do in process: a request carries the case's IR, nested
/// far deeper than serde_json's default limit of 128.
#[test]
fn the_deepest_legal_cases_run_through_the_protocol_too() {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("deep_legal");
    let _ = std::fs::remove_dir_all(&scratch);
    let cases = scratch.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    let n = 240;
    let deep = [
        ("chain", format!("Out[0] = 0{};", " + 0".repeat(n))),
        (
            "ifs",
            format!("{}{{ Out[0] = 0; }}", "if (true) ".repeat(n)),
        ),
        (
            "parentheses",
            format!("Out[0] = {}0{};", "(".repeat(n), ")".repeat(n)),
        ),
    ];
    for (name, raygen) in &deep {
        let case = hostile_cases::case(name, &[], raygen, |_| {});
        std::fs::write(
            cases.join(format!("{name}.json")),
            hostile_cases::file(case),
        )
        .unwrap();
    }
    let bin = env!("CARGO_BIN_EXE_ser-conformance");
    for served in [false, true] {
        let mut c = Command::new(bin);
        c.arg("--cases").arg(&cases).arg("--quiet");
        if served {
            c.args([
                "--backend",
                "exec:",
                "--backend-arg",
                bin,
                "--backend-arg",
                "serve",
            ]);
        }
        let out = c.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "served: {served}\n{stdout}");
        assert!(
            stdout.contains("3 of 3 applicable cases pass"),
            "served: {served}\n{stdout}"
        );
    }
}
