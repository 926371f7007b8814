//! The manager loop (`shape=house`, `type=stack.manager_loop`): a child workflow run to its
//! end as a run of its own.
//!
//! As in Fabro, the child's graph is `stack.child_dot_source` (inline) or the file
//! `stack.child_workflow` (or `stack.child_dotfile`), validated before it runs; it starts from
//! a copy of the parent's context; the node takes the child's status, and the context keys the
//! child changed, engine-internal ones aside, come back as the node's context updates.
//!
//! git-fabro's choices: the child is a run of its own, started in place in the parent's
//! worktree (so its file changes are the parent's next run commit, as Fabro's child shares the
//! sandbox) from the parent's run-branch tip, recording `spec.parent_run_id`,
//! `parent_node_id` and `parent_visit`. Its id, status and run branch go to the stage's
//! `child_run.json` and to the context (`stack.child.run_id`, `stack.child.status`).
//! A relative child path is read from the parent workflow's directory, which the parent
//! recorded as `spec.workflow_dir`. The child runs in this process to its end, so Fabro's poll
//! loop is judged once it is over: a cycle is one `manager.poll_interval` of the child's
//! running time; a child that outlived `manager.max_cycles` cycles fails the node, and a
//! `manager.stop_condition` that held over the parent's context (Fabro evaluates it there,
//! at every poll) once a poll came ends the node succeeded.
//!
//! When a killed parent runs the node again, a child that had run to its end is the node's
//! result (its work is in the worktree); one left running is finished as failed and a fresh
//! child replaces it: nothing tells how much of its half-done walk the worktree still holds.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::command::Ran;
use super::{Engine, Executed, Observer, StageReport};
use crate::config::RUN_FILE;
use crate::engine::condition::{self, Facts};
use crate::engine::graph::Node;
use crate::engine::outcome::{Outcome, Status};
use crate::engine::workflow::Graph;
use crate::format::record::StatusKind;
use crate::format::run_id::RunId;
use crate::format::store::RunDir;
use crate::ops::finish::{FinishRequest, finish};
use crate::ops::start::{StartRequest, short_branch, start};
use crate::run::workspace::Workspace;
use crate::run::{self, RunState};

mod child;

pub use child::child_files;
use child::{Child, child_graph, refuse_unbounded};

/// Fabro's defaults.
const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(45);
const DEFAULT_MAX_CYCLES: u64 = 1000;
/// Children of children of ...: a chain of workflows that each start another stops here.
const MAX_DEPTH: usize = 16;

const CHILD_RUN_FILE: &str = "child_run.json";

/// Runs the manager loop `node` of run `id`; every problem is the stage's failure.
pub(super) fn run(
    engine: &Engine,
    id: &RunId,
    workspace: &Workspace,
    node: &Node,
    visit: u64,
) -> Ran {
    match manage(engine, id, workspace, node, visit) {
        Ok(ran) => ran,
        Err(reason) => Ran::outcome(Outcome::failed(&reason)),
    }
}

/// How the child ended: what the node's outcome is made of.
struct Ended {
    id: RunId,
    status: Status,
    failure: Option<String>,
    elapsed: Duration,
}

