//! What a run records as it starts: its `run.json`, with Fabro's `GitContext` of the
//! repository and git-fabro's own keys for a run its engine executes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::{Sources, StartRequest, short_branch};
use crate::format::record::{FORMAT, GitContext, RunRecord, Spec, Start, Status, StatusKind};
use crate::format::run_id::RunId;
use crate::format::time::Timestamp;
use crate::git::{ObjectId, Repo};
use crate::input;
use crate::run;

/// The run's `run.json` as it starts.
pub(super) fn run_record(
    repo: &Repo,
    request: &StartRequest,
    sources: &Sources,
    id: &RunId,
    now: Timestamp,
    base: ObjectId,
    in_place: bool,
) -> RunRecord {
    let workflow = sources.workflow.as_ref();
    let mut start_extra = BTreeMap::new();
    if let (true, Some(dir)) = (in_place, repo.workdir()) {
        start_extra.insert("in_place".into(), json!(true));
        start_extra.insert("workdir".into(), json!(dir));
    }
    RunRecord {
        format: FORMAT,
        run_id: id.to_string(),
        spec: Spec {
            run_id: id.to_string(),
            graph: request.graph.clone().unwrap_or_default(),
            workflow_slug: workflow.map(|(_, name, _)| name.clone()),
            goal: request.goal.clone(),
            labels: request.labels.iter().cloned().collect(),
            graph_sha256: workflow.map(|(_, _, sha)| sha.clone()),
            git: git_context(repo, base, in_place),
            in_place,
            completed_offset: usize::from(request.engine),
            extra: engine_keys(request),
            ..Spec::default()
        },
        graph_source: workflow.and_then(|(source, _, _)| String::from_utf8(source.clone()).ok()),
        start: Start {
            run_id: id.to_string(),
            start_time: now.rfc3339(),
            run_branch: short_branch(&run::run_branch(id)),
            meta_branch: short_branch(&run::meta_branch(id)),
            base_sha: base.to_string(),
            extra: start_extra,
        },
        status: Status::new(StatusKind::Running),
        checkpoint: None,
        conclusion: None,
        superseded_by: None,
        extra: BTreeMap::new(),
    }
}

/// Fabro's `GitContext` of a run in a repository: its origin without credentials (empty when
/// it has none), the branch checked out, the base commit, and whether the directory held
/// changes that `HEAD` lacks (known only for a run in place, which captures them).
fn git_context(repo: &Repo, base: ObjectId, in_place: bool) -> Option<GitContext> {
    if repo.is_shadow() {
        return None;
    }
    let head = repo.resolve_commit("HEAD").ok();
    Some(GitContext {
        origin_url: repo
            .config_string("remote.origin.url")
            .map(|url| crate::git::remote::redact_url(&url))
            .unwrap_or_default(),
        branch: repo
            .head_branch()
            .map(|name| short_branch(&name))
            .unwrap_or_default(),
        sha: Some(base.to_string()),
        dirty: match (in_place, head == Some(base)) {
            (true, false) => "dirty",
            (true, true) => "clean",
            (false, _) => "unknown",
        }
        .into(),
        push_outcome: json!({ "type": "not_attempted" }),
    })
}

/// `spec.engine` and `spec.inputs`, git-fabro's keys for a run its engine executes.
fn engine_keys(request: &StartRequest) -> BTreeMap<String, serde_json::Value> {
    let mut keys = BTreeMap::new();
    if request.engine {
        keys.insert("engine".into(), json!(ENGINE));
        let inputs: BTreeMap<&str, &str> = request
            .inputs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        keys.insert("inputs".into(), json!(inputs));
        // A manager loop's child file is named relative to the workflow's directory, which a
        // resume must still know.
        let dir = request.workflow.as_deref().and_then(workflow_dir);
        if let Some(dir) = dir.as_deref().and_then(Path::to_str) {
            keys.insert(WORKFLOW_DIR.into(), json!(dir));
        }
    }
    keys.extend(request.spec_extra.clone());
    keys
}

/// `spec.workflow_dir`: the absolute directory of the workflow file an engine run started with.
pub const WORKFLOW_DIR: &str = "workflow_dir";

fn workflow_dir(workflow: &Path) -> Option<PathBuf> {
    let dir = Some(input::named_dir(workflow)).filter(|d| !d.as_os_str().is_empty());
    std::fs::canonicalize(dir.unwrap_or(Path::new("."))).ok()
}

/// The value of `spec.engine` for runs git-fabro's engine executes.
pub const ENGINE: &str = "git-fabro";
