//! The run loop: node after node from where the walk is, each visit checked against Fabro's
//! limits, run through the stage pipeline, then checkpointed, its edge chosen, until the
//! exit, a failure with nowhere to go, or a stop; then the run is finished.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::json;

use super::failure::Failure;
use super::stage::{Attempted, Stage, Staged};
use super::start::Walk;
use super::{Engine, Executed, StageReport, Stop, conclusion, interrupt, loops, watchdog};
use crate::engine::graph::{Edge, Graph, Node};
use crate::engine::outcome::{Outcome, Status};
use crate::engine::routing::{is_terminal, retry_target, select_edge};
use crate::error::{Error, Result};
use crate::format::record::StatusKind;
use crate::format::run_id::RunId;
use crate::git::Movers;
use crate::ops::finish::{FinishRequest, finish};
use crate::run::workspace::Workspace;
use crate::run::{RunState, meta_branch, run_branch};

/// How a walk ended.
enum Ending {
    /// At the exit, every goal gate satisfied.
    Succeeded,
    Failed(String),
    /// Before its end, resumable; the stage it names is not recorded.
    Stopped(Stop),
}

/// A stage that ran, with where the walk goes from it.
pub(super) struct Routed<'g> {
    pub(super) outcome: Outcome,
    pub(super) failure: Option<Failure>,
    pub(super) edge: Option<&'g Edge>,
    pub(super) next: Option<String>,
    /// A run error (Fabro's loop breaker, a blocked restart) that ends the run before the
    /// stage is recorded, as in Fabro.
    pub(super) breaks: Option<String>,
}

impl<'a> Engine<'a> {
    /// Runs the run `id` from where its checkpoints leave it to its end, and finishes it.
    pub fn execute(&mut self, id: &RunId) -> Result<Executed> {
        let state = RunState::load(self.repo, id)?;
        let mut workspace = Workspace::find(self.repo, id)?.ok_or_else(|| state.no_workspace())?;
        if self.config.watch_worktree {
            workspace.watch(self.config);
        }
        let previous = state.linked_checkpoint(self.repo)?;
        let (mut walk, current) = match &previous {
            Some(checkpoint) => self.resumed(&state, checkpoint)?,
            None => self.fresh(&state)?,
        };
        if previous.is_some() {
            self.recover_intents(id)?;
        }
        if self.seed.is_none() {
            watchdog::arm(self.graph);
        }
        let mut stages = Vec::new();
        let ending = match self.run_start_hooks(id, &workspace) {
            Some(blocked) => Ending::Failed(blocked),
            None => self.walk(id, &workspace, &mut walk, current, &mut stages)?,
        };
        let mut executed = Executed {
            run_id: id.to_string(),
            status: Status::Failed,
            stages,
            duration_ms: 0,
            active_ms: 0,
            failure: None,
            warnings: Vec::new(),
            stopped: None,
        };
        let failure = match ending {
            Ending::Stopped(stop) => {
                self.record_stop(id, &stop)?;
                executed.stopped = Some(stop);
                return Ok(executed);
            }
            Ending::Succeeded => None,
            Ending::Failed(reason) => Some(reason),
        };
        self.run_end_hooks(id, &workspace, failure.as_deref());
        let state = RunState::load(self.repo, id)?;
        let request = FinishRequest {
            status: match failure {
                None => StatusKind::Succeeded,
                Some(_) => StatusKind::Failed,
            },
            reason: failure.clone(),
            keep_worktree: false,
            stages: Some(conclusion::summaries(self.repo, &state, self.graph)?),
        };
        let finished = finish(
            self.repo,
            &state,
            self.config,
            &request,
            Some(self.run_dir),
            Some(&workspace),
        )?;
        executed.status = match failure {
            None => Status::Succeeded,
            Some(_) => Status::Failed,
        };
        executed.failure = failure;
        executed.duration_ms = finished.duration_ms;
        executed.active_ms = finished.active_ms;
        executed.warnings = finished.warnings;
        Ok(executed)
    }

