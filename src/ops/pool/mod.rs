//! Runs shared through a remote by a pool of workers on many machines (docs/many-machines.md):
//! `submit` queues a run there, a worker claims it with a lease and publishes every checkpoint
//! under it, a run that waits for a person leaves the queue for `refs/fabro/wait/<id>` until
//! `resume --remote` queues it again with what it was told, and `ps --remote` reads what the
//! remote says of each run. Each run has refs of its own (its branches, `refs/fabro/queue/<id>`
//! or `refs/fabro/wait/<id>`, `refs/fabro/lease/<id>`) and there is no shared ref, so workers
//! racing for different runs never contend.

pub mod executor;
pub mod gc;
pub mod lease;
pub mod listing;

use crate::error::{Error, Result};
use crate::format::pool_ref::PoolRef;
use crate::format::queue::Told;
use crate::format::run_id::RunId;
use crate::git::{Identity, ObjectId, Repo, Transfer};
use crate::run;

/// Who writes the pool's own commits (queue, wait and lease refs): they record no one's work.
pub fn identity() -> Identity {
    Identity {
        name: "git-fabro worker".into(),
        email: "noreply@fabro.sh".into(),
    }
}

/// A commit of the empty tree with `message`: what queue, wait and lease refs point at.
pub fn write_commit(repo: &Repo, parents: &[ObjectId], message: &str) -> Result<ObjectId> {
    let tree = repo.write_empty_tree()?;
    Ok(repo.write_commit(tree, parents, message, &identity())?)
}

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
/// exist yet, so a run is queued once. The submission names what this machine `approved` of
/// the run, and with `sign` it is signed, so that workers that allow this signer run it.
pub fn submit(
    repo: &Repo,
    remote: &str,
    id: &RunId,
    approved: &[String],
    sign: bool,
) -> Result<()> {
    crate::git::remote::check(remote)?;
    if repo.ref_target(&run::meta_branch(id))?.is_none() {
        return Err(Error::RunNotFound(id.to_string()));
    }
    let queue = PoolRef::Queue.of(id);
    let told = Told {
        approved: approved.to_vec(),
        ..Told::default()
    };
    let commit = if sign {
        repo.write_signed_commit(repo.write_empty_tree()?, &told.message(id))?
    } else {
        write_commit(repo, &[], &told.message(id))?
    };
    let mut specs = run_refspecs(repo, id)?;
    specs.push(format!("{commit}:{queue}"));
    let pushed = repo.push_fenced(remote, &specs, &[(queue, None)])?;
    if pushed.ok {
        return Ok(());
    }
    Err(refused(remote, id, &pushed))
}

/// The approvals of run `id`'s submission, the first commit of the queue chain that ends at
/// `tip`, when a key of `allowed_signers` signed it; with the signer's name.
pub fn signed_approvals(
    repo: &Repo,
    id: &RunId,
    tip: ObjectId,
    allowed_signers: &std::path::Path,
) -> Option<(String, Vec<String>)> {
    let submission = repo.first_parents(tip).filter_map(|c| c.ok()).last()?;
    let told = Told::parse(&submission.message);
    let mut names_run = false;
    crate::git::for_each_trailer(&submission.message, |token, value| {
        names_run |=
            token.eq_ignore_ascii_case(crate::format::message::RUN) && value == id.as_str();
    });
    if !names_run || submission.first_parent.is_some() {
        return None;
    }
    let signer = repo.ssh_signer(submission.id, allowed_signers)?;
    Some((signer, told.approved))
}

/// Queues again run `id`, which waits on the remote at its wait commit `waiting`, with what the
/// next worker is told: the wait ref goes and the queue ref comes in one push, refused whole if
/// either moved meanwhile (another person decided first).
pub fn requeue(
    repo: &Repo,
    remote: &str,
    id: &RunId,
    waiting: ObjectId,
    told: &Told,
) -> Result<()> {
    let commit = write_commit(repo, &[waiting], &told.message(id))?;
    let (queue, wait) = (PoolRef::Queue.of(id), PoolRef::Wait.of(id));
    let specs = [format!("{commit}:{queue}"), format!(":{wait}")];
    let pushed = repo.push_fenced(remote, &specs, &[(queue, None), (wait, Some(waiting))])?;
    if pushed.ok {
        return Ok(());
    }
    Err(refused(remote, id, &pushed))
}

fn refused(remote: &str, id: &RunId, pushed: &Transfer) -> Error {
    Error::Refused(format!(
        "{} refused run {id}: {}",
        crate::git::remote::display(remote),
        pushed.messages.trim()
    ))
}
