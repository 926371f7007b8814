//! The run loop: node after node from where the walk is, each visit checked against Fabro's
//! limits, run as the run directs (an answer, `--assume-done`, retries), then checkpointed,
//! its edge chosen, until the exit, a failure with nowhere to go, or a stop.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::{Value, json};

use super::command::Ran;
use super::{
    Engine, StageReport, Stop, Walk, failed_goal_gate, failure, human, interrupt, loops,
    outcome_json, side_effect, stage_status,
};
use crate::engine::graph::{self, Node};
use crate::engine::outcome::Outcome;
use crate::engine::routing::{is_terminal, retry_target, select_edge};
use crate::error::{Error, Result};
use crate::format::node::NodeId;
use crate::format::run_id::RunId;
use crate::git::Movers;
use crate::ops::checkpoint::{CheckpointRequest, WalkUpdate, checkpoint};
use crate::run::workspace::Workspace;
use crate::run::{RunState, meta_branch, run_branch};

impl Engine<'_> {
    /// The loop. `Err` is an engine failure (a ref race, a full disk): the run stays running
    /// and resumable. `Ok(Err(reason))` is a run that failed.
    pub(super) fn walk(
        &mut self,
        id: &RunId,
        workspace: &Workspace,
        walk: &mut Walk,
        mut current: String,
        stages: &mut Vec<StageReport>,
    ) -> Result<std::result::Result<(), String>> {
        let graph = self.graph;
        let limit = graph
            .attrs()
            .get("max_node_visits")
            .and_then(|v| v.as_i64())
            .filter(|n| *n > 0)
            .map(|n| u64::try_from(n).unwrap_or(u64::MAX));
        // From here on, nothing from another repository may move the run's branches (see
        // `git::reflog`).
        let (meta, run) = (meta_branch(id), run_branch(id));
        let mut moves = self
            .repo
            .reflog_marks(&[(&meta, Movers::Fabro), (&run, Movers::FabroAndWorktree)]);
        loop {
            let Some(node) = graph.node(&current) else {
                return Ok(Err(format!("node {current:?} not found in the workflow")));
            };
            if is_terminal(node) {
                let Some(gate) = failed_goal_gate(graph, &walk.statuses) else {
                    return Ok(Ok(()));
                };
                match retry_target(graph, &gate)
                    .filter(|t| graph.node(t).is_some_and(|n| !is_terminal(n)))
                {
                    Some(target) => {
                        current = target;
                        continue;
                    }
                    None => {
                        return Ok(Err(format!(
                            "goal gate unsatisfied for node {gate} and no retry target"
                        )));
                    }
                }
            }
            let visit = walk.visits.get(&node.id).copied().unwrap_or(0) + 1;
            let node_limit = node
                .int_attr("max_visits")
                .filter(|n| *n > 0)
                .map(|n| (u64::try_from(n).unwrap_or(u64::MAX), "node"));
            let graph_limit = limit.map(|l| (l, "graph"));
            for (max, source) in node_limit.into_iter().chain(graph_limit) {
                if visit >= max {
                    return Ok(Err(format!(
                        "node \"{}\" visited {visit} times ({source} limit {max}); run is stuck in a cycle",
                        node.id
                    )));
                }
            }
            let stage_id = format!("{}@{visit}", node.id);
            if interrupt::requested() {
                walk.stop = Some(Stop::Interrupted { stage: stage_id });
                return Ok(Ok(()));
            }
            // Only the checkpoint's ref update records a node's work: a lock that a killed
            // process left would throw the work away, so it is refused before the node runs.
            self.repo
                .ensure_unlocked(&[&meta, &run])
                .map_err(|err| Error::from(err).in_run(id))?;
            walk.visits.insert(node.id.clone(), visit);
            walk.context.insert("current_node".into(), json!(node.id));
            walk.context
                .insert("internal.node_visit_count".into(), json!(visit));

            self.observer.stage_started(node, visit);
            let clock = Instant::now();
            let index = walk.visits.values().sum::<u64>();
            let side_effect = side_effect::is_side_effect(node);
            let Some((ran, attempt, max_attempts)) =
                self.run_stage(id, workspace, walk, node, visit, index)?
            else {
                return Ok(Ok(())); // stopped: blocked at a gate or interrupted
            };
            let Ran {
                outcome,
                exit_code,
                files,
            } = ran;
            let duration_ms = u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX);

            let failure = outcome
                .status
                .is_failure()
                .then(|| failure::Failure::of(&node.id, &outcome.notes));
            // A run error (Fabro's loop breaker, a blocked restart) ends the run before the
            // node is recorded, as in Fabro.
            let mut stop = walk.breaker.after_node(failure.as_ref()).err();
            if attempt > 1 {
                walk.retries.insert(node.id.clone(), u64::from(attempt - 1));
            }
            walk.context.extend(outcome.context_updates.clone());
            walk.context
                .insert("outcome".into(), json!(outcome.status.as_str()));
            if let Some(failure) = &failure {
                walk.context
                    .insert("failure_class".into(), json!(failure.class));
                walk.context
                    .insert("failure_signature".into(), json!(failure.signature));
            }
            if let Some(label) = &outcome.preferred_label {
                walk.context.insert("preferred_label".into(), json!(label));
            }
            let retry_count = walk.retries.get(&node.id).copied().unwrap_or(0);
            walk.context.insert(
                format!("internal.retry_count.{}", node.id),
                json!(retry_count),
            );
            walk.statuses.insert(node.id.clone(), outcome.status);

            let edge = match &outcome.jump_to_node {
                Some(_) => None,
                None => select_edge(graph, node, &outcome, &walk.context),
            };
            let next = outcome
                .jump_to_node
                .clone()
                .or_else(|| edge.map(|e| e.to.clone()))
                .or_else(|| {
                    outcome
                        .status
                        .is_failure()
                        .then(|| retry_target(graph, &node.id))
                        .flatten()
                });
            let restart = edge.filter(|e| loops::is_loop_restart(e));
            if restart.is_some() && stop.is_none() {
                stop = walk.breaker.allow_restart(failure.as_ref()).err();
            }
            let ended = if outcome.status.is_failure() {
                "stage.failed"
            } else {
                "stage.completed"
            };
            self.event(
                id,
                ended,
                node,
                &stage_id,
                json!({
                    "index": index, "duration_ms": duration_ms, "status": outcome.status.as_str(),
                    "notes": outcome.notes, "failure": failure.as_ref().map(|f| f.to_json()),
                    "attempt": attempt, "max_attempts": max_attempts,
                }),
            );
            let report = StageReport {
                node_id: node.id.clone(),
                visit,
                status: outcome.status,
                duration_ms,
                exit_code,
                failure: failure.as_ref().map(|f| f.message.clone()),
            };
            if let Some(reason) = stop {
                self.observer.stage_finished(&report);
                stages.push(report);
                return Ok(Err(reason));
            }
            if let Some(to) = &next {
                self.event(id, "edge.selected", node, &stage_id, json!({
                    "from_node": node.id, "to_node": to,
                    "label": edge.and_then(|e| e.label()), "condition": edge.and_then(|e| e.condition()),
                    "stage_status": outcome.status.as_str(),
                }));
            }

            let changed: Vec<(String, Value)> = walk
                .context
                .iter()
                .filter(|(k, v)| walk.recorded.get(*k) != Some(*v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let request = CheckpointRequest {
                node: NodeId::parse(&node.id)?,
                status: stage_status(outcome.status),
                next: next.as_deref().map(NodeId::parse).transpose()?,
                context: changed,
                attachments: files,
                outcome: Some(outcome_json(&outcome, failure.as_ref())),
                notes: Some(outcome.notes.clone()).filter(|n| !n.is_empty()),
                failure_reason: failure.as_ref().map(|f| f.message.clone()),
                run_commit: graph::handler(node) != "start",
                diff_patch: true,
                duration_ms: Some(duration_ms),
                walk: WalkUpdate {
                    restarted: std::mem::take(&mut walk.restarted),
                    retries: u64::from(attempt - 1),
                    signatures: Some((
                        walk.breaker.loop_signatures.clone(),
                        walk.breaker.restart_signatures.clone(),
                    )),
                },
            };
            // A branch of the run that something other than git-fabro moved meanwhile (a
            // fetch, git by hand) is not built on: the run stops here, resumable.
            self.repo
                .ensure_moved_only_by_allowed(&mut moves)
                .map_err(|err| Error::from(err).in_run(id))?;
            let state = RunState::load(self.repo, id)?;
            let done = checkpoint(
                self.repo,
                workspace,
                &state,
                self.config,
                &request,
                Some(self.run_dir),
            )?;
            crate::failpoint::reach(&format!("engine:checkpointed:{stage_id}"));
            if side_effect {
                self.resolve_intent(id, &node.id, visit)?;
            }
            if request.run_commit {
                self.event(
                    id,
                    "git.commit",
                    node,
                    &stage_id,
                    json!({
                        "node_id": node.id, "sha": done.run_commit,
                    }),
                );
            }
            walk.recorded = walk.context.clone();
            self.observer.stage_finished(&report);
            stages.push(report);
            if let Some(edge) = restart {
                self.event(
                    id,
                    "loop.restart",
                    node,
                    &stage_id,
                    json!({
                        "from_node": node.id, "to_node": edge.to,
                    }),
                );
                let state = RunState::load(self.repo, id)?;
                self.restart(&state, walk);
            }

            match next {
                Some(next) => current = next,
                None if outcome.status.is_failure() => {
                    return Ok(Err(format!(
                        "stage {} failed with no outgoing fail edge",
                        node.id
                    )));
                }
                None => return Ok(Ok(())),
            }
        }
    }

    /// Runs the node as the run directs: recorded as done without running (`--assume-done`),
    /// asked (a human gate), or through its handler with Fabro's retries. Returns the stage,
    /// its attempt and the attempts it had; None when the walk stopped, which `walk.stop` says.
    fn run_stage(
        &mut self,
        id: &RunId,
        workspace: &Workspace,
        walk: &mut Walk,
        node: &Node,
        visit: u64,
        index: u64,
    ) -> Result<Option<(Ran, u32, u32)>> {
        let stage_id = format!("{}@{visit}", node.id);
        let assumed = walk.assumed.iter().position(|s| *s == stage_id);
        if side_effect::is_side_effect(node) && assumed.is_none() {
            self.write_intent(id, node, visit)?;
        }
        let ran = match assumed {
            Some(at) => {
                walk.assumed.remove(at);
                self.stage_started_once(id, node, &stage_id, index);
                let notes = format!("Assumed done (--assume-done): {stage_id} was not run again");
                (Ran::outcome(Outcome::succeeded(notes)), 1, 1)
            }
            None if graph::handler(node) == "human" => {
                self.stage_started_once(id, node, &stage_id, index);
                match self.gate(id, node, &stage_id) {
                    human::Gate::Answered(outcome) => (Ran::outcome(outcome), 1, 1),
                    human::Gate::Stopped(stop) => {
                        walk.stop = Some(stop);
                        return Ok(None);
                    }
                }
            }
            None => {
                let attempted =
                    self.run_with_retries(id, workspace, node, visit, index, &walk.context);
                (attempted.ran, attempted.attempt, attempted.max_attempts)
            }
        };
        // A node that Ctrl-C cut short is not recorded: it runs again on resume.
        if interrupt::requested() {
            walk.stop = Some(Stop::Interrupted { stage: stage_id });
            return Ok(None);
        }
        Ok(Some(ran))
    }

    /// Fabro's restart: a fresh context, no outcomes or retries; visits go on counting.
    pub(super) fn restart(&self, state: &RunState, walk: &mut Walk) {
        walk.context = self.seed_context(state);
        walk.recorded = BTreeMap::new();
        walk.statuses.clear();
        walk.retries.clear();
        walk.restarted = true;
    }
}
