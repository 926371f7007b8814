//! Removing a run's worktree only when nothing in it would be lost: every file there must be
//! byte-identical in the run's final commit, ignored, excluded and oversized files included,
//! since a checkpoint never took those. `finish` and `gc` both go through here, and so does
//! the worktree of a parallel branch (the engine after a pass, `gc`, `fsck`): one a kill left
//! mid-branch holds files no commit has, exactly like a run's worktree.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::format::run_id::RunId;
use crate::git::{ObjectId, Repo, UnrecordedFile};
use crate::run;
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

/// The worktree of one of a run's parallel branches, and the commit its branch holds.
pub struct BranchWorktree {
    pub path: PathBuf,
    pub tip: ObjectId,
}

/// The worktrees the run's parallel branches still have on disk: left by a kill during a
/// fan-out, or kept because they held work.
pub fn branch_worktrees(repo: &Repo, id: &RunId) -> Result<Vec<BranchWorktree>> {
    let prefix = run::parallel_branches_prefix(id);
    let mut found = Vec::new();
    for worktree in repo.worktrees()? {
        let Some(branch) = worktree.branch.filter(|b| b.starts_with(&prefix)) else {
            continue;
        };
        if !worktree.exists || worktree.unfinished.is_some() {
            continue; // nothing checked out there, so nothing to lose
        }
        if let Some(tip) = repo.ref_target(&branch)? {
            found.push(BranchWorktree {
                path: worktree.path,
                tip,
            });
        }
    }
    Ok(found)
}

/// The run's parallel-branch worktrees that hold what their branch's commit does not.
pub fn branch_work(repo: &Repo, id: &RunId, config: &Config) -> Result<Vec<(PathBuf, Kept)>> {
    let mut held = Vec::new();
    for worktree in branch_worktrees(repo, id)? {
        let Some(workspace) = linked(&worktree.path) else {
            continue;
        };
        if let Some(files) = unrecorded(&workspace, worktree.tip, config)?
            && !files.is_empty()
        {
            held.push((worktree.path, Kept::new(files)));
        }
    }
    Ok(held)
}

/// A linked worktree as a workspace, unless it vanished (another command removed it).
pub fn linked(path: &Path) -> Option<Workspace> {
    Some(Workspace::linked(Repo::open(path).ok()?, path.to_owned()))
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
