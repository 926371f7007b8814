//! Moving runs between clones. Each run travels as explicit refspecs for both of its branches,
//! never forced: a remote whose branch moved on is reported, not overwritten, and one call
//! pushes or fetches atomically. Only refs of valid run ids are ever named, so no ref that
//! git-fabro did not create is touched on either side.

use serde::Serialize;

use crate::error::{Error, Result};
use std::collections::HashMap;

use std::path::{Path, PathBuf};

use crate::format::run_id::RunId;
use crate::format::store::RunDir;
use crate::git::{ObjectId, RefReport, Repo};
use crate::run::{self, META_BRANCH_PREFIX};

#[derive(Clone, Debug, Serialize)]
pub struct Synced {
    /// The remote as `host/owner/repo` (or its path), without credentials.
    pub remote: String,
    pub runs: Vec<String>,
    pub refs: Vec<RefReport>,
    /// Runs the remote has more of that a live process here holds: not fetched.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<HeldRun>,
}

/// A run left alone by a fetch because a live process here works on it.
#[derive(Clone, Debug, Serialize)]
pub struct HeldRun {
    pub run_id: String,
    pub pid: u32,
}

/// How to name `remote` in output: its URL's `host/owner/repo` when it is a configured remote.
pub fn display_remote(repo: &Repo, remote: &str) -> String {
    let url = repo
        .config_string(&format!("remote.{remote}.url"))
        .unwrap_or_else(|| remote.to_owned());
    crate::git::remote::display(&url)
}

fn refspecs(ids: &[RunId]) -> Vec<String> {
    ids.iter()
        .flat_map(|id| [run::meta_branch(id), run::run_branch(id)])
        .map(|name| format!("{name}:{name}"))
        .collect()
}

pub fn push(repo: &Repo, remote: &str, ids: &[RunId], progress: bool) -> Result<Synced> {
    push_refspecs(repo, remote, ids, &refspecs(ids), progress)
}

/// Pushes only the metadata branches of `ids`: the pre-push hook's job, while git's own push
/// carries the run branches.
pub fn push_metadata(repo: &Repo, remote: &str, ids: &[RunId]) -> Result<Synced> {
    let specs: Vec<String> = ids
        .iter()
        .map(run::meta_branch)
        .map(|name| format!("{name}:{name}"))
        .collect();
    push_refspecs(repo, remote, ids, &specs, false)
}

fn push_refspecs(
    repo: &Repo,
    remote: &str,
    ids: &[RunId],
    refspecs: &[String],
    progress: bool,
) -> Result<Synced> {
    crate::git::remote::check(remote)?;
    let transfer = repo.push(remote, refspecs, progress)?;
    let synced = Synced {
        remote: display_remote(repo, remote),
        runs: ids.iter().map(ToString::to_string).collect(),
        refs: transfer.refs,
        held: Vec::new(),
    };
    if transfer.ok {
        return Ok(synced);
    }
    Err(refused("push to", &synced, &transfer.messages))
}

/// Fetches the runs named by `wanted` (ids or prefixes), or every run the remote has. Only
/// the branches where the remote holds something this clone lacks are named: a run that is up
/// to date or ahead here is left alone, and a run whose files are checked out here (in a
/// worktree or in place) is refused rather than moved under them. A run that a live process
/// here holds (its engine, or `resume -- COMMAND`) is never moved: its holder builds on the
/// tips it wrote, so it is left out and named in `held`. `runs_dir` is where this clone keeps
/// its run directories.
pub fn fetch(
    repo: &Repo,
    runs_dir: &Path,
    remote: &str,
    wanted: &[String],
    progress: bool,
) -> Result<Synced> {
    crate::git::remote::check(remote)?;
    let remote_refs: HashMap<String, ObjectId> = repo
        .ls_remote(remote, "refs/heads/fabro/")?
        .into_iter()
        .collect();
    let available = runs_of(&remote_refs);
    let mut ids = if wanted.is_empty() {
        available
    } else {
        wanted
            .iter()
            .map(|text| pick(&available, text, remote))
            .collect::<Result<Vec<_>>>()?
    };
    ids.sort();
    ids.dedup();
    let mut synced = Synced {
        remote: display_remote(repo, remote),
        runs: Vec::new(),
        refs: Vec::new(),
        held: Vec::new(),
    };
    let main_path = repo.main_path();
    let mut names = Vec::new();
    for id in &ids {
        let mut behind = Vec::new();
        for name in [run::meta_branch(id), run::run_branch(id)] {
            if let Some(&theirs) = remote_refs.get(&name)
                && remote_has_more(repo, &name, theirs, &synced.remote)?
            {
                behind.push(name);
            }
        }
        let holder = RunDir::locate(runs_dir, id, None, None, || main_path.clone())
            .and_then(|dir| dir.live_holder());
        if let Some(pid) = holder.filter(|_| !behind.is_empty()) {
            synced.held.push(HeldRun {
                run_id: id.to_string(),
                pid,
            });
            continue;
        }
        if behind.contains(&run::run_branch(id)) {
            refuse_if_checked_out(repo, id, remote)?;
        }
        if !behind.is_empty() {
            synced.runs.push(id.to_string());
            names.extend(behind);
        }
    }
    if names.is_empty() {
        return Ok(synced);
    }
    let specs: Vec<String> = names.iter().map(|name| format!("{name}:{name}")).collect();
    let transfer = repo.fetch(remote, &specs, progress)?;
    // Only the refs named here are reported, whatever else git chose to mention.
    synced.refs = transfer
        .refs
        .into_iter()
        .filter(|r| names.contains(&r.name))
        .collect();
    if transfer.ok {
        return Ok(synced);
    }
    // Only branches this clone lacks commits of were named: git rejects one that diverged.
    for rejected in synced.refs.iter_mut().filter(|r| r.result == "rejected") {
        rejected.detail =
            "diverged: this clone and the remote each have commits the other lacks".into();
    }
    Err(refused("fetch from", &synced, &transfer.messages))
}

