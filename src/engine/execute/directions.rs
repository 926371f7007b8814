//! What the command line tells the engine beyond the workflow, and what the run has taken of
//! it so far. One `Directions` serves the whole run: the top-level walk, every parallel
//! branch (each in a thread of its own) and every manager loop's child, so that a gate takes
//! its answers in turn and an `--assume-done` is spent once, wherever the node runs.

use std::collections::BTreeMap;
use std::sync::Mutex;

#[derive(Default)]
pub struct Directions {
    /// `--answer NODE=CHOICE`, in the order given: a gate's visits take its answers in turn.
    pub answers: Vec<(String, String)>,
    /// `--auto-approve`: every human gate takes its first choice.
    pub auto_approve: bool,
    /// `--rerun NODE`: run an interrupted side-effect node again.
    pub rerun: Vec<String>,
    /// `--assume-done NODE`: record an interrupted side-effect node as succeeded.
    pub assume_done: Vec<String>,
    /// The user vouches for the workflows this run reads from files (manager children): `run`
    /// of a file they named, or `resume --trust`. Without it a child workflow runs only when
    /// this machine wrote or approved it (`ops::trust`).
    pub trust: bool,
    /// The sha256 of workflows and values someone this machine trusts approved for this run
    /// (`worker --approved`, a signed submission): they run as if approved here.
    pub approved: Vec<String>,
    /// What the run has taken of them so far; starts empty.
    pub spent: Spent,
}

#[derive(Default)]
pub struct Spent {
    /// How many of each gate's answers its visits have taken.
    taken: Mutex<BTreeMap<String, usize>>,
    /// Stages (`node@visit`) that `--assume-done` records as succeeded without running them,
    /// found when the run's intents were recovered.
    assumed: Mutex<Vec<String>>,
}

impl Directions {
    /// The gate `node`'s next answer not yet taken: `--answer review=R --answer review=A`
    /// revises on the first visit and approves on the second; then the gate asks or blocks.
    pub fn next_answer(&self, node: &str) -> Option<String> {
        let mut taken = self.spent.taken.lock().unwrap_or_else(|e| e.into_inner());
        let used = taken.entry(node.to_owned()).or_insert(0);
        let (_, answer) = self
            .answers
            .iter()
            .filter(|(id, _)| id == node)
            .nth(*used)?;
        *used += 1;
        Some(answer.clone())
    }

    /// Marks `stage` to be recorded as done instead of run.
    pub(super) fn assume(&self, stage: String) {
        self.spent
            .assumed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(stage);
    }

    /// Whether `stage` is to be recorded as done without running; true once.
    pub(super) fn take_assumed(&self, stage: &str) -> bool {
        let mut assumed = self.spent.assumed.lock().unwrap_or_else(|e| e.into_inner());
        match assumed.iter().position(|s| s == stage) {
            Some(at) => {
                assumed.remove(at);
                true
            }
            None => false,
        }
    }
}
