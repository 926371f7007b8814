//! Removing a run's worktree only when nothing in it would be lost: every file there must be
//! byte-identical in the run's final commit, ignored, excluded and oversized files included,
//! since a checkpoint never took those. `finish` and `gc` both go through here.

use std::path::Path;

use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::git::{ObjectId, Repo, UnrecordedFile};
use crate::run::workspace::Workspace;

/// How many unrecorded paths a message or a JSON answer names; the count says how many more.
pub const SHOWN: usize = 10;

/// What a removal found in the worktree when it kept it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Kept {
    /// The first [`SHOWN`] paths that the final commit does not hold.
    pub unrecorded_files: Vec<UnrecordedFile>,
    /// How many there are in all.
    pub unrecorded_count: usize,
}

impl Kept {
    pub fn new(mut files: Vec<UnrecordedFile>) -> Kept {
        let count = files.len();
        files.truncate(SHOWN);
        Kept {
            unrecorded_files: files,
            unrecorded_count: count,
        }
    }

    /// `3 files are not in the final commit: a (excluded), b (ignored), c (too large)`.
    pub fn describe(&self) -> String {
        let shown = 5.min(self.unrecorded_files.len());
        let mut names: Vec<String> = self.unrecorded_files[..shown]
            .iter()
            .map(|f| format!("{} ({})", f.path, f.why.as_str()))
            .collect();
        if self.unrecorded_count > shown {
            names.push(format!("and {} more", self.unrecorded_count - shown));
        }
        let (count, verb) = match self.unrecorded_count {
            1 => ("1 path".to_owned(), "is"),
            n => (format!("{n} paths"), "are"),
        };
        format!(
            "{count} there {verb} not in the run's final commit: {}",
            names.join(", ")
        )
    }
}

/// Whether the worktree went, or why it stayed.
pub enum Removal {
    Removed,
    Kept(Kept),
}

/// Removes the worktree of `workspace` when everything in it is byte-identical in `tip`.
/// A worktree that another process removed meanwhile counts as removed.
pub fn remove_if_clean(
    repo: &Repo,
    workspace: &Workspace,
    tip: ObjectId,
    config: &Config,
) -> Result<Removal> {
    match unrecorded(workspace, tip, config)? {
        None => Ok(Removal::Removed),
        Some(files) if !files.is_empty() => Ok(Removal::Kept(Kept::new(files))),
        Some(_) => {
            remove(repo, &workspace.path)?;
            Ok(Removal::Removed)
        }
    }
}

/// What the worktree holds that `tip` does not, or `None` when the worktree is gone, as when
/// another command removed it while this one looked.
pub fn unrecorded(
    workspace: &Workspace,
    tip: ObjectId,
    config: &Config,
) -> Result<Option<Vec<UnrecordedFile>>> {
    match workspace.unrecorded(tip, config) {
        _ if !workspace.path.exists() => Ok(None),
        Ok(files) => Ok(Some(files)),
        Err(err) => Err(err),
    }
}

/// Removes a worktree, tolerating one that a concurrent command removed first or is removing
/// now (its `.git` file, which makes the directory a worktree, is gone). The directory is
/// first renamed aside, so that a removal cut short leaves a registration without a directory
/// (which `gc` and `fsck --repair` prune) rather than a half-deleted worktree.
fn remove(repo: &Repo, path: &Path) -> Result<()> {
    let mut aside = path.as_os_str().to_owned();
    aside.push(".removing");
    let aside = std::path::PathBuf::from(aside);
    if std::fs::rename(path, &aside).is_err() {
        return match repo.remove_worktree(path) {
            Err(_) if !path.join(".git").exists() => Ok(()),
            other => Ok(other?),
        };
    }
    if let Err(err) = repo.remove_worktree(path)
        && repo.worktrees()?.iter().any(|w| w.path == path)
    {
        return Err(err.into());
    }
    match std::fs::remove_dir_all(&aside) {
        // A gc that collected the run meanwhile removes its run directory, and this worktree
        // inside it: what was asked is done.
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other.map_err(Error::io(format!("cannot remove {}", aside.display()))),
    }
}

/// The warning for a worktree kept at `path`.
pub fn kept_message(path: &Path, kept: &Kept) -> String {
    format!(
        "kept the worktree at {}: {}; checkpoint or move what you need, then remove it with `git worktree remove --force`",
        path.display(),
        kept.describe()
    )
}
