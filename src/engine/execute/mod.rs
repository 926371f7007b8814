//! Running a workflow for real: node by node in the run's worktree, every node checkpointed
//! through `ops::checkpoint`, edges chosen by `routing` (the dry run's rules), the run finished
//! through `ops::finish`.
//!
//! The engine counts as Fabro's does: the start node is recorded and checkpointed on the
//! metadata branch with no run commit, the exit node is never recorded, visit limits apply
//! with `>=`, a failed node still follows its unconditional edge, and goal gates are checked
//! at the exit. A resumed run continues from its checkpoint's `next_node_id`; no node whose
//! checkpoint was recorded runs again.
//!
//! Around the handlers: `retry` gives a node Fabro's attempts and backoff, `loops` restarts
//! the walk on a `loop_restart` edge and stops it on a repeated failure, `parallel` and
//! `fan_in` run branches in worktrees of their own and join them, `human` asks a person,
//! `side_effect` records an intent before a node marked `side_effect=true` runs.
//!
//! Every node type of Fabro runs (agents through the agent command the user chose); a node
//! of a type Fabro does not know runs as an agent, as in Fabro. A run may also stop without ending ([`Stop`]): blocked on a
//! human gate, or interrupted by Ctrl-C.

pub mod agent;
pub mod command;
mod conclusion;
mod context_text;
pub mod environment;
mod failure;
pub mod fan_in;
mod human;
pub mod interrupt;
pub mod loops;
mod manager;
pub mod parallel;
pub mod process;
mod response;
pub mod retry;
mod side_effect;
mod status_file;
mod stop;
mod walk;

pub use human::{Asked, Interviewer, Question, check_answers};
pub use manager::child_files;
pub use stop::Stop;

use command::Ran;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};

use super::graph::{self, Graph, Node};
use super::outcome::{Outcome, Status};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::format::node::StageStatus;
use crate::format::record::{Checkpoint, StatusKind};
use crate::format::run_id::RunId;
use crate::format::store::RunDir;
use crate::format::time::Timestamp;
use crate::git::Repo;
use crate::ops::checkpoint::Attachment;
use crate::ops::finish::{FinishRequest, finish};
use crate::run::RunState;
use crate::run::workspace::Workspace;

/// The nodes that run through the agent command (agent and prompt), in the workflow's order.
pub fn agent_nodes(graph: &Graph) -> Vec<String> {
    graph
        .nodes()
        .iter()
        .filter(|n| matches!(graph::handler(n), "agent" | "prompt"))
        .map(|n| n.id.clone())
        .collect()
}

/// Told about each stage as it starts and ends (the command line draws progress from it).
pub trait Observer {
    fn stage_started(&mut self, node: &Node, visit: u64);
    fn stage_finished(&mut self, stage: &StageReport);
}

#[derive(Debug, Clone, Serialize)]
pub struct StageReport {
    pub node_id: String,
    pub visit: u64,
    pub status: Status,
    pub duration_ms: u64,
    #[serde(skip)]
    pub exit_code: Option<i32>,
    /// Why it failed, for people.
    #[serde(skip)]
    pub failure: Option<String>,
}

/// How the run ended.
#[derive(Debug, Clone, Serialize)]
pub struct Executed {
    pub run_id: String,
    pub status: Status,
    pub stages: Vec<StageReport>,
    pub duration_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// Set when the run stopped before its end (blocked or interrupted) and stays resumable;
    /// `status` and `failure` then say nothing.
    #[serde(skip)]
    pub stopped: Option<Stop>,
}

/// What the command line tells the engine beyond the workflow.
#[derive(Default)]
pub struct Directions {
    /// `--answer NODE=CHOICE`, in the order given: a gate's visits take its answers in turn.
    pub answers: Vec<(String, String)>,
    /// `--auto-approve`: every human gate takes its first choice.
    pub auto_approve: bool,
    /// Who a gate without an answer asks (a person at the terminal), if anyone.
    pub interviewer: Option<Box<dyn Interviewer>>,
    /// `--rerun NODE`: run an interrupted side-effect node again.
    pub rerun: Vec<String>,
    /// `--assume-done NODE`: record an interrupted side-effect node as succeeded.
    pub assume_done: Vec<String>,
    /// The user vouches for the workflows this run reads from files (manager children): `run`
    /// of a file they named, or `resume --trust`. Without it a child workflow runs only when
    /// this machine wrote or approved it (`ops::trust`).
    pub trust: bool,
    /// How many of each gate's answers its visits have taken.
    pub taken: std::cell::RefCell<BTreeMap<String, usize>>,
}

