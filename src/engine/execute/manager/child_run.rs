//! The child's run: started in place in the parent's worktree from the parent's run-branch
//! tip, or, when an earlier visit of the same stage started one (the parent was killed or
//! stopped before it recorded the node), that one: taken as it ended, or taken up where it
//! stopped, as `resume` takes up any run. A child's nodes thus run at most as often as a
//! top-level run's would: its side-effect intents, answers and checkpoints hold across the
//! parent's kill.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use super::super::{Engine, Executed, Quiet, Stop};
use super::child::Child;
use crate::config::RUN_FILE;
use crate::engine::graph::Node;
use crate::engine::outcome::Status;
use crate::engine::workflow::Graph;
use crate::error::{Error, Result};
use crate::format::record::StatusKind;
use crate::format::run_id::RunId;
use crate::format::store::RunDir;
use crate::ops::finish::{FinishRequest, finish};
use crate::ops::lifecycle::reopen;
use crate::ops::start::{Checkout, StartRequest, start};
use crate::run::workspace::Workspace;
use crate::run::{self, RunState};

/// How the child ended: what the node's outcome is made of.
pub(super) struct Ended {
    pub id: RunId,
    pub status: Status,
    pub failure: Option<String>,
    pub elapsed: Duration,
}

/// The child came to its end, or stopped before it (the parent stops with it).
pub(super) enum ChildEnd {
    Ended(Ended),
    Stopped(Stop),
}

/// A child an earlier visit of the stage started.
enum Earlier {
    Ended(Ended),
    Unfinished(Box<RunState>),
}

/// The manager stage a child belongs to: the parent run `id` in `workspace`, and the visit
/// `visit` of its manager node.
pub(super) struct Parent<'a, 'e> {
    pub engine: &'a Engine<'e>,
    pub id: &'a RunId,
    pub workspace: &'a Workspace,
    pub node: &'a Node,
    pub visit: u64,
}

/// Runs the stage's child to its end: the earlier one, or a new one.
pub(super) fn run_child(
    parent: &Parent,
    child: &Child,
    before: &BTreeMap<String, Value>,
) -> Result<ChildEnd> {
    let engine = parent.engine;
    let child_id = match earlier_child(parent)? {
        Some(Earlier::Ended(ended)) => return Ok(ChildEnd::Ended(ended)),
        Some(Earlier::Unfinished(state)) => {
            adopt(engine, parent.workspace, &state)?;
            reopen(engine.repo, &state, engine.config)?;
            state.id
        }
        None => start_child(parent, child)?,
    };
    let executed = execute_child(engine, &child_id, &child.graph, before.clone())?;
    if let Some(stop) = executed.stopped {
        return Ok(ChildEnd::Stopped(stop));
    }
    Ok(ChildEnd::Ended(Ended {
        id: child_id,
        status: executed.status,
        failure: executed.failure,
        elapsed: Duration::from_millis(executed.duration_ms),
    }))
}

/// Makes a child that a worker on another machine started, whose record came here with its
/// parent's, a run of this machine: a run directory, and its place in the parent's worktree.
fn adopt(engine: &Engine, workspace: &Workspace, state: &RunState) -> Result<()> {
    crate::ops::resume::rebuild_run_dir(engine.repo, &engine.config.runs_dir, state)?;
    if run::workspace::registration(engine.repo, &state.id)?.is_none() {
        let labels = &state.record.spec.labels;
        run::workspace::register(engine.repo, &state.id, &workspace.path, labels)?;
    }
    Ok(())
}

/// Starts the child in place in the parent's worktree, recording whose child it is.
fn start_child(parent: &Parent, child: &Child) -> Result<RunId> {
    let Parent {
        engine,
        id,
        workspace,
        node,
        visit,
    } = *parent;
    let source_file = match &child.file {
        Some(file) => file.clone(),
        None => {
            // An inline child is recorded like any workflow: from a file of its own.
            let stage_dir = engine.stage_dir(node, visit);
            let file = stage_dir.join("child.fabro");
            std::fs::create_dir_all(&stage_dir)
                .and_then(|()| std::fs::write(&file, &child.source))
                .map_err(Error::io(format!("cannot write {}", file.display())))?;
            file
        }
    };
    let run_toml = engine.run_dir.path.join(RUN_FILE);
    let request = StartRequest {
        goal: child.goal.clone(),
        inputs: child.inputs.clone().into_iter().collect(),
        workflow: Some(source_file),
        checkout: Checkout::InPlace,
        config: run_toml.is_file().then_some(run_toml),
        graph: Some(child.loaded.to_fabro_json()),
        engine: true,
        spec_extra: BTreeMap::from([
            ("parent_run_id".into(), json!(id.as_str())),
            ("parent_node_id".into(), json!(node.id)),
            ("parent_visit".into(), json!(visit)),
        ])
        .into_iter()
        .chain(super::children_in_spec(child.children.clone()))
        .collect(),
        approve: Some(crate::engine::trusted::approved_at_start),
        ..StartRequest::default()
    };
    let started = start(&workspace.repo, &engine.config.home, &request)?;
    RunId::parse(&started.run_id)
}

