//! Landing a run: its result as one commit on one of the user's branches. The only operation
//! that writes a branch, index or file of the user's own, so it refuses before changing
//! anything whenever git's own merge would: on conflicts, on staged changes, on a change or
//! untracked file of the user's in the way, and on a run that has not finished (unless forced).
//! The merge is three-way with the run's base as the merge base, so changes the branch got
//! since the run started are kept; a checkout that has the branch is brought along as
//! `git merge` brings it, and a moved branch undoes that and exits 3.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::format::record::{LANDED, Landing, StatusKind};
use crate::format::run_id::RunId;
use crate::git::{Identity, Merged, ObjectId, RefEdit, Repo};
use crate::ops::lifecycle::commit_record;
use crate::ops::turn_prompts::{self, PROMPT_FILE};
use crate::run::RunState;
use crate::run::timeline::Entry;

/// How the run's result is recorded on the branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LandMode {
    /// One commit whose only parent is the branch's tip.
    Squash,
    /// A merge commit whose second parent is the run branch's tip.
    Merge,
}

/// Where the run lands.
pub struct LandTarget {
    /// The branch, a full ref name (`refs/heads/main`).
    pub branch: String,
    /// The work tree that has the branch checked out, whose index and files follow it.
    pub checkout: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
pub struct Landed {
    pub run_id: String,
    pub branch: String,
    pub mode: LandMode,
    /// The new commit on the branch; null when the branch already held every change.
    pub commit: Option<String>,
    /// The branch's tip before.
    pub previous: String,
    /// The checkout that now shows the result, if the branch is checked out.
    pub worktree: Option<PathBuf>,
}

/// Lands the run on `target` as `mode`; `who` signs the commit.
pub fn land(
    repo: &Repo,
    state: &RunState,
    entries: &[Entry],
    target: &LandTarget,
    mode: LandMode,
    force: bool,
    who: &Identity,
) -> Result<Landed> {
    let id = &state.id;
    if !force {
        check_finished(state)?;
    }
    let branch = &target.branch;
    let shown = branch.strip_prefix("refs/heads/").unwrap_or(branch);
    let ours = repo
        .ref_target(branch)?
        .ok_or_else(|| Error::Usage(format!("there is no branch {shown}")))?;
    let changes = state.changes(repo)?;
    let run_tree = repo.commit_tree(changes.tip)?;
    let ours_tree = repo.commit_tree(ours)?;
    let merged = match repo.merge_trees(repo.commit_tree(changes.base)?, ours_tree, run_tree)? {
        Merged::Clean(tree) => tree,
        Merged::Conflicts(paths) => {
            return Err(Error::LandConflict {
                run: id.to_string(),
                branch: shown.to_owned(),
                paths,
            });
        }
    };
    let mut landed = Landed {
        run_id: id.to_string(),
        branch: shown.to_owned(),
        mode,
        commit: None,
        previous: ours.to_string(),
        worktree: target.checkout.clone(),
    };
    if merged == ours_tree && mode == LandMode::Squash {
        return Ok(landed);
    }
    let checkout_moved = match &target.checkout {
        Some(workdir) => checkout_moved_before(repo, id, workdir, ours, merged)?,
        None => false,
    };
    let parents: Vec<ObjectId> = match mode {
        LandMode::Squash => vec![ours],
        LandMode::Merge => vec![ours, state.run_tip],
    };
    let message = message(repo, state, entries, mode);
    // A run in place made its changes in this very checkout: its files already hold them, so
    // only the index follows the branch (git's file update would take them for the user's).
    let in_place_here = target
        .checkout
        .as_deref()
        .is_some_and(|dir| worked_in_place(state, dir));
    let move_checkout = |workdir: &Path, from: ObjectId, to: ObjectId| {
        if in_place_here {
            repo.move_index(workdir, from, to)
        } else {
            repo.move_checkout(workdir, from, to)
        }
    };
    // The checkout moves first (to the merged tree), so that a change of the user's in the
    // way refuses the landing before any commit is written.
    if let Some(workdir) = &target.checkout
        && !checkout_moved
    {
        move_checkout(workdir, ours_tree, merged).map_err(in_the_way(id))?;
    }
    let reflog = format!("fabro land: run {id}");
    let commit = repo
        .write_commit(merged, &parents, &message, who)
        .and_then(|commit| {
            let edit = RefEdit::Update {
                name: branch.clone(),
                old: ours,
                new: commit,
            };
            repo.update_refs(&[edit], &reflog, who).map(|()| commit)
        });
    let commit = match commit {
        Ok(commit) => commit,
        Err(err) => {
            // No commit, or the branch moved under us: put the checkout back where its branch
            // still is.
            if let Some(workdir) = &target.checkout {
                let _ = move_checkout(workdir, merged, ours_tree);
            }
            return Err(err.into());
        }
    };
    landed.commit = Some(commit.to_string());
    Ok(landed)
}

/// A checkout with changes of the user's in the way of landing run `id`.
fn in_the_way(id: &RunId) -> impl Fn(crate::git::Error) -> Error + '_ {
    move |err| match err {
        crate::git::Error::InTheWay { workdir, changes } => Error::ChangesInTheWay {
            run: id.to_string(),
            workdir,
            changes,
            staged: false,
        },
        other => other.into(),
    }
}

