//! Finishing a run: the `finalize run` metadata commit with the conclusion, the conclusion and
//! final patch in the run directory, and the worktree removed when nothing in it would be lost.
//! Running it again after an interruption completes the local steps without a second commit.

use serde::Serialize;
use serde_json::json;

use crate::config::Config;
use crate::error::{Needs, Result};
use crate::failpoint;
use crate::format::fabro;
use crate::format::message;
use crate::format::node::StageStatus;
use crate::format::record::{Conclusion, Status, StatusKind};
use crate::format::store::RunDir;
use crate::format::time::Timestamp;
use crate::git::Repo;
use crate::ops::worktree_removal::{self, Kept, Removal};
use crate::run::active_time;
use crate::run::workspace::{self, Place, Workspace};
use crate::run::{RUN_JSON, RunState};

#[derive(Clone, Debug)]
pub struct FinishRequest {
    pub status: StatusKind,
    pub reason: Option<String>,
    pub keep_worktree: bool,
    /// Fabro's per-stage summaries for `conclusion.json` (`stages`, `total_retries`), which
    /// the engine knows and a harness's `finish` does not.
    pub stages: Option<StageSummaries>,
}

#[derive(Clone, Debug, Default)]
pub struct StageSummaries {
    pub stages: Vec<serde_json::Value>,
    pub total_retries: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Finished {
    pub run_id: String,
    pub status: StatusKind,
    /// Wall time from start to finish.
    pub duration_ms: u64,
    /// `duration_ms` less the time the run stood blocked or paused.
    pub active_ms: u64,
    pub meta_commit: String,
    pub final_git_commit_sha: String,
    pub worktree_removed: bool,
    /// What kept the worktree: the paths that the final commit does not hold.
    #[serde(flatten)]
    pub kept: Kept,
    #[serde(skip)]
    pub warnings: Vec<String>,
}

pub fn finish(
    repo: &Repo,
    state: &RunState,
    config: &Config,
    request: &FinishRequest,
    run_dir: Option<&RunDir>,
    workspace: Option<&Workspace>,
) -> Result<Finished> {
    let (conclusion, meta_commit) = match (&state.record.status.kind, &state.record.conclusion) {
        (kind, Some(conclusion)) if *kind == request.status => (conclusion.clone(), state.meta_tip),
        // Archiving a finished run keeps its conclusion: finishing it the same way again is
        // the interrupted finish completed, not a new ending.
        (StatusKind::Archived, Some(conclusion))
            if conclusion.status == fabro::conclusion_outcome(request.status) =>
        {
            (conclusion.clone(), state.meta_tip)
        }
        // A run blocked at a human gate or paused by Ctrl-C has not ended either.
        (
            StatusKind::Running | StatusKind::Submitted | StatusKind::Blocked | StatusKind::Paused,
            _,
        ) => finalize(repo, state, config, request)?,
        _ => {
            let refusal = format!("it cannot finish as {}", request.status.as_str());
            return Err(state.refused(Needs::Open, refusal));
        }
    };
    let mut finished = Finished {
        run_id: state.id.to_string(),
        status: request.status,
        duration_ms: conclusion.duration_ms,
        active_ms: active_time::of(&conclusion),
        meta_commit: meta_commit.to_string(),
        final_git_commit_sha: state.run_tip.to_string(),
        worktree_removed: false,
        kept: Kept::default(),
        warnings: Vec::new(),
    };
    if let Some(dir) = run_dir
        && let Err(err) = record_locally(repo, state, dir, &conclusion)
    {
        finished
            .warnings
            .push(format!("the run directory was not updated: {err}"));
    }
    failpoint::reach("finish:run-dir-written");
    match workspace {
        // An in-place run leaves the user's directory as it is; only its registration goes.
        Some(ws) if ws.place == Place::InPlace => workspace::unregister(repo, &state.id),
        Some(ws) if !request.keep_worktree => {
            match worktree_removal::remove_if_clean(repo, ws, state.run_tip, config)? {
                Removal::Removed => finished.worktree_removed = true,
                Removal::Kept(kept) => {
                    finished
                        .warnings
                        .push(worktree_removal::kept_message(&ws.path, &kept));
                    finished.kept = kept;
                }
            }
        }
        _ => {}
    }
    Ok(finished)
}

/// Writes the `finalize run` commit; the run branch is part of the same transaction, so the
/// conclusion's final commit really is the branch's tip.
fn finalize(
    repo: &Repo,
    state: &RunState,
    config: &Config,
    request: &FinishRequest,
) -> Result<(Conclusion, crate::git::ObjectId)> {
    let now = Timestamp::now();
    let started = Timestamp::parse_rfc3339(&state.record.start.start_time).unwrap_or(now);
    let duration_ms = u64::try_from(now.millis() - started.millis()).unwrap_or(0);
    let stopped_ms = active_time::stopped_ms(repo, state.meta_tip, started.millis(), now.millis())?;
    let mut conclusion = Conclusion {
        timestamp: now.rfc3339(),
        status: fabro::conclusion_outcome(request.status),
        duration_ms,
        failure_reason: request
            .reason
            .clone()
            .filter(|_| request.status == StatusKind::Failed),
        final_git_commit_sha: Some(state.run_tip.to_string()),
        extra: Default::default(),
    };
    conclusion.extra.insert(
        active_time::ACTIVE_MS.into(),
        json!(duration_ms.saturating_sub(stopped_ms)),
    );
    if let Some(summaries) = &request.stages {
        conclusion.extra.extend([
            ("stages".into(), json!(summaries.stages)),
            ("total_retries".into(), json!(summaries.total_retries)),
        ]);
    }
    let mut record = state.record.clone();
    record.status = Status::new(request.status);
    record.conclusion = Some(conclusion.clone());
    // A blocked run finished by hand waits for no answer any more.
    record
        .extra
        .remove(crate::ops::lifecycle::PENDING_INTERVIEWS);
    let mut tree = repo.edit_tree(state.meta_tree)?;
    tree.put_file(RUN_JSON, &record.to_json()?)?;
    let tree = tree.write()?;
    let subject = format!("finalize run ({})", request.status.as_str());
    let commit = repo.write_commit(
        tree,
        &[state.meta_tip],
        &message::meta_commit(&subject, &state.id, None),
        &config.identity,
    )?;
    failpoint::reach("finish:objects-written");
    // The run branch moves to where it is: the transaction checks that no checkpoint
    // slipped in, so the conclusion's final commit really is the tip.
    state.move_branches(
        repo,
        commit,
        state.run_tip,
        "fabro: finalize run",
        &config.identity,
    )?;
    failpoint::reach("finish:refs-moved");
    Ok((conclusion, commit))
}

fn record_locally(
    repo: &Repo,
    state: &RunState,
    dir: &RunDir,
    conclusion: &Conclusion,
) -> Result<()> {
    dir.write_json("conclusion.json", conclusion)?;
    let changes = state.changes(repo)?;
    let patch = repo.diff_trees(
        repo.commit_tree(changes.base)?,
        repo.commit_tree(changes.tip)?,
    )?;
    dir.write("final.patch", &patch)?;
    dir.append_event(&json!({
        // Fabro's names: a run that did not succeed "failed", whatever its stages said.
        "event": if conclusion.status == StageStatus::Succeeded { "run.completed" } else { "run.failed" },
        "timestamp": conclusion.timestamp,
        "run_id": state.id.as_str(),
        "status": conclusion.status,
        "final_git_commit_sha": conclusion.final_git_commit_sha,
    }))?;
    let mut record = state.record.clone();
    record.status = fabro::concluded(conclusion.status);
    record.conclusion = Some(conclusion.clone());
    dir.write_json("live.json", &crate::ops::checkpoint::live(&record, None))
}
