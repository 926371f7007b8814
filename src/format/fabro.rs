//! What Fabro's record types require of `run.json` (FORMAT.md, Format 2), in one place:
//! filling a record so that Fabro's types read it (`complete`, on every write), and reading a
//! record Fabro wrote (`adopt`, on read).

use serde_json::{Map, Value, json};

use crate::format::node::StageStatus;
use crate::format::record::{FORMAT, RunRecord, Status, StatusKind};

/// Fabro's `SuccessReason` names.
pub const SUCCESS_REASONS: &[&str] = &["completed", "partial_success"];

/// Fabro's `FailureReason` names.
pub const FAILURE_REASONS: &[&str] = &[
    "workflow_error",
    "cancelled",
    "terminated",
    "transient_infra",
    "budget_exhausted",
    "launch_failed",
    "bootstrap_failed",
    "sandbox_init_failed",
];

/// Under an archived run's `status`: what it was when that was not a finished status, which
/// Fabro's `prior` cannot hold (it says `dead` there).
pub const PRIOR_ACTIVE: &str = "prior_active";

/// Fabro's `WorkflowSettings` with every value at its default: what a run records when its
/// configuration has no counterpart in Fabro's settings. Fabro's types require every key.
pub fn default_settings() -> Value {
    serde_json::from_str(include_str!("fabro_settings.json")).unwrap_or(Value::Null)
}

/// Fabro's `Graph` for a run without a workflow: no nodes, the goal as the graph's `goal`.
pub fn empty_graph(name: &str, goal: Option<&str>) -> Value {
    let mut attrs = Map::new();
    if let Some(goal) = goal {
        attrs.insert("goal".into(), json!({ "String": goal }));
    }
    json!({ "name": name, "nodes": {}, "edges": [], "attrs": attrs })
}

