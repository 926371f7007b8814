//! Moving runs between clones. Each run travels as explicit refspecs for both of its branches,
//! never forced: a remote whose branch moved on is reported, not overwritten, and one call
//! pushes or fetches atomically. Only refs of valid run ids are ever named, so no ref that
//! git-fabro did not create is touched on either side.

use serde::Serialize;

use crate::error::{Error, Result};
use std::collections::HashMap;

use crate::git::{ObjectId, RefReport, Repo};
use crate::run::{self, META_BRANCH_PREFIX};
use crate::run_id::RunId;

#[derive(Clone, Debug, Serialize)]
pub struct Synced {
    /// The remote as `host/owner/repo` (or its path), without credentials.
    pub remote: String,
    pub runs: Vec<String>,
    pub refs: Vec<RefReport>,
}

/// How to name `remote` in output: its URL's `host/owner/repo` when it is a configured remote.
pub fn display_remote(repo: &Repo, remote: &str) -> String {
    let url = repo
        .config_string(&format!("remote.{remote}.url"))
        .unwrap_or_else(|| remote.to_owned());
    crate::remote::display(&url)
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
    let transfer = repo.push(remote, refspecs, progress)?;
    let synced = Synced {
        remote: display_remote(repo, remote),
        runs: ids.iter().map(ToString::to_string).collect(),
        refs: transfer.refs,
    };
    if transfer.ok {
        return Ok(synced);
    }
    Err(refused("push to", &synced, &transfer.messages))
}

/// Fetches the runs named by `wanted` (ids or prefixes), or every run the remote has.
pub fn fetch(repo: &Repo, remote: &str, wanted: &[String], progress: bool) -> Result<Synced> {
    let remote_refs: HashMap<String, ObjectId> = repo
        .ls_remote(remote, "refs/heads/fabro/")?
        .into_iter()
        .collect();
    let available: Vec<RunId> = remote_refs
        .keys()
        .filter_map(|name| RunId::parse(name.strip_prefix(META_BRANCH_PREFIX)?).ok())
        .filter(|id| remote_refs.contains_key(&run::run_branch(id)))
        .collect();
    let ids = if wanted.is_empty() {
        available
    } else {
        wanted
            .iter()
            .map(|text| pick(&available, text, remote))
            .collect::<Result<Vec<_>>>()?
    };
    // Runs already up to date need no fetch; a run branch checked out in a worktree here
    // cannot move under it.
    let mut ids: Vec<RunId> = ids
        .into_iter()
        .filter(|id| {
            [run::meta_branch(id), run::run_branch(id)]
                .iter()
                .any(|name| repo.ref_target(name).ok().flatten() != remote_refs.get(name).copied())
        })
        .collect();
    ids.sort();
    for id in &ids {
        if let Some(worktree) = repo.worktree_on(&run::run_branch(id))?
            && repo.ref_target(&run::run_branch(id))?
                != remote_refs.get(&run::run_branch(id)).copied()
        {
            return Err(Error::Failed(format!(
                "run {id} moved on at {} but is checked out here in {}; finish the run here or remove that worktree (git worktree remove), then fetch",
                display_remote(repo, remote),
                worktree.path.display()
            )));
        }
    }
    let mut synced = Synced {
        remote: display_remote(repo, remote),
        runs: ids.iter().map(ToString::to_string).collect(),
        refs: Vec::new(),
    };
    if ids.is_empty() {
        return Ok(synced);
    }
    let transfer = repo.fetch(remote, &refspecs(&ids), progress)?;
    synced.refs = transfer.refs;
    if transfer.ok {
        return Ok(synced);
    }
    Err(refused("fetch from", &synced, &transfer.messages))
}

/// The one run of the remote that `text` (an id or prefix) names.
fn pick(available: &[RunId], text: &str, remote: &str) -> Result<RunId> {
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