fn manage(
    engine: &Engine,
    id: &RunId,
    workspace: &Workspace,
    node: &Node,
    visit: u64,
) -> Result<Ran, String> {
    let parent = RunState::load(engine.repo, id).map_err(|e| e.to_string())?;
    let child = child_graph(engine, &parent, node)
        .map_err(|e| format!("Failed to parse child pipeline: {e}"))?;
    refuse_unbounded(engine, &parent, node, &child)?;
    if !child.approved && !engine.directions.trust {
        let file = child.file.as_deref().unwrap_or(Path::new("")).display();
        return Err(format!(
            "manager loop {}: its child workflow {file} was not written or approved on this \
             machine; `git fabro resume {id} --trust` runs it",
            node.id
        ));
    }
    let before = parent_context(engine, &parent, node, visit)?;
    let ended = match earlier_child(engine, id, node, visit) {
        Some(ended) => ended,
        None => run_child(engine, id, workspace, node, visit, &child, &before)?,
    };
    let after = RunState::load(engine.repo, &ended.id)
        .and_then(|state| state.linked_checkpoint(engine.repo))
        .map_err(|e| format!("cannot read the child run {}: {e}", ended.id))?
        .map(|checkpoint| checkpoint.context_values)
        .unwrap_or_default();

    let settings = Settings::of(node);
    let cycle = cycles(ended.elapsed, settings.poll_interval);
    let mut outcome = if settings.stopped(&before, ended.elapsed) {
        Outcome::succeeded("Stop condition satisfied at cycle 1".into())
    } else if cycle > settings.max_cycles {
        Outcome::failed(&format!(
            "Max cycles ({}) exceeded for manager loop node: {}",
            settings.max_cycles, node.id
        ))
    } else {
        let mut outcome = Outcome::succeeded(format!("Child completed at cycle {cycle}"));
        outcome.context_updates = changed(&before, &after);
        if ended.status.is_failure() {
            outcome.status = Status::Failed;
            let reason = ended.failure.as_deref().unwrap_or("the child run failed");
            outcome.notes = format!("Child run {} failed: {reason}", ended.id);
        }
        outcome
    };
    let child_id = &ended.id;
    let status = ended.status.as_str();
    outcome
        .context_updates
        .insert("stack.child.run_id".into(), json!(child_id.as_str()));
    outcome
        .context_updates
        .insert("stack.child.status".into(), json!(status));
    let link = json!({
        "run_id": child_id.as_str(),
        "status": status,
        "run_branch": short_branch(&run::run_branch(child_id)),
    });
    let link = crate::format::record::pretty(&link);
    Ok(Ran {
        outcome,
        exit_code: None,
        files: vec![(
            CHILD_RUN_FILE.to_string(),
            crate::ops::checkpoint::Attachment::Bytes(link),
        )],
    })
}

/// Starts the child in place in the parent's worktree and runs it to its end.
fn run_child(
    engine: &Engine,
    id: &RunId,
    workspace: &Workspace,
    node: &Node,
    visit: u64,
    child: &Child,
    before: &BTreeMap<String, Value>,
) -> Result<Ended, String> {
    let stage_dir = engine.stage_dir(node, visit);
    let source_file = match &child.file {
        Some(file) => file.clone(),
        None => {
            // An inline child is recorded like any workflow: from a file of its own.
            let source = node.str_attr("stack.child_dot_source").unwrap_or_default();
            let file = stage_dir.join("child.fabro");
            std::fs::create_dir_all(&stage_dir)
                .and_then(|()| std::fs::write(&file, source))
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
            file
        }
    };
    let run_toml = engine.run_dir.path.join(RUN_FILE);
    let request = StartRequest {
        workflow: Some(source_file),
        in_place: true,
        config: run_toml.is_file().then_some(run_toml),
        graph: Some(child.graph.to_fabro_json()),
        engine: true,
        spec_extra: BTreeMap::from([
            ("parent_run_id".into(), json!(id.as_str())),
            ("parent_node_id".into(), json!(node.id)),
            ("parent_visit".into(), json!(visit)),
        ]),
        ..StartRequest::default()
    };
    let started = start(&workspace.repo, &engine.config.home, &request)
        .map_err(|e| format!("cannot start the child run: {e}"))?;
    let child_id = RunId::parse(&started.run_id).map_err(|e| e.to_string())?;
    let child_dir = RunDir {
        path: started.run_dir.clone(),
    };
    let clock = Instant::now();
    let executed = execute_child(engine, &child_id, &child_dir, &child.graph, before.clone());
    let elapsed = clock.elapsed();
    match executed {
        Ok(executed) => Ok(Ended {
            id: child_id,
            status: executed.status,
            failure: executed.failure,
            elapsed,
        }),
        Err(err) => {
            let reason = format!("Child engine error: {err}");
            finish_failed(engine, &child_id, &format!("{STOPPED_BY_PARENT}{reason}"));
            Err(reason)
        }
    }
}

