//! Reading a thread: one checkpoint with the channel values and pending writes it needs
//! (`get`), and checkpoints newest first, across threads and namespaces (`list`).

use serde_json::{Map, Value};

use super::ThreadStore;
use crate::error::{Error, Result};
use crate::format::store_protocol::{Blob, PendingWrite, Query, Tuple, Typed};
use crate::format::thread::{
    self, CHECKPOINT_FILE, CheckpointRecord, NAMESPACES_DIR, RECORD_FILE, WRITES_DIR,
};
use crate::git::ObjectId;
use crate::run::RunState;

impl ThreadStore<'_> {
    /// The checkpoint `id` of a namespace, or its newest; `None` when there is none. With
    /// `--track-files`, naming a root checkpoint other than the newest puts its files back.
    pub fn get(&mut self, thread: &str, ns: &str, id: Option<&str>) -> Result<Option<Tuple>> {
        // A `git gc` beside the store may pack an object between two reads of it.
        crate::ops::checkpoint::retrying_vanished(|| self.get_once(thread, ns, id))
    }

    fn get_once(&mut self, thread: &str, ns: &str, id: Option<&str>) -> Result<Option<Tuple>> {
        let Some(state) = self.find(thread)? else {
            return Ok(None);
        };
        let tree = self.thread_tree(&state)?;
        let found = match id {
            Some(id) => self
                .record(tree, ns, id)?
                .map(|record| (id.to_owned(), record)),
            None => newest_checkpoint(self, tree, ns)?,
        };
        let Some((found_id, record)) = found else {
            return Ok(None);
        };
        // Only a named checkpoint can be an older one, and only a root one has files.
        let going_back = self.track_files
            && ns.is_empty()
            && id.is_some()
            && newest_checkpoint(self, tree, ns)?.is_some_and(|(newest, _)| newest != found_id);
        let tuple = self.tuple(tree, thread, ns, &found_id, record)?;
        if going_back {
            self.restore_files(&state, &found_id)?;
        }
        Ok(Some(tuple))
    }

    /// Every checkpoint `query` asks for, newest first in each namespace, handed to `found`
    /// one at a time; returns how many.
    pub fn list(
        &mut self,
        query: &Query,
        mut found: impl FnMut(Tuple) -> Result<()>,
    ) -> Result<usize> {
        let threads: Vec<String> = match &query.thread {
            Some(thread) => vec![thread.clone()],
            None => {
                self.refresh()?;
                self.runs.threads.keys().cloned().collect()
            }
        };
        let mut count = 0;
        for thread in threads {
            let Some(state) = self.find(&thread)? else {
                continue;
            };
            let tree = self.thread_tree(&state)?;
            let namespaces = match &query.ns {
                Some(ns) => vec![ns.clone()],
                None => namespaces(self, tree)?,
            };
            for ns in namespaces {
                for id in checkpoint_ids(self, tree, &ns)? {
                    if query.limit.is_some_and(|limit| count >= limit) {
                        return Ok(count);
                    }
                    let wanted = query.checkpoint_id.as_ref().is_none_or(|want| *want == id)
                        && query.before.as_ref().is_none_or(|before| id < *before);
                    if !wanted {
                        continue;
                    }
                    // A folder of pending writes whose checkpoint has not come is none.
                    let Some(record) = self.record(tree, &ns, &id)? else {
                        continue;
                    };
                    if !matches(&record.metadata, &query.filter) {
                        continue;
                    }
                    found(self.tuple(tree, &thread, &ns, &id, record)?)?;
                    count += 1;
                }
            }
        }
        Ok(count)
    }

    /// A checkpoint's record; `None` for an id that has only pending writes so far.
    pub(super) fn record(
        &self,
        tree: ObjectId,
        ns: &str,
        id: &str,
    ) -> Result<Option<CheckpointRecord>> {
        let path = format!("{}/{RECORD_FILE}", thread::checkpoint_dir(ns, id));
        match self.repo.blob_at(tree, &path)? {
            Some(bytes) => thread::parse_record(&bytes, &path).map(Some),
            None => Ok(None),
        }
    }

    /// The checkpoint `id`, whose record is `record`, with the channel values at its versions
    /// and its pending writes.
    fn tuple(
        &self,
        tree: ObjectId,
        thread: &str,
        ns: &str,
        id: &str,
        record: CheckpointRecord,
    ) -> Result<Tuple> {
        let dir = thread::checkpoint_dir(ns, id);
        let checkpoint = self
            .value(tree, &format!("{dir}/{CHECKPOINT_FILE}"))?
            .ok_or_else(|| Error::Corrupt(format!("{dir} holds no {CHECKPOINT_FILE}")))?
            .1;
        let mut blobs = Vec::new();
        for (channel, version) in &record.channel_versions {
            if let Some((_, value)) =
                self.value(tree, &thread::channel_path(ns, channel, version))?
            {
                blobs.push(Blob {
                    channel: channel.clone(),
                    version: version.clone(),
                    value,
                });
            }
        }
        Ok(Tuple {
            thread: thread.to_owned(),
            ns: ns.to_owned(),
            checkpoint_id: record.checkpoint_id,
            parent_id: record.parent_id,
            checkpoint,
            metadata: record.metadata,
            blobs,
            writes: self.writes(tree, &dir)?,
        })
    }

    fn writes(&self, tree: ObjectId, dir: &str) -> Result<Vec<PendingWrite>> {
        let writes_dir = format!("{dir}/{WRITES_DIR}");
        let Some(folder) = self.repo.entry_at(tree, &writes_dir)? else {
            return Ok(Vec::new());
        };
        let mut writes = Vec::new();
        for entry in self.repo.list_tree(folder)? {
            let path = format!("{writes_dir}/{}", entry.name);
            let bytes = self.repo.read_blob(entry.id)?;
            let (header, data) = thread::parse_value_file(&bytes, &path)?;
            let corrupt = || Error::Corrupt(format!("{path} in a thread is not a pending write"));
            writes.push(PendingWrite {
                task_id: header.task_id.ok_or_else(corrupt)?,
                task_path: header.task_path.unwrap_or_default(),
                idx: header.idx.ok_or_else(corrupt)?,
                channel: header.channel.ok_or_else(corrupt)?,
                value: Typed {
                    kind: header.kind,
                    data,
                },
            });
        }
        writes.sort_by(|a, b| {
            (&a.task_path, &a.task_id, a.idx).cmp(&(&b.task_path, &b.task_id, b.idx))
        });
        Ok(writes)
    }

    fn value(&self, tree: ObjectId, path: &str) -> Result<Option<(thread::ValueHeader, Typed)>> {
        let Some(bytes) = self.repo.blob_at(tree, path)? else {
            return Ok(None);
        };
        let (header, data) = thread::parse_value_file(&bytes, path)?;
        let value = Typed {
            kind: header.kind.clone(),
            data,
        };
        Ok(Some((header, value)))
    }

    /// Puts back the directory's files as they were at the root checkpoint `id`: the run
    /// commit of the first timeline entry whose metadata holds it.
    fn restore_files(&mut self, state: &RunState, id: &str) -> Result<()> {
        let Some(commit) = super::files::run_commit_of(self.repo, state, id)? else {
            return Ok(());
        };
        super::files::restore(self.repo, state, &self.config, commit, id)?;
        self.runs.states.remove(&state.id);
        Ok(())
    }
}