    /// The loop. `Err` is an engine failure (a ref race, a full disk): the run stays running
    /// and resumable.
    fn walk(
        &mut self,
        id: &RunId,
        workspace: &Workspace,
        walk: &mut Walk,
        mut current: String,
        stages: &mut Vec<StageReport>,
    ) -> Result<Ending> {
        // From here on, nothing from another repository may move the run's branches (see
        // `git::reflog`).
        let (meta, run) = (meta_branch(id), run_branch(id));
        let mut moves = self
            .repo
            .reflog_marks(&[(&meta, Movers::Fabro), (&run, Movers::FabroAndWorktree)]);
        loop {
            let stage = match self.enter(id, walk, current)? {
                Ok(stage) => stage,
                Err(ending) => return Ok(ending),
            };
            let (node, visit) = (stage.node, stage.visit);
            self.observer.stage_started(node, visit);
            let clock = Instant::now();
            let staged = Staged {
                id,
                workspace,
                stage: &stage,
                context: &walk.context,
            };
            let attempted = match self.run_stage(&staged)? {
                Ok(attempted) => attempted,
                Err(stop) => return Ok(Ending::Stopped(stop)),
            };
            if watchdog::fired() {
                return Ok(Ending::Failed(self.stalled(id, node)));
            }
            let exit_code = attempted.ran.exit_code;
            let mut ran = self.route(walk, node, &attempted);
            self.apply_edge_hooks(id, workspace, node, &mut ran);
            let report = StageReport {
                node_id: node.id.clone(),
                visit,
                status: ran.outcome.status,
                duration_ms: super::stage::millis(clock),
                exit_code,
                failure: ran.failure.as_ref().map(|f| f.message.clone()),
            };
            self.stage_ended(id, &stage, &ran, &attempted, report.duration_ms);
            if let Some(reason) = ran.breaks {
                self.observer.stage_finished(&report);
                stages.push(report);
                return Ok(Ending::Failed(reason));
            }
            let recorded = self.record(
                id, workspace, walk, &stage, attempted, &ran, &report, &mut moves,
            );
            if let Err(err @ Error::RecordTooLarge { .. }) = recorded {
                // Nothing was written; left running, the run would fail so again on resume.
                self.observer.stage_finished(&report);
                stages.push(report);
                return Ok(Ending::Failed(format!(
                    "stage {} could not be recorded: {err}",
                    stage.id()
                )));
            }
            recorded?;
            self.checkpoint_hooks(id, workspace, node);
            self.observer.stage_finished(&report);
            stages.push(report);
            if let Some(edge) = ran.edge.filter(|e| loops::is_loop_restart(e)) {
                self.event(
                    id,
                    "loop.restart",
                    node,
                    &stage.id(),
                    json!({
                        "from_node": node.id, "to_node": edge.to,
                    }),
                );
                let state = RunState::load(self.repo, id)?;
                self.restart(&state, walk);
            }
            current = match ran.next {
                Some(next) => next,
                None if ran.outcome.status.is_failure() => {
                    let reason = format!("stage {} failed with no outgoing fail edge", node.id);
                    return Ok(Ending::Failed(reason));
                }
                None => return Ok(Ending::Succeeded),
            };
        }
    }

    /// The stall watchdog's failure of the run at `node`, with Fabro's event.
    fn stalled(&self, id: &RunId, node: &Node) -> String {
        let (message, idle) = watchdog::failure(&node.id);
        let properties = json!({ "node": node.id, "idle_seconds": idle });
        self.run_event(id, "watchdog.timeout", properties);
        message
    }