/// The child of this stage that an earlier visit started, if any. Of several (a child
/// replaced by an earlier version of git-fabro), the latest one that its parent did not end.
fn earlier_child(parent: &Parent) -> Result<Option<Earlier>> {
    let Parent {
        engine,
        id,
        node,
        visit,
        ..
    } = *parent;
    let mut latest: Option<RunState> = None;
    for (child, _) in run::list(engine.repo)? {
        // A run that cannot be read is nobody's child here; `fsck` names it.
        let Ok(state) = RunState::load(engine.repo, &child) else {
            continue;
        };
        let spec = &state.record.spec.extra;
        let ours = spec.get("parent_run_id") == Some(&json!(id.as_str()))
            && spec.get("parent_node_id") == Some(&json!(node.id))
            && spec.get("parent_visit") == Some(&json!(visit));
        let replaced = state.record.conclusion.as_ref().is_some_and(|c| {
            c.failure_reason
                .as_deref()
                .is_some_and(|r| r.starts_with(STOPPED_BY_PARENT))
        });
        if ours && !replaced {
            latest = Some(state);
        }
    }
    let Some(state) = latest else {
        return Ok(None);
    };
    let status = match state.record.status.kind {
        StatusKind::Succeeded => Status::Succeeded,
        StatusKind::Failed => Status::Failed,
        _ => return Ok(Some(Earlier::Unfinished(Box::new(state)))),
    };
    let Some(conclusion) = state.record.conclusion.clone() else {
        return Ok(Some(Earlier::Unfinished(Box::new(state))));
    };
    // The kill may have come inside its finish: running it again completes the local steps.
    complete_finish(engine, &state, conclusion.failure_reason.as_deref())?;
    Ok(Some(Earlier::Ended(Ended {
        id: state.id.clone(),
        status,
        failure: conclusion.failure_reason,
        elapsed: Duration::from_millis(conclusion.duration_ms),
    })))
}

/// How an earlier version of git-fabro marked a child it replaced by a fresh one.
const STOPPED_BY_PARENT: &str = "stopped by its parent run: ";

/// Completes the finish a child recorded, keeping the parent's worktree.
fn complete_finish(engine: &Engine, state: &RunState, reason: Option<&str>) -> Result<()> {
    let run_dir = child_run_dir(engine, &state.id);
    let workspace = Workspace::find(engine.repo, &state.id)?;
    let request = FinishRequest {
        status: state.record.status.kind,
        reason: reason.map(str::to_owned),
        keep_worktree: true,
        stages: None,
    };
    finish(
        engine.repo,
        state,
        engine.config,
        &request,
        run_dir.as_ref(),
        workspace.as_ref(),
    )?;
    Ok(())
}

fn child_run_dir(engine: &Engine, child: &RunId) -> Option<RunDir> {
    RunDir::locate(&engine.config.runs_dir, child, None, None, || {
        engine.repo.main_path()
    })
}

/// Runs the child from where it is to its end (or its stop) under its own run.pid, with the
/// parent's directions: an `--answer` or `--assume-done` reaches the child's nodes too.
fn execute_child(
    engine: &Engine,
    child: &RunId,
    graph: &Graph,
    seed: BTreeMap<String, Value>,
) -> Result<Executed> {
    let run_dir = child_run_dir(engine, child).ok_or_else(|| {
        Error::Failed(format!(
            "the child run {child} has no run directory on this machine"
        ))
    })?;
    let hold = run_dir.hold(child)?;
    let mut quiet = Quiet;
    let mut child_engine = Engine {
        repo: engine.repo,
        config: engine.config,
        run_dir: &run_dir,
        graph,
        env: engine.env.clone(),
        observer: &mut quiet,
        seed: Some(seed),
        directions: engine.directions,
        interviewer: engine.interviewer,
        warnings: engine.warnings,
        // A child run's writes are published under its parent's lease, which names it, so that
        // a worker taking the parent over takes the child up where it was.
        fence: engine.fence,
    };
    let executed = child_engine.execute(child);
    drop(hold);
    executed
}
