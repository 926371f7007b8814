//! The files of a thread kept with `--track-files`: which run commit holds them at a root
//! checkpoint, and putting them back, as `git fabro restore` does (what the directory held
//! first goes to a recovery ref, so nothing is lost).

use crate::config::Config;
use crate::error::Result;
use crate::format::thread::{self, THREAD_DIR};
use crate::git::Repo;
use crate::ops::restore::{RestoreOptions, RestoreTarget, restore as restore_run};
use crate::run::RunState;
use crate::run::timeline;
use crate::run::workspace::Workspace;

/// The run commit recorded with root checkpoint `id`: of the timeline's entries whose
/// metadata holds the checkpoint, newest first, the oldest of the first unbroken stretch
/// (a checkpoint stays in every later metadata tree until a prune or delete takes it out).
pub(super) fn run_commit_of(repo: &Repo, state: &RunState, id: &str) -> Result<Option<String>> {
    let path = format!("{THREAD_DIR}/{}", thread::checkpoint_dir("", id));
    let mut found = None;
    for entry in timeline::timeline(repo, state)?.iter().rev() {
        let meta = crate::ops::fork::parse_sha(&entry.meta_commit)?;
        let holds = repo.entry_at(repo.commit_tree(meta)?, &path)?.is_some();
        match (holds, &found) {
            (true, _) => found = Some(entry.run_commit.clone()),
            (false, Some(_)) => break,
            (false, None) => {}
        }
    }
    Ok(found)
}

/// Puts the directory's files back as `commit` has them.
pub(super) fn restore(
    repo: &Repo,
    state: &RunState,
    config: &Config,
    commit: String,
    id: &str,
) -> Result<()> {
    let workspace = Workspace::find(repo, &state.id)?.ok_or_else(|| state.no_workspace())?;
    let target = RestoreTarget {
        label: format!("thread checkpoint {id}"),
        commit,
    };
    let options = RestoreOptions {
        command: Some(format!("git fabro store: read checkpoint {id}")),
        ..RestoreOptions::default()
    };
    restore_run(repo, &workspace, state, target, config, &options)?;
    Ok(())
}
