//! Timelines rebuilt from git alone (FORMAT.md, Timeline): one first-parent walk of the run
//! branch, keeping the commits whose trailers carry `Fabro-Checkpoint`. Node, status and time
//! come from the run commit itself, so listing a timeline reads no metadata objects at all.
//!
//! The walk goes newest first and stops as soon as it can: after as many checkpoints as the
//! newest `Fabro-Completed` says (which also bounds it inside a fork's inherited history), or
//! as soon as a target is found, so resolving `@latest` or a recent node costs a step or two
//! however long the run is.
//!
//! `Fabro-Completed` is a count, not a position: Fabro counts its start node, which has no run
//! commit, so its first checkpoint says 2. The run's record says how many such nodes precede
//! the first run commit (`completed_offset`), and an ordinal is the count minus that offset.
//! [`find`] is the one resolver every command uses, so `show @2` and `fork @2` agree.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::format::message::{self, Trailers};
use crate::format::record::{LINKS_DIR, Link};
use crate::format::run_id::RunId;
use crate::format::time::Timestamp;
use crate::git::{CommitCache, CommitInfo, ObjectId, ObjectReader, Repo};
use crate::run::RunState;
use crate::run::target::Target;

/// One checkpoint of a timeline, as `log --json` prints it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Entry {
    pub ordinal: usize,
    pub run_id: String,
    /// Empty for a snapshot, which completes no node: null in JSON.
    #[serde(serialize_with = "empty_as_null")]
    pub node_id: String,
    pub visit: u64,
    pub status: String,
    pub completed: usize,
    pub run_commit: String,
    /// Empty for a snapshot, which writes no metadata: null in JSON.
    #[serde(serialize_with = "empty_as_null")]
    pub meta_commit: String,
    pub timestamp: String,
    /// For a snapshot (listed by `log --all`): its reason. Snapshots complete no node, so
    /// their ordinal and visit are 0 and `completed` is the count they were taken at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
}

impl Entry {
    /// How messages name it: `@2 code@1`, or `@0 (the run's start)`.
    pub(crate) fn label(&self) -> String {
        if self.ordinal == 0 && self.snapshot.is_none() {
            return "@0 (the run's start)".into();
        }
        format!("@{} {}@{}", self.ordinal, self.node_id, self.visit)
    }
}

/// An absent value shows as null in JSON, never as "".
fn empty_as_null<S: serde::Serializer>(
    text: &str,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    match text {
        "" => serializer.serialize_none(),
        text => serializer.serialize_str(text),
    }
}

/// The run's checkpoints, oldest first, inherited ones (of a fork) included.
pub(crate) fn timeline(repo: &Repo, state: &RunState) -> Result<Vec<Entry>> {
    timeline_with(repo, state, false)
}

/// The timeline, with the snapshots taken between checkpoints when `snapshots`.
pub(crate) fn timeline_with(repo: &Repo, state: &RunState, snapshots: bool) -> Result<Vec<Entry>> {
    // A run of its own ends at its base; a fork's walk ends where its checkpoints are counted.
    let last = match state.record.spec.is_fork() {
        false => ObjectId::from_hex(state.record.start.base_sha.as_bytes()).ok(),
        true => None,
    };
    let commits = repo.first_parents(state.run_tip).ending_after(last);
    let Some(cache) = commit_cache(repo, state) else {
        return Ok(numbered(
            Walk::new(repo, state, snapshots, commits)?.collect::<Result<_>>()?,
        ));
    };
    let mut commits = commits.cached_in(&cache);
    let walked: Result<Vec<_>> =
        Walk::new(repo, state, snapshots, commits.by_ref()).and_then(Iterator::collect);
    let learned = commits.learned();
    cache.save(learned);
    Ok(numbered(walked?))
}

/// The timeline read from the object store alone, never from the commit cache: what `fsck`
/// checks, since a commit the cache still holds may be gone from the repository.
pub(crate) fn timeline_from_objects(repo: &Repo, state: &RunState) -> Result<Vec<Entry>> {
    let commits = repo.first_parents(state.run_tip);
    Ok(numbered(
        Walk::new(repo, state, false, commits)?.collect::<Result<_>>()?,
    ))
}

