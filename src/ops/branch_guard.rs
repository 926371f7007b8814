//! When a run branch may be deleted. `gc` and `fsck --repair` delete run branches; neither
//! may delete one that is checked out anywhere, or one that holds commits that are not the
//! run's own and that nothing else reaches: those are someone's work.

use std::path::Path;

use crate::error::Result;
use crate::format::message::Trailers;
use crate::format::run_id::RunId;
use crate::git::{ObjectId, Repo};
use crate::ops::restore::recovery_prefix;
use crate::ops::start::short_branch;
use crate::run;

/// Why the run branch of `id` at `tip` must stay, or `None` when deleting it (and the run's
/// recovery refs) loses nothing. `own_worktree` is the worktree git-fabro made for the run,
/// which the caller removes itself.
pub fn reason_to_keep(
    repo: &Repo,
    id: &RunId,
    tip: ObjectId,
    own_worktree: Option<&Path>,
) -> Result<Option<String>> {
    let branch = run::run_branch(id);
    let elsewhere = repo
        .checkouts_of(&branch)?
        .into_iter()
        .find(|path| Some(path.as_path()) != own_worktree);
    if let Some(path) = elsewhere {
        return Ok(Some(format!(
            "{} is checked out in {}",
            short_branch(&branch),
            path.display()
        )));
    }
    Ok(foreign_commit(repo, id, tip)?.map(|commit| {
        let subject = repo
            .commit_info(commit)
            .map(|info| subject(&info.message))
            .unwrap_or_default();
        format!(
            "{} holds commit {} ({subject}), which is not a checkpoint of the run and is on no other branch",
            short_branch(&branch),
            &commit.to_string()[..12],
        )
    }))
}

/// The branch's tip when it is not a commit of the run and only this run's refs reach it.
/// A tip that is the run's own commit makes everything below it the run's history (its
/// checkpoints recorded whatever an agent committed in between); a tip that another ref
/// reaches loses nothing with the branch.
fn foreign_commit(repo: &Repo, id: &RunId, tip: ObjectId) -> Result<Option<ObjectId>> {
    let info = repo.commit_info(tip)?;
    if Trailers::parse(&info.message).run.as_deref() == Some(id.as_str()) {
        return Ok(None);
    }
    let recovery = recovery_prefix(id);
    let branch = run::run_branch(id);
    let others = |name: &str| name != branch && !name.starts_with(&recovery);
    Ok((!repo.reachable_from(tip, others)?).then_some(tip))
}

/// The first line of a commit message, shortened for a one-line explanation.
fn subject(message: &[u8]) -> String {
    let line = message.split(|b| *b == b'\n').next().unwrap_or_default();
    let text = String::from_utf8_lossy(line);
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.into_owned(),
    }
}
