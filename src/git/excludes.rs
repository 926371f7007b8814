//! What a snapshot leaves out besides what git ignores: the directories FORMAT.md never
//! stages and the user's `exclude_globs`, both as gitignore patterns.

use gix::bstr::{BStr, ByteSlice};

/// Directory names never staged, at any depth (FORMAT.md, Run branch). What git-fabro never
/// records is never lost when a run's worktree goes, so these keep no worktree either
/// (`unrecorded.rs`), git ignores them or not.
pub(crate) const DEFAULT_EXCLUDED_DIRS: &[&str] = &[
    "node_modules",
    ".pnpm-store",
    ".npm",
    "target",
    ".next",
    "__pycache__",
    ".venv",
    "venv",
    ".cache",
    ".tox",
    ".pytest_cache",
    ".mypy_cache",
    "dist",
];

/// Paths a snapshot leaves out, on top of `.gitignore`: the default directories and the
/// configured `exclude_globs`, both in gitignore syntax.
#[derive(Clone, Debug)]
pub(crate) struct Excludes {
    /// The patterns the search was built from: two sets with the same leave out the same.
    patterns: Vec<String>,
    search: gix::ignore::Search,
}

impl PartialEq for Excludes {
    fn eq(&self, other: &Excludes) -> bool {
        self.patterns == other.patterns
    }
}

impl Excludes {
    /// The default directories, `globs`, and `extra_dirs`: workdir-relative directories that
    /// must never be captured (a fabro home or run directory inside the work tree).
    pub(crate) fn new(globs: &[String]) -> Excludes {
        let patterns: Vec<String> = DEFAULT_EXCLUDED_DIRS
            .iter()
            .map(|dir| format!("{dir}/"))
            .chain(globs.iter().cloned())
            .collect();
        let search = gix::ignore::Search::from_overrides(
            patterns.iter().cloned(),
            gix::ignore::search::Ignore {
                support_precious: false,
            },
        );
        Excludes { patterns, search }
    }

    pub(super) fn search(&self) -> &gix::ignore::Search {
        &self.search
    }

    /// Whether `path` (a file) or any directory above it is excluded.
    pub(crate) fn is_excluded(&self, path: &BStr) -> bool {
        self.is_excluded_entry(path, false)
    }

    /// Like [`Excludes::is_excluded`], for a file or a directory.
    pub(crate) fn is_excluded_entry(&self, path: &BStr, is_dir: bool) -> bool {
        let case = gix::glob::pattern::Case::Sensitive;
        let matches = |candidate: &BStr, is_dir| {
            self.search
                .pattern_matching_relative_path(candidate, Some(is_dir), case)
                .is_some_and(|m| !m.pattern.is_negative())
        };
        path.char_indices()
            .filter(|(_, _, c)| *c == '/')
            .any(|(start, _, _)| matches(path[..start].as_bstr(), true))
            || matches(path, is_dir)
    }

    /// Whether `path` (a directory when `is_dir`) is, or lies in, a directory that is never
    /// staged: one of [`DEFAULT_EXCLUDED_DIRS`], not a pattern of the user's, which may name
    /// anything (`secrets/`).
    pub(crate) fn is_never_staged(path: &BStr, is_dir: bool) -> bool {
        let mut parts: Vec<&[u8]> = path.split_str("/").filter(|p| !p.is_empty()).collect();
        if !is_dir {
            parts.pop();
        }
        parts.iter().any(|part| {
            DEFAULT_EXCLUDED_DIRS
                .iter()
                .any(|dir| dir.as_bytes() == *part)
        })
    }

    /// Whether the directory at `dir`, relative to the work tree, is left out with all it holds.
    pub(crate) fn is_excluded_dir(&self, dir: &[u8]) -> bool {
        self.is_excluded_entry(dir.as_bstr(), true)
    }
}

impl super::Repo {
    /// The exclude and attribute files outside the work tree that decide what a snapshot
    /// takes: `info/exclude`, `info/attributes`, and `core.excludesFile` and
    /// `core.attributesFile` (else their defaults under the XDG config directory).
    pub(crate) fn rule_files(&self) -> Vec<std::path::PathBuf> {
        let info = self.common_dir().join("info");
        let mut files = vec![info.join("exclude"), info.join("attributes")];
        let config = self.repo.config_snapshot();
        for (key, default) in [
            ("core.excludesFile", "ignore"),
            ("core.attributesFile", "attributes"),
        ] {
            let configured = config.trusted_path(key).ok().flatten();
            files.extend(configured.or_else(|| {
                gix::path::env::xdg_config(default, &mut |name| std::env::var_os(name))
            }));
        }
        files
    }
}