/// The commits of the run's timeline that earlier walks read (`.git/fabro/commits/<run>`);
/// none when commits are read through gix alone (`GIT_FABRO_OBJECT_READER=gix`).
fn commit_cache(repo: &Repo, state: &RunState) -> Option<CommitCache> {
    (crate::git::object_reader() == ObjectReader::Own)
        .then(|| CommitCache::open(commit_caches(repo).join(state.id.as_str())))
}

fn commit_caches(repo: &Repo) -> std::path::PathBuf {
    repo.common_dir().join("fabro").join("commits")
}

/// Removes the commit caches of runs whose metadata branch is gone (`gc` calls it), and any
/// file there that is not a run's cache. Best effort: a cache left behind only takes space.
pub(crate) fn forget_gone_runs(repo: &Repo) {
    let Ok(files) = std::fs::read_dir(commit_caches(repo)) else {
        return;
    };
    for file in files.flatten() {
        let name = file.file_name();
        let kept = name
            .to_str()
            .and_then(|name| RunId::parse(name).ok())
            .is_some_and(|id| !matches!(repo.ref_target(&crate::run::meta_branch(&id)), Ok(None)));
        if !kept {
            let _ = std::fs::remove_file(file.path());
        }
    }
}

/// Entries found newest first, oldest first with their ordinals and visits.
fn numbered(mut found: Vec<(Option<String>, Entry)>) -> Vec<Entry> {
    found.reverse(); // in place: a long timeline's entries are copied once, into the result
    let mut visits: HashMap<String, u64> = HashMap::new();
    let (mut ordinal, mut completed) = (0, 0);
    found
        .into_iter()
        .map(|(stage, mut entry)| {
            if entry.snapshot.is_some() {
                entry.completed = completed;
                return entry;
            }
            let count = visits.entry(entry.node_id.clone()).or_insert(0);
            *count += 1;
            entry.visit = stage_visit(stage.as_deref(), &entry.node_id).unwrap_or(*count);
            ordinal += 1;
            entry.ordinal = ordinal;
            completed = entry.completed;
            entry
        })
        .collect()
}

/// The one checkpoint `target` names, walking no further back than needed.
///
/// Ordinals follow completed counts (each checkpoint adds one), and the visit of a node's
/// newest occurrence is its count in the run's checkpoint record, so neither needs the oldest
/// end of the timeline. Only a sha prefix is checked against the whole timeline, because a
/// prefix may match more than one checkpoint.
pub(crate) fn find(repo: &Repo, state: &RunState, target: &Target) -> Result<Entry> {
    if *target == Target::Start {
        return start_entry(repo, state);
    }
    match find_entry(repo, state, target) {
        Err(Error::TargetNotFound { run, message }) => {
            let message = message + &node_suggestion(repo, state, target);
            Err(Error::TargetNotFound { run, message })
        }
        found => found,
    }
}

/// ` (did you mean plan?)` when `target` names a node the run never checkpointed and one it
/// did is a likely typo of it. Only a failed lookup pays for the walk.
fn node_suggestion(repo: &Repo, state: &RunState, target: &Target) -> String {
    let (Target::NodeOrSha(node) | Target::NodeVisit(node, _)) = target else {
        return String::new();
    };
    let Ok(entries) = timeline(repo, state) else {
        return String::new();
    };
    let mut nodes: Vec<&str> = entries.iter().map(|e| e.node_id.as_str()).collect();
    nodes.dedup();
    if nodes.contains(&node.as_str()) {
        return String::new();
    }
    crate::format::suggest::did_you_mean(node, nodes)
}

