//! Checking that what git-fabro wrote still holds together, and repairing what can be repaired
//! without losing information. Problems are what a later command could trip over; notes are
//! harmless leftovers worth knowing about, such as metadata commits of a checkpoint that lost
//! a race.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Config;
use crate::error::Result;
use crate::format::message::Trailers;
use crate::format::run_id::RunId;
use crate::format::store::{MANIFEST, Manifest};
use crate::git::{ObjectId, RefEdit, Repo};
use crate::ops::interrupted_gc;
use crate::run::timeline::timeline_from_objects;
use crate::run::workspace;
use crate::run::{self, RUN_BRANCH_PREFIX, RunState, read_record};

mod foreign;
mod leftovers;
use foreign::check_foreign_refs;
use leftovers::{check_branch_work, check_locks, check_unfinished_worktrees};

#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    pub kind: &'static str,
    pub message: String,
    pub repairable: bool,
    pub repaired: bool,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub runs_checked: usize,
    pub problems: Vec<Finding>,
    pub notes: Vec<Finding>,
    /// Trees found safe to check out, shared by the runs checked: checkpoints and forks
    /// share most of their trees, so each is read once.
    #[serde(skip)]
    checked_trees: HashSet<crate::git::ObjectId>,
}

impl Report {
    /// Whether anything is wrong that was not repaired.
    pub fn is_clean(&self) -> bool {
        self.problems.iter().all(|p| p.repaired)
    }

    /// A problem `--repair` cannot fix.
    fn problem(&mut self, run: Option<&RunId>, kind: &'static str, message: String) {
        self.problems.push(Finding::new(run, kind, message));
    }

    /// A problem `--repair` can fix; `repaired` says whether this call fixed it.
    fn fixable(
        &mut self,
        run: Option<&RunId>,
        kind: &'static str,
        message: String,
        repaired: bool,
    ) {
        self.problems.push(Finding {
            repairable: true,
            repaired,
            ..Finding::new(run, kind, message)
        });
    }

    /// Something worth knowing that is not wrong.
    fn note(&mut self, run: Option<&RunId>, kind: &'static str, message: String) {
        self.notes.push(Finding::new(run, kind, message));
    }
}

impl Finding {
    fn new(run: Option<&RunId>, kind: &'static str, message: String) -> Finding {
        Finding {
            run_id: run.map(ToString::to_string),
            kind,
            message,
            repairable: false,
            repaired: false,
        }
    }
}

/// What every check reads, and whether it repairs what it finds.
struct Fsck<'a> {
    repo: &'a Repo,
    config: &'a Config,
    repair: bool,
}

/// Checks the named runs (all when `only` is empty) and the repository-wide state around them.
pub fn fsck(repo: &Repo, config: &Config, only: &[RunId], repair: bool) -> Result<Report> {
    let fsck = Fsck {
        repo,
        config,
        repair,
    };
    let mut report = Report::default();
    check_locks(repo, repair, &mut report)?;
    let all: Vec<RunId> = run::list(repo)?.into_iter().map(|(id, _)| id).collect();
    let runs: Vec<&RunId> = if only.is_empty() {
        all.iter().collect()
    } else {
        only.iter().collect()
    };
    for id in &runs {
        report.runs_checked += 1;
        // One run's broken objects are that run's problem; the other runs are still checked.
        if let Err(err) = check_run(&fsck, id, &mut report) {
            report.problem(Some(id), "unreadable-run", err.to_string());
        }
    }
    if only.is_empty() {
        check_repository(&fsck, &all, &mut report)?;
    }
    Ok(report)
}

