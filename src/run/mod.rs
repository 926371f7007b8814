//! A run as git stores it: its two branches, how a user names it, and the state read back from
//! its refs. A run exists exactly when its metadata branch does. Beneath it, what is read from a
//! run without changing it: its timeline, the targets that name a checkpoint, where its files
//! live, and the summaries that listings show.

pub(crate) mod abbrev;
pub(crate) mod active_time;
pub(crate) mod changes;
pub(crate) mod inspect;
mod situation;
pub(crate) mod summary_cache;
pub mod target;
pub mod timeline;
pub(crate) mod watch;
pub(crate) mod workspace;

use crate::error::{Error, Result};
use crate::format::message::Trailers;
use crate::format::record::{Checkpoint, RunRecord};
use crate::format::run_id::RunId;
use crate::git::{Identity, ObjectId, RefEdit, Repo};

pub(crate) const RUN_BRANCH_PREFIX: &str = "refs/heads/fabro/run/";
pub(crate) const META_BRANCH_PREFIX: &str = "refs/heads/fabro/meta/";
pub(crate) const RUN_JSON: &str = "run.json";
pub(crate) const GRAPH_FILE: &str = "graph.fabro";

pub(crate) fn run_branch(id: &RunId) -> String {
    format!("{RUN_BRANCH_PREFIX}{id}")
}

/// Where the branches of a run's parallel nodes live: `<node>/pass<visit>/<target>` below.
pub(crate) fn parallel_branches_prefix(id: &RunId) -> String {
    format!("{RUN_BRANCH_PREFIX}parallel/{id}/")
}

pub(crate) fn meta_branch(id: &RunId) -> String {
    format!("{META_BRANCH_PREFIX}{id}")
}

/// Every run in the repository, oldest first (ULIDs sort by time).
pub(crate) fn list(repo: &Repo) -> Result<Vec<(RunId, ObjectId)>> {
    list_starting(repo, "")
}

/// [`list`] of the runs whose ids start with `prefix`: only their refs are read.
pub(crate) fn list_starting(repo: &Repo, prefix: &str) -> Result<Vec<(RunId, ObjectId)>> {
    let mut runs: Vec<_> = repo
        .refs_under(&format!("{META_BRANCH_PREFIX}{prefix}"))?
        .into_iter()
        .filter_map(|(rest, tip)| {
            let id = RunId::parse(&format!("{prefix}{rest}")).ok()?;
            Some((id, tip))
        })
        .collect();
    runs.sort();
    Ok(runs)
}

/// Resolves what a user typed (a full id or a prefix of at least four characters).
pub fn resolve(repo: &Repo, text: &str) -> Result<RunId> {
    if let Ok(id) = RunId::parse(&text.to_ascii_uppercase()) {
        if repo.ref_target(&meta_branch(&id))?.is_some() {
            return Ok(id);
        }
        return Err(not_found(repo, text));
    }
    let prefix = RunId::prefix(text)?;
    let mut matches: Vec<RunId> = list_starting(repo, &prefix)?
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    match matches.len() {
        0 => Err(not_found(repo, text)),
        1 => Ok(matches.remove(0)),
        _ => Err(Error::AmbiguousRun {
            prefix: text.to_owned(),
            candidates: matches.iter().map(ToString::to_string).collect(),
        }),
    }
}

/// No run matches `text`: naming the run whose id starts most like it, when one is a likely
/// typo of it (a prefix is compared with the ids' prefixes of its length).
fn not_found(repo: &Repo, text: &str) -> Error {
    let typed = text.to_ascii_uppercase();
    let ids: Vec<RunId> = list(repo)
        .map(|runs| runs.into_iter().map(|(id, _)| id).collect())
        .unwrap_or_default();
    let starts: Vec<&str> = ids
        .iter()
        .filter_map(|id| id.as_str().get(..typed.len()))
        .collect();
    let near = crate::format::suggest::closest(&typed, starts.iter().copied())
        .and_then(|start| ids.iter().find(|id| id.as_str().starts_with(start)));
    match near {
        Some(id) => Error::RunNotFoundNear {
            text: text.to_owned(),
            near: id.to_string(),
        },
        None => Error::RunNotFound(text.to_owned()),
    }
}