/// The parent's context as the walk holds it at this node: its last checkpoint's, which the
/// walk only extends by the node it is at.
fn parent_context(
    engine: &Engine,
    parent: &RunState,
    node: &Node,
    visit: u64,
) -> Result<BTreeMap<String, Value>, String> {
    let checkpoint = parent
        .linked_checkpoint(engine.repo)
        .map_err(|e| e.to_string())?;
    let mut context = checkpoint.map(|c| c.context_values).unwrap_or_default();
    context.insert("current_node".into(), json!(node.id));
    context.insert("internal.node_visit_count".into(), json!(visit));
    Ok(context)
}

/// The reason of a child that its parent finished, not its own walk.
const STOPPED_BY_PARENT: &str = "stopped by its parent run: ";

/// A child this stage started before, when the parent died before recording the node: one
/// that ran to its own end is the node's result (its work is in the worktree already); one
/// still running is finished as failed, to be replaced by a fresh child.
fn earlier_child(engine: &Engine, id: &RunId, node: &Node, visit: u64) -> Option<Ended> {
    let runs = run::list(engine.repo).ok()?;
    let mut latest = None;
    for (child, _) in runs {
        let Ok(state) = RunState::load(engine.repo, &child) else {
            continue;
        };
        let spec = &state.record.spec.extra;
        let ours = spec.get("parent_run_id") == Some(&json!(id.as_str()))
            && spec.get("parent_node_id") == Some(&json!(node.id))
            && spec.get("parent_visit") == Some(&json!(visit));
        if !ours {
            continue;
        }
        if state.record.status.kind == StatusKind::Running {
            let reason = "the parent run was interrupted; a fresh child run replaced this one";
            finish_failed(engine, &child, &format!("{STOPPED_BY_PARENT}{reason}"));
        } else {
            latest = Some(state);
        }
    }
    let state = latest?;
    let conclusion = state.record.conclusion.as_ref()?;
    let status = match state.record.status.kind {
        StatusKind::Succeeded => Status::Succeeded,
        StatusKind::Failed => Status::Failed,
        _ => return None,
    };
    let reason = conclusion.failure_reason.clone();
    if reason
        .as_deref()
        .is_some_and(|r| r.starts_with(STOPPED_BY_PARENT))
    {
        return None;
    }
    // The kill may have come inside its finish: running it again completes the local steps.
    finish_child(engine, &state, reason.as_deref());
    Some(Ended {
        id: state.id.clone(),
        status,
        failure: reason,
        elapsed: Duration::from_millis(conclusion.duration_ms),
    })
}

/// Ends a child that cannot go on, keeping whatever it left in the parent's worktree.
fn finish_failed(engine: &Engine, child: &RunId, reason: &str) {
    if let Ok(state) = RunState::load(engine.repo, child) {
        finish_child(engine, &state, Some(reason));
    }
}

/// Finishes `state` as failed when it is running, else completes the finish it recorded.
fn finish_child(engine: &Engine, state: &RunState, reason: Option<&str>) {
    let status = match state.record.status.kind {
        StatusKind::Running => StatusKind::Failed,
        kind => kind,
    };
    let run_dir = RunDir::locate(
        &engine.config.runs_dir,
        &state.id,
        None,
        None,
        &engine.repo.main_path(),
    );
    let workspace = Workspace::find(engine.repo, &state.id).ok().flatten();
    let request = FinishRequest {
        status,
        reason: reason.map(str::to_owned),
        keep_worktree: true,
        stages: None,
    };
    let _ = finish(
        engine.repo,
        state,
        engine.config,
        &request,
        run_dir.as_ref(),
        workspace.as_ref(),
    );
}

/// Runs the child to its end under its own run.pid.
fn execute_child(
    engine: &Engine,
    child: &RunId,
    run_dir: &RunDir,
    graph: &Graph,
    seed: BTreeMap<String, Value>,
) -> crate::error::Result<Executed> {
    let hold = run_dir.hold(child)?;
    let mut quiet = Quiet;
    let mut child_engine = Engine {
        repo: engine.repo,
        config: engine.config,
        run_dir,
        graph,
        env: engine.env.clone(),
        observer: &mut quiet,
        seed: Some(seed),
        directions: engine.directions,
    };
    let executed = child_engine.execute(child);
    drop(hold);
    executed
}

/// The child's stages are its own run's record; the parent's progress shows the manager node.
struct Quiet;

