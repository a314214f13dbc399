//! Generated cases from the fuzzer's bytes (`ser_generate`'s `Arbitrary`,
//! the same strategies as `ser-conformance fuzz`): every one loads, and the
//! reference runs it to a result or a limit, never to undefined behaviour
//! (the generator makes only valid programs) and never to a panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ser_generate::case::{self as gen, Generated};
use ser_harness::backend::{Backend, Output};
use ser_harness::reference_backend::ReferenceBackend;
use ser_reference::Profile;
use std::path::Path;

fuzz_target!(|g: Generated| {
    let case = gen::file(gen::program_case("fuzz", "cargo-fuzz", &g));
    let loaded = ser_harness::load::load_generated(Path::new("generated"), Path::new("generated/fuzz.json"), case)
        .pop()
        .expect("one case")
        .unwrap_or_else(|e| panic!("the generator made a case the loader rejects: {e}"));
    let profile = if loaded.profiles.contains(&Profile::MaybeReorderThread0027) {
        Profile::MaybeReorderThread0027
    } else {
        Profile::Sm69
    };
    let mut reference = ReferenceBackend::new(profile);
    reference.options.step_budget = 20_000;
    reference.options.max_runs = 32;
    if let Ok(exec) = reference.run(&loaded) {
        if let Output::Undefined { message, .. } = exec.output {
            panic!("a generated program has undefined behaviour: {message}\n{}", loaded.source);
        }
    }
});
