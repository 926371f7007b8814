//! Timelines rebuilt from git alone (FORMAT.md, Timeline): one first-parent walk of the run
//! branch, keeping the commits whose trailers carry `Fabro-Checkpoint`. Node, status and time
//! come from the run commit itself, so listing a timeline reads no metadata objects at all.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::Repo;
use crate::message::{self, Trailers};
use crate::run::RunState;
use crate::time::Timestamp;

/// One checkpoint of a timeline, as `log --json` prints it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Entry {
    pub ordinal: usize,
    pub run_id: String,
    pub node_id: String,
    pub visit: u64,
    pub status: String,
    pub completed: usize,
    pub run_commit: String,
    pub meta_commit: String,
    pub timestamp: String,
}

/// The run's checkpoints, oldest first, inherited ones (of a fork) included.
pub fn timeline(repo: &Repo, state: &RunState) -> Result<Vec<Entry>> {
    let forked = state.record.spec.fork_source.is_some();
    let base = state.record.start.base_sha.as_str();
    let mut newest_first = Vec::new();
    let mut expected: Option<usize> = None;
    for commit in repo.first_parents(state.run_tip) {
        let commit = commit?;
        let trailers = Trailers::parse(&commit.message);
        if let (Some(meta_commit), Some(run_id)) =
            (trailers.checkpoint.clone(), trailers.run.clone())
        {
            let (node_id, status) = message::parse_subject(&commit.message).ok_or_else(|| {
                Error::Corrupt(format!(
                    "run commit {} has Fabro trailers but no fabro(...) subject",
                    commit.id
                ))
            })?;
            let completed = trailers.completed.unwrap_or(0);
            // The newest checkpoint's count says how many entries the timeline has, which is
            // where the walk stops, also inside a fork's inherited history.
            expected.get_or_insert(completed);
            newest_first.push((
                trailers,
                Entry {
                    ordinal: 0,
                    run_id,
                    node_id,
                    visit: 0,
                    status,
                    completed,
                    run_commit: commit.id.to_string(),
                    meta_commit,
                    timestamp: Timestamp::from_seconds(commit.time).rfc3339(),
                },
            ));
        }
        if expected.is_some_and(|n| newest_first.len() >= n) || (!forked && commit.id == base) {
            break;
        }
    }
    let mut visits: HashMap<String, u64> = HashMap::new();
    Ok(newest_first
        .into_iter()
        .rev()
        .enumerate()
        .map(|(i, (trailers, mut entry))| {
            let count = visits.entry(entry.node_id.clone()).or_insert(0);
            *count += 1;
            entry.visit = stage_visit(trailers.stage.as_deref(), &entry.node_id).unwrap_or(*count);
            entry.ordinal = i + 1;
            entry
        })
        .collect())
}

/// A `Fabro-Stage: node@visit` trailer, when another writer added one.
fn stage_visit(stage: Option<&str>, node: &str) -> Option<u64> {
    let (stage_node, visit) = stage?.rsplit_once('@')?;
    (stage_node == node).then(|| visit.parse().ok()).flatten()
}
