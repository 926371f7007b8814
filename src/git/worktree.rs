//! Linked worktrees: adding one on a run branch, finding them, removing them. All through
//! gix, so `git worktree list` sees exactly what git itself would have written.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use gix::progress::Discard;

use super::{Identity, Repo, describe};
use crate::error::{Error, Result};

/// A registered linked worktree.
#[derive(Clone, Debug)]
pub struct Worktree {
    /// Where its files are checked out.
    pub path: PathBuf,
    /// The full name of the branch its `HEAD` points at, if attached.
    pub branch: Option<String>,
    /// Whether its directory still exists.
    pub exists: bool,
}

impl Repo {
    /// Checks out the existing local `branch` (a full ref name) into a new worktree at `path`.
    /// `who` signs the new `HEAD`'s reflog entry when git has no committer identity configured.
    pub fn add_worktree(&self, path: &Path, branch: &str, who: &Identity) -> Result<()> {
        let name = gix::refs::FullName::try_from(branch)
            .map_err(|_| Error::Failed(format!("invalid branch name {branch:?}")))?;
        // gix reopens the new worktree with these options to write its HEAD reflog.
        let options = self.repo.open_options().clone().config_overrides([
            format!("gitoxide.committer.nameFallback={}", who.name),
            format!("gitoxide.committer.emailFallback={}", who.email),
        ]);
        let repo = gix::open_opts(self.repo.git_dir(), options)?;
        let interrupt = AtomicBool::new(false);
        repo.add_worktree(
            path,
            gix::worktree::add::Head::Attached(name),
            Discard,
            &interrupt,
        )
        .map_err(|err| {
            Error::Failed(format!(
                "cannot add a worktree at {}: {}",
                path.display(),
                describe(&err)
            ))
        })?;
        Ok(())
    }

    /// Removes the linked worktree at `path` and its registration, discarding its files.
    pub fn remove_worktree(&self, path: &Path) -> Result<()> {
        self.repo
            .remove_worktree(path, gix::worktree::remove::Force::DiscardChanges, Discard)
            .map_err(|err| {
                Error::Failed(format!(
                    "cannot remove the worktree at {}: {}",
                    path.display(),
                    describe(&err)
                ))
            })
    }

    /// Every linked worktree of the repository, with the branch each has checked out.
    pub fn worktrees(&self) -> Result<Vec<Worktree>> {
        let mut out = Vec::new();
        for proxy in self.repo.worktrees()? {
            let Ok(path) = proxy.base() else { continue };
            let head = std::fs::read_to_string(proxy.git_dir().join("HEAD")).unwrap_or_default();
            let branch = head.strip_prefix("ref: ").map(|r| r.trim().to_owned());
            out.push(Worktree {
                exists: path.is_dir(),
                path,
                branch,
            });
        }
        Ok(out)
    }

    /// The linked worktree that has `branch` checked out.
    pub fn worktree_on(&self, branch: &str) -> Result<Option<Worktree>> {
        Ok(self
            .worktrees()?
            .into_iter()
            .find(|w| w.branch.as_deref() == Some(branch)))
    }
}
