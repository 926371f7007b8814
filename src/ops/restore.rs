//! Restoring a run's worktree to a checkpoint: the files changed since are put back, files
//! deleted since come back, files created since are removed; ignored and excluded paths are
//! left alone. Before anything changes, the worktree's current state is committed under
//! `refs/fabro/recovery/<RUN_ID>/`, so a restore can itself be undone.

use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::failpoint;
use crate::format::message;
use crate::format::run_id::RunId;
use crate::git::{LeftAlone, ObjectId, PathChange, RefEdit, Repo};
use crate::run::RunState;
use crate::run::target::Target;
use crate::run::timeline;
use crate::run::workspace::Workspace;

pub const RECOVERY_PREFIX: &str = "refs/fabro/recovery/";

/// What a restore goes back to: a checkpoint of the timeline or a recovery commit.
#[derive(Clone, Debug, Serialize)]
pub struct RestoreTarget {
    /// `@N node@V` for a checkpoint, `recovery` for a recovery commit.
    pub label: String,
    pub commit: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Restored {
    pub run_id: String,
    pub target: RestoreTarget,
    pub dry_run: bool,
    pub recovery_ref: Option<String>,
    pub recovery_commit: Option<String>,
    pub changes: Vec<PathChange>,
    /// Paths that differ from the target but that restore does not touch, because the
    /// recovery commit could not give them back (ignored, excluded, oversize) or because
    /// writing them would go through a symlink.
    pub left_alone: Vec<LeftAlone>,
}

pub fn recovery_prefix(id: &RunId) -> String {
    format!("{RECOVERY_PREFIX}{id}/")
}

/// Resolves a restore target: a timeline target, else a sha prefix of a snapshot, of the
/// run's start (its base: for a run in place, the directory as it was when the run started,
/// which is what its first write was preceded by), or of a recovery commit.
pub fn resolve(
    repo: &Repo,
    state: &RunState,
    text: Option<&str>,
    last_success: bool,
) -> Result<RestoreTarget> {
    let target = if last_success {
        Target::LastSuccess
    } else {
        Target::parse(text)?
    };
    match timeline::find(repo, state, &target) {
        Ok(entry) => Ok(RestoreTarget {
            label: entry.label(),
            commit: entry.run_commit,
        }),
        Err(err @ Error::TargetNotFound { .. }) => {
            let Some(prefix) = text.map(str::to_ascii_lowercase).filter(|t| t.len() >= 7) else {
                return Err(err);
            };
            let snapshots = timeline::timeline_with(repo, state, true)?
                .into_iter()
                .filter(|e| e.snapshot.is_some())
                .filter_map(|e| ObjectId::from_hex(e.run_commit.as_bytes()).ok())
                .map(|id| ("snapshot", id));
            let start = ObjectId::from_hex(state.record.start.base_sha.as_bytes())
                .ok()
                .map(|id| ("start", id));
            let recoveries = repo
                .refs_under(&recovery_prefix(&state.id))?
                .into_iter()
                .map(|(_, id)| ("recovery", id));
            let matches: Vec<(&str, ObjectId)> = snapshots
                .chain(start)
                .chain(recoveries)
                .filter(|(_, id)| id.to_string().starts_with(&prefix))
                .collect();
            match matches.as_slice() {
                [(label, one)] => Ok(RestoreTarget {
                    label: (*label).into(),
                    commit: one.to_string(),
                }),
                _ => Err(err),
            }
        }
        Err(err) => Err(err),
    }
}

/// How a restore goes: all of the run's files or only some, for real or as a dry run.
#[derive(Clone, Debug, Default)]
pub struct RestoreOptions {
    /// Pathspecs relative to the work tree's root; empty for every file.
    pub paths: Vec<Vec<u8>>,
    pub dry_run: bool,
    /// The command line that asked for the restore, kept in the recovery commit so that
    /// `restore --list` can say what made each recovery point.
    pub command: Option<String>,
}

pub fn restore(
    repo: &Repo,
    workspace: &Workspace,
    state: &RunState,
    target: RestoreTarget,
    config: &Config,
    options: &RestoreOptions,
) -> Result<Restored> {
    let dry_run = options.dry_run;
    let target_commit = crate::ops::fork::parse_sha(&target.commit)?;
    let current = workspace.snapshot(Some(state.run_tip), config, &[])?;
    let target_tree = repo.commit_tree(target_commit)?;
    let place = format!(
        "restore target {} ({})",
        target.label,
        crate::format::short_sha(&target.commit)
    );
    let changes = workspace
        .repo
        .changes_between(current.tree, target_tree)
        .map_err(|err| Error::from(err).at(&place))?;
    let changes = if options.paths.is_empty() {
        changes
    } else {
        workspace
            .repo
            .changes_under(changes, &options.paths, current.tree, target_tree)
            .map_err(|err| Error::from(err).at(&place))?
    };
    let excludes = config.excludes(&workspace.path);
    let (changes, left_alone) = workspace
        .repo
        .plan_restore(changes, target_tree, &excludes, &current.skipped)
        .map_err(|err| Error::from(err).at(&place))?;
    let mut restored = Restored {
        run_id: state.id.to_string(),
        target,
        dry_run,
        recovery_ref: None,
        recovery_commit: None,
        changes,
        left_alone,
    };
    if dry_run || restored.changes.is_empty() {
        return Ok(restored);
    }
    let subject = format!(
        "recovery: worktree before restore to {}",
        restored.target.label
    );
    let recovery = repo.write_commit(
        current.tree,
        &[state.run_tip],
        &message::recovery_commit(&subject, &state.id, options.command.as_deref()),
        &config.identity,
    )?;
    failpoint::reach("restore:objects-written");
    let name = format!("{}{}", recovery_prefix(&state.id), RunId::mint());
    repo.update_refs(
        &[RefEdit::Create {
            name: name.clone(),
            new: recovery,
        }],
        "fabro: recovery",
        &config.identity,
    )?;
    restored.recovery_ref = Some(name);
    restored.recovery_commit = Some(recovery.to_string());
    failpoint::reach("restore:refs-moved");
    let refused = workspace.repo.apply_changes(&restored.changes)?;
    failpoint::reach("restore:worktree-written");
    restored
        .changes
        .retain(|change| !refused.iter().any(|left| left.path == change.path));
    restored.left_alone.extend(refused);
    Ok(restored)
}

/// Whether a restore (or an undo) changed the run's files since its last checkpoint: a
/// recovery point kept on top of the run's tip. Reads the run's recovery refs and their
/// commits, not its files.
pub fn restored_since_tip(repo: &Repo, state: &RunState) -> Result<bool> {
    for (_, commit) in repo.refs_under(&recovery_prefix(&state.id))? {
        if repo.commit_info(commit)?.first_parent == Some(state.run_tip) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A state of the worktree that a restore kept under `refs/fabro/recovery/<RUN_ID>/`, as
/// `restore --list` shows it.
#[derive(Clone, Debug, Serialize)]
pub struct RecoveryPoint {
    pub recovery_ref: String,
    pub commit: String,
    /// When the restore that kept it ran (RFC 3339, UTC).
    pub time: String,
    /// The command that made it; null for one kept before git-fabro recorded commands.
    pub command: Option<String>,
    pub subject: String,
}

/// The run's recovery points, oldest first (their ref names are ULIDs minted as they were made).
pub fn recovery_points(repo: &Repo, id: &RunId) -> Result<Vec<RecoveryPoint>> {
    let prefix = recovery_prefix(id);
    let mut refs = repo.refs_under(&prefix)?;
    refs.sort();
    refs.into_iter()
        .map(|(name, commit)| {
            let info = repo.commit_info(commit)?;
            let (subject, command) = message::read_recovery(&info.message);
            Ok(RecoveryPoint {
                recovery_ref: format!("{prefix}{name}"),
                commit: commit.to_string(),
                time: crate::format::time::Timestamp::from_seconds(info.time).rfc3339(),
                command,
                subject,
            })
        })
        .collect()
}