fn find_entry(repo: &Repo, state: &RunState, target: &Target) -> Result<Entry> {
    if matches!(target, Target::NodeOrSha(text) if looks_like_sha(text)) {
        return target
            .resolve(&timeline(repo, state)?, state.id.as_str())
            .cloned();
    }
    let visits = state
        .linked_checkpoint(repo)?
        .map(|c| c.node_visits)
        .unwrap_or_default();
    let offset = state.record.spec.completed_offset;
    let mut seen: HashMap<String, u64> = HashMap::new();
    let mut steps = 0;
    // Without the commit cache: a target is mostly a step or two back, and the cache of a
    // long run is a larger read than those steps.
    for item in Walk::new(repo, state, false, repo.first_parents(state.run_tip))? {
        let (stage, mut entry) = item?;
        let later = seen.entry(entry.node_id.clone()).or_insert(0);
        let visit = stage_visit(stage.as_deref(), &entry.node_id)
            .or_else(|| visits.get(&entry.node_id).map(|v| v.saturating_sub(*later)));
        *later += 1;
        entry.ordinal = entry.completed.saturating_sub(offset);
        let Some(visit) = visit.filter(|v| *v > 0 && entry.ordinal > 0) else {
            // A record that does not know this node: count from the oldest end instead.
            return target
                .resolve(&timeline(repo, state)?, state.id.as_str())
                .cloned();
        };
        entry.visit = visit;
        let found = match target {
            Target::Latest => steps == 0,
            Target::Back(n) => steps == *n,
            Target::Ordinal(n) => entry.ordinal == *n,
            Target::NodeOrSha(node) => &entry.node_id == node,
            Target::NodeVisit(node, v) => &entry.node_id == node && visit == *v,
            Target::LastSuccess => entry.status == "succeeded",
            Target::Start => false,
        };
        if found {
            return Ok(entry);
        }
        steps += 1;
    }
    // As many steps back as the run has checkpoints is where it started; a fork's timeline
    // goes on into its source's, so only a run of its own starts there.
    if *target == Target::Back(steps) && steps > 0 && !state.record.spec.is_fork() {
        return start_entry(repo, state);
    }
    Err(target.not_found(state.id.as_str(), steps > 0))
}

/// The run's start as a timeline entry `@0`: its base commit (for a fork, the checkpoint it
/// was forked at) and the root of its metadata branch, which no stage has completed yet.
fn start_entry(repo: &Repo, state: &RunState) -> Result<Entry> {
    let mut root = state.meta_tip;
    for commit in repo.first_parents(state.meta_tip) {
        root = commit?.id;
    }
    Ok(Entry {
        ordinal: 0,
        run_id: state.id.to_string(),
        node_id: String::new(),
        visit: 0,
        status: "started".into(),
        completed: state.record.spec.completed_offset,
        run_commit: state.record.start.base_sha.clone(),
        meta_commit: root.to_string(),
        timestamp: state.record.start.start_time.clone(),
        snapshot: None,
    })
}

fn looks_like_sha(text: &str) -> bool {
    text.len() >= 7 && text.chars().all(|c| c.is_ascii_hexdigit())
}

/// Checkpoints newest first, each with its `Fabro-Stage` trailer if it has one. Ordinal and
/// visit are left for the caller, who knows which end to count from.
struct Walk<Commits> {
    commits: Commits,
    links: HashMap<String, Link>,
    base: String,
    forked: bool,
    offset: usize,
    snapshots: bool,
    expected: Option<usize>,
    found: usize,
    done: bool,
}

impl<Commits> Walk<Commits> {
    /// The walk over `commits`: the run branch's tip and its first parents, newest first.
    fn new(repo: &Repo, state: &RunState, snapshots: bool, commits: Commits) -> Result<Self> {
        Ok(Walk {
            commits,
            links: load_links(repo, state.meta_tree)?,
            base: state.record.start.base_sha.clone(),
            forked: state.record.spec.is_fork(),
            offset: state.record.spec.completed_offset,
            snapshots,
            expected: None,
            found: 0,
            done: false,
        })
    }