impl Observer for Quiet {
    fn stage_started(&mut self, _: &Node, _: u64) {}
    fn stage_finished(&mut self, _: &StageReport) {}
}

/// The keys the child changed or added, without the engine's own (Fabro's
/// `is_engine_internal_key`).
fn changed(
    before: &BTreeMap<String, Value>,
    after: &BTreeMap<String, Value>,
) -> BTreeMap<String, Value> {
    after
        .iter()
        .filter(|(key, value)| before.get(*key) != Some(*value))
        .filter(|(key, _)| !is_engine_internal(key))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn is_engine_internal(key: &str) -> bool {
    ["internal.", "graph.", "thread.", "current"]
        .iter()
        .any(|prefix| key.starts_with(prefix))
}

/// The `manager.*` attributes, with Fabro's defaults.
struct Settings<'a> {
    poll_interval: Duration,
    max_cycles: u64,
    stop_condition: Option<&'a str>,
}

impl<'a> Settings<'a> {
    fn of(node: &'a Node) -> Self {
        let poll_interval = node
            .attrs
            .get("manager.poll_interval")
            .and_then(|v| v.as_duration())
            .unwrap_or(DEFAULT_POLL_INTERVAL);
        let max_cycles = node
            .int_attr("manager.max_cycles")
            .map_or(DEFAULT_MAX_CYCLES, |n| {
                u64::try_from(n).unwrap_or(DEFAULT_MAX_CYCLES)
            })
            .max(1);
        let stop_condition = node
            .str_attr("manager.stop_condition")
            .filter(|c| !c.is_empty());
        Settings {
            poll_interval,
            max_cycles,
            stop_condition,
        }
    }

    /// Fabro checks the stop condition at each poll while the child runs, over the parent's
    /// context with a succeeded outcome: it ends the node once a poll came before the child's end.
    fn stopped(&self, parent: &BTreeMap<String, Value>, elapsed: Duration) -> bool {
        let Some(expr) = self.stop_condition else {
            return false;
        };
        let facts = Facts {
            outcome: Status::Succeeded.as_str(),
            preferred_label: None,
            context: parent,
        };
        elapsed >= self.poll_interval && condition::holds(expr, &facts)
    }
}

/// The poll cycle in which a child that ran `elapsed` ended: the first, unless it outlived
/// whole poll intervals.
fn cycles(elapsed: Duration, poll: Duration) -> u64 {
    if poll.is_zero() {
        return 1;
    }
    u64::try_from(elapsed.as_nanos() / poll.as_nanos())
        .unwrap_or(u64::MAX)
        .saturating_add(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycle_is_one_poll_interval_of_the_childs_time() {
        let poll = Duration::from_secs(45);
        assert_eq!(cycles(Duration::from_secs(3), poll), 1);
        assert_eq!(cycles(Duration::from_secs(45), poll), 2);
        assert_eq!(cycles(Duration::from_secs(100), poll), 3);
        assert_eq!(cycles(Duration::from_secs(100), Duration::ZERO), 1);
    }

    #[test]
    fn only_keys_the_child_changed_come_back_without_internal_ones() {
        let before = BTreeMap::from([
            ("kept".to_string(), json!(1)),
            ("changed".to_string(), json!("a")),
        ]);
        let after = BTreeMap::from([
            ("kept".to_string(), json!(1)),
            ("changed".to_string(), json!("b")),
            ("added".to_string(), json!(true)),
            ("internal.run_id".to_string(), json!("X")),
            ("graph.goal".to_string(), json!("g")),
            ("current_node".to_string(), json!("n")),
            ("thread.main.current_node".to_string(), json!("n")),
        ]);
        let diff = changed(&before, &after);
        assert_eq!(
            diff,
            BTreeMap::from([
                ("added".to_string(), json!(true)),
                ("changed".to_string(), json!("b")),
            ])
        );
    }

    #[test]
    fn settings_take_fabros_defaults() {
        let node = Node::new("m");
        let settings = Settings::of(&node);
        assert_eq!(settings.poll_interval, DEFAULT_POLL_INTERVAL);
        assert_eq!(settings.max_cycles, DEFAULT_MAX_CYCLES);
        assert!(!settings.stopped(&BTreeMap::new(), Duration::from_secs(3600)));
    }
}
