//! What removing a work tree would destroy: every path whose content on disk is not
//! byte-identical in a given commit. That is more than a snapshot sees, because a snapshot
//! leaves out ignored and excluded paths, files over the size limit and nested repositories,
//! and all of those are lost just the same when the directory goes.

use std::collections::HashSet;
use std::path::Path;

use gix::bstr::{BString, ByteSlice};
use gix::status::plumbing::index_as_worktree::{Change, EntryStatus};
use serde::Serialize;

use super::observe::{Observed, Walk};
use super::snapshot::Edit;
use super::{Excludes, ObjectId, Repo};
use crate::git::error::Result;

/// Why a path on disk is not in the commit as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Unrecorded {
    /// A tracked file changed or removed since the commit.
    Changed,
    /// A change `git add` staged that the commit does not hold.
    Staged,
    /// A new file the next checkpoint would take.
    Untracked,
    /// Ignored by `.gitignore`, `info/exclude` or `core.excludesFile`.
    Ignored,
    /// Matched by the run's `exclude_globs` or a directory never staged.
    Excluded,
    /// Larger than `max_file_size`.
    TooLarge,
    /// A repository inside the work tree.
    NestedRepository,
}

impl Unrecorded {
    pub fn as_str(self) -> &'static str {
        match self {
            Unrecorded::Changed => "changed",
            Unrecorded::Staged => "staged",
            Unrecorded::Untracked => "untracked",
            Unrecorded::Ignored => "ignored",
            Unrecorded::Excluded => "excluded",
            Unrecorded::TooLarge => "too large",
            Unrecorded::NestedRepository => "nested repository",
        }
    }
}

/// A path of the work tree whose content the commit does not hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct UnrecordedFile {
    pub path: String,
    pub why: Unrecorded,
}

impl Repo {
    /// Every path of this work tree that is not byte-identical in `commit`, checked against
    /// `index` (a private index of a run in place) or the work tree's own, except ignored
    /// `build_folders` (see `build_output.rs`). Empty means the work tree can be removed
    /// without losing anything a build cannot make again.
    pub(crate) fn unrecorded(
        &self,
        commit: ObjectId,
        index: Option<&Path>,
        excludes: &Excludes,
        max_file_size: u64,
        build_folders: &[String],
    ) -> Result<Vec<UnrecordedFile>> {
        let tree = self.commit_tree(commit)?;
        let index = self.index_for(index, tree)?;
        let workdir = self.workdir().map(Path::to_owned).unwrap_or_default();
        let on_disk = |path: &BString| workdir.join(path.to_str_lossy().as_ref());
        let too_big = |path: &BString| {
            std::fs::symlink_metadata(on_disk(path)).is_ok_and(|m| m.len() > max_file_size)
        };
        let mut found = Vec::new();
        let mut add = |path: BString, why| {
            found.push(UnrecordedFile {
                path: path.to_str_lossy().into_owned(),
                why,
            });
        };
        // No stamp is trusted here: this check decides whether files are deleted. A staged
        // entry that the commit's parent holds as it is loses nothing: it is what a checkpoint
        // killed before writing the index leaves, the index of the run's previous commit.
        let staged = self.index_changes(tree, &index, &[])?;
        let index_is_commit = staged.is_empty();
        if !index_is_commit {
            for path in self.unlike_parent(commit, &index, staged)? {
                add(path, Unrecorded::Staged);
            }
        }
        // The files are compared with the commit itself: against an index that holds something
        // else, a file as the commit has it would look changed.
        let index = if index_is_commit {
            index
        } else {
            self.repo.index_from_tree(&tree)?
        };
        for item in self.observe_worktree(&index, excludes, &[], Walk::Everything)? {
            match item {
                Observed::Tracked { path, status, .. } => match status {
                    EntryStatus::NeedsUpdate(_)
                    | EntryStatus::Change(Change::SubmoduleModification(_))
                    | EntryStatus::Change(Change::Modification {
                        executable_bit_changed: false,
                        content_change: None,
                        ..
                    }) => {}
                    _ if excludes.is_excluded(path.as_ref()) => add(path, Unrecorded::Excluded),
                    _ if too_big(&path) => add(path, Unrecorded::TooLarge),
                    _ => add(path, Unrecorded::Changed),
                },
                Observed::Untracked { path } if too_big(&path) => add(path, Unrecorded::TooLarge),
                Observed::Untracked { path } => add(path, Unrecorded::Untracked),
                Observed::Repository { path } => add(path, Unrecorded::NestedRepository),
                Observed::Ignored { path, is_dir } => {
                    if is_dir && !holds_files(&on_disk(&path)) {
                        continue; // an empty directory holds nothing to lose
                    }
                    // Build output git ignores is made again by the next build, and what is
                    // never staged no checkpoint would hold: losing either loses nothing,
                    // unless a repository lies inside (a package cloned into `node_modules/`,
                    // `pip install -e git+...` in `.venv/src/`): no build makes its commits
                    // and changes again.
                    if Excludes::is_never_staged(path.as_ref(), is_dir)
                        || self.is_build_output(path.as_ref(), build_folders)?
                    {
                        for inside in repositories_below(&on_disk(&path), &path) {
                            add(inside, Unrecorded::NestedRepository);
                        }
                        continue;
                    }
                    let why = if excludes.is_excluded_entry(path.as_ref(), is_dir) {
                        Unrecorded::Excluded
                    } else {
                        Unrecorded::Ignored
                    };
                    // Named as `git status` names a directory it lists whole.
                    let mut path = path;
                    if is_dir {
                        path.push(b'/');
                    }
                    add(path, why);
                }
            }
        }
        found.sort_by(|a, b| a.path.cmp(&b.path));
        found.dedup_by(|a, b| a.path == b.path);
        Ok(found)
    }

