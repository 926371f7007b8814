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
//! Every node goes through one pipeline, `stage`, wherever it runs (the top-level walk, a
//! parallel branch, a manager loop's child): `--assume-done`, the side-effect intent, Fabro's
//! attempts and backoff (`retry`), the handler (`handlers`, one arm per [`Handler`]), and
//! Ctrl-C. Around it: `walk` visits and records nodes, `start` rebuilds where a walk is,
//! `loops` restarts the walk on a `loop_restart` edge and stops it on a repeated failure,
//! `parallel` and `fan_in` run branches in worktrees of their own and join them, `manager`
//! runs a child workflow as a run of its own, `human` asks a person.
//!
//! Every node type of Fabro runs (agents through the agent command the user chose); a node
//! of a type Fabro does not know runs as an agent, as in Fabro. A run may also stop without
//! ending ([`Stop`]): blocked on a human gate, or interrupted by Ctrl-C.
//!
//! [`Handler`]: crate::engine::handler::Handler

pub mod agent;
mod agent_usage;
pub mod command;
mod conclusion;
mod context_budget;
mod context_text;
mod directions;
pub mod environment;
mod events;
mod failure;
pub mod fan_in;
mod fidelity;
mod handlers;
mod human;
pub mod interrupt;
pub mod loops;
mod manager;
pub mod parallel;
pub mod process;
mod record;
mod response;
pub mod retry;
mod run_hooks;
mod side_effect;
mod stage;
mod stage_checkpoint;
mod start;
mod status_file;
mod stop;
mod walk;
pub mod watchdog;

pub use directions::Directions;
pub use human::{Asked, Interviewer, Question, check_answers};
pub use manager::{
    CHILD_WORKFLOWS, children_in_spec, nested_workflows, recorded_children, recorded_workflows,
};
pub use parallel::{JobResult, offered_context, write_done};
pub use stop::Stop;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::Serialize;
use serde_json::Value;

use super::graph::{Graph, Node};
use super::handler::Handler;
use super::outcome::Status;
use crate::config::Config;
use crate::error::Result;
use crate::format::run_id::RunId;
use crate::format::store::RunDir;
use crate::git::{ObjectId, Repo};

/// The nodes that run through the agent command (agent and prompt), in the workflow's order.
pub fn agent_nodes(graph: &Graph) -> Vec<String> {
    graph
        .nodes()
        .iter()
        .filter(|n| Handler::of(n).runs_agent())
        .map(|n| n.id.clone())
        .collect()
}

/// Told about each stage as it starts and ends (the command line draws progress from it).
pub trait Observer {
    fn stage_started(&mut self, node: &Node, visit: u64);
    fn stage_finished(&mut self, stage: &StageReport);
}

/// An observer told nothing: parallel branches and manager children report through the node
/// that runs them.
pub(super) struct Quiet;

impl Observer for Quiet {
    fn stage_started(&mut self, _: &Node, _: u64) {}
    fn stage_finished(&mut self, _: &StageReport) {}
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
    /// Wall time from the run's start to its finish.
    pub duration_ms: u64,
    /// `duration_ms` less the time the run stood blocked or paused.
    pub active_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// Set when the run stopped before its end (blocked or interrupted) and stays resumable;
    /// `status` and `failure` then say nothing.
    #[serde(skip)]
    pub stopped: Option<Stop>,
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
    /// Who a gate without an answer asks (a person at the terminal), if anyone; never asked
    /// from a parallel branch, where several gates may wait at once.
    pub interviewer: Option<&'a dyn Interviewer>,
    /// Shared by the run's branches and children: see [`Warnings`].
    pub warnings: &'a Warnings,
    /// Where the run's writes must land before the engine goes on, if anywhere: a worker's
    /// remote, under its lease.
    pub fence: Option<&'a dyn Fence>,
}

/// Publishes a run's refs where they must be before the engine may go on: after each
/// checkpoint, and after a side-effect node's intent and before its process starts, so that
/// the node runs only when its intent is on record there. An error stops the run.
pub trait Fence: Sync {
    fn publish(&self, id: &RunId) -> Result<()>;

    /// The shared remote the run lives on, where it is answered and resumed.
    fn remote(&self) -> Option<&str> {
        None
    }

    /// Where the run's parallel branches may be offered to other workers, if anywhere.
    fn jobs(&self) -> Option<&dyn JobBoard> {
        None
    }
}

/// The shared remote's branch jobs (`format::branch_job`) as the run's lease holder reads and
/// writes them, every write fenced under its lease.
pub trait JobBoard: Sync {
    /// The shared remote the jobs are on, which the engine reads with its own repository.
    fn remote(&self) -> &str;
    /// Publishes the run with each `(job ref, offer, expected)` offered.
    fn offer(&self, offers: &[(String, ObjectId, Option<ObjectId>)]) -> Result<()>;
    /// Takes the job at `name` back from its tip `tip`; `None` when it moved meanwhile.
    fn take(&self, name: &str, tip: ObjectId) -> Result<Option<ObjectId>>;
    /// The run took the job's work: its ref, at `tip`, goes with the next publish.
    fn settle(&self, name: &str, tip: ObjectId);
    /// The lease's life: how often the remote is worth asking.
    fn ttl(&self) -> std::time::Duration;
}

/// What the user should be told that is no stage's outcome (a hook's stdout that looks like a
/// decision and is none), gathered from the run, its parallel branches and its manager
/// children for the command line to show as the command ends.
pub type Warnings = Mutex<Vec<String>>;

impl Engine<'_> {
    /// Keeps `text` for the command line to show.
    fn warn(&self, text: String) {
        self.warnings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(text);
    }

    /// Publishes the run's refs through the fence, when there is one.
    fn fenced(&self, id: &RunId) -> Result<()> {
        self.fence.map_or(Ok(()), |fence| fence.publish(id))
    }

    fn stage_dir(&self, node: &Node, visit: u64) -> PathBuf {
        self.run_dir.path.join(RunDir::node_dir(&node.id, visit))
    }
}