/// A run's refs and the record at the tip of its metadata branch.
#[derive(Clone, Debug)]
pub(crate) struct RunState {
    pub id: RunId,
    pub run_tip: ObjectId,
    pub meta_tip: ObjectId,
    pub meta_tree: ObjectId,
    pub record: RunRecord,
}

impl RunState {
    pub(crate) fn load(repo: &Repo, id: &RunId) -> Result<RunState> {
        let meta_tip = repo
            .ref_target(&meta_branch(id))?
            .ok_or_else(|| Error::RunNotFound(id.to_string()))?;
        let run_tip = repo.ref_target(&run_branch(id))?.ok_or_else(|| {
            Error::Corrupt(format!(
                "run {id} has a metadata branch but no run branch {}",
                run_branch(id)
            ))
        })?;
        RunState::at(repo, id, meta_tip, run_tip)
    }

    /// The run as its branches stand at `meta_tip` and `run_tip`, wherever those were read
    /// (a remote's listing): no ref of this clone is read.
    pub(crate) fn at(
        repo: &Repo,
        id: &RunId,
        meta_tip: ObjectId,
        run_tip: ObjectId,
    ) -> Result<RunState> {
        // A vanished object stays what it is, so that a caller can read the run again.
        let unreadable = |err: Error| match err.is_vanished_object() {
            true => err,
            false => Error::Corrupt(format!("run {id} cannot be read: {err}")),
        };
        let meta_tree = repo
            .commit_tree(meta_tip)
            .map_err(|err| unreadable(err.into()))?;
        let record = read_record(repo, meta_tree, &meta_tip.to_string()).map_err(unreadable)?;
        Ok(RunState {
            id: id.clone(),
            run_tip,
            meta_tip,
            meta_tree,
            record,
        })
    }

    /// Whether both branches are still where this state has them, so that [`RunState::load`]
    /// would read it again as it is.
    pub(crate) fn is_current(&self, repo: &Repo) -> Result<bool> {
        Ok(
            repo.ref_target(&meta_branch(&self.id))? == Some(self.meta_tip)
                && repo.ref_target(&run_branch(&self.id))? == Some(self.run_tip),
        )
    }

    /// Moves both branches from the tips this state was read at, in one transaction: the
    /// metadata branch first, so a crash between the two leaves a metadata commit that no run
    /// commit names (never counted), not a run commit naming a missing one.
    pub(crate) fn move_branches(
        &self,
        repo: &Repo,
        meta: ObjectId,
        run: ObjectId,
        reflog: &str,
        who: &Identity,
    ) -> Result<()> {
        let edits = [
            RefEdit::Update {
                name: meta_branch(&self.id),
                old: self.meta_tip,
                new: meta,
            },
            RefEdit::Update {
                name: run_branch(&self.id),
                old: self.run_tip,
                new: run,
            },
        ];
        repo.update_refs(&edits, reflog, who)
            .map_err(|err| Error::from(err).in_run(&self.id))
    }

    /// The checkpoint record the next checkpoint builds on.
    ///
    /// It comes from the metadata commit named by the run branch's latest own checkpoint, not
    /// blindly from the metadata tip: a process killed between writing its metadata commit and
    /// moving the run branch must not leave a node counted that no run commit records.
    pub(crate) fn linked_checkpoint(&self, repo: &Repo) -> Result<Option<Checkpoint>> {
        let base = self.record.start.base_sha.as_str();
        for commit in repo.first_parents(self.run_tip) {
            let commit = commit?;
            let mut trailers = Trailers::parse(&commit.message);
            if crate::format::message::is_unreadable_checkpoint(&commit.message) {
                // A rewritten checkpoint reads through its link; any other would make the next
                // checkpoint build on an older record, so it is refused (fsck names it).
                let links = timeline::load_links(repo, self.meta_tree)?;
                let link = links
                    .get(&commit.id.to_string())
                    .ok_or_else(|| timeline::unreadable_trailers(&commit))?;
                trailers.run = Some(link.run_id.clone());
                trailers.checkpoint = Some(link.meta_commit.clone());
            }
            if let Some(meta) = trailers.checkpoint {
                if trailers.run.as_deref() != Some(self.id.as_str()) {
                    break; // inherited from a fork's source: the root record carries it
                }
                if meta == self.meta_tip {
                    return Ok(self.record.checkpoint.clone());
                }
                let meta = ObjectId::from_hex(meta.as_bytes()).map_err(|_| {
                    Error::Corrupt(format!(
                        "commit {} has a malformed Fabro-Checkpoint",
                        commit.id
                    ))
                })?;
                let tree = repo.commit_tree(meta)?;
                return Ok(read_record(repo, tree, &meta.to_string())?.checkpoint);
            }
            if commit.id == base {
                break;
            }
        }
        self.uncommitted_checkpoint(repo)
    }

