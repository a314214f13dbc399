//! Helpers shared by the workspace-level tests.

/// The allocator `ser-conformance` runs the reference with (see there).
#[global_allocator]
static ALLOCATOR: ser_harness::alloc::Allocator = ser_harness::alloc::Allocator;

use ser_harness::backend::Backend;
use ser_harness::load::Case;
use ser_harness::reference_backend::ReferenceBackend;
use ser_reference::outcome::{Legal, Outcome};
use std::path::{Path, PathBuf};

/// The repository's `cases/` folder.
pub fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("cases")
}

/// A fresh scratch folder under the target directory.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target")
        .join("test-scratch")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// What the legal outcomes say, without the concrete first run and
/// without the wording of reasons: per buffer, per word, the sorted legal
/// values or "unspecified"; or the fault code.
pub fn shape(case: &Case, backend: &ReferenceBackend) -> Result<String, String> {
    let exec = backend.run(case).map_err(|e| format!("{e:?}"))?;
    let result = exec.legal.ok_or("the reference gave no legal outcomes")?;
    Ok(match result.outcome {
        Outcome::Fault(f) => format!("fault {}", f.code.name()),
        Outcome::Completed(buffers) => buffers
            .iter()
            .map(|(name, b)| {
                let words: Vec<String> = b
                    .words
                    .iter()
                    .map(|w| match w {
                        Legal::Unspecified(_) => "?".to_string(),
                        Legal::Values(vs) => {
                            let mut v: Vec<String> =
                                vs.iter().map(|o| format!("{}±{}", o.bits, o.err)).collect();
                            v.sort();
                            v.join("|")
                        }
                    })
                    .collect();
                format!("{name}: [{}]", words.join(", "))
            })
            .collect::<Vec<_>>()
            .join("; "),
    })
}
