//! Snapshots: lightweight saves between checkpoints, for a harness to call before a risky step
//! such as a file write. A snapshot commits the run's files to the run branch with a
//! `Fabro-Snapshot` trailer, completes no node and writes no metadata; when nothing changed it
//! writes nothing at all. `log --all` lists snapshots, and `restore` takes their shas.

use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::format::message;
use crate::git::{RefEdit, Repo, SkippedFile};
use crate::run::workspace::Workspace;
use crate::run::{self, RunState};

const DEFAULT_REASON: &str = "before a change";
const MAX_REASON: usize = 200;

#[derive(Clone, Debug, Serialize)]
pub struct Snapshotted {
    pub run_id: String,
    /// The snapshot commit, or the run's tip when nothing changed since.
    pub run_commit: String,
    pub created: bool,
    pub reason: String,
    pub changed_paths: usize,
    pub skipped_files: Vec<SkippedFile>,
}

/// One line of at most 200 characters, safe as a subject and trailer value.
pub fn clean_reason(reason: Option<&str>) -> String {
    let one_line: String = reason
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let text: String = one_line.chars().take(MAX_REASON).collect();
    if text.is_empty() {
        DEFAULT_REASON.to_owned()
    } else {
        text
    }
}

/// Refuses a run that ended or was archived: only a running run takes snapshots.
pub fn refuse_ended(state: &RunState) -> Result<()> {
    super::lifecycle::ensure_active(state, "only a running run takes snapshots")
}

pub fn snapshot(
    repo: &Repo,
    workspace: &Workspace,
    state: &RunState,
    config: &Config,
    reason: Option<&str>,
    paths: &[Vec<u8>],
) -> Result<Snapshotted> {
    refuse_ended(state)?;
    let reason = clean_reason(reason);
    let snap = workspace.snapshot(Some(state.run_tip), config, paths)?;
    let mut done = Snapshotted {
        run_id: state.id.to_string(),
        run_commit: state.run_tip.to_string(),
        created: false,
        reason,
        changed_paths: snap.changed_paths,
        skipped_files: snap.skipped.clone(),
    };
    if snap.tree != repo.commit_tree(state.run_tip)? {
        let message = message::snapshot_commit(&state.id, &done.reason);
        let commit = repo.write_commit(snap.tree, &[state.run_tip], &message, &config.identity)?;
        let edit = RefEdit::Update {
            name: run::run_branch(&state.id),
            old: state.run_tip,
            new: commit,
        };
        repo.update_refs(&[edit], "fabro: snapshot", &config.identity)
            .map_err(|err| Error::from(err).in_run(&state.id))?;
        done.run_commit = commit.to_string();
        done.created = true;
    }
    // Keeps the stat cache warm; a failure only makes the next snapshot slower.
    let _ = workspace.write_index(snap);
    Ok(done)
}
