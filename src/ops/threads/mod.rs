//! A store of threads: the checkpoints an agent framework's checkpointer (LangGraph's) writes,
//! kept in git (FORMAT.md, "Threads"). A thread is a run labelled with its thread id. Each
//! checkpoint of its root namespace is a checkpoint of the run, a run commit and a metadata
//! commit, so that `log`, `diff`, `restore` and `land` work on the thread as on any run; every
//! other write is a metadata commit. Every write is a compare-and-swap, tried again on the
//! thread as it then stands when another writer moved it first.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

use crate::config::Config;
use crate::error::{Error, Result, exit};
use crate::format::run_id::RunId;
use crate::format::thread::{THREAD_DIR, THREAD_LABEL};
use crate::git::flock::Flock;
use crate::git::{ObjectId, Repo, TreeEdit};
use crate::ops::start::{Checkout, StartRequest, start};
use crate::run::{self, RunState, read_record};

mod files;
mod read;
mod remove;
mod write;

/// How often a write is tried on a thread that another writer keeps moving.
const TRIES: u32 = 8;
/// How long a write waits for another store of this clone writing the same thread.
const LOCK_WAIT: Duration = Duration::from_secs(30);

pub struct ThreadStore<'r> {
    repo: &'r Repo,
    home: PathBuf,
    config: Config,
    /// Each checkpoint of a root namespace also records the directory's files.
    track_files: bool,
    runs: Runs,
}

/// Which run holds each thread: every run's label is read once, and a thread is its oldest
/// run's (two writers that started one thread at once keep the older run; see `create`).
#[derive(Default)]
struct Runs {
    /// Each run read so far, and the thread it holds, if any.
    labels: HashMap<RunId, Option<String>>,
    threads: BTreeMap<String, RunId>,
    /// The last state read of each thread's run, used while its branches stay where they were.
    states: HashMap<RunId, RunState>,
}