/// The checkpoint ids of a namespace, newest (greatest) first, with those that have only
/// pending writes so far.
pub(super) fn checkpoint_ids(store: &ThreadStore, tree: ObjectId, ns: &str) -> Result<Vec<String>> {
    let mut ids = decoded_names(store, tree, &thread::checkpoints_dir(ns))?;
    ids.reverse();
    Ok(ids)
}

/// The newest checkpoint of a namespace, the greatest id that has a record, with its record.
pub(super) fn newest_checkpoint(
    store: &ThreadStore,
    tree: ObjectId,
    ns: &str,
) -> Result<Option<(String, CheckpointRecord)>> {
    for id in checkpoint_ids(store, tree, ns)? {
        if let Some(record) = store.record(tree, ns, &id)? {
            return Ok(Some((id, record)));
        }
    }
    Ok(None)
}

/// The thread's namespaces, in order.
pub(super) fn namespaces(store: &ThreadStore, tree: ObjectId) -> Result<Vec<String>> {
    decoded_names(store, tree, NAMESPACES_DIR)
}

/// The names [`thread::encode`] made the entries of the folder `path`, in order (none when
/// there is no such folder).
fn decoded_names(store: &ThreadStore, tree: ObjectId, path: &str) -> Result<Vec<String>> {
    let Some(folder) = store.repo.entry_at(tree, path)? else {
        return Ok(Vec::new());
    };
    let mut names: Vec<String> = store
        .repo
        .list_tree(folder)?
        .into_iter()
        .filter_map(|entry| thread::decode(&entry.name))
        .collect();
    names.sort();
    Ok(names)
}

/// Whether each key of `filter` has the same value in `metadata`.
fn matches(metadata: &Map<String, Value>, filter: &Map<String, Value>) -> bool {
    filter
        .iter()
        .all(|(key, want)| metadata.get(key).unwrap_or(&Value::Null) == want)
}
