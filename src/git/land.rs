//! Landing a run on one of the user's branches: the three-way merge of trees and the update of
//! the checkout that shows the result.
//!
//! The tree merge is gix's (`merge_trees`, the same algorithm as `git merge-tree`), in
//! process. Bringing the user's index and files from the old tip to the new one is left to the
//! git binary's `read-tree -m -u`, the two-tree merge that `git merge` and `git checkout` run
//! themselves: it moves exactly the paths that differ, keeps the user's unrelated changes, and
//! refuses, changing nothing, when a change of theirs or an untracked file would be
//! overwritten. That is the one place where git-fabro writes the user's own checkout, so it
//! uses git's own rules for it rather than a second implementation of them (ARCHITECTURE's
//! "rewinding a populated worktree" case).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use gix::bstr::ByteSlice;

use super::{ObjectId, Repo};
use crate::git::error::{Error, Result};

/// The merged tree, or the paths that conflict.
pub(crate) enum Merged {
    Clean(ObjectId),
    Conflicts(Vec<String>),
}

impl Repo {
    /// Merges `theirs` into `ours` with `base` as the merge base, as `git merge-tree` would;
    /// writes the merged tree when nothing conflicts.
    pub(crate) fn merge_trees(
        &self,
        base: ObjectId,
        ours: ObjectId,
        theirs: ObjectId,
    ) -> Result<Merged> {
        let how = gix::merge::tree::TreatAsUnresolved::git();
        let options = self
            .repo
            .tree_merge_options()
            .map_err(|err| Error::Failed(format!("cannot read the merge settings: {err}")))?;
        let mut outcome = self
            .repo
            .merge_trees(base, ours, theirs, Default::default(), options)
            .map_err(|err| Error::Failed(format!("cannot merge the trees: {err}")))?;
        if outcome.has_unresolved_conflicts(how) {
            let mut paths: Vec<String> = outcome
                .conflicts
                .iter()
                .filter(|c| c.is_unresolved(how))
                .map(|c| c.ours.location().to_str_lossy().into_owned())
                .collect();
            paths.sort();
            paths.dedup();
            return Ok(Merged::Conflicts(paths));
        }
        let tree = outcome
            .tree
            .write()
            .map_err(|err| Error::Failed(format!("cannot write the merged tree: {err}")))?;
        super::maintenance::note_written();
        Ok(Merged::Clean(tree.detach()))
    }

    /// The paths whose staged content differs from `head`'s tree in the work tree at `workdir`.
    pub(crate) fn staged_changes(&self, workdir: &Path, head: ObjectId) -> Result<Vec<String>> {
        let out = git_in(workdir, &["diff-index", "--cached", "--name-only", "-z"])
            .arg(head.to_string())
            .arg("--")
            .output()
            .map_err(|err| Error::Failed(format!("cannot run git: {err}")))?;
        if !out.status.success() {
            return Err(failed("git diff-index", &out.stderr));
        }
        Ok(out
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| p.to_str_lossy().into_owned())
            .collect())
    }

    /// Brings the index and files of the work tree at `workdir` from tree `from` to tree `to`, as `git merge` does after it wrote the merge: paths that differ between the two
    /// are updated, everything else of the user's stays. Refuses, changing nothing, when a
    /// changed or untracked file of the user's is in the way; the error names them.
    pub(crate) fn move_checkout(&self, workdir: &Path, from: ObjectId, to: ObjectId) -> Result<()> {
        // A stale stat cache would make unchanged files look modified, as `git merge` avoids
        // by refreshing first; this rewrites only stat data, as `git status` does.
        let _ = git_in(workdir, &["update-index", "-q", "--refresh"])
            .stdout(Stdio::null())
            .status();
        let out = git_in(workdir, &["read-tree", "-m", "-u"])
            .arg(from.to_string())
            .arg(to.to_string())
            .output()
            .map_err(|err| Error::Failed(format!("cannot run git: {err}")))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        // git's own lock on the index is not a change of the user's: a git still running there,
        // or one killed mid-way (a killed land included) that left it, as git itself says.
        if !out.status.success() && stderr.contains("index.lock") {
            return Err(Error::Busy(format!(
                "the index of {} is locked (.git/index.lock exists): a git command is running \
                 there, or one was killed and left the lock; once none runs, remove the lock \
                 and land again, nothing was changed",
                workdir.display()
            )));
        }
        if !out.status.success() {
            return Err(Error::InTheWay {
                workdir: workdir.to_owned(),
                changes: in_the_way(&stderr),
            });
        }
        Ok(())
    }

    /// Brings only the index of the work tree at `workdir` from tree `from` to tree `to`,
    /// leaving every file as it is: for a checkout whose files already hold `to`'s changes (a
    /// run that worked in place there). Only the entries that differ are written, so the
    /// others keep their stat data; the caller has checked that nothing is staged.
    pub(crate) fn move_index(&self, workdir: &Path, from: ObjectId, to: ObjectId) -> Result<()> {
        let mut entries = Vec::new();
        for (path, _, after) in self.changed_files(from, to)? {
            let line = match after {
                Some((id, kind)) => format!("{} {id}\t", kind.as_octal_str()),
                // Mode 0 removes the entry.
                None => format!("0 {}\t", self.repo.object_hash().null()),
            };
            entries.extend_from_slice(line.as_bytes());
            entries.extend_from_slice(&path);
            entries.push(0);
        }
        let mut git = git_in(
            workdir,
            &["update-index", "-z", "--replace", "--index-info"],
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| Error::Failed(format!("cannot run git: {err}")))?;
        if let Some(mut stdin) = git.stdin.take() {
            stdin
                .write_all(&entries)
                .map_err(|err| Error::Failed(format!("cannot write to git: {err}")))?;
        }
        let out = git
            .wait_with_output()
            .map_err(|err| Error::Failed(format!("cannot run git: {err}")))?;
        if !out.status.success() {
            return Err(failed("git update-index", &out.stderr));
        }
        Ok(())
    }
}

/// git in `workdir`, on that work tree only, whatever the caller's environment points at.
pub(super) fn git_in(workdir: &Path, args: &[&str]) -> Command {
    let mut git = Command::new("git");
    git.current_dir(workdir).args(args).stdin(Stdio::null());
    for name in super::redirects::inherited_redirects() {
        git.env_remove(name);
    }
    git
}

/// The paths git's `read-tree` names as in the way, and why, from its messages.
fn in_the_way(stderr: &str) -> String {
    let mut found = Vec::new();
    for line in stderr.lines() {
        let quoted = line.split('\'').nth(1);
        match quoted {
            Some(path) if line.contains("not uptodate") => found.push(format!("{path} (changed)")),
            Some(path) if line.contains("Untracked") => found.push(format!("{path} (untracked)")),
            _ => {}
        }
    }
    if found.is_empty() {
        stderr.trim_end().replace('\n', "; ")
    } else {
        found.join(", ")
    }
}

fn failed(what: &str, stderr: &[u8]) -> Error {
    Error::Failed(format!(
        "{what} failed: {}",
        String::from_utf8_lossy(stderr).trim_end()
    ))
}
