//! The parallel handler (`shape=component`): each outgoing edge is one branch that runs its
//! target node, as in Fabro, with up to `max_parallel` (4) branches at once.
//!
//! Every branch works in a linked worktree of its own, on the branch
//! `fabro/run/parallel/<run>/<node>/pass<visit>/<target>` made from the run branch's current
//! commit, and its work is committed there (`fabro(<run>): <target> (<status>)`, with a
//! `Fabro-Run` trailer). Branch nodes run through the engine's own handler dispatch, each on a
//! copy of the context whose changes are dropped: only `parallel.results` and
//! `parallel.branch_count` come back. After the join the worktrees are removed unless they hold
//! what their branch's commit lacks (the branches
//! stay until `git fabro gc` removes them with their run) and the first succeeded branch, by
//! target id, is fast-forwarded into the run branch and its worktree.
//!
//! The join: `wait_all` (the default) succeeds when no branch failed and partially succeeds
//! otherwise; `first_success` succeeds when one branch did and fails otherwise. A parallel node
//! that did not fail jumps to the node every branch leads to (normally the fan-in).

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::{Value, json};

use super::Engine;
use super::command::Ran;
use super::stage::Step;
use crate::engine::graph::{Graph, Node};
use crate::engine::outcome::{Outcome, Status};
use crate::error::Result;
use crate::format::run_id::RunId;
use crate::git::{ObjectId, RefEdit};
use crate::run::workspace::{Place, Workspace};
use crate::run::{self, RunState};

mod branches;

use branches::BranchResult;

/// Fabro's default for `max_parallel`.
const DEFAULT_MAX_PARALLEL: usize = 4;

/// The node every branch has an edge to, the smallest id if several: where the join goes.
pub fn join_node(graph: &Graph, branches: &[&str]) -> Option<String> {
    let (first, rest) = branches.split_first()?;
    let mut common: Vec<String> = graph
        .outgoing(first)
        .map(|e| e.to.clone())
        .filter(|t| rest.iter().all(|b| graph.outgoing(b).any(|e| &e.to == t)))
        .collect();
    common.sort();
    common.into_iter().next()
}

