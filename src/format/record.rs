//! `run.json` and the other JSON records of FORMAT.md as serde types. Format 2 makes them
//! Fabro's own records (`RunProjection`, `RunSpec`, `StartRecord`, `RunStatus`, `Checkpoint`,
//! `Conclusion`, `StageCompletion`) with git-fabro's keys beside Fabro's; `format::fabro` fills
//! what Fabro's types require. Unknown fields are kept (`extra`) so that a record written by a
//! newer engine, or by Fabro, survives a round trip through this one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::format::fabro;
use crate::format::node::StageStatus;
use crate::format::usage::{Usage, UsageTotal};

/// The `format` this version writes. It reads format 1, format 2, and records without a
/// `format` key, which are Fabro's own projections.
pub(crate) const FORMAT: u32 = 2;

/// What a record without a `format` key is read as: a `RunProjection` written by Fabro.
pub(crate) const FORMAT_FABRO: u32 = 0;

type Extra = BTreeMap<String, Value>;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunRecord {
    #[serde(default)]
    pub format: u32,
    #[serde(default)]
    pub run_id: String,
    pub(crate) spec: Spec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_source: Option<String>,
    pub(crate) start: Start,
    pub(crate) status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) checkpoint: Option<Checkpoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) conclusion: Option<Conclusion>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Fabro's `RunSpec` and git-fabro's own keys beside it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Spec {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub run_id: String,
    /// Fabro's `WorkflowSettings`; `null` until written (see `fabro::complete`).
    #[serde(default)]
    pub settings: Value,
    /// The workflow as Fabro's `Graph`; `null` until written.
    #[serde(default)]
    pub graph: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow_slug: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitContext>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_source_ref: Option<ForkSourceRef>,
    #[serde(default)]
    pub in_place: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_source: Option<ForkSource>,
    /// How many completed nodes the run counts before its first run commit: Fabro counts the
    /// start node, which has no run commit. A timeline ordinal is `Fabro-Completed` minus this.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub completed_offset: usize,
    /// Format 1's names, read and never written again.
    #[serde(default, skip_serializing)]
    pub workflow_name: Option<String>,
    #[serde(default, skip_serializing)]
    pub origin_url: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Spec {
    /// The goal a user gave the run, to take as written, never as a template: `--goal`, else
    /// Fabro's settings when the workflow has no `goal` attribute (as [`Spec::goal`] ranks
    /// them); None when the goal is the workflow's own.
    pub(crate) fn given_goal(&self) -> Option<String> {
        if self.goal.is_some() || fabro::graph_attr(&self.graph, "goal").is_some() {
            return self.goal.clone();
        }
        self.goal()
    }

    /// The workflow's inputs (`spec.inputs`), a value that is not a string as its JSON text.
    pub(crate) fn inputs(&self) -> BTreeMap<String, String> {
        let Some(Value::Object(inputs)) = self.extra.get("inputs") else {
            return BTreeMap::new();
        };
        inputs
            .iter()
            .map(|(k, v)| {
                let text = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                (k.clone(), text)
            })
            .collect()
    }

    /// The goal: git-fabro's own key, else the workflow's `goal` attribute, else Fabro's settings.
    pub(crate) fn goal(&self) -> Option<String> {
        self.goal
            .clone()
            .or_else(|| fabro::graph_attr(&self.graph, "goal"))
            .or_else(|| {
                self.settings
                    .pointer("/run/goal/value")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
    }

    /// The workflow's name: Fabro's slug, format 1's name, else the graph's name.
    pub(crate) fn workflow_name(&self) -> Option<String> {
        self.workflow_slug
            .clone()
            .or_else(|| self.workflow_name.clone())
            .or_else(|| {
                self.graph
                    .get("name")
                    .and_then(Value::as_str)
                    .filter(|n| !n.is_empty())
                    .map(str::to_owned)
            })
    }

    pub(crate) fn is_fork(&self) -> bool {
        self.fork_source.is_some() || self.fork_source_ref.is_some()
    }
}

/// Fabro's `GitContext`: where the run's repository came from, credentials removed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct GitContext {
    pub origin_url: String,
    pub branch: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha: Option<String>,
    /// `clean`, `dirty` or `unknown`.
    pub dirty: String,
    pub push_outcome: Value,
}

/// Fabro's `ForkSourceRef`: the source run and the run commit the fork starts at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ForkSourceRef {
    pub source_run_id: String,
    pub checkpoint_sha: String,
}

/// Where a forked run came from: the source run and the checkpoint it started at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ForkSource {
    pub run_id: String,
    pub ordinal: usize,
    pub run_commit: String,
    pub meta_commit: String,
}

