//! What a run changed: the one answer that `land`, `final.patch` and `diff` share, so that
//! they never disagree about a fork or a rewound run.
//!
//! A run's change is the difference between the tree of its base and the tree of its tip. A
//! run that was not forked has the base it started on (`start.base_sha`). A fork (and a
//! rewind, which is a fork) inherits its source's checkpoints, so its change starts where its
//! source's did: its base is the base of the run at the root of its fork chain, not the fork
//! point its own `start.base_sha` names (which is where its branch was created, as Fabro
//! records it). When the chain cannot be followed (a source deleted or never fetched), the
//! origin's base is still in the fork's `spec.git.sha`, which every fork copies from its
//! source. The change is a difference of trees, so it holds whether or not the base is still
//! an ancestor of the tip (a run branch rebased by hand).

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::format::record::RunRecord;
use crate::format::run_id::RunId;
use crate::git::{ObjectId, Repo};
use crate::run::{RunState, read_record};

/// The commits between which a run made its change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Changes {
    /// Where the run's line of work started: the root of its fork chain's base.
    pub base: ObjectId,
    /// The run branch's tip.
    pub tip: ObjectId,
}

impl RunState {
    /// What this run changed, inherited checkpoints included.
    pub fn changes(&self, repo: &Repo) -> Result<Changes> {
        let base = origin_base(repo, &self.id, &self.record)?;
        if !repo.object_exists(base) {
            return Err(Error::Corrupt(format!(
                "run {} started on commit {base}, which this repository does not have; fetch it to compare the run with its base",
                self.id
            )));
        }
        Ok(Changes {
            base,
            tip: self.run_tip,
        })
    }
}

/// The base of the run at the root of `record`'s fork chain.
fn origin_base(repo: &Repo, id: &RunId, record: &RunRecord) -> Result<ObjectId> {
    let mut seen = HashSet::from([id.to_string()]);
    let mut current = record.clone();
    loop {
        if !current.spec.is_fork() {
            return parse(&current.start.base_sha, id);
        }
        match source_record(repo, &current) {
            Some((source_id, source)) if seen.insert(source_id.clone()) => current = source,
            // The chain is broken (or loops, in a hostile clone): every fork carries its
            // origin's base in the spec it copied.
            _ => {
                let copied = record.spec.git.as_ref().and_then(|git| git.sha.as_deref());
                return match copied {
                    Some(sha) => parse(sha, id),
                    None => Err(Error::Corrupt(format!(
                        "run {id} is a fork whose source is not in this repository and whose record does not say where its line of work started; fetch the source run"
                    ))),
                };
            }
        }
    }
}

/// The record of the run `record` was forked from: as it was at the fork point when that
/// metadata commit is here, else as its branch holds it now (its start never changes).
fn source_record(repo: &Repo, record: &RunRecord) -> Option<(String, RunRecord)> {
    if let Some(from) = &record.spec.fork_source {
        let at_fork = ObjectId::from_hex(from.meta_commit.as_bytes())
            .ok()
            .filter(|commit| repo.object_exists(*commit))
            .and_then(|commit| {
                let tree = repo.commit_tree(commit).ok()?;
                read_record(repo, tree, &from.meta_commit).ok()
            });
        if let Some(source) = at_fork {
            return Some((from.run_id.clone(), source));
        }
    }
    let source_id = record
        .spec
        .fork_source
        .as_ref()
        .map(|from| from.run_id.as_str())
        .or_else(|| {
            let by_fabro = record.spec.fork_source_ref.as_ref()?;
            Some(by_fabro.source_run_id.as_str())
        })?;
    let source_id = RunId::parse(source_id).ok()?;
    let state = RunState::load(repo, &source_id).ok()?;
    Some((source_id.to_string(), state.record))
}

fn parse(sha: &str, id: &RunId) -> Result<ObjectId> {
    ObjectId::from_hex(sha.as_bytes())
        .map_err(|_| Error::Corrupt(format!("run {id} has a malformed base commit {sha:?}")))
}
