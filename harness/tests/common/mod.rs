//! Helpers the runner's command-line tests share.
#![allow(dead_code)] // each test file uses its own part

use std::path::PathBuf;
use std::process::Output;

/// The built runner.
pub const BIN: &str = env!("CARGO_BIN_EXE_ser-conformance");

/// A fresh scratch folder `group/name` under cargo's test temporary folder.
pub fn scratch(group: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The repository's `cases/` folder.
pub fn cases() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cases")
}

/// What a run printed, stdout then stderr.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The runner (with `command`, a subcommand and its first arguments, or
/// nothing for a run) against the reference served through `exec:` (a
/// process backend), misbehaving as `faults` say (`KIND=TEXT`).
pub fn served_reference(command: &[&str], faults: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(BIN);
    c.args(command);
    c.args([
        "--backend",
        "exec:",
        "--backend-arg",
        BIN,
        "--backend-arg",
        "serve",
    ]);
    for f in faults {
        c.arg(format!("--backend-arg=--fault={f}"));
    }
    c
}
