//! Fabro's per-stage summaries for `conclusion.json`: one row per node in the order the run
//! first completed it, its label, the time all its visits took and how often it was retried.
//! Durations come from the stages' `status.json` on the metadata branch, so a run resumed on
//! another machine still sums every visit.

use std::collections::BTreeMap;

use serde_json::json;

use crate::engine::graph::Graph;
use crate::error::Result;
use crate::format::record::{Checkpoint, StageRecord};
use crate::format::stages::STAGES_DIR;
use crate::git::Repo;
use crate::ops::finish::StageSummaries;
use crate::run::RunState;

pub fn summaries(repo: &Repo, state: &RunState, graph: &Graph) -> Result<StageSummaries> {
    let Some(checkpoint) = state.record.checkpoint.as_ref() else {
        return Ok(StageSummaries::default());
    };
    let durations = durations(repo, state)?;
    let mut seen = std::collections::BTreeSet::new();
    let mut summaries = StageSummaries::default();
    for node in &checkpoint.completed_nodes {
        if !seen.insert(node.as_str()) {
            continue;
        }
        let retries = retries(checkpoint, node);
        summaries.total_retries += retries;
        let label = graph
            .node(node)
            .map_or(node.as_str(), |n| n.label())
            .to_owned();
        summaries.stages.push(json!({
            "stage_id": node,
            "stage_label": label,
            "duration_ms": durations.get(node.as_str()).copied().unwrap_or(0),
            "retries": retries,
        }));
    }
    Ok(summaries)
}

/// Attempts beyond the first, as Fabro counts them from `node_retries`.
fn retries(checkpoint: &Checkpoint, node: &str) -> u64 {
    checkpoint
        .node_retries
        .get(node)
        .copied()
        .unwrap_or(1)
        .saturating_sub(1)
}

/// Every visit's `duration_ms`, summed per node; a stage without one counts as 0.
fn durations(repo: &Repo, state: &RunState) -> Result<BTreeMap<String, u64>> {
    let mut sums = BTreeMap::new();
    let Some(stages) = repo.entry_at(state.meta_tree, STAGES_DIR)? else {
        return Ok(sums);
    };
    for entry in repo.list_tree(stages)?.into_iter().filter(|e| e.is_tree) {
        let Some(bytes) = repo.blob_at(entry.id, "status.json")? else {
            continue;
        };
        let Ok(stage) = serde_json::from_slice::<StageRecord>(&bytes) else {
            continue;
        };
        *sums.entry(stage.node_id).or_insert(0) += stage.duration_ms.unwrap_or(0);
    }
    Ok(sums)
}