    /// The next stage, entered: within Fabro's limits, nothing left locked, the walk's
    /// context naming it; or how the walk ends before it.
    fn enter(
        &self,
        id: &RunId,
        walk: &mut Walk,
        current: String,
    ) -> Result<std::result::Result<Stage<'a>, Ending>> {
        let node = match self.next_node(walk, current)? {
            Ok(node) => node,
            Err(ending) => return Ok(Err(ending)),
        };
        let visit = walk.visits.get(&node.id).copied().unwrap_or(0) + 1;
        if let Err(reason) = within_limits(self.graph, node, visit) {
            return Ok(Err(Ending::Failed(reason)));
        }
        let stage = Stage {
            node,
            visit,
            index: walk.visits.values().sum::<u64>() + 1,
            branch: None,
        };
        if interrupt::requested() {
            let stage = stage.id();
            return Ok(Err(Ending::Stopped(Stop::Interrupted { stage })));
        }
        // Only the checkpoint's ref update records a node's work: a lock that a killed
        // process left would throw the work away, so it is refused before the node runs.
        self.repo
            .ensure_unlocked(&[&meta_branch(id), &run_branch(id)])
            .map_err(|err| Error::from(err).in_run(id))?;
        walk.visits.insert(node.id.clone(), visit);
        walk.context.insert("current_node".into(), json!(node.id));
        walk.context
            .insert("internal.node_visit_count".into(), json!(visit));
        walk.threading
            .before_node(self.graph, node, &mut walk.context);
        Ok(Ok(stage))
    }

    /// The node to visit, or how the walk ends: at a terminal node, the exit when every goal
    /// gate is satisfied, else the retry target of the first one that is not.
    fn next_node(
        &self,
        walk: &Walk,
        mut current: String,
    ) -> Result<std::result::Result<&'a Node, Ending>> {
        let graph = self.graph;
        loop {
            let Some(node) = graph.node(&current) else {
                let reason = format!("node {current:?} not found in the workflow");
                return Ok(Err(Ending::Failed(reason)));
            };
            if !is_terminal(node) {
                return Ok(Ok(node));
            }
            let Some(gate) = failed_goal_gate(graph, &walk.statuses) else {
                return Ok(Err(Ending::Succeeded));
            };
            match retry_target(graph, &gate)
                .filter(|t| graph.node(t).is_some_and(|n| !is_terminal(n)))
            {
                Some(target) => current = target,
                None => {
                    let reason =
                        format!("goal gate unsatisfied for node {gate} and no retry target");
                    return Ok(Err(Ending::Failed(reason)));
                }
            }
        }
    }

    /// The stage's outcome taken into the walk, and the edge it leads along.
    fn route(&self, walk: &mut Walk, node: &'a Node, attempted: &Attempted) -> Routed<'a> {
        let graph: &'a Graph = self.graph;
        let outcome = attempted.ran.outcome.clone();
        let failure = outcome
            .status
            .is_failure()
            .then(|| Failure::of(&node.id, &outcome.notes));
        let mut breaks = walk.breaker.after_node(failure.as_ref()).err();
        breaks = attempted.blocked.clone().or(breaks);
        if attempted.attempt > 1 {
            walk.retries
                .insert(node.id.clone(), u64::from(attempted.attempt - 1));
        }
        take_outcome(walk, node, &outcome, failure.as_ref());
        let edge = match &outcome.jump_to_node {
            Some(_) => None,
            None => select_edge(graph, node, &outcome, &walk.context),
        };
        let next = outcome
            .jump_to_node
            .clone()
            .or_else(|| edge.map(|e| e.to.clone()))
            .or_else(|| {
                let failed = outcome.status.is_failure();
                failed.then(|| retry_target(graph, &node.id)).flatten()
            });
        walk.threading.after_node(node, edge);
        if edge.is_some_and(loops::is_loop_restart) && breaks.is_none() {
            breaks = walk.breaker.allow_restart(failure.as_ref()).err();
        }
        Routed {
            outcome,
            failure,
            edge,
            next,
            breaks,
        }
    }

    /// Fabro's `stage.completed` or `stage.failed`, and the edge taken.
    fn stage_ended(
        &self,
        id: &RunId,
        stage: &Stage,
        routed: &Routed,
        attempted: &Attempted,
        duration_ms: u64,
    ) {
        let (node, outcome) = (stage.node, &routed.outcome);
        let ended = match outcome.status.is_failure() {
            true => "stage.failed",
            false => "stage.completed",
        };
        let failure = routed.failure.as_ref().map(Failure::to_json);
        self.event(
            id,
            ended,
            node,
            &stage.id(),
            json!({
                "index": stage.index, "duration_ms": duration_ms, "status": outcome.status.as_str(),
                "notes": outcome.notes, "failure": failure,
                "attempt": attempted.attempt, "max_attempts": attempted.max_attempts,
            }),
        );
        if let (Some(to), None) = (&routed.next, &routed.breaks) {
            let edge = routed.edge;
            self.event(id, "edge.selected", node, &stage.id(), json!({
                "from_node": node.id, "to_node": to,
                "label": edge.and_then(Edge::label), "condition": edge.and_then(Edge::condition),
                "stage_status": outcome.status.as_str(),
            }));
        }
    }
}