impl Engine<'_> {
    /// Runs the branches and joins them. A branch that stopped (a gate nobody answered,
    /// Ctrl-C) stops the run once every other branch ended; an engine failure leaves the run
    /// resumable.
    pub(super) fn run_parallel(
        &self,
        id: &RunId,
        workspace: &Workspace,
        node: &Node,
        visit: u64,
        context: &BTreeMap<String, Value>,
    ) -> Result<Step> {
        let graph = self.graph;
        let targets: Vec<&str> = graph.outgoing(&node.id).map(|e| e.to.as_str()).collect();
        if targets.is_empty() {
            return Ok(failed("No branches for parallel node"));
        }
        if let Some(twice) = targets
            .iter()
            .enumerate()
            .find(|(i, t)| targets[..*i].contains(t))
        {
            let reason = format!("parallel node {} has two branches to {}", node.id, twice.1);
            return Ok(failed(&reason));
        }
        if workspace.place == Place::InPlace {
            return Ok(failed(
                "parallel branches need the run's own worktree; this run works in place",
            ));
        }
        if in_branch(id, workspace) {
            return Ok(failed(
                "a parallel node cannot run inside another parallel node's branch",
            ));
        }
        let first_success = node.str_attr("join_policy") == Some("first_success");
        let max_parallel = node
            .int_attr("max_parallel")
            .map(|n| usize::try_from(n).unwrap_or(DEFAULT_MAX_PARALLEL).max(1))
            .unwrap_or(DEFAULT_MAX_PARALLEL);
        let clock = Instant::now();
        let group = format!("{}@{visit}", node.id);
        self.event(
            id,
            "parallel.started",
            node,
            &group,
            json!({
                "node_id": node.id, "visit": visit, "branch_count": targets.len(),
                "join_policy": if first_success { "first_success" } else { "wait_all" },
            }),
        );

        let mut results = self.run_pass(id, node, visit, &targets, context, max_parallel)?;
        if let Some(stop) = results.iter_mut().find_map(|r| r.stopped.take()) {
            return Ok(Step::Stopped(stop));
        }
        let tip = RunState::load(self.repo, id)?.run_tip;

        let mut winners: Vec<&BranchResult> = results
            .iter()
            .filter(|r| r.outcome.status == Status::Succeeded && r.head.is_some())
            .collect();
        winners.sort_by(|a, b| a.id.cmp(&b.id));
        if let Some(head) = winners.first().and_then(|w| w.head) {
            self.fast_forward(id, workspace, tip, head)?;
            crate::failpoint::reach(&format!("engine:parallel-joined:{group}"));
        }

        let succeeded = results
            .iter()
            .filter(|r| r.outcome.status == Status::Succeeded)
            .count();
        let failed_count = results
            .iter()
            .filter(|r| r.outcome.status.is_failure())
            .count();
        let total = results.len();
        let listed: Vec<Value> = results
            .iter()
            .map(|r| {
                let mut entry = json!({ "id": r.id, "status": r.outcome.status.as_str() });
                if let Some(head) = r.head {
                    entry["head_sha"] = json!(head.to_string());
                }
                entry
            })
            .collect();
        self.event(
            id,
            "parallel.completed",
            node,
            &group,
            json!({
                "node_id": node.id, "visit": visit,
                "duration_ms": u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX),
                "success_count": succeeded, "failure_count": failed_count, "results": listed,
            }),
        );

        let status = match (first_success, succeeded, failed_count) {
            (false, _, 0) => Status::Succeeded,
            (false, _, _) => Status::PartiallySucceeded,
            (true, 0, _) => Status::Failed,
            (true, _, _) => Status::Succeeded,
        };
        let mut notes = format!(
            "Parallel node dispatched {total} branches ({succeeded} succeeded, {failed_count} failed)"
        );
        // Why each failed branch failed, where `show` and `log` tell the node's outcome.
        for result in results.iter().filter(|r| r.outcome.status.is_failure()) {
            notes.push_str(&format!(
                "\nbranch {}: {}",
                result.id,
                result.outcome.notes.trim()
            ));
        }
        let mut outcome = if status.is_failure() {
            Outcome::failed(&format!(
                "Join policy not satisfied: {succeeded}/{total} succeeded{}",
                notes
                    .split_once('\n')
                    .map_or(String::new(), |(_, why)| format!("\n{why}"))
            ))
        } else {
            Outcome {
                status,
                ..Outcome::succeeded(notes)
            }
        };
        if !status.is_failure() {
            let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
            outcome.jump_to_node = join_node(graph, &ids);
        }
        outcome
            .context_updates
            .insert("parallel.results".into(), Value::Array(listed));
        outcome
            .context_updates
            .insert("parallel.branch_count".into(), json!(total));
        let files = results
            .into_iter()
            .flat_map(|r| {
                let id = r.id;
                r.files
                    .into_iter()
                    .map(move |(name, data)| (format!("{id}/{name}"), data))
            })
            .collect();
        Ok(Step::Ran(Ran {
            outcome,
            exit_code: None,
            files,
        }))
    }

    /// Moves the run branch and its worktree from `from` to `to` when `to` descends from it
    /// (Fabro's fast-forward only), files first: if the branch cannot move, they go back.
    pub(super) fn fast_forward(
        &self,
        id: &RunId,
        workspace: &Workspace,
        from: ObjectId,
        to: ObjectId,
    ) -> Result<()> {
        if from == to || !self.repo.is_ancestor(from, to) {
            return Ok(());
        }
        self.repo.move_checkout(&workspace.path, from, to)?;
        let edit = RefEdit::Update {
            name: run::run_branch(id),
            old: from,
            new: to,
        };
        if let Err(err) =
            self.repo
                .update_refs(&[edit], "fabro: parallel join", &self.config.identity)
        {
            let _ = self.repo.move_checkout(&workspace.path, to, from);
            return Err(err.into());
        }
        Ok(())
    }
}

/// Whether the workspace is a parallel branch's, not the run's: branches do not nest, and
/// only the run's own worktree follows the run branch.
pub(super) fn in_branch(id: &RunId, workspace: &Workspace) -> bool {
    workspace.place == Place::Worktree
        && workspace.repo.head_branch().as_deref() != Some(run::run_branch(id).as_str())
}

fn failed(reason: &str) -> Step {
    Step::Ran(Ran::outcome(Outcome::failed(reason)))
}
