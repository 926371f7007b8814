//! Fabro's run events, appended to the run directory's `progress.jsonl` as they happen. A
//! failure to append loses only the log line, never the run.

use serde_json::{Value, json};

use super::Engine;
use super::context_text::{context_text, file_context_text};
use crate::engine::graph::Node;
use crate::format::run_id::RunId;
use crate::format::time::Timestamp;
use crate::ops::checkpoint::Attachment;

impl Engine<'_> {
    /// An event of the run, naming no node.
    pub(super) fn run_event(&self, id: &RunId, name: &str, properties: Value) {
        super::watchdog::touch();
        let _ = self.run_dir.append_event(&json!({
            "ts": Timestamp::now().rfc3339(),
            "run_id": id.as_str(),
            "event": name,
            "properties": properties,
        }));
    }

    /// An event of stage `stage` of `node`.
    pub(super) fn event(
        &self,
        id: &RunId,
        name: &str,
        node: &Node,
        stage: &str,
        properties: Value,
    ) {
        super::watchdog::touch();
        let _ = self.run_dir.append_event(&json!({
            "ts": Timestamp::now().rfc3339(),
            "run_id": id.as_str(),
            "node_id": node.id,
            "node_label": node.label(),
            "stage_id": stage,
            "event": name,
            "properties": properties,
        }));
    }
}

/// Fabro's `command.completed` properties: the script's timing with its output.
pub(super) fn command_completed(files: &[(String, Attachment)]) -> Value {
    let file = |name: &str| files.iter().find(|(n, _)| n == name).map(|(_, d)| d);
    let mut properties = match file("script_timing.json") {
        Some(Attachment::Bytes(data)) => serde_json::from_slice(data).ok(),
        _ => None,
    }
    .unwrap_or_else(|| json!({}));
    // As much of each stream as the context holds, read from the log file's end.
    for stream in ["stdout", "stderr"] {
        let name = format!("{stream}.log");
        let text = file(&name).map(|data| match data {
            Attachment::Bytes(data) => context_text(data, &name),
            Attachment::File(path) => file_context_text(path, &name),
        });
        properties[stream] = json!(text.unwrap_or_default());
    }
    properties
}
