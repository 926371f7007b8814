//! A stage's outcome in the words of Fabro's records: the status names `node_outcomes` and
//! the checkpoint use, and the outcome as `node_outcomes` holds it.

use serde_json::{Value, json};

use super::failure::Failure;
use crate::engine::outcome::{Outcome, Status};
use crate::format::node::StageStatus;

pub(super) fn status_of(text: &str) -> Option<Status> {
    Some(match StageStatus::parse(text).ok()? {
        StageStatus::Succeeded => Status::Succeeded,
        StageStatus::PartiallySucceeded => Status::PartiallySucceeded,
        StageStatus::Failed => Status::Failed,
        StageStatus::Skipped => Status::Skipped,
    })
}

pub(super) fn stage_status(status: Status) -> StageStatus {
    match status {
        Status::Succeeded => StageStatus::Succeeded,
        Status::PartiallySucceeded => StageStatus::PartiallySucceeded,
        Status::Failed => StageStatus::Failed,
        Status::Skipped => StageStatus::Skipped,
    }
}

/// Fabro's `Outcome` as `node_outcomes` holds it: empty fields left out, `usage` always there.
pub(super) fn outcome_json(outcome: &Outcome, failure: Option<&Failure>) -> Value {
    let mut json = json!({ "status": outcome.status.as_str(), "usage": null });
    if !outcome.notes.is_empty() {
        json["notes"] = json!(outcome.notes);
    }
    if let Some(failure) = failure {
        json["failure"] = failure.to_json();
    }
    if let Some(label) = &outcome.preferred_label {
        json["preferred_label"] = json!(label);
    }
    if !outcome.suggested_next_ids.is_empty() {
        json["suggested_next_ids"] = json!(outcome.suggested_next_ids);
    }
    if !outcome.context_updates.is_empty() {
        json["context_updates"] = json!(outcome.context_updates);
    }
    json
}