fn check_run(fsck: &Fsck, id: &RunId, report: &mut Report) -> Result<()> {
    let repo = fsck.repo;
    let state = match RunState::load(repo, id) {
        Ok(state) => state,
        Err(err) => {
            report.problem(Some(id), "unreadable-run", err.to_string());
            return Ok(());
        }
    };
    // Every metadata commit's run.json, and which commits the branch holds.
    let mut meta_commits = HashSet::new();
    let mut checkpoints = Vec::new();
    for commit in repo.first_parents(state.meta_tip) {
        let commit = commit?;
        meta_commits.insert(commit.id.to_string());
        // A checkpoint counted before the first run commit (Fabro's start node) has no run
        // commit by design.
        let uncommitted = match read_record(repo, commit.tree, &commit.id.to_string()) {
            Err(err) => {
                report.problem(Some(id), "bad-run-json", err.to_string());
                false
            }
            Ok(record) => record
                .checkpoint
                .is_some_and(|c| c.completed_nodes.len() <= record.spec.completed_offset),
        };
        if commit.message.starts_with(b"checkpoint") && !uncommitted {
            checkpoints.push(commit.id.to_string());
        }
    }
    let entries = match timeline_from_objects(repo, &state) {
        Ok(entries) => entries,
        Err(err) => {
            report.problem(Some(id), "unreadable-timeline", err.to_string());
            return Ok(());
        }
    };
    let mut named = HashSet::new();
    let mut previous: Option<usize> = None;
    for entry in &entries {
        if let Some(before) = previous.filter(|before| entry.completed != before + 1) {
            let message = format!(
                "checkpoint @{} has completed count {} after {before}",
                entry.ordinal, entry.completed
            );
            report.problem(Some(id), "completed-count", message);
        }
        previous = Some(entry.completed);
        if entry.run_id != id.as_str() {
            continue; // inherited by a fork: it names its source's metadata
        }
        named.insert(entry.meta_commit.clone());
        if !meta_commits.contains(&entry.meta_commit) {
            let message = format!(
                "run commit {} names metadata commit {}, which is not on {}",
                entry.run_commit,
                entry.meta_commit,
                run::meta_branch(id)
            );
            report.problem(Some(id), "unlinked-checkpoint", message);
        }
    }
    for dangling in checkpoints.iter().filter(|c| !named.contains(*c)) {
        let message = format!(
            "metadata commit {dangling} records a checkpoint that no run commit names (a lost race or a killed process); it is never counted"
        );
        report.note(Some(id), "dangling-metadata", message);
    }
    if state.record.format == 1 {
        let message = "run.json is format 1, which Fabro's types do not read; git-fabro reads it, and the run's next change (checkpoint, finish, archive) records format 2";
        report.note(Some(id), "format-1-record", message.to_owned());
    }
    check_checkpoint_trees(repo, id, &entries, report)?;
    check_branch_work(repo, fsck.config, id, report)?;
    check_local(fsck, &state, report)
}

/// The run's local state: a workspace whose run directory is gone is rebuilt from git.
fn check_local(fsck: &Fsck, state: &RunState, report: &mut Report) -> Result<()> {
    let (repo, config, repair) = (fsck.repo, fsck.config, fsck.repair);
    let Some(ws) = workspace::Workspace::find(repo, &state.id)? else {
        return Ok(());
    };
    let worktree = (ws.place == workspace::Place::Worktree).then_some(ws.path.as_path());
    let has_dir =
        crate::format::store::RunDir::locate(&config.runs_dir, &state.id, None, worktree, || {
            repo.main_path()
        })
        .is_some_and(|d| d.path.join(MANIFEST).is_file());
    if !has_dir {
        let repaired =
            repair && crate::ops::resume::rebuild_run_dir(repo, &config.runs_dir, state).is_ok();
        let message = format!(
            "run {} works in {} but has no run directory",
            state.id,
            ws.path.display()
        );
        report.fixable(Some(&state.id), "missing-run-directory", message, repaired);
    }
    Ok(())
}

fn check_repository(fsck: &Fsck, runs: &[RunId], report: &mut Report) -> Result<()> {
    let (repo, repair) = (fsck.repo, fsck.repair);
    let known: HashSet<&str> = runs.iter().map(RunId::as_str).collect();
    check_foreign_refs(repo, report)?;
    check_orphan_run_branches(fsck, &known, report)?;
    check_unfinished_worktrees(repo, repair, report)?;
    check_stale_worktrees(fsck, &known, report)?;
    check_stale_registrations(fsck, &known, report);
    check_stale_run_dirs(fsck, &known, report)
}