/// Fabro's `StartRecord` plus `meta_branch`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Start {
    #[serde(default)]
    pub run_id: String,
    pub start_time: String,
    #[serde(default)]
    pub run_branch: String,
    #[serde(default)]
    pub meta_branch: String,
    #[serde(default)]
    pub base_sha: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `kind` of Fabro's `RunStatus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StatusKind {
    Submitted,
    Queued,
    Starting,
    Running,
    Blocked,
    Paused,
    Removing,
    Succeeded,
    Failed,
    Dead,
    Archived,
}

impl StatusKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StatusKind::Submitted => "submitted",
            StatusKind::Queued => "queued",
            StatusKind::Starting => "starting",
            StatusKind::Running => "running",
            StatusKind::Blocked => "blocked",
            StatusKind::Paused => "paused",
            StatusKind::Removing => "removing",
            StatusKind::Succeeded => "succeeded",
            StatusKind::Failed => "failed",
            StatusKind::Dead => "dead",
            StatusKind::Archived => "archived",
        }
    }

    pub(crate) fn is_terminal(self) -> bool {
        matches!(
            self,
            StatusKind::Succeeded | StatusKind::Failed | StatusKind::Dead
        )
    }

    /// Whether a run in this state may still take checkpoints.
    pub(crate) fn is_active(self) -> bool {
        !self.is_terminal() && self != StatusKind::Archived
    }
}

/// Fabro's `RunStatus`: `kind`, with `reason` for succeeded and failed runs (one of Fabro's
/// reason names) and `prior` for archived ones (`{"kind", "reason"}`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Status {
    pub kind: StatusKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Status {
    pub(crate) fn new(kind: StatusKind) -> Status {
        Status {
            kind,
            reason: fabro::default_reason(kind).map(str::to_owned),
            prior: None,
            extra: Extra::new(),
        }
    }
}

/// The engine state after a completed node: what a resumed run continues from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Checkpoint {
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
    /// The usage of every stage so far that reported one (git-fabro's key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_total: Option<UsageTotal>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Fabro's `Conclusion`: `status` is a stage outcome (`succeeded`, `partially_succeeded`,
/// `failed`, `skipped`); a person's reason goes to `failure_reason`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Conclusion {
    pub timestamp: String,
    pub status: StageStatus,
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_git_commit_sha: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `stages/<rank>-<node>@<visit>/status.json`: Fabro's `StageCompletion` (`outcome`, `notes`,
/// `failure_reason`, `timestamp`) and git-fabro's keys. Format 1 named the outcome `status`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct StageRecord {
    #[serde(alias = "status")]
    pub outcome: StageStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    pub timestamp: String,
    #[serde(default)]
    pub node_id: String,
    #[serde(default)]
    pub visit: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_node_id: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_files: Vec<String>,
    /// How long the engine ran the node (git-fabro's key; Fabro keeps it in its event log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The models, tokens and tool calls of the agent's work (git-fabro's key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// The largest `run.json` read and written. A record of thousands of checkpoints is well under
/// a megabyte; one this large can only come from a damaged or hostile clone, and is refused.
pub(crate) const MAX_RUN_JSON: u64 = 16 << 20;

impl RunRecord {
    /// Reads `run.json` as found on a metadata branch, refusing formats this version does not
    /// know. A record without `format` is Fabro's and is read as `fabro::adopt` says.
    pub fn from_json(bytes: &[u8], origin: &str) -> Result<RunRecord> {
        // git-fabro's own records parse straight into the types; anything else (Fabro's
        // records, an unknown format, a record that does not parse) takes the way through
        // a JSON value, which tells an absent `format` from another one and says what is wrong.
        if let Ok(record) = serde_json::from_slice::<RunRecord>(bytes)
            && matches!(record.format, 1..=FORMAT)
        {
            return Ok(record);
        }
        let value: Value = serde_json::from_slice(bytes).map_err(|err| {
            Error::Corrupt(format!("run.json at {origin} is not valid JSON: {err}"))
        })?;
        let format = match value.get("format") {
            None => FORMAT_FABRO,
            Some(v) => match v.as_u64() {
                Some(f @ 1..=2) => f as u32,
                _ => {
                    return Err(Error::Corrupt(format!(
                        "run.json at {origin} has format {v}, but this git-fabro reads formats 1 and {FORMAT}; upgrade git-fabro"
                    )));
                }
            },
        };
        let mut record: RunRecord = serde_json::from_value(value).map_err(|err| {
            Error::Corrupt(format!(
                "run.json at {origin} does not match format {format}: {err}"
            ))
        })?;
        record.format = format;
        if format == FORMAT_FABRO {
            fabro::adopt(&mut record);
        }
        Ok(record)
    }

