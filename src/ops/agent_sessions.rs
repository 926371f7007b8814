//! Zero-ceremony sessions: agent hooks installed in the user's own checkout (not a run's
//! worktree) make each agent session a run in place of its own, started by the first hook of
//! the session that fires and finished when the session ends. A session's run is known by its
//! labels (`agent`, `agent_session`), so sessions running at once in one checkout each find
//! their own run, and a run in place the user started by hand is never taken for a session's.
//! Whether sessions are on is a marker in the work tree's git dir, written by install: a hook
//! in a file that serves other work trees too (Codex's in the main checkout) starts nothing
//! where it was not asked to.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::format::record::StatusKind;
use crate::format::run_id::RunId;
use crate::git::Repo;
use crate::run::{RunState, workspace};

pub(crate) use crate::format::record::{AGENT_LABEL, SESSION_LABEL};

fn marker(git_dir: &Path, agent: &str) -> PathBuf {
    git_dir
        .join("fabro")
        .join("agent-settings")
        .join(format!("{agent}-sessions"))
}

/// Turns sessions on for `agent` in the work tree whose git dir is `git_dir`.
pub fn enable(git_dir: &Path, agent: &str) -> Result<()> {
    let path = marker(git_dir, agent);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(Error::io(format!("cannot create {}", dir.display())))?;
    }
    std::fs::write(&path, "").map_err(Error::io(format!("cannot write {}", path.display())))
}

pub fn disable(git_dir: &Path, agent: &str) -> Result<()> {
    let path = marker(git_dir, agent);
    match std::fs::remove_file(&path) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
            Err(Error::io(format!("cannot remove {}", path.display()))(err))
        }
        _ => Ok(()),
    }
}

pub fn enabled(git_dir: &Path, agent: &str) -> bool {
    marker(git_dir, agent).is_file()
}

/// What the runs in place in `workdir` are to a session of `agent` with id `session`.
#[derive(Debug, Default)]
pub struct InPlace {
    /// The session's own run.
    pub own: Option<RunId>,
    /// Runs in place started by hand (no session's).
    pub by_hand: Vec<RunId>,
    /// Other sessions' runs, still running.
    pub others: Vec<RunId>,
}

/// Sorts the running runs in place in `workdir` into the session's own, those started by hand
/// and other sessions'. A registration names its run's labels, so only the session's own run
/// and a run registered without them (by an older version) are read.
pub fn in_place(repo: &Repo, workdir: &Path, agent: &str, session: &str) -> InPlace {
    let here = std::fs::canonicalize(workdir).ok();
    let mut found = InPlace::default();
    for registration in workspace::registrations(repo) {
        if std::fs::canonicalize(&registration.workdir).ok() != here {
            continue;
        }
        let Ok(id) = RunId::parse(&registration.run_id) else {
            continue;
        };
        let labels = match registration.labels.is_empty() {
            false => registration.labels,
            true => match RunState::load(repo, &id) {
                Ok(state) if !state.record.status.kind.is_terminal() => state.record.spec.labels,
                _ => continue,
            },
        };
        match labels.get(SESSION_LABEL) {
            None => found.by_hand.push(id),
            // The session's own run is read (the hook opens it next anyway): a registration
            // that outlived a finish cut short is not a run to record in.
            Some(id_there)
                if id_there == session
                    && labels.get(AGENT_LABEL).map(String::as_str) == Some(agent)
                    && RunState::load(repo, &id)
                        .is_ok_and(|state| !state.record.status.kind.is_terminal()) =>
            {
                found.own = Some(id);
            }
            Some(_) => found.others.push(id),
        }
    }
    found
}

/// The newest run in place in `workdir`, running or ended, that is not archived: the one
/// `undo` takes back. Runs are read newest first until one ran there, so the usual cost is a
/// record or two.
pub fn latest_in_place(repo: &Repo, workdir: &Path) -> Result<Option<RunId>> {
    for (id, _) in crate::run::list(repo)?.into_iter().rev() {
        let Ok(state) = RunState::load(repo, &id) else {
            continue;
        };
        let record = &state.record;
        let ran_here = record
            .start
            .workdir()
            .is_some_and(|dir| workspace::same_dir(dir, workdir));
        if ran_here && record.status.kind != StatusKind::Archived {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// Where hooks of one work tree wait for each other while one of them finds or starts its
/// session's run (an agent may run the hooks of parallel tool calls at once).
pub fn lock_path(git_dir: &Path) -> PathBuf {
    git_dir.join("fabro").join("agent-sessions.lock")
}
