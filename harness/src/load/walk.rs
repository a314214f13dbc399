//! The walk over a cases folder: which files are case files, and what in
//! the folder is an error rather than a case.
//!
//! - A link is followed, but every folder and file is visited once: a link
//!   back to a folder already walked (`ln -s . again`) is a cycle, reported
//!   and not followed, and a second way to a file already found is
//!   reported, not loaded twice under another id.
//! - A file's path under the folder becomes its cases' ids, printed one per
//!   line: a name holding a control or bidirectional formatting character
//!   (a newline, U+202E) is refused, the name escaped in the error.
//! - What is not a regular file (a FIFO named `x.json`) is listed and
//!   refused when it is read ([`crate::files`]), never opened blocking.

use super::LoadError;
use crate::files;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The case files of a folder, and the problems found on the way.
#[derive(Debug, Default)]
pub struct Found {
    /// Sorted.
    pub files: Vec<PathBuf>,
    pub problems: Vec<LoadError>,
}

/// What identifies a file system object whatever path reaches it.
#[cfg(unix)]
type Id = (u64, u64);
#[cfg(not(unix))]
type Id = PathBuf;

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata, _: &Path) -> Id {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata, path: &Path) -> Id {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

fn problem(path: &Path, location: &str, message: String) -> LoadError {
    LoadError {
        file: files::display(path),
        case: None,
        location: location.into(),
        message,
        unknown_clause: None,
    }
}

/// Every `.json` file under `dir` but `*.schema.json`, and not under
/// `skip` (a folder of another format).
pub fn case_files(dir: &Path, skip: Option<&Path>) -> Found {
    let mut found = Found::default();
    let root = match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => m,
        Ok(_) => {
            found.problems.push(problem(
                dir,
                "folder",
                "not a folder; expected the folder of case files".into(),
            ));
            return found;
        }
        Err(e) => {
            found.problems.push(problem(
                dir,
                "folder",
                format!("cannot read the cases folder: {e}"),
            ));
            return found;
        }
    };
    // Where each folder and file was first reached.
    let mut seen = BTreeMap::new();
    seen.insert(identity(&root, dir), dir.to_path_buf());
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) => {
                found.problems.push(problem(
                    &d,
                    "folder",
                    format!("cannot read the folder: {e}"),
                ));
                continue;
            }
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            visit(p, dir, skip, &mut seen, &mut stack, &mut found);
        }
    }
    found.files.sort();
    found
}

/// One entry of a folder: a case file, a folder to walk, or a problem.
fn visit(
    p: PathBuf,
    root: &Path,
    skip: Option<&Path>,
    seen: &mut BTreeMap<Id, PathBuf>,
    stack: &mut Vec<PathBuf>,
    found: &mut Found,
) {
    let name = p.file_name().unwrap_or_default();
    if !files::printable(name) {
        found.problems.push(problem(
            &p,
            "file name",
            format!(
                "the name `{}` holds a control or bidirectional formatting character (or is not UTF-8); a path under the cases folder becomes the ids of its cases, printed one per line: rename it",
                files::escaped(name)
            ),
        ));
        return;
    }
    let link = std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink());
    let meta = match std::fs::metadata(&p) {
        Ok(m) => m,
        Err(e) if link => {
            found.problems.push(problem(
                &p,
                "link",
                format!("a link to nothing readable: {e}"),
            ));
            return;
        }
        Err(e) => {
            found
                .problems
                .push(problem(&p, "file", format!("cannot read: {e}")));
            return;
        }
    };
    let is_case_file = |p: &Path| {
        p.extension().is_some_and(|e| e == "json") && !p.to_string_lossy().ends_with(".schema.json")
    };
    if meta.is_dir() {
        // GLSL-source cases have their own format and loader.
        if skip.is_some_and(|s| s == p) {
            return;
        }
    } else if !is_case_file(&p) {
        return;
    }
    if let Some(first) = seen.get(&identity(&meta, &p)) {
        let cycle = meta.is_dir() && p.starts_with(first);
        let first = match first.strip_prefix(root) {
            Ok(r) if r.as_os_str().is_empty() => "the cases folder".to_string(),
            Ok(r) => format!("`{}`", r.display()),
            Err(_) => format!("`{}`", first.display()),
        };
        let message = if cycle {
            format!("a link back to {first}, which holds it: a cycle, not followed")
        } else {
            format!(
                "the same {} as {first} (reached through a link): read once, not again under another id",
                if meta.is_dir() { "folder" } else { "file" },
            )
        };
        found.problems.push(problem(&p, "link", message));
        return;
    }
    seen.insert(identity(&meta, &p), p.clone());
    if meta.is_dir() {
        stack.push(p);
    } else {
        found.files.push(p);
    }
}