    /// With no run commit of its own, the run builds on the checkpoint its engine recorded
    /// without one (Fabro's start node, counted by `completed_offset`), else on its root's.
    fn uncommitted_checkpoint(&self, repo: &Repo) -> Result<Option<Checkpoint>> {
        let offset = self.record.spec.completed_offset;
        if offset > 0 {
            for commit in repo.first_parents(self.meta_tip) {
                let commit = commit?;
                let record = if commit.id == self.meta_tip {
                    self.record.clone()
                } else {
                    read_record(repo, repo.commit_tree(commit.id)?, &commit.id.to_string())?
                };
                match record.checkpoint {
                    Some(checkpoint) if checkpoint.completed_nodes.len() <= offset => {
                        return Ok(Some(checkpoint));
                    }
                    _ if commit.first_parent.is_none() => break,
                    _ => {}
                }
            }
        }
        self.root_checkpoint(repo)
    }

    /// The checkpoint record of the metadata branch's root commit (carried over by a fork).
    fn root_checkpoint(&self, repo: &Repo) -> Result<Option<Checkpoint>> {
        let mut root = self.meta_tip;
        for commit in repo.first_parents(self.meta_tip) {
            root = commit?.id;
        }
        if root == self.meta_tip {
            return Ok(self.record.checkpoint.clone());
        }
        let tree = repo.commit_tree(root)?;
        Ok(read_record(repo, tree, &root.to_string())?.checkpoint)
    }
}

/// A run that a listing leaves out because its record cannot be read, and why: one bad run,
/// fetched or damaged, must not hide every other run.
#[derive(Clone, Debug)]
pub(crate) struct Unreadable {
    pub id: RunId,
    pub reason: String,
}

impl Unreadable {
    pub(crate) fn new(id: &RunId, err: &Error) -> Unreadable {
        Unreadable {
            id: id.clone(),
            reason: err.to_string(),
        }
    }
}

/// Every run whose state can be read, oldest first, and the runs that cannot be read.
pub(crate) fn load_all(repo: &Repo) -> Result<(Vec<RunState>, Vec<Unreadable>)> {
    let mut states = Vec::new();
    let mut unreadable = Vec::new();
    for (id, _) in list(repo)? {
        match RunState::load(repo, &id) {
            Ok(state) => states.push(state),
            Err(err) => unreadable.push(Unreadable::new(&id, &err)),
        }
    }
    Ok((states, unreadable))
}

pub(crate) use crate::format::record::MAX_RUN_JSON;

/// Reads and checks `run.json` from a metadata tree.
pub(crate) fn read_record(repo: &Repo, meta_tree: ObjectId, origin: &str) -> Result<RunRecord> {
    let blob = repo
        .entry_at(meta_tree, RUN_JSON)?
        .ok_or_else(|| Error::Corrupt(format!("metadata commit {origin} has no run.json")))?;
    let size = repo.object_size(blob)?;
    if size > MAX_RUN_JSON {
        return Err(Error::Corrupt(format!(
            "run.json at {origin} is {size} bytes, over the {} MiB git-fabro reads",
            MAX_RUN_JSON >> 20
        )));
    }
    RunRecord::from_json(&repo.read_blob(blob)?, origin)
}
