//! Read-only views of runs: the list of every run (for `ps`) and one checkpoint in full (for
//! `show`). Both read git alone, so they work when run directories are gone.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::format::message::Trailers;
use crate::format::record::{Checkpoint, StatusKind};
use crate::format::run_id::RunId;
use crate::format::stages;
use crate::format::usage::UsageTotal;
use crate::git::{ObjectId, Repo};
use crate::run::summary_cache::SummaryCache;
use crate::run::timeline::Entry;
use crate::run::{self, Unreadable, read_record};

/// One row of `ps`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSummary {
    pub run_id: String,
    pub status: StatusKind,
    pub workflow_name: Option<String>,
    pub goal: Option<String>,
    /// The `--label K=V` pairs the run was started with.
    pub labels: BTreeMap<String, String>,
    pub completed: usize,
    pub start_time: String,
    pub run_branch: String,
    pub meta_branch: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    /// Where the run landed last (`land`); null when it never did.
    #[serde(default)]
    pub landed: Option<crate::format::record::Landing>,
    /// The tokens and tool calls of its stages so far; null when none reported usage.
    #[serde(default)]
    pub usage: Option<UsageTotal>,
}

/// The `runs` ([`run::list`]), newest first (archived ones only when `all`), and the runs
/// whose record cannot be read, which the listing leaves out. A run whose tips have not moved
/// since the last listing is not read again (see [`SummaryCache`]).
pub fn list_runs(
    repo: &Repo,
    runs: Vec<(RunId, ObjectId)>,
    all: bool,
) -> Result<(Vec<RunSummary>, Vec<Unreadable>)> {
    let worktrees: HashMap<String, String> = repo
        .worktree_branches()?
        .into_iter()
        .map(|(branch, path)| (branch, path.display().to_string()))
        .collect();
    let run_tips: HashMap<String, ObjectId> = repo
        .refs_under(run::RUN_BRANCH_PREFIX)?
        .into_iter()
        .collect();
    let mut cache = SummaryCache::open(&repo.common_dir());
    let mut out = Vec::new();
    let mut unreadable = Vec::new();
    for (id, meta_tip) in runs.into_iter().rev() {
        let summary = run_tip(repo, &id, &run_tips)
            .and_then(|tip| cache.row(meta_tip, tip, || summarize(repo, &id, meta_tip, tip)));
        match summary {
            Ok(summary) if summary.status == StatusKind::Archived && !all => {}
            Ok(mut summary) => {
                summary.worktree = worktrees.get(&run::run_branch(&id)).cloned();
                out.push(summary);
            }
            Err(err) => unreadable.push(Unreadable::new(&id, &err)),
        }
    }
    cache.save();
    Ok((out, unreadable))
}

/// The tip of `id`'s run branch, from the branches listed at once when it is there.
fn run_tip(repo: &Repo, id: &RunId, listed: &HashMap<String, ObjectId>) -> Result<ObjectId> {
    if let Some(tip) = listed.get(id.as_str()) {
        return Ok(*tip);
    }
    repo.ref_target(&run::run_branch(id))?.ok_or_else(|| {
        Error::Corrupt(format!(
            "run {id} has a metadata branch but no run branch {}",
            run::run_branch(id)
        ))
    })
}

/// A run's row as git has it (no worktree: that is this machine's).
fn summarize(repo: &Repo, id: &RunId, meta_tip: ObjectId, tip: ObjectId) -> Result<RunSummary> {
    let unreadable = |err: Error| Error::Corrupt(format!("run {id} cannot be read: {err}"));
    let tree = repo
        .commit_tree(meta_tip)
        .map_err(|err| unreadable(err.into()))?;
    let record = read_record(repo, tree, &meta_tip.to_string()).map_err(unreadable)?;
    // The run branch's newest checkpoint trailer is the truth about completed nodes (a
    // parallel base's count of 0 is none).
    let trailers = Trailers::parse(
        &repo
            .commit_info(tip)
            .map_err(|err| unreadable(err.into()))?
            .message,
    );
    let completed = trailers
        .completed
        .filter(|_| trailers.checkpoint.is_some())
        .unwrap_or(record.completed())
        .saturating_sub(record.spec.completed_offset);
    Ok(RunSummary {
        run_id: id.to_string(),
        status: record.status.kind,
        workflow_name: record.spec.workflow_name(),
        goal: record.spec.goal(),
        labels: record.spec.labels,
        completed,
        start_time: record.start.start_time,
        run_branch: record.start.run_branch,
        meta_branch: record.start.meta_branch,
        worktree: None,
        landed: record
            .extra
            .get(crate::format::record::LANDED)
            .and_then(|landed| serde_json::from_value(landed.clone()).ok()),
        usage: record.checkpoint.as_ref().and_then(|c| c.usage_total),
    })
}

