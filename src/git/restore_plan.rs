//! Which of a restore's changes may touch the work tree. A restore may change a path only
//! when the recovery commit written before it holds what is there now, so that the printed
//! way back really gives everything back: ignored, excluded and oversize files are in no
//! commit, and nothing is ever written through a symlink or over a file that stands where
//! the target has a directory.

use std::collections::HashSet;
use std::path::Path;

use gix::bstr::{BStr, ByteSlice};
use serde::Serialize;

use super::{Excludes, ObjectId, PathAction, PathChange, Repo, SkippedFile};
use crate::git::error::{Error, Result};

/// A path a restore would have changed but leaves as it is, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct LeftAlone {
    pub path: String,
    pub reason: String,
}

impl LeftAlone {
    pub(super) fn new(path: &str, reason: impl Into<String>) -> LeftAlone {
        LeftAlone {
            path: path.to_owned(),
            reason: reason.into(),
        }
    }
}

/// What stands on disk in the leading directories of a path a restore would write.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Leading {
    /// Directories, or nothing yet: the path can be written.
    Clear,
    /// A symlink or file the restore removes first: nothing below it is there to keep.
    Removed,
    /// A symlink (never written through) or a file no commit holds.
    Blocked(String),
}

/// What stands in the leading directories of `path`; `removed` are paths the restore
/// removes before it writes anything.
pub(super) fn leading(root: &Path, path: &BStr, removed: &HashSet<&BStr>) -> Leading {
    let dirs = path.iter().enumerate().filter(|(_, b)| **b == b'/');
    for (at, _) in dirs {
        let dir = path[..at].as_bstr();
        let Ok(dir_path) = super::fs_path(dir) else {
            return Leading::Blocked(format!("{dir} cannot be a directory name on this system"));
        };
        let Ok(meta) = std::fs::symlink_metadata(root.join(dir_path)) else {
            return Leading::Clear; // missing: created as a directory when written
        };
        if meta.is_dir() {
            continue;
        }
        if removed.contains(dir) {
            return Leading::Removed;
        }
        return Leading::Blocked(if meta.file_type().is_symlink() {
            format!("{dir} is a symlink, which restore never writes through")
        } else {
            format!("{dir} is a file that no commit of the run holds")
        });
    }
    Leading::Clear
}

impl Repo {
    /// Splits `changes` (towards tree `target`) into those a restore applies and the paths
    /// it leaves alone: excluded or oversize paths (`skipped` by the snapshot that the
    /// recovery commit holds), paths ignored now that the target would create, paths the
    /// target's own ignore rules cover that it would remove, files the target would
    /// overwrite although no commit holds them, and paths below a symlink or a file.
    pub(crate) fn plan_restore(
        &self,
        changes: Vec<PathChange>,
        target: ObjectId,
        excludes: &Excludes,
        skipped: &[SkippedFile],
    ) -> Result<(Vec<PathChange>, Vec<LeftAlone>)> {
        let root = self
            .workdir()
            .ok_or_else(|| Error::Failed("the run has no work tree".into()))?
            .to_owned();
        let mut ignored_now = self.ignore_rules(None)?;
        // A restore that brings back an older `.gitignore` must not remove the files the
        // target ignores, such as a `.env` that became visible once the restore un-ignored it.
        let any_removal = changes.iter().any(|c| c.action == PathAction::Remove);
        let mut ignored_by_target = if any_removal {
            Some(self.ignore_rules(Some(target))?)
        } else {
            None
        };
        let oversize: HashSet<&str> = skipped.iter().map(|s| s.path.as_str()).collect();
        let removed: HashSet<&BStr> = changes
            .iter()
            .filter(|c| c.action == PathAction::Remove)
            .map(|c| c.raw.as_bstr())
            .collect();
        let mut left_alone = Vec::new();
        let mut kept = Vec::new();
        for change in &changes {
            let path = change.raw.as_bstr();
            let reason = if excludes.is_excluded(path) {
                Some("excluded from snapshots".to_owned())
            } else if oversize.contains(change.path.as_str()) {
                Some("larger than max_file_size, so in no commit".to_owned())
            } else if let Leading::Blocked(reason) = leading(&root, path, &removed) {
                Some(reason)
            } else if change.action == PathAction::Restore {
                None
            } else if change.action == PathAction::Remove {
                let ignored = match ignored_by_target.as_mut() {
                    Some(ignored) => ignored(path)?,
                    None => false,
                };
                ignored.then(|| "ignored by the target's ignore rules".to_owned())
            } else if ignored_now(path)? {
                Some("ignored".to_owned())
            } else if leading(&root, path, &removed) == Leading::Clear
                && occupied(&change.on_disk(&root)?)
            {
                Some("a file no commit of the run holds is there".to_owned())
            } else {
                None
            };
            match reason {
                Some(reason) => left_alone.push(LeftAlone::new(&change.path, reason)),
                None => kept.push(change.clone()),
            }
        }
        Ok((kept, left_alone))
    }

    /// Whether git ignores a path or a directory above it, by `info/exclude`,
    /// `core.excludesFile` and the `.gitignore` files of this work tree, or of tree `tree`.
    fn ignore_rules(
        &self,
        tree: Option<ObjectId>,
    ) -> Result<impl FnMut(&BStr) -> Result<bool> + '_> {
        use gix::index::entry::Mode;
        use gix::worktree::stack::state::ignore::Source;
        let (index, source) = match tree {
            Some(tree) => {
                // An index refuses the names git's checkout refuses: say which, and where.
                if let Some(entry) = self.find_unsafe_entry(tree, &mut HashSet::new())? {
                    return Err(entry.into_error(tree));
                }
                (self.repo.index_from_tree(&tree)?, Source::IdMapping)
            }
            None => (
                gix::index::File::from_state(
                    gix::index::State::new(self.repo.object_hash()),
                    self.repo.index_path(),
                ),
                Source::WorktreeThenIdMappingIfNotSkipped,
            ),
        };
        let mut stack = self.repo.excludes(&index, None, source)?.detach();
        let objects = self.repo.objects.clone();
        Ok(move |path: &BStr| -> Result<bool> {
            let dirs = path.char_indices().filter(|(_, _, c)| *c == '/');
            let candidates = dirs
                .map(|(at, _, _)| (&path[..at], Mode::DIR))
                .chain(std::iter::once((path, Mode::FILE)));
            for (candidate, mode) in candidates {
                let platform = stack
                    .at_entry(candidate, Some(mode), &objects)
                    .map_err(|err| Error::Failed(format!("cannot read the ignore rules: {err}")))?;
                if platform.is_excluded() {
                    return Ok(true);
                }
            }
            Ok(false)
        })
    }
}

/// Whether something other than an empty directory stands at `path` (empty directories are
/// not git's to keep; one that is not empty may yet be emptied by the restore's removals).
fn occupied(path: &Path) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => false,
        Ok(_) => true,
        Err(_) => false,
    }
}
