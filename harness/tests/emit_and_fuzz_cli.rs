//! `ser-conformance emit` and `fuzz` as a newcomer meets them: a layout
//! case has nothing to emit and says so, a profile the case does not list
//! is refused, and a campaign writes outside the repository unless told
//! where, saying where.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ser-conformance"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn emit(args: &[&str]) -> Output {
    bin()
        .arg("emit")
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap()
}

#[test]
fn a_layout_case_has_no_shaders_to_emit() {
    for lang in ["hlsl", "glsl"] {
        let out = emit(&["--lang", lang, "sbt/layout/dxr_two_constants"]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let t = text(&out);
        assert!(
            t.contains("is a layout case: it has no shaders to emit"),
            "{t}"
        );
        assert!(!t.contains("no function ``"), "{t}");
    }
}

#[test]
fn a_profile_the_case_does_not_list_is_refused() {
    let id = "hit_object/glsl/record_hit/with_index_low_4_bits";
    let out = emit(&["--lang", "glsl", "--profile", "vulkan-ext", id]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("does not apply to profile vulkan-ext: it lists vulkan-nv"),
        "{}",
        text(&out)
    );
    assert!(out.stdout.is_empty(), "nothing is emitted");
    // The profile the case lists still emits.
    let out = emit(&["--lang", "glsl", "--profile", "vulkan-nv", id]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("#version 460"));
}

fn fuzz(cwd: &Path) -> Output {
    bin()
        .args([
            "fuzz",
            "--backend",
            "reference",
            "--cases",
            "4",
            "--seed",
            "3",
            "--quiet",
        ])
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// Without `--out`, a campaign inside the repository names the temporary
/// folder and writes nothing under `cases/`; outside it, `./ser-fuzz-out`.
#[test]
fn a_campaign_writes_outside_the_repository_unless_told() {
    let regressions = repo().join("cases").join("regressions");
    let count = || std::fs::read_dir(&regressions).map_or(0, |d| d.count());
    let before = count();
    let out = fuzz(&repo());
    assert!(out.status.success(), "{}", text(&out));
    let t = text(&out);
    let temp = std::env::temp_dir().join("ser-fuzz-out");
    assert!(
        t.contains(&format!("regression cases go to {}", temp.display())),
        "{t}"
    );
    assert!(
        t.contains("skipped"),
        "the summary counts skipped cases: {t}"
    );
    assert_eq!(count(), before, "nothing written into cases/regressions");

    // Cargo's test folder is under the repository's target/: this one is not.
    let elsewhere = std::env::temp_dir().join(format!("ser-fuzz-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&elsewhere);
    std::fs::create_dir_all(&elsewhere).unwrap();
    let out = fuzz(&elsewhere);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "regression cases go to {}",
            elsewhere.join("ser-fuzz-out").display()
        )),
        "{}",
        text(&out)
    );
    let _ = std::fs::remove_dir_all(&elsewhere);
}
