//! The run directory's copy of a checkpoint: the stage's files, `checkpoint.json`, the
//! event and `live.json`, which a checkpoint keeps current after it is durable in git.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Attachment, Checkpointed};
use crate::error::Result;
use crate::format::record::{RunRecord, StageRecord, pretty};
use crate::format::store::RunDir;
use crate::format::time::Timestamp;

pub(super) fn record(
    dir: &RunDir,
    stage: &StageRecord,
    attachments: &[(&str, &Attachment)],
    outcome: &Checkpointed,
) -> Result<()> {
    let node_dir = RunDir::node_dir(&outcome.node_id, outcome.visit);
    dir.write(&format!("{node_dir}/status.json"), &pretty(stage))?;
    for (name, data) in attachments {
        let name = format!("{node_dir}/{name}");
        match data {
            Attachment::Bytes(bytes) => dir.write(&name, bytes)?,
            // A node's output streams into its stage folder: that file is already the copy.
            Attachment::File(path) if dir.holds(&name, path) => {}
            Attachment::File(path) => dir.copy(&name, path)?,
        }
    }
    let record = outcome.state.record.checkpoint.as_ref();
    let mut latest = serde_json::to_value(record).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut latest {
        map.insert("git_commit_sha".into(), outcome.run_commit.clone().into());
        map.insert("meta_commit_sha".into(), outcome.meta_commit.clone().into());
    }
    dir.write_json("checkpoint.json", &latest)?;
    dir.append_event(&json!({
        "event": "checkpoint.completed",
        "timestamp": stage.timestamp,
        "run_id": outcome.run_id,
        "node_id": outcome.node_id,
        "visit": outcome.visit,
        "status": stage.outcome,
        "completed": outcome.completed,
        "run_commit": outcome.run_commit,
        "meta_commit": outcome.meta_commit,
    }))?;
    dir.write_json("live.json", &live(&outcome.state.record, Some(outcome)))
}

/// `live.json`: the run's state at its latest event.
pub fn live(record: &RunRecord, last: Option<&Checkpointed>) -> Value {
    let checkpoint = record.checkpoint.as_ref();
    let mut live = BTreeMap::new();
    live.insert("run_id", json!(record.run_id));
    live.insert("status", json!(record.status.kind));
    live.insert("updated_at", json!(Timestamp::now().rfc3339()));
    live.insert("completed", json!(record.completed()));
    live.insert("current_node", json!(checkpoint.map(|c| &c.current_node)));
    live.insert(
        "next_node_id",
        json!(checkpoint.and_then(|c| c.next_node_id.as_ref())),
    );
    live.insert("run_commit", json!(last.map(|l| &l.run_commit)));
    live.insert("meta_commit", json!(last.map(|l| &l.meta_commit)));
    json!(live)
}
