//! How git-fabro opens a repository: the one its working directory names, whatever the
//! environment says. git exports `GIT_INDEX_FILE` (and, in a linked worktree, `GIT_DIR`) to
//! the `pre-commit`, `prepare-commit-msg`, `commit-msg` and `post-commit` hooks, so a hook
//! that calls git-fabro in a run's worktree would otherwise have it write that worktree's
//! index into the user's, or snapshot the user's checkout through `GIT_WORK_TREE`.
//!
//! gix finds the repository from the directory alone (`GIT_DIR`, `GIT_COMMON_DIR`,
//! `GIT_OBJECT_DIRECTORY`, `GIT_ALTERNATE_OBJECT_DIRECTORIES`, `GIT_CEILING_DIRECTORIES`
//! are never read), and then maps some variables to settings of their own source,
//! `EnvOverride`: `GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_NAMESPACE`, `GIT_SHALLOW_FILE`,
//! and identities, dates, proxies and the like that git-fabro takes from elsewhere. Every
//! setting of that source is ignored, and the namespace, which gix reads without the filter,
//! is cleared. Config files and `git -c` (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`) are
//! a different source and still apply: they are settings, not a redirect.

use gix::config::Source;
use gix::open::Options;

/// Whether a settings section counts: gix's own trust rule, less every section the
/// environment made.
fn not_from_the_environment(meta: &gix::config::file::Metadata) -> bool {
    meta.source != Source::EnvOverride && gix::config::section::is_trusted(meta)
}

/// The options for opening a repository whose path git-fabro chose.
pub(super) fn options() -> Options {
    Options::default().filter_config_section(not_from_the_environment)
}

/// The options for discovering a repository, by the trust its owner earns, as gix's own
/// discovery picks them.
pub(super) fn trust_map() -> gix::sec::trust::Mapping<Options> {
    let defaults = gix::sec::trust::Mapping::<Options>::default();
    gix::sec::trust::Mapping {
        full: defaults
            .full
            .filter_config_section(not_from_the_environment),
        reduced: defaults
            .reduced
            .filter_config_section(not_from_the_environment),
    }
}

/// Undoes what gix took from the environment without the filter: `GIT_NAMESPACE`.
pub(super) fn settle(repo: &mut gix::Repository) {
    repo.clear_namespace();
}
