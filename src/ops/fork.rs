//! Forking: a new, independent run that starts at one checkpoint of another. The fork's
//! metadata root is the source's metadata tree at that checkpoint with only `run.json`
//! replaced, so the stages are shared, not copied, and the cost does not depend on how long
//! the source's history is.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::config::Config;
use crate::error::Result;
use crate::failpoint;
use crate::format::message;
use crate::format::record::{ForkSource, ForkSourceRef, RunRecord, Start, Status, StatusKind};
use crate::format::run_id::RunId;
use crate::format::time::Timestamp;
use crate::git::{ObjectId, RefEdit, Repo};
use crate::ops::start::short_branch;
use crate::run::timeline::Entry;
use crate::run::{self, RUN_JSON, RunState, read_record};

#[derive(Clone, Debug, Serialize)]
pub struct Forked {
    pub run_id: String,
    pub source_run_id: String,
    pub ordinal: usize,
    pub run_commit: String,
    pub meta_commit: String,
    pub run_branch: String,
    pub meta_branch: String,
}

/// The checkpoint a fork starts at, as recorded in `spec.fork_source`.
pub fn source_of(source: &RunId, entry: &Entry) -> ForkSource {
    ForkSource {
        run_id: source.to_string(),
        ordinal: entry.ordinal,
        run_commit: entry.run_commit.clone(),
        meta_commit: entry.meta_commit.clone(),
    }
}

/// Writes the objects of a fork named `id` of `source` and returns the refs that bring it to
/// life.
pub fn prepare(
    repo: &Repo,
    id: &RunId,
    source: &RunState,
    from: &ForkSource,
    config: &Config,
) -> Result<Vec<RefEdit>> {
    let meta_commit = parse_sha(&from.meta_commit)?;
    let run_commit = parse_sha(&from.run_commit)?;
    // The source's record as it was at `from`: the one already read when that is its tip.
    let (source_tree, source) = if meta_commit == source.meta_tip {
        (source.meta_tree, Cow::Borrowed(&source.record))
    } else {
        let tree = repo.commit_tree(meta_commit)?;
        (
            tree,
            Cow::Owned(read_record(repo, tree, &from.meta_commit)?),
        )
    };
    let mut spec = source.spec.clone();
    spec.fork_source = Some(from.clone());
    spec.fork_source_ref = Some(ForkSourceRef {
        source_run_id: from.run_id.clone(),
        checkpoint_sha: from.run_commit.clone(),
    });
    let record = RunRecord {
        format: crate::format::record::FORMAT,
        run_id: id.to_string(),
        spec,
        graph_source: source.graph_source.clone(),
        start: Start {
            run_id: id.to_string(),
            start_time: Timestamp::now().rfc3339(),
            run_branch: short_branch(&run::run_branch(id)),
            meta_branch: short_branch(&run::meta_branch(id)),
            base_sha: from.run_commit.clone(),
            extra: BTreeMap::new(),
        },
        status: Status::new(StatusKind::Running),
        checkpoint: source.checkpoint.clone(),
        conclusion: None,
        superseded_by: None,
        extra: BTreeMap::new(),
    };
    let mut tree = repo.edit_tree(source_tree)?;
    tree.put_file(RUN_JSON, &record.into_json()?)?;
    let tree = tree.write()?;
    let subject = format!("init run (fork of {} at @{})", from.run_id, from.ordinal);
    let root = repo.write_commit(
        tree,
        &[],
        &message::meta_commit(&subject, id, None),
        &config.identity,
    )?;
    // The run branch first: a crash between the two leaves a branch without a run (invisible,
    // collected by gc), never a run without its branch. A retry finds the branch in place.
    Ok(vec![
        RefEdit::Ensure {
            name: run::run_branch(id),
            new: run_commit,
        },
        RefEdit::Create {
            name: run::meta_branch(id),
            new: root,
        },
    ])
}

/// Forks `source` at `entry` into a new run.
pub fn fork(repo: &Repo, source: &RunState, entry: &Entry, config: &Config) -> Result<Forked> {
    let id = RunId::mint();
    let from = source_of(&source.id, entry);
    let edits = prepare(repo, &id, source, &from, config)?;
    // Both branches are created in one ref transaction, the run branch first: git-fabro has
    // no boundary between the two refs.
    failpoint::reach("fork:objects-written");
    repo.update_refs(&edits, "fabro: fork run", &config.identity)?;
    failpoint::reach("fork:refs-moved");
    Ok(forked(&id, &from))
}

pub fn forked(id: &RunId, from: &ForkSource) -> Forked {
    Forked {
        run_id: id.to_string(),
        source_run_id: from.run_id.clone(),
        ordinal: from.ordinal,
        run_commit: from.run_commit.clone(),
        meta_commit: from.meta_commit.clone(),
        run_branch: short_branch(&run::run_branch(id)),
        meta_branch: short_branch(&run::meta_branch(id)),
    }
}

pub fn parse_sha(hex: &str) -> Result<ObjectId> {
    ObjectId::from_hex(hex.as_bytes())
        .map_err(|_| crate::error::Error::Corrupt(format!("{hex:?} is not a commit id")))
}