/// Run branches without a metadata branch: left by a start or fork killed between the two.
fn check_orphan_run_branches(
    fsck: &Fsck,
    known: &HashSet<&str>,
    report: &mut Report,
) -> Result<()> {
    let (repo, config, repair) = (fsck.repo, fsck.config, fsck.repair);
    for (name, tip) in repo.refs_under(RUN_BRANCH_PREFIX)? {
        let Ok(id) = RunId::parse(&name) else {
            continue;
        };
        if known.contains(id.as_str()) {
            continue;
        }
        // A branch still at the commit a start or fork began from holds no work of the run;
        // one whose tip cannot be read is kept, as if it did.
        let own_work = repo.commit_info(tip).map_or(true, |commit| {
            Trailers::parse(&commit.message).run.as_deref() == Some(id.as_str())
        });
        let message = format!("{} has no metadata branch", run::run_branch(&id));
        let gc_leftover = interrupted_gc::is_leftover_branch(repo, &config.runs_dir, &id, tip);
        if gc_leftover {
            let message = format!("{message}: an interrupted gc left it");
            let repaired = repair && delete_branch(repo, config, &id, tip);
            report.fixable(Some(&id), "orphan-run-branch", message, repaired);
            continue;
        }
        if own_work {
            report.problem(Some(&id), "orphan-run-branch", message);
            continue;
        }
        // Someone may have checked the branch out and committed on it since.
        if let Some(reason) = crate::ops::branch_guard::reason_to_keep(repo, &id, tip, None)? {
            let message = format!("{message}; it is kept because {reason}");
            report.problem(Some(&id), "orphan-run-branch", message);
            continue;
        }
        let repaired = repair && delete_branch(repo, config, &id, tip);
        report.fixable(Some(&id), "orphan-run-branch", message, repaired);
    }
    Ok(())
}

/// Worktree registrations whose directory is gone or whose run no longer exists.
fn check_stale_worktrees(fsck: &Fsck, known: &HashSet<&str>, report: &mut Report) -> Result<()> {
    let (repo, config, repair) = (fsck.repo, fsck.config, fsck.repair);
    for worktree in repo.worktrees()? {
        if worktree.unfinished.is_some() {
            continue;
        }
        let Some(id) = worktree
            .branch
            .as_deref()
            .and_then(|b| b.strip_prefix(RUN_BRANCH_PREFIX))
        else {
            continue;
        };
        // A parallel branch's worktree belongs to its run; a resume removes one a kill left.
        let id = id
            .strip_prefix("parallel/")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or(id);
        let gone = !worktree.exists;
        let orphan = !known.contains(id);
        if !gone && !orphan {
            continue;
        }
        let why = if gone {
            "its directory is gone"
        } else {
            "its run no longer exists"
        };
        let message = format!("worktree registration {} ({why})", worktree.path.display());
        // A live worktree of a vanished run may hold work: only a registration without a
        // directory is removed.
        let run = RunId::parse(id).ok();
        if let Some(id) = &run
            && let Some(tip) = interrupted_gc::left_behind(repo, &worktree.path, id)?
            && interrupted_gc::is_clean(&worktree.path, tip, config)
        {
            let repaired = repair && interrupted_gc::finish(repo, &worktree.path, id, tip, config)?;
            let message = format!("{message}, left by an interrupted gc");
            report.fixable(run.as_ref(), "stale-worktree", message, repaired);
            continue;
        }
        if gone {
            let repaired = repair && repo.remove_worktree(&worktree.path).is_ok();
            report.fixable(run.as_ref(), "stale-worktree", message, repaired);
        } else {
            report.problem(run.as_ref(), "stale-worktree", message);
        }
    }
    Ok(())
}

/// In-place registrations of runs that no longer exist.
fn check_stale_registrations(fsck: &Fsck, known: &HashSet<&str>, report: &mut Report) {
    let (repo, repair) = (fsck.repo, fsck.repair);
    for registration in workspace::registrations(repo) {
        if known.contains(registration.run_id.as_str()) {
            continue;
        }
        let Ok(id) = RunId::parse(&registration.run_id) else {
            continue;
        };
        if repair {
            workspace::unregister(repo, &id);
        }
        let message = format!(
            "in-place registration of a run that no longer exists ({})",
            registration.workdir.display()
        );
        report.fixable(Some(&id), "stale-in-place", message, repair);
    }
}

