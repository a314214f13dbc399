//! Any case text that loads runs on the reference to an outcome: no panic,
//! no hang (the step budget and the exploration limit end every run with a
//! clear fault).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ser_harness::backend::Backend;
use ser_harness::reference_backend::ReferenceBackend;
use ser_reference::Profile;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut reference = ReferenceBackend::new(Profile::MaybeReorderThread0027);
    reference.options.step_budget = 20_000;
    reference.options.max_runs = 32;
    for case in ser_harness::load::load_text(Path::new("cases"), Path::new("cases/fuzz.json"), &text)
        .into_iter()
        .flatten()
    {
        let _ = reference.run(&case);
    }
});
