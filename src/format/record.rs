//! `run.json` and the other JSON records of FORMAT.md as serde types. Field names follow
//! Fabro's `Checkpoint` record. Unknown fields are kept (`extra`) so that a record written by a
//! newer engine survives a round trip through this one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

/// The `format` this version reads and writes.
pub const FORMAT: u32 = 1;

type Extra = BTreeMap<String, Value>;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunRecord {
    pub format: u32,
    pub run_id: String,
    pub spec: Spec,
    pub start: Start,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<Checkpoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conclusion: Option<Conclusion>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Spec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_source: Option<ForkSource>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Where a forked run came from: the source run and the checkpoint it started at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkSource {
    pub run_id: String,
    pub ordinal: usize,
    pub run_commit: String,
    pub meta_commit: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Start {
    pub start_time: String,
    pub run_branch: String,
    pub meta_branch: String,
    pub base_sha: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusKind {
    Submitted,
    Running,
    Succeeded,
    Failed,
    Dead,
    Archived,
}

impl StatusKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StatusKind::Submitted => "submitted",
            StatusKind::Running => "running",
            StatusKind::Succeeded => "succeeded",
            StatusKind::Failed => "failed",
            StatusKind::Dead => "dead",
            StatusKind::Archived => "archived",
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            StatusKind::Succeeded | StatusKind::Failed | StatusKind::Dead
        )
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Status {
    pub kind: StatusKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Status {
    pub fn new(kind: StatusKind, reason: Option<String>) -> Status {
        Status {
            kind,
            reason,
            extra: Extra::new(),
        }
    }
}

/// The engine state after a completed node: what a resumed run continues from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub timestamp: String,
    pub current_node: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_node_id: Option<String>,
    #[serde(default)]
    pub completed_nodes: Vec<String>,
    #[serde(default)]
    pub node_retries: BTreeMap<String, u64>,
    #[serde(default)]
    pub node_visits: BTreeMap<String, u64>,
    #[serde(default)]
    pub node_outcomes: BTreeMap<String, Value>,
    #[serde(default)]
    pub context_values: BTreeMap<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_tree_sha: Option<String>,
    #[serde(default)]
    pub loop_failure_signatures: BTreeMap<String, u64>,
    #[serde(default)]
    pub restart_failure_signatures: BTreeMap<String, u64>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Conclusion {
    pub timestamp: String,
    pub status: StatusKind,
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_git_commit_sha: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `stages/<node>@<visit>/status.json`: the outcome of one stage.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StageRecord {
    pub node_id: String,
    pub visit: u64,
    pub status: crate::format::node::StageStatus,
    pub timestamp: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_node_id: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_files: Vec<String>,
}

impl RunRecord {
    /// Reads `run.json` as found on a metadata branch, refusing formats this version does not know.
    pub fn from_json(bytes: &[u8], origin: &str) -> Result<RunRecord> {
        let value: Value = serde_json::from_slice(bytes).map_err(|err| {
            Error::Corrupt(format!("run.json at {origin} is not valid JSON: {err}"))
        })?;
        match value.get("format").and_then(Value::as_u64) {
            Some(f) if f == u64::from(FORMAT) => {}
            Some(f) => {
                return Err(Error::Corrupt(format!(
                    "run.json at {origin} has format {f}, but this git-fabro reads format {FORMAT}; upgrade git-fabro"
                )));
            }
            None => {
                return Err(Error::Corrupt(format!(
                    "run.json at {origin} has no format field"
                )));
            }
        }
        serde_json::from_value(value).map_err(|err| {
            Error::Corrupt(format!(
                "run.json at {origin} does not match format {FORMAT}: {err}"
            ))
        })
    }

    pub fn to_json(&self) -> Vec<u8> {
        pretty(self)
    }

    /// The number of nodes completed so far, fork inheritance included.
    pub fn completed(&self) -> usize {
        self.checkpoint
            .as_ref()
            .map_or(0, |c| c.completed_nodes.len())
    }
}

/// Pretty-printed JSON with a final newline, the form of every JSON file git-fabro writes.
pub fn pretty(value: &impl Serialize) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(value).unwrap_or_default();
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::RunRecord;

    #[test]
    fn unknown_formats_are_refused_by_name() {
        let err = RunRecord::from_json(br#"{"format": 2}"#, "abc")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("format 2") && err.contains("format 1"),
            "{err}"
        );
        assert!(RunRecord::from_json(b"{not json", "abc").is_err());
    }
}

/// Where a run's metadata tree keeps the links of rewritten checkpoints, one file each.
pub const LINKS_DIR: &str = "links";

/// What a timeline needs to read a rewritten commit as the checkpoint it replaced.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Link {
    pub old_commit: String,
    pub new_commit: String,
    pub run_id: String,
    pub node_id: String,
    pub status: String,
    pub completed: usize,
    pub meta_commit: String,
}
