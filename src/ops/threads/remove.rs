//! Taking checkpoints out of threads, and copying a thread. Deleting a thread archives its run
//! and collects it as `gc` does, so that no ref of it is left; `delete_for_runs` and `prune`
//! take checkpoints out of the thread as it now stands (its history keeps them until the
//! thread is deleted). Copying a thread forks its run.

use std::collections::BTreeSet;

use serde_json::Value;

use super::ThreadStore;
use super::read::{checkpoint_ids, namespaces, newest_checkpoint};
use crate::error::{Error, Result};
use crate::format::run_id::RunId;
use crate::format::thread::{self, THREAD_DIR, THREAD_LABEL};
use crate::format::{fabro, message};
use crate::git::{ObjectId, RefEdit};
use crate::ops::{fork, gc, lifecycle};
use crate::run::workspace::{self, Workspace};
use crate::run::{self, RUN_JSON, RunState, timeline};

impl ThreadStore<'_> {
    /// Deletes a thread: nothing of it is left; a thread that does not exist is no error.
    pub fn delete_thread(&mut self, thread: &str) -> Result<()> {
        self.writing(thread, false, |store, state| store.delete_run(state))
    }

    /// Takes out every checkpoint whose metadata's `run_id` is one of `run_ids`, with its
    /// pending writes, in every thread and namespace.
    pub fn delete_for_runs(&mut self, run_ids: &[String]) -> Result<()> {
        if run_ids.is_empty() {
            return Ok(());
        }
        let doomed: BTreeSet<&str> = run_ids.iter().map(String::as_str).collect();
        self.refresh()?;
        let threads: Vec<String> = self.runs.threads.keys().cloned().collect();
        for thread in threads {
            self.writing(&thread, false, |store, state| {
                store.take_out(
                    state,
                    "thread checkpoints of deleted runs",
                    |_, _, record| {
                        let run_id = record.metadata.get("run_id").and_then(Value::as_str);
                        run_id.is_some_and(|id| doomed.contains(id))
                    },
                )
            })?;
        }
        Ok(())
    }

    /// `keep_latest`: each namespace of each thread keeps only its newest checkpoint;
    /// `delete`: the threads are deleted.
    pub fn prune(&mut self, threads: &[String], strategy: &str) -> Result<()> {
        let keep_latest = match strategy {
            "keep_latest" => true,
            "delete" => false,
            other => {
                return Err(Error::Usage(format!(
                    "unknown prune strategy {other:?}; the strategies are keep_latest and delete"
                )));
            }
        };
        for thread in threads {
            match keep_latest {
                true => self.writing(thread, false, |store, state| store.keep_latest(state))?,
                false => self.delete_thread(thread)?,
            }
        }
        Ok(())
    }

    /// Makes `target` a copy of `source`: a fork of its run at its newest checkpoint, holding
    /// every checkpoint and pending write the source holds. A source that does not exist
    /// copies nothing; a target that holds checkpoints is refused.
    pub fn copy_thread(&mut self, source: &str, target: &str) -> Result<()> {
        thread::check_name("thread", target)?;
        if let Some(existing) = self.find(target)? {
            if self.thread_tree(&existing)? != self.repo.empty_tree() {
                return Err(Error::Usage(format!(
                    "thread {target} holds checkpoints: a copy goes to a new thread; delete {target} first to replace it"
                )));
            }
            self.delete_run(&existing)?;
        }
        let Some(state) = self.find(source)? else {
            return Ok(());
        };
        let subject = format!("thread copied from {}", state.id);
        let entries = timeline::timeline(self.repo, &state)?;
        let Some(entry) = entries.last() else {
            // No root checkpoint to fork at: a new thread takes the source's namespaces.
            let copied = self.thread_tree(&state)?;
            return self.writing(target, true, |store, new| {
                store.commit_thread(new, copied, &subject)
            });
        };
        let id = RunId::mint();
        let from = fork::source_of(&state.id, entry);
        let mut edits = fork::prepare(self.repo, &id, &state, &from, &self.config)?;
        for edit in &mut edits {
            if let RefEdit::Create { new, .. } = edit {
                *new = self.copied_root(&state, &id, target, *new, &subject)?;
            }
        }
        self.repo
            .update_refs(&edits, "fabro: copy thread", &self.config.identity)?;
        self.refresh()
    }

    /// The commit on the fork's `root` that makes it the copy: the source's whole thread, and
    /// the target's label and goal (the fork took the source's).
    fn copied_root(
        &self,
        source: &RunState,
        id: &RunId,
        target: &str,
        root: ObjectId,
        subject: &str,
    ) -> Result<ObjectId> {
        let tree = self.repo.commit_tree(root)?;
        let mut record = run::read_record(self.repo, tree, &root.to_string())?;
        let spec = &mut record.spec;
        spec.labels.insert(THREAD_LABEL.into(), target.into());
        let goal = super::goal(target);
        spec.graph = fabro::empty_graph("", Some(&goal));
        spec.goal = Some(goal);
        let mut edit = self.repo.edit_tree(tree)?;
        edit.put_file(RUN_JSON, &record.to_json()?)?;
        edit.put_tree(THREAD_DIR, self.thread_tree(source)?)?;
        let message = message::meta_commit(subject, id, None);
        Ok(self
            .repo
            .write_commit(edit.write()?, &[root], &message, &self.config.identity)?)
    }

    /// Archives and collects the run of a thread, with its in-place registration.
    pub(super) fn delete_run(&mut self, state: &RunState) -> Result<()> {
        let state = match lifecycle::archive(self.repo, state, &self.config)? {
            true => RunState::load(self.repo, &state.id)?,
            false => state.clone(),
        };
        let in_place = Workspace::find(self.repo, &state.id)?
            .is_some_and(|ws| ws.place == workspace::Place::InPlace);
        let collected = gc::collect_one(self.repo, &state, &self.config)?;
        if let Some(kept) = collected.kept.first() {
            return Err(Error::Usage(format!(
                "thread run {} was archived but kept: {}",
                kept.run_id, kept.reason
            )));
        }
        if in_place {
            workspace::unregister(self.repo, &state.id);
        }
        self.runs.states.remove(&state.id);
        self.runs.labels.remove(&state.id);
        self.refresh()
    }

    fn keep_latest(&mut self, state: &RunState) -> Result<()> {
        let tree = self.thread_tree(state)?;
        let mut newest = BTreeSet::new();
        for ns in namespaces(self, tree)? {
            if let Some((id, _)) = newest_checkpoint(self, tree, &ns)? {
                newest.insert((ns, id));
            }
        }
        self.take_out(
            state,
            "thread pruned to its newest checkpoints",
            |ns, id, _| !newest.contains(&(ns.to_owned(), id.to_owned())),
        )
    }

    /// Takes out each checkpoint whose record `doomed` picks, with its writes.
    fn take_out(
        &mut self,
        state: &RunState,
        subject: &str,
        doomed: impl Fn(&str, &str, &thread::CheckpointRecord) -> bool,
    ) -> Result<()> {
        let tree = self.thread_tree(state)?;
        let mut edit = self.repo.edit_tree(tree)?;
        for ns in namespaces(self, tree)? {
            for id in checkpoint_ids(self, tree, &ns)? {
                let Some(record) = self.record(tree, &ns, &id)? else {
                    continue; // pending writes waiting for their checkpoint
                };
                if doomed(&ns, &id, &record) {
                    edit.remove(thread::checkpoint_dir(&ns, &id))?;
                }
            }
        }
        self.commit_thread(state, edit.write()?, subject)
    }
}
