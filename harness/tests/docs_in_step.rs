//! The README and the docs in step with the program: every option the
//! commands take is documented and every documented option exists; the
//! sample run's counts and verdict are what the program prints today; the
//! counts stated (cases, clauses, mutants, the registry's table) are
//! computed from the repository at test time; every fault `serve` injects
//! is in `docs/protocol.md`; every backend is named in `--backend`'s help.

use ser_harness::spec_map::{Registry, FILES};
use ser_reference::mutation::{Kind, Mutation};
use ser_reference::Profile;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_ser-conformance");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The part of a Markdown text from heading `from` to the next heading of
/// the same level.
fn section<'a>(text: &'a str, from: &str) -> &'a str {
    let level = from.split(' ').next().unwrap();
    let start = text
        .find(&format!("\n{from}\n"))
        .unwrap_or_else(|| panic!("no `{from}`"));
    let rest = &text[start + from.len() + 2..];
    let end = rest.find(&format!("\n{level} ")).unwrap_or(rest.len());
    &rest[..end]
}

fn run(args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The long options a command's `--help` lists (`help` itself left out).
fn options(command: &[&str]) -> BTreeSet<String> {
    let mut args = command.to_vec();
    args.push("--help");
    run(&args)
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = l.strip_prefix("-q, ").unwrap_or(l);
            let l = l.strip_prefix("-h, ").unwrap_or(l);
            l.strip_prefix("--")
                .map(|o| o.split([' ', '=', '<']).next().unwrap().to_string())
        })
        .filter(|o| o != "help")
        .collect()
}

