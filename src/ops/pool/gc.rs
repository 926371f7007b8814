//! `gc --remote`: finished runs move off a run-store remote, so that its ref count, which
//! every push pays for in its ref advertisement, stays bounded by the runs under way. A run
//! leaves the remote only once this clone holds each of its refs exactly as the remote does,
//! and each deletion is fenced on what was fetched: a run that moved on meanwhile stays.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::listing::PoolRefs;
use crate::error::Result;
use crate::format::branch_job::Job;
use crate::format::run_id::RunId;
use crate::format::time::Timestamp;
use crate::git::{ObjectId, Repo};
use crate::run::{self, RunState};

#[derive(Debug, Default, Serialize)]
pub struct Moved {
    /// The remote, as `host/owner/repo` (or its path), without credentials.
    pub remote: String,
    pub runs: Vec<MovedRun>,
    pub kept: Vec<KeptRun>,
}

#[derive(Debug, Serialize)]
pub struct MovedRun {
    pub run_id: String,
    pub status: &'static str,
    /// When it finished: its last metadata commit's time.
    pub finished_at: String,
}

#[derive(Debug, Serialize)]
pub struct KeptRun {
    pub run_id: String,
    pub reason: String,
}

/// Moves the finished runs of `remote` that finished at least `older_than` seconds ago (all
/// of them without it) into this clone and off the remote; with `dry_run`, fetches them and
/// says which would go.
pub fn collect(
    repo: &Repo,
    runs_dir: &Path,
    remote: &str,
    older_than: Option<i64>,
    dry_run: bool,
) -> Result<Moved> {
    crate::git::remote::check(remote)?;
    let on_pool = PoolRefs::read(repo, remote)?;
    let refs: HashMap<String, ObjectId> = repo
        .ls_remote(remote, "refs/heads/fabro/")?
        .into_iter()
        .collect();
    let mut moved = Moved {
        remote: crate::ops::sync::display_remote(repo, remote),
        ..Moved::default()
    };
    let now = Timestamp::now().seconds();
    let mut ids = crate::ops::sync::runs_of(&refs);
    ids.sort();
    for id in ids {
        if on_pool.queued.contains_key(&id)
            || on_pool.leases.contains_key(&id)
            || on_pool.waiting.contains_key(&id)
        {
            continue;
        }
        let names = run_refs(&refs, &id);
        let theirs: Vec<(String, ObjectId)> = names.iter().map(|n| (n.clone(), refs[n])).collect();
        match judge(repo, runs_dir, remote, &id, &theirs, now, older_than) {
            Judged::Young => {}
            Judged::Kept(reason) => moved.kept.push(KeptRun {
                run_id: id.to_string(),
                reason,
            }),
            Judged::Goes(run) => {
                if !dry_run {
                    // A branch job its holder never deleted (it stopped before the join's
                    // publish) goes with the run.
                    let jobs = (on_pool.jobs.iter())
                        .filter(|(name, _)| Job::parse_ref(name).is_some_and(|job| job.run == id));
                    let gone: Vec<(String, ObjectId)> = (theirs.iter().cloned())
                        .chain(jobs.map(|(n, sha)| (n.clone(), *sha)))
                        .collect();
                    let specs: Vec<String> = gone.iter().map(|(n, _)| format!(":{n}")).collect();
                    let fences: Vec<(String, Option<ObjectId>)> = gone
                        .iter()
                        .map(|(n, sha)| (n.clone(), Some(*sha)))
                        .collect();
                    let pushed = repo.push_fenced(remote, &specs, &fences)?;
                    if !pushed.ok {
                        moved.kept.push(KeptRun {
                            run_id: id.to_string(),
                            reason: format!("the remote refused: {}", pushed.messages.trim()),
                        });
                        continue;
                    }
                }
                moved.runs.push(run);
            }
        }
    }
    Ok(moved)
}

enum Judged {
    /// Not finished, or not long enough ago.
    Young,
    Kept(String),
    Goes(MovedRun),
}

/// Fetches run `id` and says whether it may leave the remote, whose refs of it are `theirs`.
fn judge(
    repo: &Repo,
    runs_dir: &Path,
    remote: &str,
    id: &RunId,
    theirs: &[(String, ObjectId)],
    now: i64,
    older_than: Option<i64>,
) -> Judged {
    if let Err(err) = crate::ops::sync::fetch(repo, runs_dir, remote, &[id.to_string()], false) {
        return Judged::Kept(format!("not fetched here: {err}"));
    }
    let Ok(state) = RunState::load(repo, id) else {
        return Judged::Kept("this clone cannot read it".into());
    };
    let status = state.record.status.kind;
    let finished_at = repo.commit_info(state.meta_tip).map_or(now, |c| c.time);
    if !status.is_terminal() || older_than.is_some_and(|age| now - finished_at < age) {
        return Judged::Young;
    }
    let parallel: Vec<String> = (theirs.iter())
        .map(|(name, _)| name.clone())
        .filter(|name| name.starts_with(&super::parallel_prefix(id)))
        .map(|name| format!("{name}:{name}"))
        .collect();
    if !parallel.is_empty() && !repo.fetch(remote, &parallel, false).is_ok_and(|t| t.ok) {
        return Judged::Kept("its parallel branches were not fetched here".into());
    }
    for (name, sha) in theirs {
        if repo.ref_target(name).ok().flatten() != Some(*sha) {
            return Judged::Kept(format!("{name} here is not what the remote has"));
        }
    }
    Judged::Goes(MovedRun {
        run_id: id.to_string(),
        status: status.as_str(),
        finished_at: Timestamp::from_seconds(finished_at).rfc3339(),
    })
}

/// Every ref of run `id` among the remote's `refs`: its branches and its parallel branches.
fn run_refs(refs: &HashMap<String, ObjectId>, id: &RunId) -> Vec<String> {
    let prefix = super::parallel_prefix(id);
    let mut names = vec![run::meta_branch(id), run::run_branch(id)];
    let mut parallel: Vec<String> = refs
        .keys()
        .filter(|n| n.starts_with(&prefix))
        .cloned()
        .collect();
    parallel.sort();
    names.extend(parallel);
    names
}