    fn entry(&self, commit: &CommitInfo) -> Result<Option<(Option<String>, Entry)>> {
        let trailers = Trailers::parse(&commit.message);
        if let (true, Some(reason), Some(run_id)) =
            (self.snapshots, &trailers.snapshot, &trailers.run)
        {
            return Ok(Some((
                None,
                Entry {
                    ordinal: 0,
                    run_id: run_id.clone(),
                    node_id: String::new(),
                    visit: 0,
                    status: "snapshot".into(),
                    completed: 0,
                    run_commit: commit.id.to_string(),
                    meta_commit: String::new(),
                    timestamp: Timestamp::from_seconds(commit.time).rfc3339(),
                    snapshot: Some(reason.clone()),
                },
            )));
        }
        let (Some(meta_commit), Some(run_id)) = (trailers.checkpoint, trailers.run) else {
            if !self.links.contains_key(&commit.id.to_string())
                && message::is_unreadable_checkpoint(&commit.message)
            {
                return Err(unreadable_trailers(commit));
            }
            // A commit that replaced a checkpoint in a squash or amend reads as that checkpoint.
            return Ok(self.links.get(&commit.id.to_string()).map(|link| {
                (
                    None,
                    Entry {
                        ordinal: 0,
                        run_id: link.run_id.clone(),
                        node_id: link.node_id.clone(),
                        visit: 0,
                        status: link.status.clone(),
                        completed: link.completed,
                        run_commit: commit.id.to_string(),
                        meta_commit: link.meta_commit.clone(),
                        timestamp: Timestamp::from_seconds(commit.time).rfc3339(),
                        snapshot: None,
                    },
                )
            }));
        };
        let (node_id, status) = message::parse_subject(&commit.message).ok_or_else(|| {
            Error::Corrupt(format!(
                "run commit {} has Fabro trailers but no fabro(...) subject",
                commit.id
            ))
        })?;
        Ok(Some((
            trailers.stage,
            Entry {
                ordinal: 0,
                run_id,
                node_id,
                visit: 0,
                status,
                completed: trailers.completed.unwrap_or(0),
                run_commit: commit.id.to_string(),
                meta_commit,
                timestamp: Timestamp::from_seconds(commit.time).rfc3339(),
                snapshot: None,
            },
        )))
    }
}

impl<Commits: Iterator<Item = crate::git::Result<CommitInfo>>> Iterator for Walk<Commits> {
    type Item = Result<(Option<String>, Entry)>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let commit = match self.commits.next()? {
                Ok(commit) => commit,
                Err(err) => return Some(Err(err.into())),
            };
            let entry = match self.entry(&commit) {
                Ok(entry) => entry,
                Err(err) => return Some(Err(err)),
            };
            if let Some((_, e)) = entry.as_ref().filter(|(_, e)| e.snapshot.is_none()) {
                self.expected
                    .get_or_insert(e.completed.saturating_sub(self.offset));
                self.found += 1;
            }
            // With snapshots, a run of its own is walked to its base: snapshots older than
            // its first checkpoint belong to it too.
            let all_found = self.expected.is_some_and(|n| self.found >= n);
            self.done = (all_found && (self.forked || !self.snapshots))
                || (!self.forked && commit.id == self.base);
            if entry.is_some() {
                return entry.map(Ok);
            }
        }
        None
    }
}

/// A run commit whose trailers cannot be read: counting past it would misnumber the timeline.
pub(crate) fn unreadable_trailers(commit: &CommitInfo) -> Error {
    Error::Corrupt(format!(
        "run commit {} has a checkpoint's subject but no Fabro-Run, Fabro-Completed and Fabro-Checkpoint trailers git-fabro can read, so the timeline cannot be rebuilt past it",
        commit.id
    ))
}

/// A `Fabro-Stage: node@visit` trailer, when another writer added one.
fn stage_visit(stage: Option<&str>, node: &str) -> Option<u64> {
    let (stage_node, visit) = stage?.rsplit_once('@')?;
    (stage_node == node).then(|| visit.parse().ok()).flatten()
}

/// The links of a run, by the sha of the commit that replaced a checkpoint.
pub(crate) fn load_links(repo: &Repo, meta_tree: ObjectId) -> Result<HashMap<String, Link>> {
    let Some(dir) = repo.entry_at(meta_tree, LINKS_DIR)? else {
        return Ok(HashMap::new());
    };
    let mut links = HashMap::new();
    for entry in repo.list_tree(dir)? {
        if let Ok(link) = serde_json::from_slice::<Link>(&repo.read_blob(entry.id)?) {
            links.insert(link.new_commit.clone(), link);
        }
    }
    Ok(links)
}