/// Whether the remote's `theirs` holds commits the local branch `name` lacks. A local branch
/// that is `theirs` or has it in its history is up to date or ahead; one that has moved on
/// from a different commit has diverged, which no fetch may resolve by overwriting.
fn remote_has_more(repo: &Repo, name: &str, theirs: ObjectId, remote: &str) -> Result<bool> {
    let Some(ours) = repo.ref_target(name)? else {
        return Ok(true);
    };
    if !repo.object_exists(theirs) {
        // Not seen here: a fast-forward, or a divergence that git reports as a rejection.
        return Ok(true);
    }
    if repo.is_ancestor(theirs, ours) {
        return Ok(false);
    }
    if repo.is_ancestor(ours, theirs) {
        return Ok(true);
    }
    Err(Error::Refused(format!(
        "{} diverged: this clone and {remote} each have commits the other lacks; nothing was fetched",
        name.trim_start_matches("refs/heads/")
    )))
}

/// A run branch that files here are checked out from cannot move under them: the next
/// checkpoint would be taken from the old files and silently undo what the fetch brought.
fn refuse_if_checked_out(repo: &Repo, id: &RunId, remote: &str) -> Result<()> {
    let checked_out = |path: PathBuf, in_place| Error::CheckedOutHere {
        run: id.to_string(),
        remote: remote.to_owned(),
        path,
        in_place,
    };
    if let Some(worktree) = repo.worktree_on(&run::run_branch(id))? {
        return Err(checked_out(worktree.path, false));
    }
    if let Some(registration) = crate::run::workspace::registration(repo, id)? {
        return Err(checked_out(registration.workdir, true));
    }
    Ok(())
}

/// The runs among a remote's `refs` (under `refs/heads/fabro/`): those with both branches.
pub(crate) fn runs_of(refs: &HashMap<String, ObjectId>) -> Vec<RunId> {
    refs.keys()
        .filter_map(|name| RunId::parse(name.strip_prefix(META_BRANCH_PREFIX)?).ok())
        .filter(|id| refs.contains_key(&run::run_branch(id)))
        .collect()
}

/// The one run of the remote that `text` (an id or prefix) names.
pub(crate) fn pick(available: &[RunId], text: &str, remote: &str) -> Result<RunId> {
    let prefix = RunId::prefix(text)?;
    let matches: Vec<&RunId> = available
        .iter()
        .filter(|id| id.as_str().starts_with(&prefix))
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(Error::RunNotFound(format!("{text} (on {remote})"))),
        many => Err(Error::AmbiguousRun {
            prefix: text.to_owned(),
            candidates: many.iter().map(ToString::to_string).collect(),
        }),
    }
}

fn refused(what: &str, synced: &Synced, messages: &str) -> Error {
    let rejected: Vec<String> = synced
        .refs
        .iter()
        .filter(|r| r.result == "rejected")
        .map(|r| format!("{} {}", r.name.trim_start_matches("refs/heads/"), r.detail))
        .collect();
    let reason = if rejected.is_empty() {
        messages.trim().to_owned()
    } else {
        rejected.join("; ")
    };
    let remote_lines: Vec<&str> = messages
        .lines()
        .filter(|l| l.starts_with("remote:"))
        .collect();
    let mut text = format!("the {what} {} was refused: {reason}", synced.remote);
    if !remote_lines.is_empty() && !rejected.is_empty() {
        text.push_str(&format!("\n{}", remote_lines.join("\n")));
    }
    Error::Refused(text)
}