impl<'r> ThreadStore<'r> {
    pub fn open(repo: &'r Repo, home: PathBuf, track_files: bool) -> Result<ThreadStore<'r>> {
        let config = Config::load(repo, &home, None)?;
        Ok(ThreadStore {
            repo,
            home,
            config,
            track_files,
            runs: Runs::default(),
        })
    }

    pub fn track_files(&self) -> bool {
        self.track_files
    }

    /// The run of `thread` as it stands, if the thread exists.
    fn find(&mut self, thread: &str) -> Result<Option<RunState>> {
        if !self.runs.threads.contains_key(thread) {
            self.refresh()?;
        }
        let Some(id) = self.runs.threads.get(thread).cloned() else {
            return Ok(None);
        };
        if let Some(state) = self.runs.states.get(&id)
            && state.is_current(self.repo)?
        {
            return Ok(Some(state.clone()));
        }
        match RunState::load(self.repo, &id) {
            Ok(state) => {
                self.runs.states.insert(id, state.clone());
                Ok(Some(state))
            }
            // Deleted by another process since: the thread may live on in another run.
            Err(Error::RunNotFound(_)) => {
                self.refresh()?;
                match self.runs.threads.get(thread).cloned() {
                    Some(id) => RunState::load(self.repo, &id).map(Some),
                    None => Ok(None),
                }
            }
            Err(err) => Err(err),
        }
    }

    /// Reads the labels of the runs not read yet, and forgets the runs that are gone.
    fn refresh(&mut self) -> Result<()> {
        let listed = run::list(self.repo)?;
        let mut threads = BTreeMap::new();
        let mut present = HashSet::new();
        for (id, tip) in listed {
            let thread = match self.runs.labels.get(&id) {
                Some(thread) => thread.clone(),
                None => match thread_label(self.repo, tip) {
                    Some(thread) => {
                        self.runs.labels.insert(id.clone(), thread.clone());
                        thread
                    }
                    // Unreadable now (collected meanwhile, say): read again next time.
                    None => continue,
                },
            };
            if let Some(thread) = thread {
                threads.entry(thread).or_insert_with(|| id.clone());
            }
            present.insert(id);
        }
        self.runs.labels.retain(|id, _| present.contains(id));
        self.runs.states.retain(|id, _| present.contains(id));
        self.runs.threads = threads;
        Ok(())
    }

    /// A new run for `thread`. When another writer started the same thread at the same time,
    /// the older run is the thread and this one, still empty, is deleted again.
    fn create(&mut self, thread: &str) -> Result<RunState> {
        let checkout = match self.track_files {
            true => Checkout::InPlace,
            false => Checkout::Elsewhere,
        };
        let request = StartRequest {
            goal: Some(goal(thread)),
            labels: vec![(THREAD_LABEL.into(), thread.into())],
            checkout,
            ..StartRequest::default()
        };
        let started = start(self.repo, &self.home, &request)?;
        let id = RunId::parse(&started.run_id)?;
        self.refresh()?;
        let state = RunState::load(self.repo, &id)?;
        if self.runs.threads.get(thread) != Some(&id) {
            self.delete_run(&state)?;
            return self.find(thread)?.ok_or_else(|| {
                Error::Conflict(format!("thread {thread} was deleted as it was started"))
            });
        }
        Ok(state)
    }

    /// Runs `write` on the thread as it stands, again while another writer moved it first.
    /// With `create`, a thread that does not exist is started; without, nothing is done.
    /// The stores of one clone take turns on a thread (a lock the kernel lets go of when its
    /// holder dies); a writer from elsewhere (another clone's push, `restore`) is met by the
    /// compare-and-swap, and the write is tried again on what it wrote.
    fn writing(
        &mut self,
        thread: &str,
        create: bool,
        mut write: impl FnMut(&mut Self, &RunState) -> Result<()>,
    ) -> Result<()> {
        let _turn = self.turn(thread)?;
        for attempt in 0..TRIES {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(1 << attempt));
            }
            let state = match (self.find(thread)?, create) {
                (Some(state), _) => state,
                (None, true) => self.create(thread)?,
                (None, false) => return Ok(()),
            };
            match write(self, &state) {
                // Another writer moved the thread, or a `git gc` packed an object being read.
                Err(err) if err.exit_code() == exit::CONFLICT || err.is_vanished_object() => {
                    self.runs.states.remove(&state.id);
                }
                done => return done,
            }
        }
        Err(Error::Conflict(format!(
            "thread {thread} moved under this write {TRIES} times running; nothing of it was recorded"
        )))
    }

    /// This clone's lock on writing `thread`, waited for while another store holds it.
    fn turn(&self, thread: &str) -> Result<Flock> {
        let name = crate::ops::start::sha256_hex(thread.as_bytes());
        let path = self
            .repo
            .common_dir()
            .join("fabro/threads")
            .join(format!("{name}.lock"));
        Flock::acquire_making_dir(&path, LOCK_WAIT)
            .map_err(Error::io(format!("cannot lock {}", path.display())))?
            .ok_or_else(|| {
                Error::Busy(format!(
                    "another store has been writing thread {thread} for {} s",
                    LOCK_WAIT.as_secs()
                ))
            })
    }

    /// The thread's folder of `state`'s metadata tree, to edit (empty for a new thread).
    fn edit_thread<'s>(&'s self, state: &RunState) -> Result<TreeEdit<'s>> {
        Ok(self.repo.edit_tree(self.thread_tree(state)?)?)
    }

    fn thread_tree(&self, state: &RunState) -> Result<ObjectId> {
        Ok(self
            .repo
            .entry_at(state.meta_tree, THREAD_DIR)?
            .unwrap_or_else(|| self.repo.empty_tree()))
    }
}

/// What `ps` says a thread's run is for.
fn goal(thread: &str) -> String {
    format!("checkpoints of thread {thread}")
}

/// The thread a run at metadata tip `tip` holds, `Some(None)` for a run that is no thread, and
/// `None` when the run cannot be read.
fn thread_label(repo: &Repo, tip: ObjectId) -> Option<Option<String>> {
    let tree = repo.commit_tree(tip).ok()?;
    let record = read_record(repo, tree, &tip.to_string()).ok()?;
    Some(record.spec.labels.get(THREAD_LABEL).cloned())
}