fn check_finished(state: &RunState) -> Result<()> {
    if matches!(
        state.record.status.kind,
        StatusKind::Succeeded | StatusKind::Failed
    ) {
        return Ok(());
    }
    Err(Error::Unfinished {
        run: state.id.to_string(),
        situation: state.situation(),
    })
}

/// Whether a land killed after it brought the checkout to the result and before it moved the
/// branch left exactly the result staged, which this land then finishes. Other staged
/// changes refuse the land.
fn checkout_moved_before(
    repo: &Repo,
    id: &RunId,
    workdir: &Path,
    ours: ObjectId,
    merged: ObjectId,
) -> Result<bool> {
    let staged = repo.staged_changes(workdir, ours)?;
    if staged.is_empty() {
        return Ok(false);
    }
    if repo.staged_changes(workdir, merged)?.is_empty() {
        return Ok(true);
    }
    Err(Error::ChangesInTheWay {
        run: id.to_string(),
        workdir: workdir.to_owned(),
        changes: staged.join(", "),
        staged: true,
    })
}

/// Records on the run's metadata branch that it landed (`land run` commit): `ps` shows it.
/// The landing itself is done; a run that moved meanwhile is read again once.
pub fn record_landing(
    repo: &Repo,
    state: &RunState,
    landing: &Landing,
    config: &Config,
) -> Result<()> {
    let subject = format!(
        "land run ({} {})",
        landing.branch,
        crate::format::short_sha(&landing.commit)
    );
    let mut state = state.clone();
    for tried in 0..2 {
        if tried > 0 {
            state = RunState::load(repo, &state.id)?;
        }
        let mut record = state.record.clone();
        let value = serde_json::to_value(landing).unwrap_or_default();
        record.extra.insert(LANDED.into(), value);
        match commit_record(repo, &state, &record, &subject, config) {
            Err(Error::Conflict(_)) if tried == 0 => {}
            done => return done.map(drop),
        }
    }
    Ok(())
}

/// The first line of what the checkpoint's stage was asked (its `prompt.md`), if it was.
fn asked(repo: &Repo, entry: &Entry) -> Option<String> {
    const LIMIT: u64 = 1 << 20;
    let prompt = crate::run::inspect::stage_file(repo, entry, PROMPT_FILE, LIMIT).ok()??;
    turn_prompts::name(&String::from_utf8_lossy(&prompt))
}

/// Whether `state` is a run that worked in place in the directory `dir`.
fn worked_in_place(state: &RunState, dir: &Path) -> bool {
    state
        .record
        .start
        .workdir()
        .is_some_and(|ran_in| crate::run::workspace::same_dir(ran_in, dir))
}

/// The commit message: the goal, the stages the run went through (with what each was asked,
/// an agent session's prompts), and a `Fabro-Run` trailer.
pub fn message(repo: &Repo, state: &RunState, entries: &[Entry], mode: LandMode) -> String {
    let id = &state.id;
    // The goal as `ps` shows it: given to `start`, else the workflow's or Fabro's settings'.
    let goal = state.record.spec.goal();
    let goal = goal
        .as_deref()
        .and_then(|g| g.lines().map(str::trim).find(|l| !l.is_empty()));
    let subject = match (mode, goal) {
        (LandMode::Squash, Some(goal)) => goal.to_owned(),
        (LandMode::Squash, None) => format!("Land run {id}"),
        (LandMode::Merge, Some(goal)) => format!("Merge run {id}: {goal}"),
        (LandMode::Merge, None) => format!("Merge run {id}"),
    };
    let mut text = format!("{subject}\n\n");
    let own: Vec<&Entry> = entries.iter().filter(|e| e.snapshot.is_none()).collect();
    if own.is_empty() {
        text.push_str(&format!("Run {id} recorded no checkpoint.\n"));
    } else {
        text.push_str(&format!(
            "Run {id}, {} checkpoint{}:\n",
            own.len(),
            if own.len() == 1 { "" } else { "s" }
        ));
        for e in own {
            text.push_str(&format!(
                "- @{} {}@{} {}",
                e.ordinal, e.node_id, e.visit, e.status
            ));
            if let Some(asked) = asked(repo, e) {
                text.push_str(&format!(": {asked}"));
            }
            text.push('\n');
        }
    }
    text.push_str(&format!("\nFabro-Run: {id}\n"));
    text
}
