//! A first-parent walk that, once it proves long, goes on reading on a second thread. After
//! `git gc`, most of a long walk's time goes into finding and inflating each packed commit;
//! decoding each commit and the caller's own work on it (trailers, entries) then run beside
//! that on another core, not after it.
//!
//! The first commits are read on the caller's thread: most walks are a few commits long, and
//! a thread costs more than they do (`status` over 167 runs took 45 ms, and 71 ms with a
//! thread per walk). Past that, commits cross in batches, few at first so that the caller
//! waits little, then more, so that a walk of a thousand commits crosses threads a few dozen
//! times, not a thousand. A batch carries its commits' content in one buffer: memory one
//! thread allocates and the other frees takes the allocator's lock of the first, and a `Vec`
//! per commit made the two threads wait on that lock 250 times in a walk of a thousand.

use std::ops::Range;
use std::sync::mpsc;
use std::thread::Scope;

use super::history::{CommitInfo, FirstParentWalk, Read, decode};
use super::{CommitCache, Learned, ObjectId, Repo};
use crate::git::error::Result;

/// Commits read on the caller's thread before the rest of the walk moves to another.
const READ_HERE: usize = 64;
const FIRST_BATCH: usize = 8;
const LARGEST_BATCH: usize = 64;

/// The commits of a walk, in order.
pub struct ReadAhead<'scope, 'env> {
    scope: &'scope Scope<'scope, 'env>,
    repo: &'env Repo,
    cache: Option<&'env CommitCache>,
    last: Option<ObjectId>,
    /// The walk while it runs on this thread.
    here: Option<FirstParentWalk<'env>>,
    read_here: usize,
    /// The batches of the reading thread, once it runs.
    batches: Option<mpsc::Receiver<Batch>>,
    commits: std::vec::IntoIter<(Result<Read>, Range<usize>)>,
    contents: Vec<u8>,
    /// The commits handed on that the commit cache lacked.
    learned: Learned,
}

/// Commits read one after the other, each with where its content lies in `contents`.
struct Batch {
    commits: Vec<(Result<Read>, Range<usize>)>,
    contents: Vec<u8>,
}

impl Batch {
    fn with_capacity(commits: usize) -> Batch {
        Batch {
            commits: Vec::with_capacity(commits),
            contents: Vec::with_capacity(commits * 512),
        }
    }
}

impl Repo {
    /// `tip` and its first parents, newest first, through `cache` as
    /// [`FirstParentWalk::cached_in`] reads, on a thread of `scope` past the first commits.
    /// The walk ends after `last` when it meets it. The reading thread may read a batch
    /// further than the caller takes; [`ReadAhead::learned`] has only what it took.
    pub fn first_parents_ahead<'scope, 'env>(
        &'env self,
        tip: ObjectId,
        last: Option<ObjectId>,
        cache: Option<&'env CommitCache>,
        scope: &'scope Scope<'scope, 'env>,
    ) -> ReadAhead<'scope, 'env> {
        ReadAhead {
            scope,
            repo: self,
            cache,
            last,
            here: Some(walk(self, tip, last, cache)),
            read_here: 0,
            batches: None,
            commits: Vec::new().into_iter(),
            contents: Vec::new(),
            learned: Learned::default(),
        }
    }
}

fn walk<'a>(
    repo: &'a Repo,
    tip: ObjectId,
    last: Option<ObjectId>,
    cache: Option<&'a CommitCache>,
) -> FirstParentWalk<'a> {
    let walk = repo.first_parents(tip).ending_after(last);
    match cache {
        Some(cache) => walk.cached_in(cache),
        None => walk,
    }
}

impl ReadAhead<'_, '_> {
    /// The commits handed on that were not in the commit cache, for it to keep.
    pub fn learned(self) -> Learned {
        self.learned
    }

    /// The next commit, read on this thread; `None` once the walk moved to another thread or
    /// ended.
    fn next_here(&mut self) -> Option<Result<CommitInfo>> {
        let walk = self.here.as_mut()?;
        if self.read_here == READ_HERE {
            let rest = walk.pending();
            self.here = None;
            self.batches = rest.map(|tip| self.read_on_a_thread(tip));
            return None;
        }
        self.read_here += 1;
        let Some(read) = walk.next_content() else {
            self.here = None;
            return None;
        };
        Some(read.and_then(|read| hand_on(&mut self.learned, read, walk.content())))
    }

    /// The walk from `tip` on, read on a thread of the scope.
    fn read_on_a_thread(&self, tip: ObjectId) -> mpsc::Receiver<Batch> {
        let (sender, batches) = mpsc::channel();
        // The repository handle is not shared between threads; the reader gets its own.
        let repo = self.repo.clone();
        let (last, cache) = (self.last, self.cache);
        self.scope.spawn(move || {
            let mut walk = walk(&repo, tip, last, cache);
            let mut size = FIRST_BATCH;
            let mut batch = Batch::with_capacity(size);
            while let Some(read) = walk.next_content() {
                let start = batch.contents.len();
                if read.is_ok() {
                    batch.contents.extend_from_slice(walk.content());
                }
                batch.commits.push((read, start..batch.contents.len()));
                if batch.commits.len() == size {
                    size = (size * 2).min(LARGEST_BATCH);
                    let full = std::mem::replace(&mut batch, Batch::with_capacity(size));
                    if sender.send(full).is_err() {
                        return; // the caller has all it wanted
                    }
                }
            }
            let _ = sender.send(batch);
        });
        batches
    }
}

impl Iterator for ReadAhead<'_, '_> {
    type Item = Result<CommitInfo>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(commit) = self.next_here() {
            return Some(commit);
        }
        loop {
            if let Some((read, content)) = self.commits.next() {
                let content = &self.contents[content];
                return Some(read.and_then(|read| hand_on(&mut self.learned, read, content)));
            }
            let batch = self.batches.as_ref()?.recv().ok()?;
            self.commits = batch.commits.into_iter();
            self.contents = batch.contents;
        }
    }
}

/// Commit `read`, whose content is `content`, decoded for the caller; kept in `learned` when
/// the commit cache lacked it.
fn hand_on(learned: &mut Learned, read: Read, content: &[u8]) -> Result<CommitInfo> {
    if !read.cached {
        learned.add(read.id, content);
    }
    decode(read.id, content)
}
