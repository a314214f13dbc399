//! The process protocol's messages against their JSON Schemas in
//! `docs/protocol/`: the files are current, every real message the suite
//! produces is valid, and broken messages are not.

use ser_harness::backend::Backend;
use ser_harness::load::load_dir;
use ser_harness::protocol::convert::{reply, request};
use ser_harness::protocol::*;
use ser_harness::reference_backend::ReferenceBackend;
use ser_reference::Profile;
use serde_json::{json, Value};
use std::path::PathBuf;

fn repo(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(p)
}

fn validator(file: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo("docs/protocol").join(file)).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn assert_valid(v: &jsonschema::Validator, what: &str, message: &Value) {
    let errors: Vec<String> = v
        .iter_errors(message)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{what}: {}", errors.join("; "));
}

#[test]
fn the_schemas_in_docs_are_current() {
    for (name, schema) in schemas() {
        let path = repo("docs/protocol").join(name);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let on_disk: Value = serde_json::from_str(&text).unwrap();
        assert!(
            on_disk == schema,
            "{} is stale: run `ser-conformance protocol-schemas docs/protocol`",
            path.display()
        );
    }
}

#[test]
fn every_request_and_reference_reply_of_the_suite_is_valid_and_round_trips() {
    let requests = validator("request.schema.json");
    let replies = validator("reply.schema.json");
    let backend = ReferenceBackend::new(Profile::MaybeReorderThread0027);
    let mut kinds = std::collections::BTreeSet::new();
    let cases: Vec<_> = load_dir(&repo("cases"))
        .into_iter()
        .map(|c| c.unwrap())
        .collect();
    assert!(cases.len() > 500);
    for case in &cases {
        let req = request(case);
        let line = encode(&req);
        assert_valid(&requests, &case.id, &serde_json::from_str(&line).unwrap());
        assert_eq!(
            decode::<Request>("a request", &line).unwrap(),
            req,
            "{}",
            case.id
        );
        let rep = reply(&case.id, backend.run(case));
        let line = encode(&rep);
        let value: Value = serde_json::from_str(&line).unwrap();
        kinds.insert(value["type"].as_str().unwrap().to_string());
        assert_valid(&replies, &case.id, &value);
        assert_eq!(
            decode::<Reply>("a reply", &line).unwrap(),
            rep,
            "{}",
            case.id
        );
    }
    // The suite makes the reference give every kind of reply but these
    // (the last two are a compiler backend's).
    for kind in REPLY_TYPES {
        if !["not_supported", "error", "compiled", "rejected"].contains(&kind) {
            assert!(
                kinds.contains(kind),
                "no case gives a `{kind}` reply: {kinds:?}"
            );
        }
    }
    for extra in [
        json!({"type": "not_supported", "id": "a", "reason": "no ray query"}),
        json!({"type": "error", "id": "a", "message": "device lost"}),
        json!({"type": "compiled", "id": "a", "output": "SPIR-V (NV), valid"}),
        json!({"type": "rejected", "id": "a", "message": "error[E30015]: undefined identifier"}),
    ] {
        assert_valid(&replies, "extra", &extra);
    }
}

#[test]
fn both_hellos_are_valid() {
    let hello = RunnerHello {
        kind: HelloType::Hello,
        protocol: PROTOCOL_VERSION,
        runner: "ser-conformance".into(),
        profile: Some(Profile::Sm69),
    };
    assert_valid(
        &validator("runner-hello.schema.json"),
        "runner",
        &serde_json::to_value(&hello).unwrap(),
    );
    let hello = BackendHello {
        kind: HelloType::Hello,
        protocol: PROTOCOL_VERSION,
        name: "x".into(),
        profile: Profile::VulkanNv,
        capabilities: vec!["rejection".into()],
        wave_sizes: vec![32],
        phase: ser_harness::claim::Phase::Compile,
        batch: true,
    };
    assert_valid(
        &validator("backend-hello.schema.json"),
        "backend",
        &serde_json::to_value(&hello).unwrap(),
    );
}

#[test]
fn the_schemas_reject_broken_messages() {
    let replies = validator("reply.schema.json");
    for bad in [
        json!({"type": "buffers", "buffers": {}}),
        json!({"type": "buffers", "id": "a", "buffers": {"Out": [-1]}}),
        json!({"type": "buffer", "id": "a", "buffers": {}}),
        json!({"type": "error", "id": "a", "message": "m", "extra": 1}),
        json!({"type": "diagnostics", "id": "a", "diagnostics": [{"code": "x"}]}),
    ] {
        assert!(!replies.is_valid(&bad), "accepted {bad}");
    }
    let hello = validator("backend-hello.schema.json");
    for bad in [
        json!({"type": "hello", "protocol": "1", "name": "x", "profile": "sm69"}),
        json!({"type": "hello", "protocol": 1, "name": "x", "profile": "sm70"}),
        json!({"type": "olleh", "protocol": 1, "name": "x", "profile": "sm69"}),
    ] {
        assert!(!hello.is_valid(&bad), "accepted {bad}");
    }
    let requests = validator("request.schema.json");
    assert!(!requests.is_valid(&json!({"type": "run", "id": "a", "task": "fly"})));
}
