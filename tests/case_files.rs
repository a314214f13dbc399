//! Properties of the case files themselves: the shader printer round-trips
//! every library, and the committed JSON Schema matches the loader.

use ser_harness::load::load_dir;

#[test]
fn every_library_round_trips_through_the_printer() {
    for case in load_dir(&ser_tests::cases_dir())
        .into_iter()
        .filter_map(Result::ok)
    {
        let text = ser_lang::print(case.library());
        let mut again = ser_lang::parse(&text)
            .unwrap_or_else(|e| panic!("{}: printed library does not parse: {e}\n{text}", case.id));
        // The case's own options, which no text carries.
        again.names_as_written = case.library().names_as_written;
        again.shader_model = case.library().shader_model.clone();
        assert_eq!(
            *case.library(),
            again,
            "{}: the IR changed through the printer",
            case.id
        );
        assert_eq!(
            text,
            ser_lang::print(&again),
            "{}: printing is not a fixpoint",
            case.id
        );
    }
}

#[test]
fn committed_schema_is_current() {
    let path = ser_tests::cases_dir().join("case.schema.json");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    let generated = serde_json::to_string_pretty(&ser_harness::case::schema()).unwrap() + "\n";
    if committed != generated {
        if std::env::var_os("SER_BLESS").is_some() {
            std::fs::write(&path, &generated).unwrap();
            return;
        }
        panic!("cases/case.schema.json is out of date: run `SER_BLESS=1 cargo test -p ser-tests --test case_files` or `cargo run --bin ser-conformance -- schema > cases/case.schema.json`");
    }
}

#[test]
fn every_case_file_parses_as_json_with_cases() {
    let found = ser_harness::load::case_files(&ser_tests::cases_dir());
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    for file in found.files {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert!(
            v.get("cases")
                .and_then(|c| c.as_array())
                .is_some_and(|c| !c.is_empty()),
            "{} has no cases",
            file.display()
        );
    }
}

/// The capability table of cases/README.md names every capability the
/// harness knows, and no other.
#[test]
fn the_readme_lists_every_capability() {
    let readme = std::fs::read_to_string(ser_tests::cases_dir().join("README.md")).unwrap();
    let section = readme
        .split("## Capabilities")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a Capabilities section");
    let listed: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .collect();
    let known: Vec<&str> = ser_harness::capability::CAPABILITIES
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(listed, known);
}
