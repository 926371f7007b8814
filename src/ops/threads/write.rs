//! Writing a thread: a checkpoint (`put`) and a task's pending writes (`put_writes`).

use serde_json::{Map, Value};

use super::ThreadStore;
use crate::error::{Error, Result};
use crate::format::node::{NodeId, StageStatus};
use crate::format::store_protocol::{Put, PutWrites, Typed};
use crate::format::thread::{
    self, CHECKPOINT_FILE, CheckpointRecord, RECORD_FILE, THREAD_DIR, ValueHeader, WRITES_DIR,
};
use crate::git::ObjectId;
use crate::ops::checkpoint::{CheckpointRequest, checkpoint};
use crate::ops::lifecycle;
use crate::run::RunState;
use crate::run::workspace::Workspace;

impl ThreadStore<'_> {
    /// Stores a checkpoint; one the namespace holds already is replaced.
    pub fn put(&mut self, put: &Put) -> Result<()> {
        check_put(put)?;
        self.writing(&put.thread, true, |store, state| store.put_once(state, put))
    }

    /// Stores a task's pending writes at a checkpoint. LangGraph may send them before the
    /// checkpoint itself (its "async" durability), so the thread and the checkpoint need not
    /// exist yet: the writes wait in the checkpoint's folder.
    pub fn put_writes(&mut self, writes: &PutWrites) -> Result<()> {
        for (what, name) in [
            ("thread", &writes.thread),
            ("namespace", &writes.ns),
            ("checkpoint id", &writes.checkpoint_id),
            ("task id", &writes.task_id),
            ("task path", &writes.task_path),
        ] {
            thread::check_name(what, name)?;
        }
        for write in &writes.writes {
            thread::check_name("channel", &write.channel)?;
            thread::check_type(&write.value.kind)?;
        }
        self.writing(&writes.thread, true, |store, state| {
            store.put_writes_once(state, writes)
        })
    }

    fn put_once(&mut self, state: &RunState, put: &Put) -> Result<()> {
        let mut tree = self.edit_thread(state)?;
        let dir = thread::checkpoint_dir(&put.ns, &put.checkpoint_id);
        let record = CheckpointRecord {
            checkpoint_id: put.checkpoint_id.clone(),
            parent_id: put.parent_id.clone(),
            metadata: put.metadata.clone(),
            channel_versions: put.channel_versions.clone(),
        };
        let record =
            serde_json::to_vec_pretty(&record).map_err(|err| Error::Usage(err.to_string()))?;
        tree.put_file(&format!("{dir}/{RECORD_FILE}"), &record)?;
        tree.put_file(
            &format!("{dir}/{CHECKPOINT_FILE}"),
            &value_file(ValueHeader::default(), &put.checkpoint)?,
        )?;
        for blob in &put.blobs {
            let path = thread::channel_path(&put.ns, &blob.channel, &blob.version);
            tree.put_file(&path, &value_file(ValueHeader::default(), &blob.value)?)?;
        }
        let thread_tree = tree.write()?;
        if !put.ns.is_empty() {
            let subject = format!("thread checkpoint {} in {}", put.checkpoint_id, put.ns);
            return self.commit_thread(state, thread_tree, &subject);
        }
        self.checkpoint_run(state, put, thread_tree)
    }

    /// A root namespace's checkpoint as a checkpoint of the run: the run commit holds the
    /// directory's files (with `--track-files`) or the files it had.
    fn checkpoint_run(&mut self, state: &RunState, put: &Put, thread_tree: ObjectId) -> Result<()> {
        let request = CheckpointRequest {
            notes: Some(format!(
                "checkpoint {} of thread {}",
                put.checkpoint_id, put.thread
            )),
            unchanged_files: !self.track_files,
            meta_trees: vec![(THREAD_DIR.into(), thread_tree)],
            ..CheckpointRequest::by_hand(
                stage_node(&put.metadata),
                StageStatus::Succeeded,
                vec![],
                vec![],
            )
        };
        let workspace = match self.track_files {
            true => {
                Some(Workspace::find(self.repo, &state.id)?.ok_or_else(|| state.no_workspace())?)
            }
            false => None,
        };
        let done = checkpoint(
            self.repo,
            workspace.as_ref(),
            state,
            &self.config,
            &request,
            None,
        )?;
        self.runs.states.insert(state.id.clone(), done.state);
        Ok(())
    }

    fn put_writes_once(&mut self, state: &RunState, writes: &PutWrites) -> Result<()> {
        let thread_tree = self.thread_tree(state)?;
        let dir = thread::checkpoint_dir(&writes.ns, &writes.checkpoint_id);
        let mut tree = self.repo.edit_tree(thread_tree)?;
        for write in &writes.writes {
            let path = format!(
                "{dir}/{WRITES_DIR}/{}",
                thread::write_name(&writes.task_id, write.idx)
            );
            // A special channel's write (a negative index) replaces; any other is kept.
            if write.idx >= 0 && self.repo.entry_at(thread_tree, &path)?.is_some() {
                continue;
            }
            let header = ValueHeader {
                task_id: Some(writes.task_id.clone()),
                task_path: Some(writes.task_path.clone()),
                idx: Some(write.idx),
                channel: Some(write.channel.clone()),
                ..ValueHeader::default()
            };
            tree.put_file(&path, &value_file(header, &write.value)?)?;
        }
        let subject = format!(
            "thread writes of task {} at {}",
            writes.task_id, writes.checkpoint_id
        );
        self.commit_thread(state, tree.write()?, &subject)
    }

    /// Commits the thread's new folder on the metadata branch alone; nothing when unchanged.
    pub(super) fn commit_thread(
        &mut self,
        state: &RunState,
        thread_tree: ObjectId,
        subject: &str,
    ) -> Result<()> {
        if thread_tree == self.thread_tree(state)? {
            return Ok(());
        }
        let mut tree = self.repo.edit_tree(state.meta_tree)?;
        tree.put_tree(THREAD_DIR, thread_tree)?;
        lifecycle::commit_meta_tree(self.repo, state, tree.write()?, subject, &self.config)?;
        self.runs.states.remove(&state.id);
        Ok(())
    }
}

