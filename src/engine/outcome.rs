//! What a node's handler reports: its status and what routing and the context take from it.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// A stage's status, in Fabro's vocabulary since 2026-04-30.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Succeeded,
    PartiallySucceeded,
    Failed,
    Skipped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Succeeded => "succeeded",
            Status::PartiallySucceeded => "partially_succeeded",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
        }
    }

    pub fn is_failure(self) -> bool {
        self == Status::Failed
    }
}

/// Whether a failed attempt may run again (Fabro retries nothing else, so a script's non-zero
/// exit is never retried).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Retry {
    #[default]
    No,
    /// The handler asked for another attempt (an agent's `retry`, a human gate's timeout).
    Requested,
    /// The attempt hit an error worth another try: a timeout, a process that did not start.
    Error,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: Status,
    pub preferred_label: Option<String>,
    pub suggested_next_ids: Vec<String>,
    pub context_updates: BTreeMap<String, Value>,
    /// Go straight to this node, without edge selection (a parallel node's join).
    pub jump_to_node: Option<String>,
    pub notes: String,
    pub retry: Retry,
}

impl Outcome {
    pub fn succeeded(notes: String) -> Self {
        Outcome {
            status: Status::Succeeded,
            preferred_label: None,
            suggested_next_ids: Vec::new(),
            context_updates: BTreeMap::new(),
            jump_to_node: None,
            notes,
            retry: Retry::No,
        }
    }

    pub fn failed(reason: &str) -> Self {
        Outcome {
            status: Status::Failed,
            ..Outcome::succeeded(reason.to_string())
        }
    }

    /// A failure that another attempt may cure.
    pub fn retryable(reason: &str, retry: Retry) -> Self {
        Outcome {
            retry,
            ..Outcome::failed(reason)
        }
    }
}
