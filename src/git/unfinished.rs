//! What a killed worktree add leaves behind, and clearing it. An add first reserves an
//! administrative directory under `<common dir>/worktrees/`, records the worktree's path in
//! it, locks it as `initializing`, checks the files out and writes the index, and only then
//! drops the lock. A kill before the path is recorded leaves a directory git cannot use (and
//! that makes every later add fail); a kill after it leaves a registration still locked as
//! `initializing` over a partial checkout. Neither holds work: the files are a partial copy of
//! a commit that git still has.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::refs::STALE_LOCK;
use super::{Repo, Worktree};
use crate::error::{Error, Result};
use crate::process::is_alive;

const INITIALIZING: &str = "initializing";
const OWNER: &str = "(git-fabro pid ";

/// A registration whose checkout did not complete.
#[derive(Clone, Debug)]
pub struct Unfinished {
    /// The git-fabro process that was adding it, when it got as far as saying so.
    pub owner: Option<u32>,
    /// How long ago its lock was written.
    pub age: Duration,
}

impl Unfinished {
    pub(super) fn read(admin_dir: &Path) -> Option<Unfinished> {
        let lock = admin_dir.join("locked");
        let reason = std::fs::read_to_string(&lock).ok()?;
        let reason = reason.strip_prefix(INITIALIZING)?;
        let owner = reason
            .trim()
            .strip_prefix(OWNER)
            .and_then(|rest| rest.strip_suffix(')'))
            .and_then(|pid| pid.parse().ok());
        Some(Unfinished {
            owner,
            age: age_of(&lock),
        })
    }

    /// Whether no process is adding it any more. A lock without an owner is git-fabro's only
    /// for the moment before it writes its pid (or git's own add), so age decides for it.
    pub fn is_abandoned(&self) -> bool {
        match self.owner {
            Some(pid) => !is_alive(pid),
            None => self.age >= STALE_LOCK,
        }
    }
}

/// The lock reason of a checkout under way in process `pid`.
pub(super) fn initializing_by(pid: u32) -> String {
    format!("{INITIALIZING} {OWNER}{pid})\n")
}

/// An administrative directory left by an add killed before it recorded the worktree's path.
#[derive(Clone, Debug)]
pub struct BrokenRegistration {
    pub admin_dir: PathBuf,
    pub age: Duration,
}

impl Repo {
    /// Administrative directories without a recorded worktree path or an index: what an add
    /// killed in its first steps leaves. One with an index belonged to a real worktree and is
    /// left for a person to look at.
    pub fn broken_worktree_registrations(&self) -> Vec<BrokenRegistration> {
        let Ok(entries) = std::fs::read_dir(self.common_dir().join("worktrees")) else {
            return Vec::new();
        };
        entries
            .flatten()
            .map(|entry| entry.path())
            .filter(|dir| dir.is_dir())
            .filter(|dir| {
                let has_path = std::fs::read_to_string(dir.join("gitdir"))
                    .is_ok_and(|text| !text.trim().is_empty());
                !has_path && !dir.join("index").exists()
            })
            .map(|admin_dir| BrokenRegistration {
                age: age_of(&admin_dir),
                admin_dir,
            })
            .collect()
    }

    pub fn remove_broken_registration(&self, broken: &BrokenRegistration) -> Result<()> {
        std::fs::remove_dir_all(&broken.admin_dir).map_err(Error::io(format!(
            "cannot remove {}",
            broken.admin_dir.display()
        )))
    }

    /// Removes broken registrations old enough that no add can still be writing them, so a
    /// kill in an earlier add's first steps does not make this one fail.
    pub(super) fn clear_abandoned_registrations(&self) {
        for broken in self.broken_worktree_registrations() {
            if broken.age >= STALE_LOCK {
                let _ = self.remove_broken_registration(&broken);
            }
        }
    }

    /// Adds what is in the way to an add's error, when a killed add left it.
    pub(super) fn explain_add_failure(&self, err: Error) -> Error {
        match self.broken_worktree_registrations().first() {
            Some(broken) => Error::Failed(format!(
                "{err}; {} was left by an interrupted start or resume: `git fabro fsck --repair` removes it",
                broken.admin_dir.display()
            )),
            None => err,
        }
    }

    /// Removes an unfinished worktree whose add is over: its registration, and its directory
    /// when that is the partial checkout the registration made.
    pub(super) fn discard_unfinished(
        &self,
        worktree: &Worktree,
        unfinished: &Unfinished,
    ) -> Result<()> {
        if !unfinished.is_abandoned() {
            let who = unfinished.owner.map_or_else(
                || "another process".to_owned(),
                |pid| format!("process {pid}"),
            );
            return Err(Error::Conflict(format!(
                "the worktree at {} is being checked out by {who}; retry when it is done",
                worktree.path.display()
            )));
        }
        let dot_git = worktree.path.join(".git");
        if links_back(&dot_git, &worktree.admin_dir) {
            std::fs::remove_dir_all(&worktree.path).map_err(Error::io(format!(
                "cannot remove {}",
                worktree.path.display()
            )))?;
        } else if !dot_git.exists() {
            // The add stopped before linking it: only an empty directory can be its own.
            let _ = std::fs::remove_dir(&worktree.path);
        }
        std::fs::remove_dir_all(&worktree.admin_dir).map_err(Error::io(format!(
            "cannot remove {}",
            worktree.admin_dir.display()
        )))
    }
}

/// Whether the `.git` file at `dot_git` points at `admin_dir`.
fn links_back(dot_git: &Path, admin_dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(dot_git) else {
        return false;
    };
    let Some(target) = text.strip_prefix("gitdir:").map(str::trim) else {
        return false;
    };
    let target = dot_git
        .parent()
        .map_or_else(|| PathBuf::from(target), |dir| dir.join(target));
    match (
        std::fs::canonicalize(target),
        std::fs::canonicalize(admin_dir),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn age_of(path: &Path) -> Duration {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .unwrap_or_default()
}
