//! What killed or interrupted commands leave behind: lock files a dead writer held, worktree
//! registrations an interrupted start or resume did not finish, and parallel branch worktrees
//! holding work no commit has. The next command clears the first two by itself; `fsck` names
//! them all and `--repair` removes what holds no work.

use crate::config::Config;
use crate::error::Result;
use crate::format::run_id::RunId;
use crate::git::Repo;
use crate::run::RUN_BRANCH_PREFIX;

use super::Report;

/// A parallel branch's worktree that a kill left holding files no commit has: nothing is
/// wrong (`resume` runs the branch again there, and `gc` keeps it), but it is work to know of.
pub(super) fn check_branch_work(
    repo: &Repo,
    config: &Config,
    id: &RunId,
    report: &mut Report,
) -> Result<()> {
    for (path, kept) in crate::ops::worktree_removal::branch_work(repo, id, config)? {
        let message = format!(
            "the worktree {} of a parallel branch holds work: {}; `git fabro resume` runs the branch again there",
            path.display(),
            kept.describe()
        );
        report.note(Some(id), "unrecorded-branch-work", message);
    }
    Ok(())
}

/// Stale lock files, first of all: a killed command's lock on a ref would make the repairs
/// that move or delete that ref fail. Those a killed git-fabro command left are certain (and
/// any writer clears them by itself); others count as stale by their age.
pub(super) fn check_locks(repo: &Repo, repair: bool, report: &mut Report) -> Result<()> {
    let abandoned = repo.abandoned_ref_locks(repair)?;
    for lock in &abandoned {
        let repaired = repair && !lock.path.exists();
        report.fixable(None, "stale-lock", lock.to_string(), repaired);
    }
    for dir in ["heads/fabro", "fabro"] {
        for lock in repo.stale_ref_locks(dir) {
            if abandoned.iter().any(|a| a.path == lock) {
                continue;
            }
            let repaired = repair && std::fs::remove_file(&lock).is_ok();
            let message = format!("{} was left by a killed process", lock.display());
            report.fixable(None, "stale-lock", message, repaired);
        }
    }
    Ok(())
}

/// What an interrupted start or resume leaves: a registration still locked as initializing
/// over a partial checkout, or one that never recorded its worktree's path. Neither holds
/// work, and the next resume of the run checks its worktree out again.
pub(super) fn check_unfinished_worktrees(
    repo: &Repo,
    repair: bool,
    report: &mut Report,
) -> Result<()> {
    for worktree in repo.worktrees()? {
        let Some(unfinished) = &worktree.unfinished else {
            continue;
        };
        let run = worktree
            .branch
            .as_deref()
            .and_then(|b| b.strip_prefix(RUN_BRANCH_PREFIX))
            .and_then(|id| RunId::parse(id).ok());
        let path = worktree.path.display();
        if !unfinished.is_abandoned() {
            report.note(
                run.as_ref(),
                "worktree-being-added",
                format!("the worktree at {path} is being checked out"),
            );
            continue;
        }
        let message = format!(
            "the worktree at {path} is an unfinished checkout left by an interrupted start or resume; `git fabro resume` checks the run out again"
        );
        let repaired = repair && repo.remove_worktree(&worktree.path).is_ok();
        report.fixable(run.as_ref(), "unfinished-worktree", message, repaired);
    }
    for broken in repo.broken_worktree_registrations() {
        let message = format!(
            "worktree registration {} records no worktree (an interrupted start or resume); it makes adding worktrees fail",
            broken.admin_dir.display()
        );
        let repaired = repair && repo.remove_broken_registration(&broken).is_ok();
        report.fixable(None, "broken-worktree-registration", message, repaired);
    }
    Ok(())
}