/// Run directories of this repository whose run no longer exists.
fn check_stale_run_dirs(fsck: &Fsck, known: &HashSet<&str>, report: &mut Report) -> Result<()> {
    let (repo, config, repair) = (fsck.repo, fsck.config, fsck.repair);
    for (dir, manifest) in run_dirs_of(&config.runs_dir, &repo.main_path()) {
        if known.contains(manifest.run_id.as_str()) {
            continue;
        }
        let id = RunId::parse(&manifest.run_id).ok();
        let message = format!("{} belongs to a run that no longer exists", dir.display());
        // A worktree left inside may hold work no checkpoint has: that is for a person to decide.
        let worktree = dir.join(crate::format::store::WORKTREE_DIR);
        if worktree.exists() {
            // One an interrupted gc left is reported with its worktree registration.
            if left_by_gc(repo, &worktree, id.as_ref())?.is_none() {
                report.problem(id.as_ref(), "stale-run-directory", message);
            }
            continue;
        }
        let repaired = repair && std::fs::remove_dir_all(&dir).is_ok();
        report.fixable(id.as_ref(), "stale-run-directory", message, repaired);
    }
    Ok(())
}

/// The final commit of the run whose worktree at `path` an interrupted gc left behind.
fn left_by_gc(
    repo: &Repo,
    path: &Path,
    run: Option<&RunId>,
) -> Result<Option<crate::git::ObjectId>> {
    match run {
        Some(id) => interrupted_gc::left_behind(repo, path, id),
        None => Ok(None),
    }
}

/// Run directories under `runs_dir` whose manifest names this repository.
fn run_dirs_of(runs_dir: &Path, repository: &Path) -> Vec<(PathBuf, Manifest)> {
    let Ok(entries) = std::fs::read_dir(runs_dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let manifest: Manifest =
                serde_json::from_slice(&std::fs::read(entry.path().join(MANIFEST)).ok()?).ok()?;
            (Path::new(&manifest.host_repo_path) == repository).then(|| (entry.path(), manifest))
        })
        .collect()
}

/// Every checkpoint tree of the run must be one git's checkout accepts: a tree holding `..`,
/// `.git`, an absolute name or a name twice (planted by another clone) would write outside
/// the worktree or into a repository's configuration if a command checked it out.
fn check_checkpoint_trees(
    repo: &Repo,
    id: &RunId,
    entries: &[crate::run::timeline::Entry],
    report: &mut Report,
) -> Result<()> {
    for entry in entries {
        let Ok(commit) = crate::ops::fork::parse_sha(&entry.run_commit) else {
            continue; // a timeline entry always holds a full sha
        };
        let found = repo
            .commit_tree(commit)
            .and_then(|tree| repo.find_unsafe_entry(tree, &mut report.checked_trees));
        let unsafe_entry = match found {
            Ok(Some(unsafe_entry)) => unsafe_entry,
            Ok(None) => continue,
            Err(err) => {
                let message = format!(
                    "checkpoint @{} ({}): {err}",
                    entry.ordinal,
                    crate::format::short_sha(&entry.run_commit)
                );
                report.problem(Some(id), "unreadable-tree", message);
                break;
            }
        };
        let message = format!(
            "checkpoint @{} {}@{} ({}) holds the unsafe path {}: {}; restore, diff and resume refuse it",
            entry.ordinal,
            entry.node_id,
            entry.visit,
            crate::format::short_sha(&entry.run_commit),
            unsafe_entry.path,
            unsafe_entry.reason
        );
        report.problem(Some(id), "unsafe-path", message);
        break; // one finding per run says what matters: the run came from a hostile clone
    }
    Ok(())
}

/// Deletes the run branch of `id` if it still points at `tip`; whether it did.
fn delete_branch(repo: &Repo, config: &Config, id: &RunId, tip: ObjectId) -> bool {
    let delete = [RefEdit::Delete {
        name: run::run_branch(id),
        old: tip,
    }];
    repo.update_refs(&delete, "fabro: fsck --repair", &config.identity)
        .is_ok()
}
