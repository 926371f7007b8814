//! Runs shared through a remote by a pool of workers on many machines (docs/many-machines.md):
//! `submit` queues a run there, a worker claims it with a lease and publishes every checkpoint
//! under it, and `ps --remote` reads what the remote says of each run. Each run has refs of
//! its own (its branches, `refs/fabro/queue/<id>`, `refs/fabro/lease/<id>`) and there is no
//! shared ref, so workers racing for different runs never contend.

pub mod lease;
pub mod listing;

use crate::error::{Error, Result};
use crate::format::lease::queue_ref;
use crate::format::run_id::RunId;
use crate::git::Repo;
use crate::run;

/// Where a run's parallel branches live, below their run id.
pub fn parallel_prefix(id: &RunId) -> String {
    format!("{}parallel/{id}/", run::RUN_BRANCH_PREFIX)
}

/// The refspecs that carry run `id` as this clone has it: its two branches and its parallel
/// branches, never forced.
pub fn run_refspecs(repo: &Repo, id: &RunId) -> Result<Vec<String>> {
    let mut names = vec![run::meta_branch(id), run::run_branch(id)];
    let prefix = parallel_prefix(id);
    for (rest, _) in repo.refs_under(&prefix)? {
        names.push(format!("{prefix}{rest}"));
    }
    Ok(names.into_iter().map(|n| format!("{n}:{n}")).collect())
}

/// The refspecs that bring run `id` from the remote as it is there, replacing what this clone
/// has: a worker holding the lease builds on the remote's record, never on a local one.
pub fn fetch_refspecs(id: &RunId) -> Vec<String> {
    let prefix = parallel_prefix(id);
    [run::meta_branch(id), run::run_branch(id)]
        .into_iter()
        .map(|n| format!("+{n}:{n}"))
        .chain([format!("+{prefix}*:{prefix}*")])
        .collect()
}

/// Pushes the started run `id` with its queue ref, all or nothing; the queue ref must not
/// exist yet, so a run is queued once.
pub fn submit(repo: &Repo, remote: &str, id: &RunId) -> Result<()> {
    crate::git::remote::check(remote)?;
    let meta = repo
        .ref_target(&run::meta_branch(id))?
        .ok_or_else(|| Error::RunNotFound(id.to_string()))?;
    let queue = queue_ref(id);
    let mut specs = run_refspecs(repo, id)?;
    specs.push(format!("{meta}:{queue}"));
    let pushed = repo.push_fenced(remote, &specs, &[(queue, None)])?;
    if pushed.ok {
        return Ok(());
    }
    Err(Error::Refused(format!(
        "{} refused run {id}: {}",
        crate::git::remote::display(remote),
        pushed.messages.trim()
    )))
}
