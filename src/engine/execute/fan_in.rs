//! The fan-in handler (`shape=tripleoctagon`): picks the best of the branches a parallel node
//! left in `parallel.results`, as Fabro's heuristic does (succeeded before partially succeeded
//! before failed, then the higher `score`, then the smaller id), and fast-forwards the run
//! branch to that branch's commit when it descends from the run's tip. It fails when every
//! branch failed.
//!
//! Fabro asks an LLM to choose when the node has a `prompt`; git-fabro always uses the
//! heuristic, so a fan-in's choice never depends on a model.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::Engine;
use super::command::Ran;
use crate::engine::outcome::Outcome;
use crate::format::run_id::RunId;
use crate::git::ObjectId;
use crate::run::RunState;
use crate::run::workspace::Workspace;

/// The branch a fan-in takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: String,
    pub status: String,
    pub head_sha: Option<String>,
}

fn rank(status: &str) -> u8 {
    match status {
        "succeeded" => 0,
        "partially_succeeded" => 1,
        "failed" => 2,
        _ => 4,
    }
}

/// Fabro's heuristic choice among `parallel.results`; `unknown`/`failed` when there is none.
pub fn best_candidate(results: &[Value]) -> Candidate {
    let text = |v: &Value, key: &str, default: &str| {
        v.get(key)
            .and_then(Value::as_str)
            .unwrap_or(default)
            .to_string()
    };
    let score = |v: &Value| v.get("score").and_then(Value::as_f64).unwrap_or(0.0);
    let best = results.iter().min_by(|a, b| {
        rank(&text(a, "status", "failed"))
            .cmp(&rank(&text(b, "status", "failed")))
            .then_with(|| score(b).partial_cmp(&score(a)).unwrap_or(Ordering::Equal))
            .then_with(|| text(a, "id", "unknown").cmp(&text(b, "id", "unknown")))
    });
    match best {
        Some(v) => Candidate {
            id: text(v, "id", "unknown"),
            status: text(v, "status", "failed"),
            head_sha: v
                .get("head_sha")
                .and_then(Value::as_str)
                .map(str::to_string),
        },
        None => Candidate {
            id: "unknown".into(),
            status: "failed".into(),
            head_sha: None,
        },
    }
}

impl Engine<'_> {
    pub(super) fn run_fan_in(
        &self,
        id: &RunId,
        workspace: &Workspace,
        context: &BTreeMap<String, Value>,
    ) -> Ran {
        let ran = |outcome| Ran::outcome(outcome);
        if super::parallel::in_branch(id, workspace) {
            return ran(Outcome::failed(
                "a fan-in cannot run inside a parallel node's branch",
            ));
        }
        let Some(Value::Array(results)) = context.get("parallel.results") else {
            return ran(Outcome::failed("No parallel results to evaluate"));
        };
        let best = best_candidate(results);
        let all_failed = results
            .iter()
            .all(|r| r.get("status").and_then(Value::as_str).unwrap_or("failed") == "failed");
        if all_failed {
            return ran(Outcome::failed("all candidates failed"));
        }
        if let Some(head) = best.head_sha.as_deref() {
            let moved = ObjectId::from_hex(head.as_bytes())
                .map_err(|_| crate::error::Error::Failed(format!("{head} is not a commit id")))
                .and_then(|head| {
                    let tip = RunState::load(self.repo, id)?.run_tip;
                    self.fast_forward(id, workspace, tip, head)
                });
            if let Err(err) = moved {
                let reason = format!("cannot take branch {}: {err}", best.id);
                return ran(Outcome::failed(&reason));
            }
        }
        let mut outcome = Outcome::succeeded(format!("Selected best candidate: {}", best.id));
        let updates = &mut outcome.context_updates;
        updates.insert("parallel.fan_in.best_id".into(), json!(best.id));
        updates.insert("parallel.fan_in.best_outcome".into(), json!(best.status));
        if let Some(head) = &best.head_sha {
            updates.insert("parallel.fan_in.best_head_sha".into(), json!(head));
        }
        ran(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_candidate_ranks_status_then_score_then_id() {
        let results = [
            json!({ "id": "c", "status": "partially_succeeded" }),
            json!({ "id": "b", "status": "succeeded", "head_sha": "0a" }),
            json!({ "id": "a", "status": "failed" }),
        ];
        let best = best_candidate(&results);
        assert_eq!(
            (best.id.as_str(), best.head_sha.as_deref()),
            ("b", Some("0a"))
        );
        let scored = [
            json!({ "id": "a", "status": "succeeded", "score": 0.2 }),
            json!({ "id": "z", "status": "succeeded", "score": 0.9 }),
        ];
        assert_eq!(best_candidate(&scored).id, "z");
        let tied = [
            json!({ "id": "m", "status": "succeeded" }),
            json!({ "id": "k", "status": "succeeded" }),
        ];
        assert_eq!(best_candidate(&tied).id, "k");
        assert_eq!(best_candidate(&[]).status, "failed");
    }
}
