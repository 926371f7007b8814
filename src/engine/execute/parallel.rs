//! The parallel handler (`shape=component`): each outgoing edge is one branch that runs its
//! target node, as in Fabro, with up to `max_parallel` (4) branches at once.
//!
//! Every branch works in a linked worktree of its own, on the branch
//! `fabro/run/parallel/<run>/<node>/pass<visit>/<target>` made from the parallel base commit
//! written on the run branch first (`fabro(<run>): <node> (parallel_base)`, as Fabro writes
//! it), and its work is committed there (`fabro(<run>): <target> (<status>)`, with a
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

use crate::config::hooks::HookEvent;
use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::{Value, json};

use super::Engine;
use super::command::Ran;
use super::record::outcome_json;
use super::stage::Step;
use crate::engine::graph::{Graph, Node};
use crate::engine::outcome::{Outcome, Status};
use crate::error::Result;
use crate::format::record::pretty;
use crate::format::run_id::RunId;
use crate::git::{ObjectId, RefEdit};
use crate::ops::checkpoint::Attachment;
use crate::run::workspace::{Place, Workspace};
use crate::run::{self, RunState};

mod base;
mod branches;
mod elsewhere;
mod job;
mod slots;

use branches::BranchResult;
pub use job::{JobResult, offered_context, write_done};

/// A branch's outcome, as `node_outcomes` would hold it, in the parallel node's stage: where
/// `show` finds why a branch failed.
const OUTCOME_FILE: &str = "outcome.json";

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
        let targets: Vec<&str> = self
            .graph
            .outgoing(&node.id)
            .map(|e| e.to.as_str())
            .collect();
        if let Some(reason) = refusal(id, workspace, node, &targets) {
            return Ok(Step::Ran(Ran::outcome(Outcome::failed(&reason))));
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
        self.parallel_hooks(id, workspace, node, HookEvent::ParallelStart);
        let mut results = self.run_pass(id, node, visit, &targets, context, max_parallel)?;
        if let Some(stop) = results.iter_mut().find_map(|r| r.stopped.take()) {
            return Ok(Step::Stopped(stop));
        }
        self.join_winner(id, workspace, &results, &group)?;
        let joined = Joined::of(&results, first_success);
        self.event(
            id,
            "parallel.completed",
            node,
            &group,
            json!({
                "node_id": node.id, "visit": visit,
                "duration_ms": u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX),
                "success_count": joined.succeeded, "failure_count": joined.failed,
                "results": joined.listed,
            }),
        );
        self.parallel_hooks(id, workspace, node, HookEvent::ParallelComplete);
        Ok(Step::Ran(joined.into_ran(self.graph, results)))
    }

    /// Fast-forwards the run to the first succeeded branch, by target id.
    fn join_winner(
        &self,
        id: &RunId,
        workspace: &Workspace,
        results: &[BranchResult],
        group: &str,
    ) -> Result<()> {
        let winner = results
            .iter()
            .filter(|r| r.outcome.status == Status::Succeeded)
            .filter_map(|r| Some((r.id.as_str(), r.head?)))
            .min_by(|a, b| a.0.cmp(b.0));
        if let Some((_, head)) = winner {
            let tip = RunState::load(self.repo, id)?.run_tip;
            self.fast_forward(id, workspace, tip, head)?;
            crate::failpoint::reach(&format!("engine:parallel-joined:{group}"));
        }
        Ok(())
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

/// Why the node cannot run its branches here, if it cannot.
fn refusal(id: &RunId, workspace: &Workspace, node: &Node, targets: &[&str]) -> Option<String> {
    if targets.is_empty() {
        return Some("No branches for parallel node".into());
    }
    if let Some((_, twice)) = targets
        .iter()
        .enumerate()
        .find(|(i, t)| targets[..*i].contains(t))
    {
        return Some(format!(
            "parallel node {} has two branches to {twice}",
            node.id
        ));
    }
    if workspace.place == Place::InPlace {
        return Some(
            "parallel branches need the run's own worktree; this run works in place".into(),
        );
    }
    if in_branch(id, workspace) {
        return Some("a parallel node cannot run inside another parallel node's branch".into());
    }
    None
}

/// The branches' results judged by the join policy.
struct Joined {
    succeeded: usize,
    failed: usize,
    /// Fabro's `parallel.results`: id, status and head of each branch.
    listed: Vec<Value>,
    status: Status,
}

impl Joined {
    fn of(results: &[BranchResult], first_success: bool) -> Joined {
        let count = |f: fn(Status) -> bool| results.iter().filter(|r| f(r.outcome.status)).count();
        let succeeded = count(|s| s == Status::Succeeded);
        let failed = count(Status::is_failure);
        let listed = results
            .iter()
            .map(|r| {
                let mut entry = json!({ "id": r.id, "status": r.outcome.status.as_str() });
                if let Some(head) = r.head {
                    entry["head_sha"] = json!(head.to_string());
                }
                entry
            })
            .collect();
        let status = match (first_success, succeeded, failed) {
            (false, _, 0) => Status::Succeeded,
            (false, _, _) => Status::PartiallySucceeded,
            (true, 0, _) => Status::Failed,
            (true, _, _) => Status::Succeeded,
        };
        Joined {
            succeeded,
            failed,
            listed,
            status,
        }
    }

    /// The parallel node's stage: Fabro's outcome, the jump to the join node, and the
    /// branches' files, each branch's outcome among them (`<branch>/outcome.json`).
    fn into_ran(self, graph: &Graph, results: Vec<BranchResult>) -> Ran {
        let (total, succeeded, failed) = (results.len(), self.succeeded, self.failed);
        let mut outcome = if self.status.is_failure() {
            Outcome::failed(&format!(
                "Join policy not satisfied: {succeeded}/{total} succeeded"
            ))
        } else {
            let notes = format!(
                "Parallel node dispatched {total} branches ({succeeded} succeeded, {failed} failed)"
            );
            let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
            Outcome {
                status: self.status,
                jump_to_node: join_node(graph, &ids),
                ..Outcome::succeeded(notes)
            }
        };
        let updates = &mut outcome.context_updates;
        updates.insert("parallel.results".into(), Value::Array(self.listed));
        updates.insert("parallel.branch_count".into(), json!(total));
        let files = results
            .into_iter()
            .flat_map(|r| {
                let id = r.id;
                let recorded = pretty(&outcome_json(&r.outcome, None));
                let recorded = (OUTCOME_FILE.to_string(), Attachment::Bytes(recorded));
                r.files
                    .into_iter()
                    .chain([recorded])
                    .map(move |(name, data)| (format!("{id}/{name}"), data))
            })
            .collect();
        Ran {
            outcome,
            exit_code: None,
            files,
            usage: None,
        }
    }
}
