//! Linked worktrees: adding one on a run branch, finding them, removing them. All through
//! gix, so `git worktree list` sees exactly what git itself would have written. An add that
//! was killed leaves its registration locked as `initializing`, with the pid of the process
//! that added it: such a worktree is never handed out as finished (see `unfinished.rs`).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use gix::progress::Discard;

use super::flock::Flock;
use super::unfinished::{Unfinished, mark_initializing};
use super::{Identity, Repo, describe};
use crate::git::error::{Error, Result};

/// A registered linked worktree.
#[derive(Clone, Debug)]
pub(crate) struct Worktree {
    /// Where its files are checked out.
    pub path: PathBuf,
    /// The full name of the branch its `HEAD` points at, if attached.
    pub branch: Option<String>,
    /// Whether its directory still exists.
    pub exists: bool,
    /// Its administrative directory, `<common dir>/worktrees/<name>`.
    pub admin_dir: PathBuf,
    /// Set while its checkout is not complete: an add is under way, or was killed.
    pub unfinished: Option<Unfinished>,
}

impl Repo {
    /// Checks out the existing local `branch` (a full ref name) into a new worktree at `path`.
    /// `who` signs the new `HEAD`'s reflog entry when git has no committer identity configured.
    pub(crate) fn add_worktree(&self, path: &Path, branch: &str, who: &Identity) -> Result<()> {
        let name = gix::refs::FullName::try_from(branch)
            .map_err(|_| Error::Failed(format!("invalid branch name {branch:?}")))?;
        // gix reopens the new worktree with these options to write its HEAD reflog.
        let options = self.repo.open_options().clone().config_overrides([
            format!("gitoxide.committer.nameFallback={}", who.name),
            format!("gitoxide.committer.emailFallback={}", who.email),
        ]);
        let repo = gix::open_opts(self.repo.git_dir(), options)?;
        // gix reads every registration while it makes a new one, and fails on one another add
        // is writing at that moment: git-fabro's adds take turns until theirs is registered.
        let turn = self.worktree_add_turn()?;
        self.clear_abandoned_registrations();
        let _announcement = self.announce_add(path)?;
        let interrupt = AtomicBool::new(false);
        let failed = |err: gix::Error| {
            Error::Failed(format!(
                "cannot add a worktree at {}: {}",
                path.display(),
                describe(&err)
            ))
        };
        let prepared = repo
            .prepare_add_worktree(path, gix::worktree::add::Head::Attached(name), &interrupt)
            .map_err(|err| self.explain_add_failure(failed(err)))?;
        // Until the checkout completes, the lock names this process, so that whoever finds the
        // registration after a kill can tell an abandoned checkout from one under way.
        mark_initializing(prepared.repo().git_dir(), std::process::id())?;
        drop(turn);
        prepared.checkout(Discard, &interrupt).map_err(failed)?;
        Ok(())
    }

    /// Waits for this process's turn to register a worktree (an advisory lock the kernel lets
    /// go if its holder dies), up to a bound.
    fn worktree_add_turn(&self) -> Result<Flock> {
        const WAIT: Duration = Duration::from_secs(10);
        let path = self.common_dir().join("fabro").join("worktree-add");
        Flock::acquire_making_dir(&path, WAIT)
            .map_err(Error::io(format!("cannot lock {}", path.display())))?
            .ok_or_else(|| {
                Error::Busy(format!(
                    "another git-fabro process has been adding a worktree for {} s ({} is locked); retry when it is done",
                    WAIT.as_secs(),
                    path.display()
                ))
            })
    }

