//! A branch job run by a worker that is not its run's holder (`elsewhere` is the holder's
//! side): the offered branch through this machine's engine, as its pass would run it, and
//! its done commit, which hands the holder the branch's work, outcome and stage files.

use std::collections::BTreeMap;

use serde_json::Value;

use super::super::Engine;
use super::branches::Pass;
use super::slots::Slots;
use crate::engine::handler::Handler;
use crate::engine::outcome::Outcome;
use crate::error::{Error, Result};
use crate::format::branch_job::{CONTEXT_FILE, FILES_DIR, Job, OUTCOME_FILE};
use crate::format::record::pretty;
use crate::git::{ObjectId, Repo};
use crate::ops::checkpoint::Attachment;

/// A branch's end as a branch job records it: what its worker's engine came to.
pub struct JobResult {
    pub outcome: Outcome,
    pub head: Option<ObjectId>,
    pub files: Vec<(String, Attachment)>,
}

impl<'a> Engine<'a> {
    /// Runs the branch job `job` here as its pass would: from `base` with `context`, in a
    /// worktree of its own on this clone's branch `local`, removed afterwards as a branch's
    /// worktree is. An interrupt (Ctrl-C, the job's lease lost) ends it with an error.
    pub fn run_job(
        &self,
        job: &Job,
        base: ObjectId,
        context: &BTreeMap<String, Value>,
        local: &str,
    ) -> Result<JobResult> {
        let unknown = || {
            Error::Failed(format!(
                "run {}'s workflow has no parallel branch {} -> {}",
                job.run, job.node, job.target
            ))
        };
        let parallel = self.graph.node(&job.node).ok_or_else(unknown)?;
        if Handler::of(parallel) != Handler::Parallel {
            return Err(unknown());
        }
        let index = (self.graph.outgoing(&job.node))
            .position(|e| e.to == job.target)
            .ok_or_else(unknown)?;
        let mut branch = self
            .branches(&job.run, parallel, job.visit, &[&job.target])
            .pop()
            .ok_or_else(unknown)?;
        (branch.index, branch.branch) = (index, local.to_owned());
        let pass = Pass {
            id: &job.run,
            base,
            visit: job.visit,
            context,
        };
        let mut prepared = Vec::new();
        let ran = self
            .prepare_all(&[&branch], base, &mut prepared)
            .and_then(|()| {
                self.run_branches(&pass, &[&branch], 1, None::<fn(&Slots<'_, 'a>)>)
                    .0
            });
        let removal = self.retire_all(&prepared, base);
        let (ran, ()) = (ran?, removal?);
        let result = ran.into_iter().next().map(|(_, r)| r).ok_or_else(unknown)?;
        if result.stopped.is_some() {
            return Err(Error::Failed(format!(
                "parallel branch {} was stopped before its end; its run's holder takes it back",
                job.target
            )));
        }
        Ok(JobResult {
            outcome: result.outcome,
            head: result.head,
            files: result.files,
        })
    }
}

/// Writes the done commit of the branch job `job` that a worker ran, on its chain's tip
/// `claim`: the branch's work its second parent, its outcome and stage files in its tree.
pub fn write_done(repo: &Repo, job: &Job, claim: ObjectId, done: &JobResult) -> Result<ObjectId> {
    let mut tree = repo.edit_tree(repo.empty_tree())?;
    let outcome = super::super::record::outcome_json(&done.outcome, None);
    tree.put_file(OUTCOME_FILE, &pretty(&outcome))?;
    for (name, data) in &done.files {
        let path = format!("{FILES_DIR}/{name}");
        match data {
            Attachment::Bytes(bytes) => tree.put_file(&path, bytes)?,
            Attachment::File(file) => tree.put_file_from(&path, file)?,
        }
    }
    let tree = tree.write()?;
    let parents: Vec<ObjectId> = std::iter::once(claim).chain(done.head).collect();
    let message = job.done_message(done.outcome.status.as_str());
    Ok(repo.write_commit(tree, &parents, &message, &crate::ops::pool::identity())?)
}

/// The context an offer hands its branch.
pub fn offered_context(repo: &Repo, offer: ObjectId) -> Result<BTreeMap<String, Value>> {
    let tree = repo.commit_tree(offer)?;
    let text = repo.blob_at(tree, CONTEXT_FILE)?.unwrap_or_default();
    serde_json::from_slice(&text).map_err(|err| {
        Error::Corrupt(format!(
            "the offer {offer} holds no readable context: {err}"
        ))
    })
}
