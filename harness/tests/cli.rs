//! The `ser-conformance` command line.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ser-conformance"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn case(name: &str, expected: u32) -> String {
    format!(
        r#"{{
  "name": "{name}",
  "description": "GetShaderTableIndex of a NOP hit object is 0.",
  "clauses": ["ser.hit_object.get_shader_table_index.nop_or_unset_query_zero"],
  "profiles": ["0027-maybereorderthread"],
  "library": ["RWStructuredBuffer<uint> Out : register(u0);", "[shader(\"raygeneration\")]", "void RayGen() {{ HitObject h; Out[0] = h.GetShaderTableIndex(); }}"],
  "dispatch": {{ "raygen": "RayGen" }},
  "buffers": {{ "Out": {{ "elements": 1 }} }},
  "expect": {{ "buffers": {{ "Out": [{expected}] }} }}
}}"#
    )
}

#[test]
fn runs_a_folder_and_prints_the_verdict() {
    let dir = scratch("cli_pass");
    std::fs::write(
        dir.join("a.json"),
        format!("{{\"cases\": [{}]}}", case("zero", 0)),
    )
    .unwrap();
    let out = bin().arg("--cases").arg(&dir).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("1 case(s): 1 pass, 0 fail, 0 not applicable, 0 not supported, 0 error"),
        "{stdout}"
    );
    assert_eq!(
        stdout.lines().last(),
        Some(
            format!(
                "verdict: CONFORMANT to 0027-maybereorderthread with all {} capabilities: 1 of 1 applicable cases pass",
                ser_harness::capability::CAPABILITIES.len()
            )
            .as_str()
        ),
        "{stdout}"
    );
}

#[test]
fn a_wrong_expectation_fails_the_run_and_shows_the_element() {
    let dir = scratch("cli_fail");
    std::fs::write(
        dir.join("a.json"),
        format!("{{\"cases\": [{}]}}", case("wrong", 3)),
    )
    .unwrap();
    let report = dir.join("r.jsonl");
    let out = bin()
        .arg("--cases")
        .arg(&dir)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("buffer `Out`, element 0: expected 3 (0x00000003), actual 0 (0x00000000)"),
        "{stdout}"
    );
    assert!(stdout.contains("verdict: NOT CONFORMANT"), "{stdout}");
    let text = std::fs::read_to_string(&report).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
}

#[test]
fn a_broken_file_is_an_error_and_the_rest_still_runs() {
    let dir = scratch("cli_broken");
    std::fs::write(
        dir.join("a.json"),
        format!("{{\"cases\": [{}]}}", case("zero", 0)),
    )
    .unwrap();
    std::fs::write(dir.join("b.json"), "{ \"cases\": [ ").unwrap();
    let out = bin().arg("--cases").arg(&dir).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("2 case(s): 1 pass, 0 fail, 0 not applicable, 0 not supported, 1 error"),
        "{stdout}"
    );
    assert!(stdout.contains("b.json"), "{stdout}");
}

#[test]
fn list_filter_and_exact() {
    let dir = scratch("cli_list");
    std::fs::write(
        dir.join("a.json"),
        format!("{{\"cases\": [{}, {}]}}", case("one", 0), case("two", 0)),
    )
    .unwrap();
    let out = bin()
        .arg("--cases")
        .arg(&dir)
        .arg("--list")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("a/one: test") && stdout.contains("a/two: test"),
        "{stdout}"
    );
    let out = bin()
        .arg("--cases")
        .arg(&dir)
        .args(["--exact", "a/two"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("1 case(s): 1 pass"), "{stdout}");
}

#[test]
fn schema_subcommand_prints_the_schema() {
    let out = bin().arg("schema").output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["title"], "SER conformance case file");
}

#[test]
fn unknown_backend_and_profile_are_usage_errors() {
    let out = bin().args(["--backend", "warp-drive"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown backend `warp-drive`"));
    let out = bin().args(["--profile", "dx13"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn report_subcommand_writes_markdown_html_and_json() {
    let dir = scratch("cli_report");
    let out = bin().arg("report").arg("--out").arg(&dir).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("covered"), "{stdout}");
    for f in ["traceability.md", "traceability.html", "traceability.json"] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("traceability.json")).unwrap())
            .unwrap();
    assert_eq!(json["version"], 3);
}