    /// The record as written: format 2, with everything Fabro's types require filled in.
    /// One that every reader would refuse as too large is refused here, before anything is
    /// written: a run whose newest record cannot be read could no longer go on or be finished.
    pub fn to_json(&self) -> Result<Vec<u8>> {
        self.clone().into_json()
    }

    /// Like [`RunRecord::to_json`], for a record written once: it is completed in place.
    pub(crate) fn into_json(mut self) -> Result<Vec<u8>> {
        fabro::complete(&mut self);
        let json = pretty(&self);
        let size = json.len() as u64;
        if size > MAX_RUN_JSON {
            return Err(Error::RecordTooLarge {
                run: self.run_id,
                size,
                limit: MAX_RUN_JSON,
            });
        }
        Ok(json)
    }

    /// The number of nodes completed so far, fork inheritance included.
    pub(crate) fn completed(&self) -> usize {
        self.checkpoint
            .as_ref()
            .map_or(0, |c| c.completed_nodes.len())
    }
}

/// Pretty-printed JSON (two-space indentation) with a final newline: the form of every JSON
/// file git-fabro writes and of every `--json` document it prints, from this one function.
pub(crate) fn pretty(value: &impl Serialize) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(value).unwrap_or_default();
    out.push(b'\n');
    out
}

/// Where a run's metadata tree keeps the links of rewritten checkpoints, one file each.
pub(crate) const LINKS_DIR: &str = "links";

/// What a timeline needs to read a rewritten commit as the checkpoint it replaced.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Link {
    pub old_commit: String,
    pub new_commit: String,
    pub run_id: String,
    pub node_id: String,
    pub status: String,
    pub completed: usize,
    pub meta_commit: String,
}

#[cfg(test)]
mod tests {
    use super::{RunRecord, pretty};

    /// The bytes of every JSON file and `--json` document: Fabro and the format contract read
    /// them, so this form must not drift.
    #[test]
    fn pretty_json_keeps_its_bytes() {
        let value = serde_json::json!({
            "b": [1, {"c": null}], "a": "\u{e9}\u{1b}/", "empty": [], "none": {}, "n": -2.5
        });
        let expected = "{\n  \"a\": \"\u{e9}\\u001b/\",\n  \"b\": [\n    1,\n    {\n      \"c\": null\n    }\n  ],\n  \"empty\": [],\n  \"n\": -2.5,\n  \"none\": {}\n}\n";
        assert_eq!(String::from_utf8(pretty(&value)).unwrap(), expected);
    }

    #[test]
    fn unknown_formats_are_refused_by_name() {
        let err = RunRecord::from_json(br#"{"format": 3}"#, "abc")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("format 3") && err.contains("formats 1 and 2"),
            "{err}"
        );
        assert!(RunRecord::from_json(b"{not json", "abc").is_err());
    }
}

/// The labels of an agent session's run: the agent, and the session's id.
pub(crate) const AGENT_LABEL: &str = "agent";
pub(crate) const SESSION_LABEL: &str = "agent_session";

impl Start {
    /// The directory a run in place started in (git-fabro's `in_place` and `workdir`).
    pub(crate) fn workdir(&self) -> Option<&std::path::Path> {
        let in_place = self.extra.get("in_place").and_then(Value::as_bool) == Some(true);
        let dir = self.extra.get("workdir").and_then(Value::as_str)?;
        in_place.then(|| std::path::Path::new(dir))
    }
}

/// The key of `run.json` that says where the run landed last (git-fabro's own; Fabro has none).
pub(crate) const LANDED: &str = "landed";

/// Where a run landed last, kept in its `run.json` so that listings can say so.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Landing {
    pub branch: String,
    pub commit: String,
    pub time: String,
}
