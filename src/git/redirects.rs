//! The environment variables that point git at another repository, index, object store or
//! set of settings than the one its working directory names. Inherited from whoever started
//! git-fabro (`git --git-dir=... fabro run`, a git hook, an exported `GIT_DIR`), they would
//! make a `git` started in a run's worktree act on the user's repository instead, so nothing
//! git-fabro starts in a worktree keeps them.

use std::ffi::OsStr;

/// What `git rev-parse --local-env-vars` lists (git clears these itself before it works in
/// another repository, a submodule say), and the variables that choose a namespace or where
/// discovery stops.
const REPOSITORY_VARS: &[&str] = &[
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_PREFIX",
    "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_QUARANTINE_PATH",
];

/// The numbered settings `GIT_CONFIG_COUNT` announces (`GIT_CONFIG_KEY_0`, ...).
const REPOSITORY_PREFIXES: &[&str] = &["GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"];

/// Whether the variable `name` redirects git away from the repository of its directory.
pub(crate) fn redirects_repository(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    REPOSITORY_VARS.contains(&name) || REPOSITORY_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Every variable of this process's environment that [`redirects_repository`], for removing
/// from a command's environment.
pub(crate) fn inherited_redirects() -> Vec<std::ffi::OsString> {
    std::env::vars_os()
        .map(|(name, _)| name)
        .filter(|name| redirects_repository(name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_redirects_and_nothing_else() {
        for name in [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_CONFIG_KEY_0",
            "GIT_NAMESPACE",
        ] {
            assert!(redirects_repository(OsStr::new(name)), "{name}");
        }
        for name in ["GIT_AUTHOR_NAME", "GIT_CONFIG_GLOBAL", "PATH", "git_dir"] {
            assert!(!redirects_repository(OsStr::new(name)), "{name}");
        }
    }
}
