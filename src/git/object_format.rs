//! Repositories git-fabro cannot open. gix is built for SHA-1 objects only, and it reports a
//! SHA-256 repository (`git init --object-format=sha256`) as no repository at all; taken at
//! its word, `start` would then put the run in a hidden shadow repository. So when opening
//! fails, the directories git would look at are read for `extensions.objectFormat`, and a
//! SHA-256 repository is refused by name.

use std::path::{Path, PathBuf};

use super::error::Error;

/// Why `dir` could not be opened: a SHA-256 repository (a usage error, exit 2), else none.
pub(super) fn not_a_repository(dir: &Path) -> Error {
    match sha256_git_dir(dir) {
        Some(git_dir) => Error::Usage(format!(
            "{} is a SHA-256 repository (extensions.objectFormat = sha256), and git-fabro \
             works with SHA-1 repositories only",
            git_dir.display()
        )),
        None => Error::NotARepository(dir.to_owned()),
    }
}

/// The git dir that holds `dir` (as git discovers it, upwards) when its objects are SHA-256.
fn sha256_git_dir(dir: &Path) -> Option<PathBuf> {
    let start = std::path::absolute(dir).ok()?;
    for at in start.ancestors() {
        let dot_git = at.join(".git");
        let git_dir = if dot_git.is_dir() {
            dot_git
        } else if let Ok(text) = std::fs::read_to_string(&dot_git) {
            // A linked worktree's `.git` file: `gitdir: PATH`.
            let linked = at.join(text.strip_prefix("gitdir:")?.trim());
            let common = std::fs::read_to_string(linked.join("commondir")).ok();
            common.map_or(linked.clone(), |c| linked.join(c.trim()))
        } else if at.join("HEAD").is_file() && at.join("objects").is_dir() {
            at.to_owned() // a bare repository
        } else {
            continue;
        };
        let config = std::fs::read_to_string(git_dir.join("config")).unwrap_or_default();
        return is_sha256(&config).then_some(git_dir);
    }
    None
}

/// Whether a git config file sets `extensions.objectFormat` to `sha256`.
fn is_sha256(config: &str) -> bool {
    let mut in_extensions = false;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            in_extensions = line.to_ascii_lowercase().starts_with("[extensions]");
        } else if in_extensions
            && let Some((key, value)) = line.split_once('=')
            && key.trim().eq_ignore_ascii_case("objectformat")
            && value
                .trim()
                .trim_matches('"')
                .eq_ignore_ascii_case("sha256")
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::is_sha256;

    #[test]
    fn reads_the_object_format_from_a_config_file() {
        assert!(is_sha256(
            "[core]\n\tbare = false\n[extensions]\n\tobjectformat = sha256\n"
        ));
        assert!(is_sha256("[Extensions]\nobjectFormat=\"SHA256\"\n"));
        assert!(!is_sha256("[core]\n\tobjectformat = sha256\n"));
        assert!(!is_sha256("[extensions]\n\tobjectformat = sha1\n"));
    }
}
