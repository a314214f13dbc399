//! Where a campaign writes its regression cases when `--out` is not given:
//! never into the repository's `cases/`, where a campaign's findings would
//! join the suite unchecked (their expectations are the reference's, not
//! the spec's). Outside the repository: `./ser-fuzz-out` under the current
//! folder, to be found next to the command that made it; inside it:
//! `ser-fuzz-out` in the system's temporary folder.

use std::path::{Path, PathBuf};

/// The folder of `./ser-fuzz-out` and of its temporary counterpart.
pub const NAME: &str = "ser-fuzz-out";

/// The default `--out` for a campaign started in `cwd`, with the
/// repository at `repo` (either may not exist: a runner taken elsewhere).
pub fn default_out(cwd: &Path, repo: &Path) -> PathBuf {
    let inside = match (cwd.canonicalize(), repo.canonicalize()) {
        (Ok(cwd), Ok(repo)) => cwd.starts_with(repo),
        _ => false,
    };
    if inside {
        std::env::temp_dir().join(NAME)
    } else {
        cwd.join(NAME)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_the_repository_the_default_is_the_temporary_folder() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for cwd in [repo.clone(), repo.join("cases"), repo.join("harness/src")] {
            let out = default_out(&cwd, &repo);
            assert_eq!(out, std::env::temp_dir().join(NAME), "{}", cwd.display());
            assert!(!out.starts_with(repo.canonicalize().unwrap()));
        }
    }

    #[test]
    fn outside_it_the_default_is_under_the_current_folder() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let elsewhere = std::env::temp_dir();
        assert_eq!(default_out(&elsewhere, &repo), elsewhere.join(NAME));
        // A runner taken away from its repository.
        let gone = Path::new("/no/such/repository");
        assert_eq!(default_out(&elsewhere, gone), elsewhere.join(NAME));
    }
}