/// A string attribute of a Fabro `Graph` (`attrs.<key>.String`).
pub fn graph_attr(graph: &Value, key: &str) -> Option<String> {
    graph
        .pointer(&format!("/attrs/{key}/String"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The reason Fabro's status needs for a kind that takes one.
pub fn default_reason(kind: StatusKind) -> Option<&'static str> {
    match kind {
        StatusKind::Succeeded => Some("completed"),
        StatusKind::Failed => Some("workflow_error"),
        _ => None,
    }
}

/// `status.prior` of an archived run that was `status` before: Fabro's `TerminalStatus`.
/// The second value is what `PRIOR_ACTIVE` keeps when the run had not finished.
pub fn archived_prior(status: &Status) -> (Value, Option<StatusKind>) {
    match status.kind {
        StatusKind::Succeeded | StatusKind::Failed => {
            let reason = valid_reason(status).or(default_reason(status.kind));
            (
                json!({ "kind": status.kind.as_str(), "reason": reason }),
                None,
            )
        }
        StatusKind::Dead => (json!({ "kind": "dead" }), None),
        kind => (json!({ "kind": "dead" }), Some(kind)),
    }
}

/// What an archived run goes back to: the unfinished status it had, else its `prior` (an
/// object in format 2, a bare kind in format 1).
pub fn prior_status(status: &Status) -> Option<Status> {
    if let Some(kind) = status
        .extra
        .get(PRIOR_ACTIVE)
        .and_then(|v| serde_json::from_value::<StatusKind>(v.clone()).ok())
    {
        return Some(Status::new(kind));
    }
    match status.prior.as_ref()? {
        Value::String(kind) => serde_json::from_value(json!(kind)).ok().map(Status::new),
        prior => {
            let mut prior: Status = serde_json::from_value(prior.clone()).ok()?;
            prior.extra.clear();
            Some(prior)
        }
    }
    .filter(|s| s.kind != StatusKind::Archived)
}

fn valid_reason(status: &Status) -> Option<&'static str> {
    let reason = status.reason.as_deref()?;
    let names = match status.kind {
        StatusKind::Succeeded => SUCCESS_REASONS,
        StatusKind::Failed => FAILURE_REASONS,
        _ => return None,
    };
    names.iter().find(|n| **n == reason).copied()
}

/// The run status a conclusion's outcome stands for (Fabro's conclusion holds a stage outcome).
pub fn concluded(outcome: StageStatus) -> Status {
    match outcome {
        StageStatus::Succeeded => Status::new(StatusKind::Succeeded),
        StageStatus::PartiallySucceeded => Status {
            reason: Some("partial_success".into()),
            ..Status::new(StatusKind::Succeeded)
        },
        StageStatus::Failed | StageStatus::Skipped => Status::new(StatusKind::Failed),
    }
}

/// The conclusion's outcome of a run that ends as `kind`.
pub fn conclusion_outcome(kind: StatusKind) -> StageStatus {
    match kind {
        StatusKind::Succeeded => StageStatus::Succeeded,
        _ => StageStatus::Failed,
    }
}

/// Fills `record` so that Fabro's types read it: the run id in `spec` and `start`, settings
/// and graph, the status in Fabro's tagged shape. Records of format 1 are upgraded this way
/// when git-fabro writes them again; `checkpoints` and `stages` of a Fabro projection are
/// dropped, because git-fabro does not keep them current (timelines come from the trailers).
pub fn complete(record: &mut RunRecord) {
    record.format = FORMAT;
    let id = record.run_id.clone();
    let spec = &mut record.spec;
    spec.run_id.clone_from(&id);
    if spec.settings.is_null() {
        spec.settings = default_settings();
    }
    if spec.graph.is_null() {
        let name = spec
            .workflow_slug
            .clone()
            .or_else(|| spec.workflow_name.clone())
            .unwrap_or_default();
        spec.graph = empty_graph(&name, spec.goal.as_deref());
    }
    if spec.workflow_slug.is_none() {
        spec.workflow_slug = spec.workflow_name.clone();
    }
    if spec.git.is_none()
        && let Some(url) = spec.origin_url.clone()
    {
        spec.git = Some(crate::format::record::GitContext {
            origin_url: url,
            branch: String::new(),
            sha: Some(record.start.base_sha.clone()).filter(|s| !s.is_empty()),
            dirty: "unknown".into(),
            push_outcome: json!({ "type": "not_attempted" }),
        });
    }
    if spec.fork_source_ref.is_none()
        && let Some(source) = &spec.fork_source
    {
        spec.fork_source_ref = Some(crate::format::record::ForkSourceRef {
            source_run_id: source.run_id.clone(),
            checkpoint_sha: source.run_commit.clone(),
        });
    }
    record.start.run_id.clone_from(&id);
    complete_status(record);
    record.extra.remove("checkpoints");
    record.extra.remove("stages");
}

fn complete_status(record: &mut RunRecord) {
    let status = &mut record.status;
    match status.kind {
        StatusKind::Succeeded | StatusKind::Failed => {
            if valid_reason(status).is_none() {
                // Format 1 kept a person's text here; Fabro keeps it in the conclusion.
                if let (Some(text), Some(conclusion)) =
                    (status.reason.take(), record.conclusion.as_mut())
                    && status.kind == StatusKind::Failed
                    && conclusion.failure_reason.is_none()
                {
                    conclusion.failure_reason = Some(text);
                }
                status.reason = default_reason(status.kind).map(str::to_owned);
            }
        }
        StatusKind::Archived => {
            let prior = status.prior.take();
            let was = match prior {
                Some(Value::Object(_)) => prior,
                // Format 1 kept the bare kind.
                Some(Value::String(kind)) => serde_json::from_value::<StatusKind>(json!(kind))
                    .ok()
                    .map(|kind| {
                        let (prior, active) = archived_prior(&Status::new(kind));
                        if let Some(active) = active {
                            status.extra.insert(PRIOR_ACTIVE.into(), json!(active));
                        }
                        prior
                    }),
                _ => None,
            };
            status.prior = Some(was.unwrap_or_else(|| json!({ "kind": "dead" })));
        }
        _ => status.reason = None,
    }
}

/// Reads a projection Fabro wrote: the run id from its spec, the metadata branch from the id,
/// the final status from the conclusion (Fabro writes its last snapshot while the status
/// still says `running`), and the start node counted before the first run commit.
pub fn adopt(record: &mut RunRecord) {
    if record.run_id.is_empty() {
        record.run_id = if record.spec.run_id.is_empty() {
            record.start.run_id.clone()
        } else {
            record.spec.run_id.clone()
        };
    }
    let id = record.run_id.clone();
    if record.start.run_branch.is_empty() {
        record.start.run_branch = format!("fabro/run/{id}");
    }
    if record.start.meta_branch.is_empty() {
        record.start.meta_branch = format!("fabro/meta/{id}");
    }
    record.spec.completed_offset = 1;
    if let (true, Some(conclusion)) = (record.status.kind.is_active(), &record.conclusion) {
        record.status = concluded(conclusion.status);
    }
}
