//! Garbage collection of runs: the refs, run directories and worktrees of archived runs older
//! than a limit, and worktree registrations of runs whose directory is gone. It only ever
//! deletes refs under git-fabro's own prefixes, each with a compare-and-swap.

use std::path::PathBuf;

use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::git::{RefEdit, Repo};
use crate::record::StatusKind;
use crate::restore::recovery_prefix;
use crate::run::{self, RUN_BRANCH_PREFIX, RunState};
use crate::store::RunDir;
use crate::time::Timestamp;

/// What `gc` removed, or would remove with `--dry-run`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Collected {
    pub runs: Vec<CollectedRun>,
    pub stale_worktrees: Vec<PathBuf>,
    pub dry_run: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct CollectedRun {
    pub run_id: String,
    pub archived_at: String,
    pub refs: Vec<String>,
    pub run_dir: Option<PathBuf>,
    pub worktree: Option<PathBuf>,
}

/// Parses `30d`, `12h`, `90m`, `45s`, `2w` or `0` into seconds.
pub fn parse_duration(text: &str) -> Result<i64> {
    let bad = || {
        Error::Usage(format!(
            "{text:?} is not a duration (like 0, 45s, 90m, 12h, 30d, 2w)"
        ))
    };
    if text == "0" {
        return Ok(0);
    }
    let split = text.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (number, unit) = text.split_at(split);
    let number: i64 = number.parse().map_err(|_| bad())?;
    let unit = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(bad()),
    };
    number.checked_mul(unit).ok_or_else(bad)
}

pub fn gc(repo: &Repo, older_than: i64, dry_run: bool, config: &Config) -> Result<Collected> {
    let now = Timestamp::now().seconds();
    let mut collected = Collected {
        dry_run,
        ..Collected::default()
    };
    let worktrees = repo.worktrees()?;
    for (id, meta_tip) in run::list(repo)? {
        let state = RunState::load(repo, &id)?;
        let archived_at = repo.commit_info(meta_tip)?.time;
        if state.record.status.kind != StatusKind::Archived || now - archived_at < older_than {
            continue;
        }
        let branch = run::run_branch(&id);
        let worktree = worktrees
            .iter()
            .find(|w| w.branch.as_deref() == Some(branch.as_str()));
        let mut edits = vec![
            RefEdit::Delete {
                name: run::meta_branch(&id),
                old: state.meta_tip,
            },
            RefEdit::Delete {
                name: branch.clone(),
                old: state.run_tip,
            },
        ];
        let recovery = recovery_prefix(&id);
        for (rest, old) in repo.refs_under(&recovery)? {
            edits.push(RefEdit::Delete {
                name: format!("{recovery}{rest}"),
                old,
            });
        }
        let run_dir = RunDir::locate(
            &config.runs_dir,
            &id,
            worktree.map(|w| w.path.as_path()),
            &repo.main_path(),
        );
        let entry = CollectedRun {
            run_id: id.to_string(),
            archived_at: Timestamp::from_seconds(archived_at).rfc3339(),
            refs: edits.iter().map(|e| e.name().to_owned()).collect(),
            run_dir: run_dir.as_ref().map(|d| d.path.clone()),
            worktree: worktree.map(|w| w.path.clone()),
        };
        if !dry_run {
            // Worktree first, so no registration outlives its branch; the directory last,
            // because it means nothing once the refs are gone.
            if let Some(worktree) = worktree {
                repo.remove_worktree(&worktree.path)?;
            }
            repo.update_refs(&edits, "fabro: gc", &config.identity)?;
            if let Some(dir) = &run_dir {
                std::fs::remove_dir_all(&dir.path)
                    .map_err(Error::io(format!("cannot remove {}", dir.path.display())))?;
            }
        }
        collected.runs.push(entry);
    }
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
        }
    }
    Ok(collected)
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("0").unwrap(), 0);
        assert_eq!(parse_duration("90m").unwrap(), 5400);
        assert_eq!(parse_duration("2w").unwrap(), 1_209_600);
        for bad in ["", "d", "5y", "-1d", "1.5h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
