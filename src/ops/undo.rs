//! `undo`: one step back through a run's recorded states, with nothing to remember between
//! calls. The steps of a run are its start, the start of each turn (the snapshot an agent's
//! prompt hook takes when a restore or an undo moved the files since the last checkpoint) and
//! each checkpoint. Where the files stand is read from the files themselves: the newest step
//! that holds them exactly. Undo goes to the step before it whose files differ, so calling it
//! again goes one step further back; files that no step holds (what an interrupted turn, or
//! someone, wrote since) go back to the newest step. The restore it makes keeps the files as
//! they were under a recovery point, so every undo can be redone.

use crate::config::Config;
use crate::error::{Error, Result};
use crate::git::ObjectId;
use crate::ops::fork::parse_sha;
use crate::ops::restore::RestoreTarget;
use crate::run::RunState;
use crate::run::timeline::{self, Entry};
use crate::run::workspace::Workspace;

/// The reason of the snapshot taken when a turn starts.
pub const TURN_START: &str = "start of a turn";

/// Where an undo goes, and what it takes back.
#[derive(Debug)]
pub struct UndoPlan {
    pub target: RestoreTarget,
    /// The step whose files the checkout holds now; none when they are in no step.
    pub from: Option<String>,
}

/// The step before the one the files stand at, or an error saying there is none.
pub fn plan(
    repo: &crate::git::Repo,
    workspace: &Workspace,
    state: &RunState,
    config: &Config,
) -> Result<UndoPlan> {
    let files = workspace.snapshot(Some(state.run_tip), config, &[])?.tree;
    let mut steps = steps(repo, state)?;
    let trees: Vec<ObjectId> = steps
        .iter()
        .map(|step| Ok(repo.commit_tree(parse_sha(&step.run_commit)?)?))
        .collect::<Result<_>>()?;
    let holds_files = |i: &usize| trees[*i] == files;
    let turn_start = |i: usize| steps[i].snapshot.is_some();
    // Where the files stand: a checkpoint (or the start) holding them, else the start of a
    // turn holding them; files no step holds go back to the newest step.
    let newest = |of_kind: &dyn Fn(usize) -> bool| {
        (0..steps.len())
            .rev()
            .filter(holds_files)
            .find(|i| of_kind(*i))
    };
    let nothing = || Error::NothingToUndo {
        run: state.id.to_string(),
    };
    let Some(mut at) = newest(&|i| !turn_start(i)).or_else(|| newest(&turn_start)) else {
        // A fork at its source's start has no step at all.
        let to = steps.len().checked_sub(1).ok_or_else(nothing)?;
        return Ok(UndoPlan {
            target: target(steps.swap_remove(to)),
            from: None,
        });
    };
    let from = label(&steps[at]);
    // The step before is where the turn began: its start when one was saved, else the
    // checkpoint before it. A step that changed nothing is stepped over.
    let to = loop {
        let before = at.checked_sub(1).ok_or_else(nothing)?;
        if !holds_files(&before) {
            break before;
        }
        at = before;
    };
    Ok(UndoPlan {
        target: target(steps.swap_remove(to)),
        from: Some(from),
    })
}

fn target(step: Entry) -> RestoreTarget {
    RestoreTarget {
        label: label(&step),
        commit: step.run_commit,
    }
}

/// The run's start, the snapshots that began a turn and its checkpoints, oldest first. A
/// fork's timeline goes on into its source's, which holds its start.
fn steps(repo: &crate::git::Repo, state: &RunState) -> Result<Vec<Entry>> {
    let start = match state.record.spec.is_fork() {
        true => None,
        false => Some(timeline::find(
            repo,
            state,
            &crate::run::target::Target::Start,
        )?),
    };
    let recorded = timeline::timeline_with(repo, state, true)?
        .into_iter()
        .filter(|entry| {
            entry
                .snapshot
                .as_deref()
                .is_none_or(|reason| reason.starts_with(TURN_START))
        });
    Ok(start.into_iter().chain(recorded).collect())
}

fn label(step: &Entry) -> String {
    match &step.snapshot {
        Some(reason) => format!(
            "the {reason} (snapshot {})",
            crate::format::short_sha(&step.run_commit)
        ),
        None => step.label(),
    }
}
