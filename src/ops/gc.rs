//! Garbage collection of runs: the refs, run directories and worktrees of archived runs older
//! than a limit, and worktree registrations of runs whose directory is gone. It only ever
//! deletes refs under git-fabro's own prefixes, each with a compare-and-swap, and never
//! deletes work: a run whose branch is checked out elsewhere or holds someone's commits, or
//! whose worktree holds files its final commit lacks, is kept whole.
//!
//! The refs go first: their compare-and-swap is what tells that no other command (an
//! `unarchive`, a checkpoint) changed the run meanwhile. The worktree and run directory go
//! only after it, and the worktree only when it is still clean.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::failpoint;
use crate::format::record::StatusKind;
use crate::format::run_id::RunId;
use crate::format::store::{MANIFEST, Manifest, RunDir, WORKTREE_DIR};
use crate::format::time::Timestamp;
use crate::git::{RefEdit, Repo};
use crate::ops::branch_guard;
use crate::ops::interrupted_gc;
use crate::ops::restore::recovery_prefix;
use crate::ops::worktree_removal::{self, Kept, Removal};
use crate::run::{self, RUN_BRANCH_PREFIX, RunState, Unreadable};

/// What `gc` removed, or would remove with `--dry-run`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Collected {
    pub runs: Vec<CollectedRun>,
    /// Archived runs old enough that were kept, and why.
    pub kept: Vec<KeptRun>,
    pub stale_worktrees: Vec<PathBuf>,
    /// Run branches an interrupted gc left after deleting their metadata branch, deleted now.
    pub left_behind_branches: Vec<String>,
    /// Worktrees of runs whose refs an interrupted gc deleted, removed now.
    pub left_behind_worktrees: Vec<PathBuf>,
    /// Run directories of runs whose refs an interrupted gc deleted, removed now.
    pub left_behind_run_dirs: Vec<PathBuf>,
    pub dry_run: bool,
    /// Runs left alone because their record cannot be read.
    #[serde(skip)]
    pub unreadable: Vec<Unreadable>,
    #[serde(skip)]
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct KeptRun {
    pub run_id: String,
    pub reason: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct CollectedRun {
    pub run_id: String,
    /// `archived`, or the status of a finished run collected by `--finished-older-than`.
    pub status: StatusKind,
    /// When it was archived, or finished.
    pub archived_at: String,
    pub refs: Vec<String>,
    pub run_dir: Option<PathBuf>,
    /// The run's worktree, removed (or to be removed) with it.
    pub worktree: Option<PathBuf>,
}

/// Parses `30d`, `12h`, `90m`, `45s`, `2w` or `0` into whole seconds. jiff reads the text, so
/// its other friendly forms (`1d 12h`, `2 weeks`, `1.5h`, ISO 8601 `P30D`) work too; a day is
/// taken as 24 hours, and years and months, whose length depends on the date, are refused
/// like any other text that is not a duration, as are negative spans.
pub fn parse_duration(text: &str) -> Result<i64> {
    let bad = || {
        Error::Usage(format!(
            "{text:?} is not a duration (like 0, 45s, 90m, 12h, 30d, 2w)"
        ))
    };
    // jiff wants a unit; a bare 0 ("everything archived") is documented and needs none.
    if text == "0" {
        return Ok(0);
    }
    let span: jiff::Span = text.parse().map_err(|_| bad())?;
    if span.is_negative() {
        return Err(bad());
    }
    let seconds = span
        .total(jiff::SpanTotal::from(jiff::Unit::Second).days_are_24_hours())
        .map_err(|_| bad())?;
    // Sub-second parts cannot make a run old enough; whole seconds are what gc compares.
    Ok(seconds.floor() as i64)
}

/// Collects archived runs archived at least `older_than` seconds ago and, with
/// `finished_older_than`, finished runs (succeeded, failed, dead) that finished that long ago.
pub fn gc(
    repo: &Repo,
    older_than: i64,
    finished_older_than: Option<i64>,
    dry_run: bool,
    config: &Config,
) -> Result<Collected> {
    let now = Timestamp::now().seconds();
    let mut collected = Collected {
        dry_run,
        ..Collected::default()
    };
    for (id, meta_tip) in run::list(repo)? {
        let loaded = RunState::load(repo, &id)
            .and_then(|state| Ok((state, repo.commit_info(meta_tip)?.time)));
        let (state, archived_at) = match loaded {
            Ok(loaded) => loaded,
            // Collected by another gc meanwhile: nothing left to do.
            Err(Error::RunNotFound(_)) => continue,
            // Whether it is archived cannot be told: left alone (and reported), never deleted.
            Err(err) => {
                collected.unreadable.push(Unreadable::new(&id, &err));
                continue;
            }
        };
        // The metadata tip's time is when the run was archived, or finished: a finished
        // run's last metadata commit is the one that finished it.
        let kind = state.record.status.kind;
        let limit = match kind {
            StatusKind::Archived => Some(older_than),
            _ if kind.is_terminal() => finished_older_than,
            _ => None,
        };
        if limit.is_none_or(|limit| now - archived_at < limit) {
            continue;
        }
        collect_run(repo, &state, archived_at, config, &mut collected)?;
    }
    finish_ref_deletions(repo, config, &mut collected)?;
    for worktree in repo.worktrees()? {
        let ours = worktree
            .branch
            .as_deref()
            .is_some_and(|b| b.starts_with(RUN_BRANCH_PREFIX));
        if ours && !worktree.exists {
            if !dry_run {
                repo.remove_worktree(&worktree.path)?;
            }
            collected.stale_worktrees.push(worktree.path);
        } else if let Some(id) = worktree
            .branch
            .as_deref()
            .and_then(|b| b.strip_prefix(RUN_BRANCH_PREFIX))
            .and_then(|id| RunId::parse(id).ok())
            .filter(|id| !collected.runs.iter().any(|r| r.run_id == id.as_str()))
        {
            finish_interrupted(repo, &worktree.path, &id, config, &mut collected)?;
        }
    }
    for dir in interrupted_gc::leftover_run_dirs(repo, &config.runs_dir) {
        if !dry_run && let Err(err) = interrupted_gc::remove_run_dir(&dir) {
            let shown = dir.display();
            collected
                .warnings
                .push(format!("cannot remove {shown}: {err}"));
            continue;
        }
        collected.left_behind_run_dirs.push(dir);
    }
    if !dry_run {
        crate::run::timeline::forget_gone_runs(repo);
    }
    Ok(collected)
}

/// Deletes the run branches an interrupted gc left behind its metadata branches, so that the
/// worktree and run directory it left are finished below like those of a gc killed later.
fn finish_ref_deletions(repo: &Repo, config: &Config, collected: &mut Collected) -> Result<()> {
    for (name, tip) in repo.refs_under(RUN_BRANCH_PREFIX)? {
        let Ok(id) = RunId::parse(&name) else {
            continue;
        };
        if !interrupted_gc::is_leftover_branch(repo, &config.runs_dir, &id, tip) {
            continue;
        }
        if !collected.dry_run {
            let delete = [RefEdit::Delete {
                name: run::run_branch(&id),
                old: tip,
            }];
            repo.update_refs(&delete, "fabro: gc", &config.identity)?;
        }
        collected.left_behind_branches.push(run::run_branch(&id));
    }
    Ok(())
}

/// Removes the worktree of a run whose refs an interrupted gc deleted, when it is clean.
fn finish_interrupted(
    repo: &Repo,
    worktree: &Path,
    id: &RunId,
    config: &Config,
    collected: &mut Collected,
) -> Result<()> {
    let Some(tip) = interrupted_gc::left_behind(repo, worktree, id)? else {
        return Ok(());
    };
    if !interrupted_gc::is_clean(worktree, tip, config) {
        collected.warnings.push(format!(
            "kept the worktree at {} of a collected run: it holds work its final commit lacks",
            worktree.display()
        ));
    } else if collected.dry_run || interrupted_gc::finish(repo, worktree, id, tip, config)? {
        collected.left_behind_worktrees.push(worktree.to_owned());
    }
    Ok(())
}

/// Deletes the archived run `state` now, whatever its age (a store's deleted thread), or says
/// in `kept` why it stays.
pub fn collect_one(repo: &Repo, state: &RunState, config: &Config) -> Result<Collected> {
    let mut collected = Collected::default();
    let archived_at = repo.commit_info(state.meta_tip)?.time;
    collect_run(repo, state, archived_at, config, &mut collected)?;
    Ok(collected)
}

/// Deletes one archived run, or says why it stays.
fn collect_run(
    repo: &Repo,
    state: &RunState,
    archived_at: i64,
    config: &Config,
    collected: &mut Collected,
) -> Result<()> {
    let id = &state.id;
    let own_worktree = repo
        .worktree_on(&run::run_branch(id))?
        .filter(|w| w.exists && is_runs_own(&w.path, id))
        .and_then(|w| worktree_removal::linked(&w.path));
    let own_path = own_worktree.as_ref().map(|w| w.path.as_path());
    let mut reason = branch_guard::reason_to_keep(repo, id, state.run_tip, own_path)?;
    if reason.is_none()
        && let Some(ws) = &own_worktree
        && let Some(files) = worktree_removal::unrecorded(ws, state.run_tip, config)?
        && !files.is_empty()
    {
        let kept = Kept::new(files).describe();
        reason = Some(format!(
            "its worktree {} holds work: {kept}",
            ws.path.display()
        ));
    }
    if reason.is_none() {
        let held: Vec<String> = worktree_removal::branch_work(repo, id, config)?
            .iter()
            .map(|(path, kept)| {
                format!(
                    "the worktree {} of a parallel branch holds work: {}",
                    path.display(),
                    kept.describe()
                )
            })
            .collect();
        if !held.is_empty() {
            reason = Some(held.join("; "));
        }
    }
    if let Some(reason) = reason {
        collected.kept.push(KeptRun {
            run_id: id.to_string(),
            reason,
        });
        return Ok(());
    }
    let edits = ref_deletions(repo, state)?;
    let run_dir = RunDir::locate(&config.runs_dir, id, None, own_path, || repo.main_path());
    let mut entry = CollectedRun {
        run_id: id.to_string(),
        status: state.record.status.kind,
        archived_at: Timestamp::from_seconds(archived_at).rfc3339(),
        refs: edits.iter().map(|e| e.name().to_owned()).collect(),
        run_dir: run_dir.as_ref().map(|d| d.path.clone()),
        worktree: own_path.map(Path::to_owned),
    };
    if !collected.dry_run {
        if let Some(dir) = &entry.run_dir {
            interrupted_gc::mark(dir, id, state.run_tip)?;
            failpoint::reach("gc:run-dir-written");
        }
        if let Err(err) = repo.update_refs(&edits, "fabro: gc", &config.identity) {
            entry.run_dir.as_deref().map(interrupted_gc::unmark);
            return Err(err.into());
        }
        failpoint::reach("gc:refs-moved");
        if let Some(ws) = &own_worktree
            && let Removal::Kept(kept) =
                worktree_removal::remove_if_clean(repo, ws, state.run_tip, config)?
        {
            // Written to while gc ran: the files stay, and the run directory around them.
            collected
                .warnings
                .push(worktree_removal::kept_message(&ws.path, &kept));
            entry.worktree = None;
        }
        failpoint::reach("gc:worktree-removed");
        if let Some(dir) = entry.run_dir.clone() {
            remove_run_dir(&dir, &mut entry, &mut collected.warnings);
            failpoint::reach("gc:run-dir-removed");
        }
    }
    collected.runs.push(entry);
    Ok(())
}

/// Removes the run directory once its refs are gone, unless a worktree is left inside it (one
/// kept above, or one git no longer knows about): files there may be someone's work.
fn remove_run_dir(dir: &Path, entry: &mut CollectedRun, warnings: &mut Vec<String>) {
    if dir.join(WORKTREE_DIR).exists() {
        warnings.push(format!(
            "kept {}: a worktree inside it may hold work",
            dir.display()
        ));
        entry.run_dir = None;
    } else if let Err(err) = interrupted_gc::remove_run_dir(dir)
        && dir.exists()
    {
        warnings.push(format!(
            "cannot remove {} ({err}); `git fabro fsck --repair` removes it later",
            dir.display()
        ));
        entry.run_dir = None;
    }
}

/// The run's metadata, run, recovery and parallel-branch refs, each as a compare-and-swap
/// deletion.
fn ref_deletions(repo: &Repo, state: &RunState) -> Result<Vec<RefEdit>> {
    let mut edits = vec![
        RefEdit::Delete {
            name: run::meta_branch(&state.id),
            old: state.meta_tip,
        },
        RefEdit::Delete {
            name: run::run_branch(&state.id),
            old: state.run_tip,
        },
    ];
    // The branches its parallel nodes left go with it.
    let prefixes = [
        recovery_prefix(&state.id),
        run::parallel_branches_prefix(&state.id),
    ];
    for prefix in prefixes {
        for (rest, old) in repo.refs_under(&prefix)? {
            edits.push(RefEdit::Delete {
                name: format!("{prefix}{rest}"),
                old,
            });
        }
    }
    Ok(edits)
}

/// Whether `path` is the worktree git-fabro made for the run: `<run dir>/worktree`, beside a
/// manifest naming the run. A worktree a person added on the branch is theirs.
fn is_runs_own(path: &Path, id: &RunId) -> bool {
    let Some(dir) = path
        .parent()
        .filter(|_| path.file_name().is_some_and(|n| n == WORKTREE_DIR))
    else {
        return false;
    };
    std::fs::read(dir.join(MANIFEST))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Manifest>(&bytes).ok())
        .is_some_and(|m| m.run_id == id.as_str())
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("0").unwrap(), 0);
        assert_eq!(parse_duration("90m").unwrap(), 5400);
        assert_eq!(parse_duration("2w").unwrap(), 1_209_600);
        assert_eq!(parse_duration("45s").unwrap(), 45);
        assert_eq!(parse_duration("12h").unwrap(), 43_200);
        assert_eq!(parse_duration("30d").unwrap(), 2_592_000);
        assert_eq!(parse_duration("0s").unwrap(), 0);
        assert_eq!(parse_duration("1d 12h").unwrap(), 129_600);
        assert_eq!(parse_duration("1.5h").unwrap(), 5400);
        for bad in [
            "", "d", "5y", "3mo", "-1d", "2d ago", "soon", "0x", "12", "30 d x", "1e9d",
        ] {
            let err = parse_duration(bad).expect_err(bad).to_string();
            assert!(
                err.contains("is not a duration (like 0, 45s"),
                "{bad}: {err}"
            );
        }
    }
}