/// One checkpoint in full: its timeline entry, its record and its stage's files.
#[derive(Clone, Debug, Serialize)]
pub struct CheckpointDetail {
    #[serde(flatten)]
    pub entry: Entry,
    pub git_commit_sha: String,
    pub record: Option<Checkpoint>,
    pub stage: Option<Stage>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Stage {
    pub path: String,
    pub status: Option<Value>,
    pub files: Vec<StageFile>,
}

#[derive(Clone, Debug, Serialize)]
pub struct StageFile {
    pub name: String,
    pub blob: String,
    pub size: usize,
}

pub fn checkpoint_detail(repo: &Repo, entry: &Entry) -> Result<CheckpointDetail> {
    let meta = ObjectId::from_hex(entry.meta_commit.as_bytes())
        .ok()
        .filter(|id| repo.object_exists(*id));
    let (record, stage) = match meta {
        Some(meta) => {
            let tree = repo.commit_tree(meta)?;
            let record = read_record(repo, tree, &entry.meta_commit)?.checkpoint;
            let stage = match stage_tree(repo, tree, entry)? {
                Some((path, stage_tree)) => {
                    let mut files = Vec::new();
                    let mut status = None;
                    for file in repo
                        .list_tree(stage_tree)?
                        .into_iter()
                        .filter(|f| !f.is_tree)
                    {
                        let data = repo.read_blob(file.id)?;
                        if file.name == "status.json" {
                            status = serde_json::from_slice(&data).ok();
                        }
                        files.push(StageFile {
                            name: file.name,
                            blob: file.id.to_string(),
                            size: data.len(),
                        });
                    }
                    Some(Stage {
                        path,
                        status,
                        files,
                    })
                }
                None => None,
            };
            (record, stage)
        }
        None => (None, None),
    };
    Ok(CheckpointDetail {
        git_commit_sha: entry.run_commit.clone(),
        entry: entry.clone(),
        record,
        stage,
    })
}

/// The file `name` of the checkpoint's stage, when it holds one of at most `limit` bytes.
pub fn stage_file(repo: &Repo, entry: &Entry, name: &str, limit: u64) -> Result<Option<Vec<u8>>> {
    let Some(meta) = ObjectId::from_hex(entry.meta_commit.as_bytes()).ok() else {
        return Ok(None);
    };
    let Some((_, stage)) = stage_tree(repo, repo.commit_tree(meta)?, entry)? else {
        return Ok(None);
    };
    Ok(repo.blob_at_most(stage, name, limit)?)
}

/// The folder of `entry`'s stage in a metadata tree: `stages/<rank>-<node>@<visit>` at the rank
/// its completed count gives, else `stages/<node>@<visit>` (format 1), else any rank.
fn stage_tree(
    repo: &Repo,
    meta_tree: ObjectId,
    entry: &Entry,
) -> Result<Option<(String, ObjectId)>> {
    let (node, visit) = (entry.node_id.as_str(), entry.visit);
    for path in [
        stages::dir(entry.completed, node, visit),
        stages::dir_without_rank(node, visit),
    ] {
        if let Some(tree) = repo.entry_at(meta_tree, &path)? {
            return Ok(Some((path, tree)));
        }
    }
    let Some(all) = repo.entry_at(meta_tree, stages::STAGES_DIR)? else {
        return Ok(None);
    };
    Ok(repo
        .list_tree(all)?
        .into_iter()
        .find(|e| e.is_tree && stages::names(&e.name, node, visit))
        .map(|e| (format!("{}/{}", stages::STAGES_DIR, e.name), e.id)))
}