/// The graph's `max_node_visits` when it sets none. Fabro then has no limit, and a cycle that
/// nothing breaks (a condition that never holds, a hook sending the walk back) runs until
/// the disk is full, a checkpoint per visit. A hundred visits of one node is past the loops
/// workflows write on purpose (fix and test again, review again); one that means to go on
/// longer says so with `max_node_visits`, and `max_node_visits=0` means no limit, as in Fabro.
const DEFAULT_MAX_NODE_VISITS: u64 = 100;

/// Fabro's visit limits, `>=` as in Fabro: the node's `max_visits`, the graph's
/// `max_node_visits` (else [`DEFAULT_MAX_NODE_VISITS`]).
fn within_limits(graph: &Graph, node: &Node, visit: u64) -> std::result::Result<(), String> {
    let positive = |n: i64| (n > 0).then(|| u64::try_from(n).unwrap_or(u64::MAX));
    let node_limit = node
        .int_attr("max_visits")
        .and_then(positive)
        .map(|n| (n, format!("node limit {n}")));
    let graph_limit = match graph.attrs().get("max_node_visits") {
        Some(value) => value
            .as_i64()
            .and_then(positive)
            .map(|n| (n, format!("graph limit {n}"))),
        None => Some((
            DEFAULT_MAX_NODE_VISITS,
            format!("limit {DEFAULT_MAX_NODE_VISITS}, as the graph sets no max_node_visits"),
        )),
    };
    for (max, limit) in node_limit.into_iter().chain(graph_limit) {
        if visit >= max {
            return Err(format!(
                "node \"{}\" visited {visit} times ({limit}); run is stuck in a cycle",
                node.id
            ));
        }
    }
    Ok(())
}

/// The outcome's marks on the walk's context and statuses, as Fabro leaves them.
fn take_outcome(walk: &mut Walk, node: &Node, outcome: &Outcome, failure: Option<&Failure>) {
    let context = &mut walk.context;
    context.extend(outcome.context_updates.clone());
    context.insert("outcome".into(), json!(outcome.status.as_str()));
    // Fabro clears both after every node that did not fail.
    let (class, signature) = failure.map_or(("", ""), |f| (f.class, f.signature.as_str()));
    context.insert("failure_class".into(), json!(class));
    context.insert("failure_signature".into(), json!(signature));
    if let Some(label) = &outcome.preferred_label {
        context.insert("preferred_label".into(), json!(label));
    }
    let retry_count = walk.retries.get(&node.id).copied().unwrap_or(0);
    context.insert(
        format!("internal.retry_count.{}", node.id),
        json!(retry_count),
    );
    walk.statuses.insert(node.id.clone(), outcome.status);
}

/// A goal gate whose last outcome is neither succeeded nor partially succeeded.
fn failed_goal_gate(graph: &Graph, statuses: &BTreeMap<String, Status>) -> Option<String> {
    statuses
        .iter()
        .find(|(id, status)| {
            graph.node(id).is_some_and(Node::goal_gate)
                && !matches!(status, Status::Succeeded | Status::PartiallySucceeded)
        })
        .map(|(id, _)| id.clone())
}