    /// Removes the linked worktree at `path` and its registration, discarding its files. An
    /// unfinished one is removed only when the add that left it is over.
    pub(crate) fn remove_worktree(&self, path: &Path) -> Result<()> {
        if let Some(worktree) = self.worktrees()?.into_iter().find(|w| w.path == path) {
            if let Some(unfinished) = &worktree.unfinished {
                return self.discard_unfinished(&worktree, unfinished);
            }
            // A locked one is left to gix, which refuses it as git does.
            if !worktree.exists && !worktree.admin_dir.join("locked").exists() {
                return forget_registration(&worktree.admin_dir).map_err(Error::io(format!(
                    "cannot remove the registration of the worktree at {}",
                    path.display()
                )));
            }
        }
        let removed =
            self.repo
                .remove_worktree(path, gix::worktree::remove::Force::DiscardChanges, Discard);
        match removed {
            Ok(()) => Ok(()),
            // Another process (a finish racing a gc) removed it meanwhile: what was asked is done.
            Err(_) if !path.exists() && !self.worktrees()?.iter().any(|w| w.path == path) => Ok(()),
            Err(err) => Err(Error::Failed(format!(
                "cannot remove the worktree at {}: {}",
                path.display(),
                describe(&err)
            ))),
        }
    }

    /// Every linked worktree of the repository, with the branch each has checked out.
    pub(crate) fn worktrees(&self) -> Result<Vec<Worktree>> {
        Ok(self
            .repo
            .worktrees()?
            .into_iter()
            .filter_map(|proxy| self.worktree(&proxy, checked_out(proxy.git_dir())))
            .collect())
    }

    /// The path and checked-out branch of every linked worktree that exists: what a listing of
    /// runs shows, without reading what [`Repo::worktrees`] reads to tell unfinished ones.
    pub(crate) fn worktree_branches(&self) -> Result<Vec<(String, PathBuf)>> {
        let mut out = Vec::new();
        for proxy in self.repo.worktrees()? {
            if let Some(branch) = checked_out(proxy.git_dir())
                && let Ok(path) = proxy.base()
                && path.is_dir()
            {
                out.push((branch, path));
            }
        }
        Ok(out)
    }

    /// The linked worktree that has `branch` checked out. Only that one is read whole: a
    /// command about one run costs one `HEAD` read per other registration, however many runs
    /// have worktrees.
    pub(crate) fn worktree_on(&self, branch: &str) -> Result<Option<Worktree>> {
        Ok(self.repo.worktrees()?.into_iter().find_map(|proxy| {
            let head = checked_out(proxy.git_dir()).filter(|head| head == branch)?;
            self.worktree(&proxy, Some(head))
        }))
    }

    /// The registration `proxy` whose `HEAD` has `branch` checked out; `None` when its
    /// `gitdir` file cannot be read.
    fn worktree(
        &self,
        proxy: &gix::worktree::Proxy<'_>,
        branch: Option<String>,
    ) -> Option<Worktree> {
        let path = proxy.base().ok()?;
        let admin_dir = proxy.git_dir().to_owned();
        Some(Worktree {
            exists: path.is_dir(),
            unfinished: Unfinished::read(self, &admin_dir, &path),
            path,
            branch,
            admin_dir,
        })
    }
}

/// The full name of the branch the work tree whose git dir is `git_dir` has checked out, if
/// attached.
pub(super) fn checked_out(git_dir: &Path) -> Option<String> {
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    head.strip_prefix("ref: ")
        .map(|name| name.trim().to_owned())
}

/// Removes the registration of a worktree whose directory is gone, so that a kill at any
/// moment leaves git a registration it reads whole, or none: git lists one only while its
/// `gitdir` file is there. The index goes first (the rest is then a registration like any
/// other whose directory is gone), `gitdir` next (what is left is one `fsck --repair`
/// clears as broken), and the directory last. Removing it in any order, as a recursive
/// removal does, could leave `gitdir` without `HEAD`, which `git fsck` reports as a detached
/// HEAD pointing at nothing.
fn forget_registration(admin_dir: &Path) -> std::io::Result<()> {
    let gone = |result: std::io::Result<()>| match result {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err),
        _ => Ok(()),
    };
    gone(std::fs::remove_file(admin_dir.join("index")))?;
    crate::failpoint::reach("worktree:index-forgotten");
    gone(std::fs::remove_file(admin_dir.join("gitdir")))?;
    crate::failpoint::reach("worktree:gitdir-forgotten");
    gone(std::fs::remove_dir_all(admin_dir))?;
    // Like git, `worktrees/` goes with its last registration.
    if let Some(worktrees) = admin_dir.parent() {
        let _ = std::fs::remove_dir(worktrees);
    }
    Ok(())
}