    /// The `staged` paths whose entry in `index` the first parent of `commit` does not hold
    /// either (all of them for a first commit).
    fn unlike_parent(
        &self,
        commit: ObjectId,
        index: &gix::index::File,
        staged: Vec<Edit>,
    ) -> Result<Vec<BString>> {
        let Some(parent) = self.commit_info(commit)?.first_parent else {
            return Ok(staged.into_iter().map(|(path, _)| path).collect());
        };
        let changes = self.index_changes(self.commit_tree(parent)?, index, &[])?;
        let unlike: HashSet<BString> = changes.into_iter().map(|(path, _)| path).collect();
        Ok(staged
            .into_iter()
            .map(|(path, _)| path)
            .filter(|path| unlike.contains(path))
            .collect())
    }
}

/// The repositories (folders holding a `.git` directory or file) at or below `dir`, whose
/// path in the work tree is `rel`, as `git status` names a directory: `node_modules/lib/`.
/// Links are not followed: removing one deletes nothing it points to.
fn repositories_below(dir: &Path, rel: &BString) -> Vec<BString> {
    let mut found = Vec::new();
    let mut pending = vec![(dir.to_owned(), rel.clone())];
    while let Some((dir, rel)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let entries: Vec<_> = entries.flatten().collect();
        // Seen in the listing the walk reads anyway: no look-up per folder.
        if entries.iter().any(|entry| entry.file_name() == ".git") {
            let mut path = rel;
            path.push(b'/');
            found.push(path);
            continue;
        }
        for entry in entries {
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                let mut path = rel.clone();
                path.push(b'/');
                path.extend_from_slice(entry.file_name().as_encoded_bytes());
                pending.push((entry.path(), path));
            }
        }
    }
    found
}

/// Whether anything but directories lies below `dir`; stops at the first such entry.
fn holds_files(dir: &Path) -> bool {
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return true; // unreadable: assume it holds something
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => pending.push(entry.path()),
                _ => return true,
            }
        }
    }
    false
}
