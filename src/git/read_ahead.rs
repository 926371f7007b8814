//! A first-parent walk read on a second thread. After `git gc`, most of a long walk's time
//! goes into finding and inflating each packed commit; decoding each commit and the caller's
//! own work on it (trailers, entries) then run beside that on another core, not after it.
//!
//! Commits cross in batches, few at first so that the caller starts at once, then more, so
//! that a walk of a thousand commits crosses threads a few dozen times, not a thousand. A
//! batch carries its commits' content in one buffer: memory one thread allocates and the
//! other frees takes the allocator's lock of the first, and a `Vec` per commit made the two
//! threads wait on that lock 250 times in a walk of a thousand commits.

use std::ops::Range;
use std::sync::mpsc;
use std::thread::Scope;

use super::history::{CommitInfo, decode};
use super::{CommitCache, Learned, ObjectId, Repo};
use crate::git::error::Result;

const FIRST_BATCH: usize = 4;
const LARGEST_BATCH: usize = 64;

/// The commits of a walk, in order, as the reading thread hands them over.
pub struct ReadAhead {
    batches: mpsc::Receiver<Batch>,
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

/// One commit read.
struct Read {
    id: ObjectId,
    cached: bool,
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
    /// `tip` and its first parents, newest first, read on a thread of `scope`, through `cache`
    /// as [`super::FirstParentWalk::cached_in`] reads. The walk ends after `last` when it
    /// meets it, and soon after the caller drops the iterator. The reading thread may read a
    /// batch further than the caller takes; [`ReadAhead::learned`] has only what it took.
    pub fn first_parents_ahead<'scope, 'env>(
        &self,
        tip: ObjectId,
        last: Option<ObjectId>,
        cache: Option<&'env CommitCache>,
        scope: &'scope Scope<'scope, 'env>,
    ) -> ReadAhead {
        let (sender, batches) = mpsc::channel();
        // The repository handle is not shared between threads; the reader gets its own.
        let repo = self.clone();
        scope.spawn(move || {
            let mut walk = match cache {
                Some(cache) => repo.first_parents(tip).cached_in(cache),
                None => repo.first_parents(tip),
            };
            let mut size = FIRST_BATCH;
            let mut batch = Batch::with_capacity(size);
            while let Some(id) = walk.next_content() {
                let end = id.as_ref().map_or(true, |id| Some(*id) == last);
                let start = batch.contents.len();
                let read = id.map(|id| Read {
                    id,
                    cached: walk.was_cached(),
                });
                if read.is_ok() {
                    batch.contents.extend_from_slice(walk.content());
                }
                batch.commits.push((read, start..batch.contents.len()));
                if end {
                    break;
                }
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
        ReadAhead {
            batches,
            commits: Vec::new().into_iter(),
            contents: Vec::new(),
            learned: Learned::default(),
        }
    }
}

impl ReadAhead {
    /// The commits handed on that were not in the commit cache, for it to keep.
    pub fn learned(self) -> Learned {
        self.learned
    }
}

impl Iterator for ReadAhead {
    type Item = Result<CommitInfo>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((read, content)) = self.commits.next() {
                return Some(read.and_then(|read| {
                    let content = &self.contents[content];
                    if !read.cached {
                        self.learned.add(read.id, content);
                    }
                    decode(read.id, content)
                }));
            }
            let batch = self.batches.recv().ok()?;
            self.commits = batch.commits.into_iter();
            self.contents = batch.contents;
        }
    }
}