/// The options the first column of a Markdown table's rows names
/// (`` | `--a`, `--b X` | `` or `` | `cmd [--a X] [--b]` | ``).
fn tabled(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .flat_map(|cell| {
            cell.split(|c: char| c.is_whitespace() || "`[],".contains(c))
                .filter_map(|word| word.strip_prefix("--"))
                .map(|o| o.trim_end_matches('.').to_string())
                .filter(|o| o.starts_with(|c: char| c.is_ascii_alphabetic()))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn mentions(text: &str, option: &str) -> bool {
    text.contains(&format!("`--{option}`")) || text.contains(&format!("`--{option} "))
}

#[test]
fn the_runners_options_are_the_readmes() {
    let readme = read("README.md");
    let runner = section(&readme, "## The runner");
    let help = options(&[]);
    assert!(help.contains("backend") && help.contains("test-threads"));
    for o in &help {
        assert!(
            mentions(runner, o),
            "README, The runner: `--{o}` is not documented"
        );
    }
    for o in tabled(runner) {
        assert!(
            help.contains(&o),
            "README documents `--{o}`, which the runner lacks"
        );
    }
}

#[test]
fn the_fuzzers_options_are_the_readmes() {
    let readme = read("README.md");
    let fuzz = section(&readme, "## Fuzzing a backend");
    let help = options(&["fuzz"]);
    assert!(help.contains("out") && help.contains("seed"));
    for o in &help {
        assert!(mentions(fuzz, o), "README, fuzz: `--{o}` is not documented");
    }
    for o in tabled(fuzz) {
        assert!(
            help.contains(&o),
            "README documents `fuzz --{o}`, which fuzz lacks"
        );
    }
}

/// Each other command's row in the README names every option it takes.
#[test]
fn the_other_commands_options_are_the_readmes() {
    let readme = read("README.md");
    let table = section(&readme, "## Other commands");
    for command in ["report", "emit", "serve", "mutants"] {
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| `ser-conformance {command}")))
            .unwrap_or_else(|| panic!("no row for `{command}`"));
        let documented = tabled(row);
        let help = options(&[command]);
        assert_eq!(documented, help, "README's row for `{command}`");
    }
}

/// The sample run is run: its counts and its last two lines are the
/// program's, on the cases as they are now.
#[test]
fn the_sample_run_prints_what_the_readme_shows() {
    let readme = read("README.md");
    let part = section(&readme, "## What the output means");
    let sample = part
        .split("```text\n")
        .nth(1)
        .and_then(|s| s.split("\n```").next())
        .expect("a sample run");
    let output = run(&[
        "--cases",
        "cases/invoke",
        "--profile",
        "vulkan-nv",
        "--test-threads",
        "1",
        "recursion/",
        "--backend",
        "exec:",
        "--backend-arg",
        BIN,
        "--backend-arg",
        "serve",
        "--backend-arg=--fault=decline=max_depth_2",
    ]);
    // When the cases change, the README's sample is run again and pasted
    // (its first line is the command).
    let last: Vec<&str> = sample.lines().rev().take(2).collect();
    for line in last {
        assert!(
            output.contains(line),
            "README's sample line `{line}` is not what the program prints now; run the sample's command again and update the README:\n{output}"
        );
    }
    let counts = |text: &str| -> (String, String) {
        let running = text
            .lines()
            .find(|l| l.starts_with("running "))
            .unwrap()
            .to_string();
        let result = text
            .lines()
            .find(|l| l.starts_with("test result:"))
            .unwrap()
            .split(" finished")
            .next()
            .unwrap()
            .to_string();
        (running, result)
    };
    assert_eq!(
        counts(sample),
        counts(&output),
        "README's sample run: the counts the program prints now differ; run it again and update the README"
    );
}

/// The README's "over N" counts hold for the repository as it is.
#[test]
fn the_readmes_counts_hold() {
    let readme = ser_harness::spec_map::normalize(&read("README.md"));
    let over = |what: &str| -> usize {
        let at = readme
            .find(&format!(" {what}"))
            .unwrap_or_else(|| panic!("no `{what}`"));
        let before = &readme[..at];
        let number = before.rsplit("over ").next().unwrap().replace(',', "");
        number
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("`over N {what}`"))
    };
    let listed = run(&["--list"])
        .lines()
        .filter(|l| l.ends_with(": test"))
        .count();
    let cases = over("today)");
    assert!(
        listed >= cases,
        "README: over {cases} cases; --list lists {listed}"
    );
    assert!(
        listed < cases + 1000,
        "README: over {cases} cases is far too low: {listed}"
    );
    let registry = Registry::load(&repo().join("spec-map")).unwrap();
    let clauses = registry.clauses().count();
    let stated = over("clauses of");
    assert!(
        clauses >= stated && clauses < stated + 1000,
        "{clauses} clauses"
    );
    assert!(readme.contains(&format!("clauses of {} documents", FILES.len())));
    let bugs = Mutation::ALL
        .iter()
        .filter(|m| m.kind() == Kind::Bug)
        .count();
    let controls = Mutation::ALL.len() - bugs;
    assert!(
        readme.contains(&format!(
            "There are {bugs} bug mutants and {controls} controls."
        )),
        "README's mutant counts: {bugs} bug mutants, {controls} controls"
    );
    for p in Profile::ALL {
        assert!(readme.contains(&format!("`{}`", p.name())), "{}", p.name());
    }
}

/// `spec-map/README.md`'s table of counts is the registry's.
#[test]
fn the_registrys_counts_are_its_readmes() {
    let text = read("spec-map/README.md");
    let registry = Registry::load(&repo().join("spec-map")).unwrap();
    for doc in &registry.documents {
        let entries = doc.clauses.len();
        let twins = doc.clauses.iter().filter(|c| c.same_as.is_some()).count();
        let links: usize = doc.clauses.iter().map(|c| c.counterparts.len()).sum();
        let blank = |n: usize| if n == 0 { String::new() } else { n.to_string() };
        let row = format!(
            "| `{}` | {entries} | {} | {} |",
            doc.document,
            blank(twins),
            blank(links)
        );
        assert!(
            text.contains(&row),
            "spec-map/README.md: expected the row {row}"
        );
    }
}

/// Every fault `serve --fault` takes is described in docs/protocol.md.
#[test]
fn every_serve_fault_is_in_the_protocol_doc() {
    let err = "nonsense=x"
        .parse::<ser_harness::protocol::serve::Fault>()
        .expect_err("an unknown fault is refused");
    let kinds: Vec<String> = err
        .split("expected ")
        .nth(1)
        .unwrap()
        .replace(" or ", ", ")
        .split(", ")
        .map(|k| k.trim().to_string())
        .collect();
    assert!(kinds.len() >= 9, "{kinds:?}");
    let doc = read("docs/protocol.md");
    let testing = section(&doc, "## Testing your setup");
    for k in kinds {
        assert!(
            format!("{k}=x")
                .parse::<ser_harness::protocol::serve::Fault>()
                .is_ok(),
            "{k}"
        );
        assert!(
            testing.contains(&format!("`{k}` (")),
            "docs/protocol.md does not say what the fault `{k}` does"
        );
    }
}

/// `--backend`'s help names every backend the runner takes, and so does
/// the README's table of backends.
#[test]
fn every_backend_is_named() {
    let help = run(&["--help"]);
    let backend_help = help
        .split("--backend <BACKEND>")
        .nth(1)
        .unwrap()
        .split("--backend-arg")
        .next()
        .unwrap()
        .to_string();
    let readme = read("README.md");
    let table = section(&readme, "## Backends");
    for name in ["reference", "vulkan", "slang", "mutant:NAME", "exec:"] {
        assert!(
            backend_help.contains(&format!("`{name}")),
            "--backend's help does not name `{name}`"
        );
        assert!(
            table.contains(&format!("| `{name}")),
            "README's backends table has no row for `{name}`"
        );
    }
}
