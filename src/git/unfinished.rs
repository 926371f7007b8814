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
use crate::git::error::{Error, Result};
use crate::process::{is_alive, is_alive_since};

const INITIALIZING: &str = "initializing";
const LOCK: &str = "locked";
/// Where the lock naming the adding process is written before it is renamed over `locked`.
const STAGED_LOCK: &str = "locked.fabro";
const OWNER: &str = "(git-fabro pid ";

/// A registration whose checkout did not complete.
#[derive(Clone, Debug)]
pub(crate) struct Unfinished {
    /// The git-fabro process that was adding it, when it got as far as saying so.
    pub owner: Option<u32>,
    /// How long ago its lock was written.
    pub age: Duration,
}

impl Unfinished {
    /// The state of the registration in `admin_dir` for the worktree at `path`.
    pub(super) fn read(repo: &Repo, admin_dir: &Path, path: &Path) -> Option<Unfinished> {
        let lock = admin_dir.join(LOCK);
        let reason = std::fs::read_to_string(&lock).ok()?;
        let reason = reason.strip_prefix(INITIALIZING)?;
        let owner = reason
            .trim()
            .strip_prefix(OWNER)
            .and_then(|rest| rest.strip_suffix(')'))
            .and_then(|pid| pid.parse().ok())
            .or_else(|| repo.announced_adder(path));
        Some(Unfinished {
            owner,
            age: age_of(&lock),
        })
    }

    /// Whether no process is adding it any more (a live process that started after the lock
    /// was written only reuses the owner's pid). A lock without a known owner is git's own
    /// add, so age decides for it.
    pub(crate) fn is_abandoned(&self) -> bool {
        match self.owner {
            Some(pid) => {
                let written = std::time::SystemTime::now().checked_sub(self.age);
                !is_alive_since(pid, written.unwrap_or(std::time::UNIX_EPOCH))
            }
            None => self.age >= STALE_LOCK,
        }
    }
}

/// Names process `pid` in the `initializing` lock of the registration in `admin_dir`. The new
/// lock is written beside the old one and renamed over it: rewriting the file in place would
/// leave it empty for a moment, and a kill then would leave an unfinished checkout whose lock
/// no longer says `initializing`, so it would pass for a finished worktree with every file
/// missing. The rename leaves git's `initializing` lock or this one, whole.
pub(super) fn mark_initializing(admin_dir: &Path, pid: u32) -> Result<()> {
    let lock = admin_dir.join(LOCK);
    let staged = admin_dir.join(STAGED_LOCK);
    std::fs::write(&staged, format!("{INITIALIZING} {OWNER}{pid})\n"))
        .map_err(Error::io(format!("cannot write {}", staged.display())))?;
    std::fs::rename(&staged, &lock).map_err(Error::io(format!(
        "cannot rename {} to {}",
        staged.display(),
        lock.display()
    )))
}

/// An administrative directory left by an add killed before it recorded the worktree's path.
#[derive(Clone, Debug)]
pub(crate) struct BrokenRegistration {
    pub admin_dir: PathBuf,
    pub age: Duration,
}

/// An add under way in this process, announced in `<common dir>/fabro/adding/<pid>` before
/// gix reserves anything, so that a registration it leaves has a known owner from its first
/// moment. Dropping it withdraws the announcement.
pub(super) struct AddAnnouncement(PathBuf);

impl Drop for AddAnnouncement {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl Repo {
    fn announcements(&self) -> PathBuf {
        self.common_dir().join("fabro").join("adding")
    }

    pub(super) fn announce_add(&self, path: &Path) -> Result<AddAnnouncement> {
        let dir = self.announcements();
        std::fs::create_dir_all(&dir)
            .map_err(Error::io(format!("cannot create {}", dir.display())))?;
        let file = dir.join(std::process::id().to_string());
        std::fs::write(&file, path.as_os_str().as_encoded_bytes())
            .map_err(Error::io(format!("cannot write {}", file.display())))?;
        Ok(AddAnnouncement(file))
    }

    /// The process that announced an add at `path`; announcements of dead processes are removed.
    fn announced_adder(&self, path: &Path) -> Option<u32> {
        let mut owner = None;
        for entry in std::fs::read_dir(self.announcements()).ok()?.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            let announced = std::fs::read(entry.path()).unwrap_or_default();
            if announced == path.as_os_str().as_encoded_bytes() {
                owner = Some(pid);
            } else if !is_alive(pid) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        owner
    }

    fn adds_under_way(&self) -> bool {
        let Ok(entries) = std::fs::read_dir(self.announcements()) else {
            return false;
        };
        entries
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
            .any(is_alive)
    }

    /// Administrative directories without a recorded worktree path or an index: what an add
    /// killed in its first steps leaves. One with an index belonged to a real worktree and is
    /// left for a person to look at.
    pub(crate) fn broken_worktree_registrations(&self) -> Vec<BrokenRegistration> {
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

    pub(crate) fn remove_broken_registration(&self, broken: &BrokenRegistration) -> Result<()> {
        std::fs::remove_dir_all(&broken.admin_dir).map_err(Error::io(format!(
            "cannot remove {}",
            broken.admin_dir.display()
        )))
    }

    /// Removes broken registrations no add can still be writing (none of git-fabro's is under
    /// way, or they are old), so a kill in an earlier add's first steps does not make this one
    /// fail.
    pub(super) fn clear_abandoned_registrations(&self) {
        let quiet = !self.adds_under_way();
        for broken in self.broken_worktree_registrations() {
            if quiet || broken.age >= STALE_LOCK {
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
            return Err(Error::Busy(format!(
                "the worktree at {} is being checked out by {who}; retry when it is done",
                worktree.path.display()
            )));
        }
        let dot_git = worktree.path.join(".git");
        match link_target(&dot_git) {
            Some(target) if same_path(&target, &worktree.admin_dir) => {
                std::fs::remove_dir_all(&worktree.path).map_err(Error::io(format!(
                    "cannot remove {}",
                    worktree.path.display()
                )))?;
            }
            Some(_) => {} // another worktree's files now: not this registration's to remove
            None => {
                // The add stopped while linking, before any checkout: an empty `.git` is all
                // it wrote, and only an empty directory can be its own.
                if std::fs::metadata(&dot_git).is_ok_and(|m| m.is_file() && m.len() == 0) {
                    let _ = std::fs::remove_file(&dot_git);
                }
                let _ = std::fs::remove_dir(&worktree.path);
            }
        }
        std::fs::remove_dir_all(&worktree.admin_dir).map_err(Error::io(format!(
            "cannot remove {}",
            worktree.admin_dir.display()
        )))
    }
}

/// Where the `.git` file at `dot_git` points, if it is a complete link.
fn link_target(dot_git: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot_git).ok()?;
    let target = text.strip_prefix("gitdir:")?.trim();
    Some(
        dot_git
            .parent()
            .map_or_else(|| PathBuf::from(target), |dir| dir.join(target)),
    )
}

fn same_path(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn age_of(path: &Path) -> Duration {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .unwrap_or_default()
}