impl Directions {
    /// The gate `node`'s next answer not yet taken: `--answer review=R --answer review=A`
    /// revises on the first visit and approves on the second; then the gate asks or blocks.
    pub fn next_answer(&self, node: &str) -> Option<String> {
        let mut taken = self.taken.borrow_mut();
        let used = taken.entry(node.to_owned()).or_insert(0);
        let (_, answer) = self
            .answers
            .iter()
            .filter(|(id, _)| id == node)
            .nth(*used)?;
        *used += 1;
        Some(answer.clone())
    }
}

/// What the engine works with; the command line resolves it all.
pub struct Engine<'a> {
    pub repo: &'a Repo,
    pub config: &'a Config,
    pub run_dir: &'a RunDir,
    pub graph: &'a Graph,
    /// The process environment, unfiltered: nodes get what [`environment::allowed`] lets
    /// through.
    pub env: Vec<(OsString, OsString)>,
    pub observer: &'a mut dyn Observer,
    /// A manager loop's child starts from a copy of its parent's context.
    pub seed: Option<BTreeMap<String, Value>>,
    pub directions: &'a Directions,
}

/// Where the walk is: what a checkpoint records and a resume rebuilds.
struct Walk {
    context: BTreeMap<String, Value>,
    /// The context as the last checkpoint recorded it; a checkpoint records what changed.
    recorded: BTreeMap<String, Value>,
    visits: BTreeMap<String, u64>,
    statuses: BTreeMap<String, Status>,
    /// Attempts past the first, by node (`node_retries`).
    retries: BTreeMap<String, u64>,
    /// Set by a `loop_restart` edge until the next checkpoint records the fresh start.
    restarted: bool,
    breaker: loops::Breaker,
    /// Set when the walk stopped before the run's end; the stage it names is not recorded.
    stop: Option<Stop>,
    /// Side-effect stages to record as succeeded without running them (`--assume-done`).
    assumed: Vec<String>,
}

