//! A picture of a workflow, or of a run of it: every node with, for a run, the status of its
//! latest visit, how many visits it had and how long they took, and the edges the run walked.
//! The model is built once here from the run's stage records (`stages/*/status.json`) and
//! rendered as Graphviz DOT, Mermaid or SVG by the modules below, so the three formats always
//! show the same thing. Nothing here prints.

mod dot;
mod layout;
mod mermaid;
mod svg;

use std::collections::HashMap;

use crate::engine::graph::Graph;
use crate::error::Result;
use crate::format::node::StageStatus;
use crate::format::record::StageRecord;
use crate::format::stages::STAGES_DIR;
use crate::git::Repo;
use crate::run::{RunState, active_time};

pub use dot::dot;
pub use mermaid::mermaid;
pub use svg::svg;

/// `text` with each character `entity` names replaced by what it gives, and the other control
/// characters dropped: how Mermaid and SVG labels are escaped, each with its own entities.
fn escaped(text: &str, entity: impl Fn(char) -> Option<&'static str>) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match entity(c) {
            Some(replacement) => out.push_str(replacement),
            None if c.is_control() => {}
            None => out.push(c),
        }
    }
    out
}

/// The largest `status.json` read: a stage record is a few hundred bytes; one past this can
/// only come from a damaged or hostile clone and is left out of the picture.
const MAX_STAGE_RECORD: u64 = 1 << 20;

pub struct Picture {
    pub name: String,
    pub nodes: Vec<PictureNode>,
    pub edges: Vec<PictureEdge>,
}

pub struct PictureNode {
    pub id: String,
    pub label: String,
    pub shape: String,
    /// What the run did at this node; `None` when it never got there (or for a workflow).
    pub visited: Option<Visited>,
}

#[derive(Clone, Copy)]
pub struct Visited {
    /// The outcome of the latest visit.
    pub status: StageStatus,
    pub visits: u64,
    /// Summed over the visits.
    pub duration_ms: u64,
}

pub struct PictureEdge {
    pub from: String,
    pub to: String,
    pub label: Option<String>,
    /// The run went from `from` straight to `to` at least once.
    pub taken: bool,
}

impl Picture {
    /// Each node's position in `nodes`, by id.
    pub fn positions(&self) -> HashMap<&str, usize> {
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.as_str(), i))
            .collect()
    }

    /// The workflow alone: nothing visited, nothing taken.
    pub fn of_workflow(graph: &Graph) -> Picture {
        Picture::new(graph, &[])
    }

    /// The run's workflow with what the run did, from its latest metadata commit.
    pub fn of_run(repo: &Repo, state: &RunState, graph: &Graph) -> Result<Picture> {
        Ok(Picture::new(graph, &stage_records(repo, state)?))
    }

    /// `stages` in the order the run completed them.
    fn new(graph: &Graph, stages: &[StageRecord]) -> Picture {
        let mut visited: HashMap<&str, Visited> = HashMap::new();
        for stage in stages {
            let entry = visited.entry(stage.node_id.as_str()).or_insert(Visited {
                status: stage.outcome,
                visits: 0,
                duration_ms: 0,
            });
            entry.status = stage.outcome;
            entry.visits += 1;
            entry.duration_ms += stage.duration_ms.unwrap_or(0);
        }
        // The start node completes before the first stage is recorded: the walk begins there.
        let mut walk: Vec<&str> = Vec::new();
        if let (Some(start), Some(first)) = (graph.start_node(), stages.first())
            && start.id != first.node_id
        {
            walk.push(&start.id);
        }
        walk.extend(stages.iter().map(|s| s.node_id.as_str()));
        // The exit node records no stage: the last stage names it as where the walk went.
        walk.extend(stages.last().and_then(|s| s.next_node_id.as_deref()));
        let steps: Vec<(&str, &str)> = walk.windows(2).map(|w| (w[0], w[1])).collect();
        Picture {
            name: graph.name().to_owned(),
            nodes: graph
                .nodes()
                .iter()
                .map(|n| PictureNode {
                    id: n.id.clone(),
                    label: n.label().to_owned(),
                    shape: n.shape().to_owned(),
                    visited: visited.get(n.id.as_str()).copied(),
                })
                .collect(),
            edges: graph
                .edges()
                .iter()
                .map(|e| PictureEdge {
                    from: e.from.clone(),
                    to: e.to.clone(),
                    label: e.label().map(str::to_owned),
                    taken: steps.contains(&(e.from.as_str(), e.to.as_str())),
                })
                .collect(),
        }
    }
}

impl PictureNode {
    /// `succeeded · 2 visits · 1.5s`, or nothing for a node the run never reached.
    pub fn summary(&self) -> Option<String> {
        let v = self.visited?;
        let visits = match v.visits {
            1 => "1 visit".to_owned(),
            n => format!("{n} visits"),
        };
        Some(format!(
            "{} · {visits} · {}",
            v.status.as_str(),
            active_time::duration(v.duration_ms)
        ))
    }
}

/// The fill and line colours of a node, the terminal's marks as colours: green succeeded,
/// yellow partially, red failed, grey skipped, white for a node not reached.
pub fn colours(status: Option<StageStatus>) -> (&'static str, &'static str) {
    match status {
        Some(StageStatus::Succeeded) => ("#d3f5d3", "#1a7f37"),
        Some(StageStatus::PartiallySucceeded) => ("#fff1c2", "#9a6700"),
        Some(StageStatus::Failed) => ("#ffd8d3", "#cf222e"),
        Some(StageStatus::Skipped) => ("#eaeef2", "#6e7781"),
        None => ("#ffffff", "#8c959f"),
    }
}

/// The colour of the path the run took, and of the edges it did not.
pub const TAKEN: &str = "#0969da";
pub const NOT_TAKEN: &str = "#8c959f";

/// Every stage record of the run, in the order the stages completed (their rank; format 1's
/// folders, without one, by time). A record that cannot be read is left out of the picture.
fn stage_records(repo: &Repo, state: &RunState) -> Result<Vec<StageRecord>> {
    let Some(stages) = repo.entry_at(state.meta_tree, STAGES_DIR)? else {
        return Ok(Vec::new());
    };
    let mut records = Vec::new();
    for entry in repo.list_tree(stages)?.into_iter().filter(|e| e.is_tree) {
        let Ok(Some(bytes)) = repo.blob_at_most(entry.id, "status.json", MAX_STAGE_RECORD) else {
            continue;
        };
        let Ok(record) = serde_json::from_slice::<StageRecord>(&bytes) else {
            continue;
        };
        let rank = entry
            .name
            .split_once('-')
            .and_then(|(rank, _)| rank.parse::<usize>().ok())
            .unwrap_or(usize::MAX);
        records.push((rank, record));
    }
    records.sort_by(|(a, x), (b, y)| a.cmp(b).then_with(|| x.timestamp.cmp(&y.timestamp)));
    Ok(records.into_iter().map(|(_, r)| r).collect())
}
