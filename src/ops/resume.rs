//! Resuming: make a run workable on this machine again, from git alone. The run directory and
//! a worktree on the run branch at its tip are rebuilt when missing (so a run fetched from
//! another clone resumes here), the workflow is checked against the recorded graph, and the
//! engine gets the state to continue from.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::config::Config;
use crate::error::{Error, Needs, Result};
use crate::failpoint;
use crate::format::record::{Checkpoint, StatusKind};
use crate::format::store::{MANIFEST, Manifest, RunDir};
use crate::format::time::Timestamp;
use crate::git::Repo;
use crate::ops::lifecycle;
use crate::ops::start::read_workflow;
use crate::run::workspace::Workspace;
use crate::run::{self, GRAPH_FILE, RunState};

/// What an engine needs to continue a run, printed by `resume` without a command.
#[derive(Clone, Debug, Serialize)]
pub struct ResumeState {
    pub run_id: String,
    pub status: StatusKind,
    pub worktree: PathBuf,
    pub run_dir: PathBuf,
    pub next_node_id: Option<String>,
    pub completed_nodes: Vec<String>,
    pub node_retries: std::collections::BTreeMap<String, u64>,
    pub node_visits: std::collections::BTreeMap<String, u64>,
    pub context_values: std::collections::BTreeMap<String, Value>,
    /// The context asked for full fidelity, which a resumed hop cannot give: downgrade it.
    pub fidelity_downgrade: bool,
    /// The worktree holds changes that no checkpoint recorded (a node interrupted mid-way).
    pub dirty: bool,
    /// What seeding a recreated worktree's build folders did (see `build_seed`).
    #[serde(skip)]
    pub seed_note: Option<String>,
}

pub struct ResumeRequest<'a> {
    pub workflow: Option<&'a Path>,
    pub force: bool,
}

pub fn resume(
    repo: &Repo,
    state: &RunState,
    config: &Config,
    request: &ResumeRequest,
) -> Result<ResumeState> {
    if !state.situation().resumable() {
        return Err(state.refused(Needs::Open, "it cannot be resumed"));
    }
    if let (Some(path), Some(recorded)) = (request.workflow, &state.record.spec.graph_sha256) {
        let (_, _, sha) = read_workflow(path)?;
        if &sha != recorded && !request.force {
            return Err(Error::WorkflowChanged {
                run: state.id.to_string(),
                path: path.to_owned(),
                sha256: sha,
                recorded: recorded.clone(),
            });
        }
    }
    let run_dir = rebuild_run_dir(repo, &config.runs_dir, state)?;
    failpoint::reach("resume:run-dir-written");
    let (workspace, seed_note) = match Workspace::find(repo, &state.id)? {
        Some(ws) => (ws, None),
        None => {
            let ws = rebuild_worktree(repo, state, &run_dir, config)?;
            let note = crate::ops::build_seed::seed(repo, &ws.path, config);
            (ws, note)
        }
    };
    let state = match lifecycle::reopen(repo, state, config)? {
        Some(_) => {
            failpoint::reach("resume:refs-moved");
            RunState::load(repo, &state.id)?
        }
        None => state.clone(),
    };
    let dirty = workspace.is_dirty(state.run_tip, config)?;
    let worktree = workspace.path;
    let checkpoint = state.linked_checkpoint(repo)?.unwrap_or_default();
    Ok(ResumeState {
        seed_note,
        ..resume_state(&state, checkpoint, worktree, run_dir.path, dirty)
    })
}

fn resume_state(
    state: &RunState,
    c: Checkpoint,
    worktree: PathBuf,
    run_dir: PathBuf,
    dirty: bool,
) -> ResumeState {
    let fidelity_downgrade = c
        .context_values
        .get("internal.fidelity")
        .and_then(Value::as_str)
        == Some("full");
    ResumeState {
        run_id: state.id.to_string(),
        status: state.record.status.kind,
        worktree,
        run_dir,
        next_node_id: c.next_node_id,
        completed_nodes: c.completed_nodes,
        node_retries: c.node_retries,
        node_visits: c.node_visits,
        context_values: c.context_values,
        fidelity_downgrade,
        dirty,
        seed_note: None,
    }
}

/// The run directory, recreated from the metadata branch when this machine has none.
pub fn rebuild_run_dir(repo: &Repo, runs_dir: &Path, state: &RunState) -> Result<RunDir> {
    let worktree = repo
        .worktree_on(&run::run_branch(&state.id))?
        .filter(|w| w.exists && w.unfinished.is_none());
    if let Some(dir) = RunDir::locate(
        runs_dir,
        &state.id,
        None,
        worktree.as_ref().map(|w| w.path.as_path()),
        || repo.main_path(),
    ) && dir.path.join(MANIFEST).is_file()
    {
        return Ok(dir);
    }
    let started =
        Timestamp::parse_rfc3339(&state.record.start.start_time).unwrap_or_else(Timestamp::now);
    // The manifest written below names this clone, which is how later commands find the
    // directory when another clone's copy of the run took the default name.
    let dir = RunDir::open(&RunDir::free_path(runs_dir, &state.id, started))?;
    dir.write_json(MANIFEST, &Manifest::new(&state.record, &repo.main_path()))?;
    // The recorded run.toml is not copied: a run directory's run.toml counts in full, and the
    // recorded one may come from another clone (config::Settings::recorded).
    if let Some(bytes) =
        repo.blob_at_most(state.meta_tree, GRAPH_FILE, crate::input::MAX_DEFINITION)?
    {
        dir.write(GRAPH_FILE, &bytes)?;
    }
    Ok(dir)
}

/// The run's worktree on the run branch, added again when missing. A registration whose
/// directory is gone, or an unfinished checkout an interrupted start or resume left on the
/// branch or at the worktree's place, is removed first.
fn rebuild_worktree(
    repo: &Repo,
    state: &RunState,
    run_dir: &RunDir,
    config: &Config,
) -> Result<Workspace> {
    let branch = run::run_branch(&state.id);
    let path = run_dir.worktree();
    // Workspace::find found no finished worktree: one left on the branch is gone or unfinished.
    for stale in repo.worktrees()?.into_iter().filter(|w| {
        w.branch.as_deref() == Some(branch.as_str()) || (w.unfinished.is_some() && w.path == path)
    }) {
        repo.remove_worktree(&stale.path)?;
    }
    if std::fs::read_dir(&path).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(Error::InTheWay {
            path,
            run: state.id.to_string(),
        });
    }
    repo.add_worktree(&path, &branch, &config.identity)?;
    failpoint::reach("resume:worktree-written");
    Ok(Workspace::linked(Repo::open(&path)?, path))
}
