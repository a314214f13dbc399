//! Any case file: loading never panics; it gives cases or located errors.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for r in ser_harness::load::load_text(Path::new("cases"), Path::new("cases/fuzz.json"), &text) {
        if let Ok(case) = r {
            // What a process backend would be sent.
            let _ = ser_harness::protocol::encode(&ser_harness::protocol::convert::request(&case));
        }
    }
});
