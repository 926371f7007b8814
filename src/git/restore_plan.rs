//! Which of a restore's changes may touch the work tree. A restore may change a path only
//! when the recovery commit written before it holds what is there now, so that the printed
//! way back really gives everything back: ignored, excluded and oversize files are in no
//! commit, and nothing is ever written through a symlink or over a file that stands where
//! the target has a directory.

use std::collections::HashSet;
use std::path::Path;

use gix::bstr::{BStr, ByteSlice};
use serde::Serialize;

use super::{Excludes, PathAction, PathChange, Repo, SkippedFile};
use crate::error::{Error, Result};

/// A path a restore would have changed but leaves as it is, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LeftAlone {
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

/// What on disk keeps a path from being written: a leading component that is a symlink or
/// a file. `removed` are paths the restore removes before it writes anything.
pub(super) fn blocked_parent(root: &Path, path: &str, removed: &HashSet<&str>) -> Option<String> {
    let dirs = path.char_indices().filter(|(_, c)| *c == '/');
    for (at, _) in dirs {
        let dir = &path[..at];
        let Ok(meta) = std::fs::symlink_metadata(root.join(dir)) else {
            return None; // missing: created as a directory when written
        };
        if meta.is_dir() || removed.contains(dir) {
            continue;
        }
        return Some(if meta.file_type().is_symlink() {
            format!("{dir} is a symlink, which restore never writes through")
        } else {
            format!("{dir} is a file that no commit of the run holds")
        });
    }
    None
}

impl Repo {
    /// Splits `changes` into those a restore applies and the paths it leaves alone: excluded
    /// or oversize paths (`skipped` by the snapshot that the recovery commit holds), ignored
    /// paths the target would create, files the target would overwrite although no commit
    /// holds them, and paths below a symlink or a file.
    pub fn plan_restore(
        &self,
        changes: Vec<PathChange>,
        excludes: &Excludes,
        skipped: &[SkippedFile],
    ) -> Result<(Vec<PathChange>, Vec<LeftAlone>)> {
        let root = self
            .workdir()
            .ok_or_else(|| Error::Failed("the run has no work tree".into()))?
            .to_owned();
        let mut ignored = self.ignore_rules()?;
        let oversize: HashSet<&str> = skipped.iter().map(|s| s.path.as_str()).collect();
        let removed: HashSet<&str> = changes
            .iter()
            .filter(|c| c.action == PathAction::Remove)
            .map(|c| c.path.as_str())
            .collect();
        let mut left_alone = Vec::new();
        let mut kept = Vec::new();
        for change in &changes {
            let path = change.path.as_str();
            let reason = if excludes.is_excluded(path.as_bytes().as_bstr()) {
                Some("excluded from snapshots".to_owned())
            } else if oversize.contains(path) {
                Some("larger than max_file_size, so in no commit".to_owned())
            } else if let Some(reason) = blocked_parent(&root, path, &removed) {
                Some(reason)
            } else if change.action != PathAction::Recreate {
                None
            } else if ignored(path.as_bytes().as_bstr())? {
                Some("ignored".to_owned())
            } else if occupied(&root.join(path)) {
                Some("a file no commit of the run holds is there".to_owned())
            } else {
                None
            };
            match reason {
                Some(reason) => left_alone.push(LeftAlone::new(path, reason)),
                None => kept.push(change.clone()),
            }
        }
        Ok((kept, left_alone))
    }

    /// Whether git ignores a path of this work tree or a directory above it, by its
    /// `.gitignore` files, `info/exclude` and `core.excludesFile`.
    fn ignore_rules(&self) -> Result<impl FnMut(&BStr) -> Result<bool> + '_> {
        use gix::index::entry::Mode;
        let empty = gix::index::State::new(self.repo.object_hash());
        let mut stack = self
            .repo
            .excludes(
                &empty,
                None,
                gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
            )?
            .detach();
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
