//! Status changes that are metadata commits and nothing else: archiving, unarchiving and
//! marking a run as running again. Each is one compare-and-swap on the metadata branch.

use serde_json::json;

use crate::config::Config;
use crate::error::{Error, Needs, Result};
use crate::format::fabro;
use crate::format::message;
use crate::format::record::{RunRecord, Status, StatusKind};
use crate::git::{ObjectId, RefEdit, Repo};
use crate::run::{self, RUN_JSON, RunState};

/// Writes `record` as a metadata commit with `subject` and moves the branch from the state's tip.
pub fn commit_record(
    repo: &Repo,
    state: &RunState,
    record: &RunRecord,
    subject: &str,
    config: &Config,
) -> Result<ObjectId> {
    let mut tree = repo.edit_tree(state.meta_tree)?;
    tree.put_file(RUN_JSON, &record.to_json()?)?;
    let tree = tree.write()?;
    commit_meta_tree(repo, state, tree, subject, config)
}

/// Commits `tree` on the run's metadata branch, compare-and-swap from the state's tip.
pub fn commit_meta_tree(
    repo: &Repo,
    state: &RunState,
    tree: ObjectId,
    subject: &str,
    config: &Config,
) -> Result<ObjectId> {
    let message = message::meta_commit(subject, &state.id, None);
    let commit = repo.write_commit(tree, &[state.meta_tip], &message, &config.identity)?;
    let edit = RefEdit::Update {
        name: run::meta_branch(&state.id),
        old: state.meta_tip,
        new: commit,
    };
    repo.update_refs(&[edit], &format!("fabro: {subject}"), &config.identity)
        .map_err(|err| Error::from(err).in_run(&state.id))?;
    Ok(commit)
}

/// The record of `state` archived: status `archived`, with the previous status kept under
/// `prior` (and `prior_active` when the run had not finished), and why under `reason`.
pub fn archived(state: &RunState, reason: Option<String>) -> RunRecord {
    let mut record = state.record.clone();
    let (prior, active) = fabro::archived_prior(&state.record.status);
    record.status = Status::new(StatusKind::Archived);
    record.status.prior = Some(prior);
    record.status.reason = reason;
    if let Some(active) = active {
        record
            .status
            .extra
            .insert(fabro::PRIOR_ACTIVE.into(), json!(active));
    }
    record
}

/// Archives a run; archiving an archived run changes nothing. Returns whether it changed.
pub fn archive(repo: &Repo, state: &RunState, config: &Config) -> Result<bool> {
    if state.record.status.kind == StatusKind::Archived {
        return Ok(false);
    }
    commit_record(repo, state, &archived(state, None), "archive run", config)?;
    Ok(true)
}

/// Gives an archived run back the status it had. Returns whether it changed.
pub fn unarchive(repo: &Repo, state: &RunState, config: &Config) -> Result<bool> {
    if state.record.status.kind != StatusKind::Archived {
        return Ok(false);
    }
    let prior = fabro::prior_status(&state.record.status)
        .or_else(|| Some(fabro::concluded(state.record.conclusion.as_ref()?.status)))
        .unwrap_or_else(|| Status::new(StatusKind::Dead));
    let mut record = state.record.clone();
    record.status = prior;
    commit_record(repo, state, &record, "unarchive run", config)?;
    Ok(true)
}

/// Fabro's `run.json` key for the questions a blocked run waits on.
pub const PENDING_INTERVIEWS: &str = "pending_interviews";

/// Marks a failed, dead or submitted run as running again, so it takes checkpoints.
/// Refuses a run that ended or was archived, for a command only a running run takes;
/// `refusal` says so.
pub fn ensure_active(state: &RunState, refusal: &str) -> Result<()> {
    match state.record.status.kind.is_active() {
        true => Ok(()),
        false => Err(state.refused(Needs::Open, refusal)),
    }
}

pub fn reopen(repo: &Repo, state: &RunState, config: &Config) -> Result<Option<ObjectId>> {
    match state.record.status.kind {
        StatusKind::Running => Ok(None),
        StatusKind::Failed
        | StatusKind::Dead
        | StatusKind::Submitted
        | StatusKind::Queued
        | StatusKind::Starting
        | StatusKind::Blocked
        | StatusKind::Paused => {
            let mut record = state.record.clone();
            record.status = Status::new(StatusKind::Running);
            record.conclusion = None;
            // The engine that goes on asks its questions again.
            record.extra.remove(PENDING_INTERVIEWS);
            commit_record(repo, state, &record, "resume run", config).map(Some)
        }
        _ => Err(state.refused(Needs::Open, "it cannot be resumed")),
    }
}