impl Engine<'_> {
    /// Runs the run `id` from where its checkpoints leave it to its end, and finishes it.
    pub fn execute(&mut self, id: &RunId) -> Result<Executed> {
        let state = RunState::load(self.repo, id)?;
        let workspace = Workspace::find(self.repo, id)?.ok_or_else(|| {
            Error::Failed(format!(
                "run {id} has no worktree on this machine; `git fabro resume {id}` recreates it"
            ))
        })?;
        let previous = state.linked_checkpoint(self.repo)?;
        let (mut walk, current) = match &previous {
            Some(checkpoint) => self.resumed(&state, checkpoint)?,
            None => self.fresh(&state)?,
        };
        if previous.is_some() {
            walk.assumed = self.recover_intents(id)?;
        }
        let mut stages = Vec::new();
        let ending = self.walk(id, &workspace, &mut walk, current, &mut stages)?;
        if let Some(stop) = walk.stop.take() {
            self.record_stop(id, &stop)?;
            return Ok(Executed {
                run_id: id.to_string(),
                status: Status::Failed,
                stages,
                duration_ms: 0,
                failure: None,
                warnings: Vec::new(),
                stopped: Some(stop),
            });
        }
        let (status, failure) = match ending {
            Ok(()) => (Status::Succeeded, None),
            Err(reason) => (Status::Failed, Some(reason)),
        };
        let state = RunState::load(self.repo, id)?;
        let request = FinishRequest {
            status: if status == Status::Succeeded {
                StatusKind::Succeeded
            } else {
                StatusKind::Failed
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
        Ok(Executed {
            run_id: id.to_string(),
            status,
            stages,
            duration_ms: finished.duration_ms,
            failure,
            warnings: finished.warnings,
            stopped: None,
        })
    }

    fn fresh(&self, state: &RunState) -> Result<(Walk, String)> {
        let start = self
            .graph
            .start_node()
            .ok_or_else(|| Error::Usage("the workflow has no start node".into()))?;
        let walk = Walk {
            context: self.seed_context(state),
            recorded: BTreeMap::new(),
            visits: BTreeMap::new(),
            statuses: BTreeMap::new(),
            retries: BTreeMap::new(),
            restarted: false,
            breaker: loops::Breaker::new(self.graph, None),
            stop: None,
            assumed: Vec::new(),
        };
        Ok((walk, start.id.clone()))
    }

    /// The context a run starts with, and starts again with after a `loop_restart` edge.
    fn seed_context(&self, state: &RunState) -> BTreeMap<String, Value> {
        // A manager loop's child starts from its parent's context.
        let mut context = self.seed.clone().unwrap_or_default();
        context.extend(
            self.graph
                .attrs()
                .iter()
                .map(|(k, v)| (format!("graph.{k}"), Value::String(v.to_text()))),
        );
        // The graph's goal is the run's goal with its templates rendered, when it has one.
        let goal = self
            .graph
            .goal()
            .map(str::to_owned)
            .or(state.record.spec.goal());
        context.insert("graph.goal".into(), json!(goal.unwrap_or_default()));
        context.insert("internal.run_id".into(), json!(state.id.as_str()));
        if let Some(Value::Object(inputs)) = state.record.spec.extra.get("inputs") {
            for (key, value) in inputs {
                context.insert(format!("inputs.{key}"), value.clone());
            }
        }
        context
    }

    /// The walk as the checkpoint left it, and the node to run next: `next_node_id`, else (as
    /// Fabro) the first declared edge's target, else the checkpoint's node again. A checkpoint
    /// whose next node came through a `loop_restart` edge resumes with the fresh start.
    fn resumed(&self, state: &RunState, checkpoint: &Checkpoint) -> Result<(Walk, String)> {
        let statuses = checkpoint
            .node_outcomes
            .iter()
            .filter_map(|(node, outcome)| {
                let status = outcome.get("status").and_then(Value::as_str)?;
                Some((node.clone(), status_of(status)?))
            })
            .collect();
        let next = checkpoint.next_node_id.clone().unwrap_or_else(|| {
            self.graph
                .outgoing(&checkpoint.current_node)
                .next()
                .map(|e| e.to.clone())
                .unwrap_or_else(|| checkpoint.current_node.clone())
        });
        let mut walk = Walk {
            context: checkpoint.context_values.clone(),
            recorded: checkpoint.context_values.clone(),
            visits: checkpoint.node_visits.clone(),
            statuses,
            retries: checkpoint.node_retries.clone(),
            restarted: false,
            breaker: loops::Breaker::new(self.graph, Some(checkpoint)),
            stop: None,
            assumed: Vec::new(),
        };
        let restarting = checkpoint.next_node_id.as_ref().is_some_and(|next| {
            self.graph
                .outgoing(&checkpoint.current_node)
                .any(|e| &e.to == next && loops::is_loop_restart(e))
        });
        if restarting {
            self.restart(state, &mut walk);
        }
        Ok((walk, next))
    }

    fn run_handler(
        &self,
        id: &RunId,
        workspace: &Workspace,
        node: &Node,
        visit: u64,
        context: &BTreeMap<String, Value>,
    ) -> Ran {
        let outcome = match graph::handler(node) {
            "start" | "exit" => Outcome::succeeded(String::new()),
            "conditional" => Outcome::succeeded(format!("Conditional node evaluated: {}", node.id)),
            "wait" => {
                let wait = node
                    .attrs
                    .get("duration")
                    .and_then(|d| d.as_duration())
                    .unwrap_or(Duration::ZERO);
                interrupt::sleep(wait);
                Outcome::succeeded(format!("Waited {}ms", wait.as_millis()))
            }
            "command" => {
                let invocation = command::Invocation {
                    node,
                    worktree: &workspace.path,
                    env: self.node_env(id, node, visit, environment::Audience::Script),
                    stage_dir: self.stage_dir(node, visit),
                };
                let stage = format!("{}@{visit}", node.id);
                let started = command::invocation_json(node);
                self.event(id, "command.started", node, &stage, started);
                let ran = command::run(&invocation);
                self.event(
                    id,
                    "command.completed",
                    node,
                    &stage,
                    command_completed(&ran.files),
                );
                return ran;
            }
            kind @ ("agent" | "prompt") => {
                return self.run_agent(id, workspace, node, visit, kind);
            }
            "parallel" => return self.run_parallel(id, workspace, node, visit, context),
            "parallel.fan_in" => return self.run_fan_in(id, workspace, context),
            "stack.manager_loop" => return manager::run(self, id, workspace, node, visit),
            other => Outcome::failed(&format!(
                "this version of git-fabro does not run {other} nodes"
            )),
        };
        Ran::outcome(outcome)
    }

    fn stage_dir(&self, node: &Node, visit: u64) -> PathBuf {
        self.run_dir.path.join(RunDir::node_dir(&node.id, visit))
    }

    /// Appends one of Fabro's run events (no node) to `progress.jsonl`.
    fn run_event(&self, id: &RunId, name: &str, properties: Value) {
        let _ = self.run_dir.append_event(&json!({
            "ts": Timestamp::now().rfc3339(),
            "run_id": id.as_str(),
            "event": name,
            "properties": properties,
        }));
    }

    /// `stage.started` for a stage that runs once, without the retry loop (a human gate, a
    /// side effect recorded by `--assume-done`).
    fn stage_started_once(&self, id: &RunId, node: &Node, stage: &str, index: u64) {
        self.event(
            id,
            "stage.started",
            node,
            stage,
            json!({
                "index": index, "handler_type": graph::handler(node),
                "attempt": 1, "max_attempts": 1,
            }),
        );
    }

    /// Appends one of Fabro's events to `progress.jsonl`; a failure to do so loses only the
    /// log line, never the run.
    fn event(&self, id: &RunId, name: &str, node: &Node, stage: &str, properties: Value) {
        let _ = self.run_dir.append_event(&json!({
            "ts": Timestamp::now().rfc3339(),
            "run_id": id.as_str(),
            "node_id": node.id,
            "node_label": node.label(),
            "stage_id": stage,
            "event": name,
            "properties": properties,
        }));
    }
}

/// Fabro's `command.completed` properties: the script's timing with its output.
fn command_completed(files: &[(String, Attachment)]) -> Value {
    let file = |name: &str| files.iter().find(|(n, _)| n == name).map(|(_, d)| d);
    let mut properties = match file("script_timing.json") {
        Some(Attachment::Bytes(data)) => serde_json::from_slice(data).ok(),
        _ => None,
    }
    .unwrap_or_else(|| json!({}));
    // As much of each stream as the context holds, read from the log file's end.
    for stream in ["stdout", "stderr"] {
        let name = format!("{stream}.log");
        let text = file(&name).map(|data| match data {
            Attachment::Bytes(data) => context_text::context_text(data, &name),
            Attachment::File(path) => context_text::file_context_text(path, &name),
        });
        properties[stream] = json!(text.unwrap_or_default());
    }
    properties
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

fn status_of(text: &str) -> Option<Status> {
    Some(match StageStatus::parse(text).ok()? {
        StageStatus::Succeeded => Status::Succeeded,
        StageStatus::PartiallySucceeded => Status::PartiallySucceeded,
        StageStatus::Failed => Status::Failed,
        StageStatus::Skipped => Status::Skipped,
    })
}

fn stage_status(status: Status) -> StageStatus {
    match status {
        Status::Succeeded => StageStatus::Succeeded,
        Status::PartiallySucceeded => StageStatus::PartiallySucceeded,
        Status::Failed => StageStatus::Failed,
        Status::Skipped => StageStatus::Skipped,
    }
}

/// Fabro's `Outcome` as `node_outcomes` holds it: empty fields left out, `usage` always there.
fn outcome_json(outcome: &Outcome, failure: Option<&failure::Failure>) -> Value {
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