fn check_put(put: &Put) -> Result<()> {
    thread::check_name("thread", &put.thread)?;
    thread::check_name("namespace", &put.ns)?;
    thread::check_name("checkpoint id", &put.checkpoint_id)?;
    thread::check_type(&put.checkpoint.kind)?;
    if let Some(parent) = &put.parent_id {
        thread::check_name("parent id", parent)?;
    }
    for (channel, version) in &put.channel_versions {
        thread::check_name("channel", channel)?;
        thread::check_name("version", version)?;
    }
    for blob in &put.blobs {
        thread::check_name("channel", &blob.channel)?;
        thread::check_name("version", &blob.version)?;
        thread::check_type(&blob.value.kind)?;
    }
    Ok(())
}

fn value_file(header: ValueHeader, value: &Typed) -> Result<Vec<u8>> {
    let header = ValueHeader {
        kind: value.kind.clone(),
        ..header
    };
    thread::value_file(&header, &value.data)
}

/// The stage a checkpoint is in the run's timeline: `step<N>` for LangGraph's step N, `input`
/// for the checkpoint of a graph's input (step -1), else `checkpoint`.
fn stage_node(metadata: &Map<String, Value>) -> NodeId {
    let name = match metadata.get("step").and_then(Value::as_i64) {
        Some(step) if step >= 0 => format!("step{step}"),
        Some(_) => "input".into(),
        None => "checkpoint".into(),
    };
    NodeId::parse(&name).unwrap_or_else(|_| NodeId::parse("checkpoint").expect("a valid node id"))
}
