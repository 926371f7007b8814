//! Whether deleting a branch would lose anything: where it is checked out, and whether its
//! commits are reachable from anything else. Deletions of run branches ask both first.

use std::path::{Path, PathBuf};

use super::worktree::checked_out;
use super::{ObjectId, Repo};
use crate::git::error::{Error, Result};

impl Repo {
    /// Every work tree, the main one included, that has `branch` (a full ref name) checked
    /// out or is rebasing or bisecting it: git itself refuses to delete such a branch.
    pub(crate) fn checkouts_of(&self, branch: &str) -> Result<Vec<PathBuf>> {
        let mut found = Vec::new();
        if holds_branch(&self.common_dir(), branch) {
            found.push(self.main_path());
        }
        for proxy in self.repo.worktrees()? {
            if holds_branch(proxy.git_dir(), branch) {
                found.push(proxy.base().unwrap_or_else(|_| proxy.git_dir().to_owned()));
            }
        }
        Ok(found)
    }

    /// Whether `commit` is reachable from a detached `HEAD` of any work tree or from a ref whose
    /// full name `counts` accepts: if so, deleting the other refs loses nothing of it.
    pub(crate) fn reachable_from(
        &self,
        commit: ObjectId,
        counts: impl Fn(&str) -> bool,
    ) -> Result<bool> {
        let mut tips = self.detached_heads()?;
        for reference in self.repo.references()?.all()? {
            let Ok(mut reference) = reference else {
                continue;
            };
            if !counts(&reference.name().as_bstr().to_string()) {
                continue;
            }
            if let Ok(id) = reference.peel_to_id() {
                tips.push(id.detach());
            }
        }
        if tips.contains(&commit) {
            return Ok(true);
        }
        // Only commits can be walked; a tag of a tree or blob leads to no commit.
        tips.retain(|tip| self.repo.find_commit(*tip).is_ok());
        let walk = self
            .repo
            .rev_walk(tips)
            .all()
            .map_err(|err| Error::Failed(format!("cannot walk the history: {err}")))?;
        for info in walk {
            let info =
                info.map_err(|err| Error::Failed(format!("cannot walk the history: {err}")))?;
            if info.id == commit {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn detached_heads(&self) -> Result<Vec<ObjectId>> {
        let mut git_dirs = vec![self.common_dir()];
        for proxy in self.repo.worktrees()? {
            git_dirs.push(proxy.git_dir().to_owned());
        }
        Ok(git_dirs
            .iter()
            .filter_map(|dir| std::fs::read_to_string(dir.join("HEAD")).ok())
            .filter_map(|head| ObjectId::from_hex(head.trim().as_bytes()).ok())
            .collect())
    }
}

/// Whether the work tree whose git dir is `git_dir` has `branch` checked out, or is in the
/// middle of rebasing or bisecting it.
fn holds_branch(git_dir: &Path, branch: &str) -> bool {
    let read = |name: &str| std::fs::read_to_string(git_dir.join(name)).unwrap_or_default();
    let short = branch.strip_prefix("refs/heads/").unwrap_or(branch);
    checked_out(git_dir).as_deref() == Some(branch)
        || read("rebase-merge/head-name").trim() == branch
        || read("rebase-apply/head-name").trim() == branch
        || read("BISECT_START").trim() == short
}
