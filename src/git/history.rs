//! First-parent history walks over run branches, decoding only what a timeline needs: the
//! commit's parents, message and committer time. Commits come from gix's object store, or
//! first from a run's commit cache when the walk has one.

use gix::bstr::ByteSlice;

use super::commit_cache::{CommitCache, Learned};
use super::{ObjectId, Repo};
use crate::git::error::{Error, Result};

/// What a timeline reads from one commit.
#[derive(Clone, Debug)]
pub struct CommitInfo {
    pub id: ObjectId,
    pub tree: ObjectId,
    pub first_parent: Option<ObjectId>,
    pub message: Vec<u8>,
    /// Committer time, seconds since the epoch.
    pub time: i64,
}

impl CommitInfo {
    fn decode(id: ObjectId, commit: &gix::objs::CommitRef<'_>) -> Result<CommitInfo> {
        Ok(CommitInfo {
            id,
            tree: commit.tree(),
            first_parent: commit.parents().next(),
            message: commit.message.to_vec(),
            time: commit.time()?.seconds,
        })
    }
}

impl Repo {
    pub(crate) fn commit_info(&self, id: ObjectId) -> Result<CommitInfo> {
        let commit = self.repo.find_commit(id)?;
        CommitInfo::decode(id, &commit.decode()?)
    }

    /// The parents of commit `id`, in order.
    pub(crate) fn commit_parents(&self, id: ObjectId) -> Result<Vec<ObjectId>> {
        let commit = self.repo.find_commit(id)?;
        Ok(commit.decode()?.parents().collect())
    }

    /// Walks `tip` and its first parents, newest first.
    pub fn first_parents(&self, tip: ObjectId) -> FirstParentWalk<'_> {
        FirstParentWalk {
            repo: self,
            next: Some(tip),
            last: None,
            cache: None,
            learned: Learned::default(),
        }
    }
}

/// A first-parent walk, through a commit cache when it has one.
pub struct FirstParentWalk<'a> {
    repo: &'a Repo,
    next: Option<ObjectId>,
    /// The walk ends after this commit.
    last: Option<ObjectId>,
    /// Commits read by an earlier walk.
    cache: Option<&'a CommitCache>,
    /// The commits read from the object store because the cache lacked them.
    learned: Learned,
}

impl<'a> FirstParentWalk<'a> {
    /// The same walk, ending after commit `last` when it meets it.
    pub fn ending_after(self, last: Option<ObjectId>) -> FirstParentWalk<'a> {
        FirstParentWalk { last, ..self }
    }

    /// The same walk, reading the commits `cache` holds from it.
    pub fn cached_in(self, cache: &'a CommitCache) -> FirstParentWalk<'a> {
        FirstParentWalk {
            cache: Some(cache),
            ..self
        }
    }

    /// The commits this walk read from the object store that its cache lacked, for the cache
    /// to keep ([`CommitCache::save`]).
    pub fn learned(self) -> Learned {
        self.learned
    }

    /// Commit `id`, from the cache when it holds it, else from the object store.
    fn read(&mut self, id: ObjectId) -> Result<CommitInfo> {
        if let Some(content) = self.cache.and_then(|cache| cache.get(id)) {
            // What hashes to `id` is what the store holds: a record that does not decode would
            // not decode from the store either, which then says so.
            if let Ok(info) = decode(id, content) {
                return Ok(info);
            }
        }
        let commit = self.repo.repo.find_commit(id)?;
        if self.cache.is_some() {
            self.learned.add(id, &commit.data);
        }
        CommitInfo::decode(id, &commit.decode()?)
    }
}

/// What a timeline reads from commit `id`, whose content is `content`.
fn decode(id: ObjectId, content: &[u8]) -> Result<CommitInfo> {
    let commit = gix::objs::CommitRef::from_bytes(content, id.kind())
        .map_err(|err| Error::Corrupt(format!("commit {id} cannot be read: {err}")))?;
    CommitInfo::decode(id, &commit)
}

impl Iterator for FirstParentWalk<'_> {
    type Item = Result<CommitInfo>;

    fn next(&mut self) -> Option<Self::Item> {
        let id = self.next.take()?;
        let commit = self.read(id);
        if let Ok(commit) = &commit {
            self.next = commit.first_parent.filter(|_| self.last != Some(id));
        }
        Some(commit)
    }
}

impl Repo {
    /// Who wrote commit `id` and when (seconds since the epoch): where a record came from.
    pub(crate) fn commit_author(&self, id: ObjectId) -> Result<(super::Identity, i64)> {
        let commit = self.repo.find_commit(id)?;
        let author = commit.author()?;
        let who = super::Identity {
            name: author.name.to_str_lossy().into_owned(),
            email: author.email.to_str_lossy().into_owned(),
        };
        Ok((who, author.time()?.seconds))
    }

    /// The messages of the reflog of ref `name`, newest first; none when it keeps no reflog.
    pub(crate) fn reflog_messages(&self, name: &str) -> Vec<String> {
        let Ok(Some(reference)) = self.repo.try_find_reference(name) else {
            return Vec::new();
        };
        let mut platform = reference.log_iter();
        let Ok(Some(lines)) = platform.all() else {
            return Vec::new();
        };
        let mut messages: Vec<String> = lines
            .filter_map(|line| line.ok())
            .map(|line| line.message.to_str_lossy().into_owned())
            .collect();
        messages.reverse();
        messages
    }
}

/// Each trailer of a commit message, token and value, as `git interpret-trailers --parse`
/// reads them: the last paragraph of the body when git takes it for a trailer block, folded
/// values unfolded.
pub(crate) fn for_each_trailer(message: &[u8], mut each: impl FnMut(&str, &str)) {
    use gix::bstr::ByteSlice;
    let Some(body) = gix::objs::commit::MessageRef::from_bytes(message).body() else {
        return;
    };
    for trailer in body.trailers() {
        each(&trailer.token.to_str_lossy(), &trailer.value.to_str_lossy());
    }
}

impl Repo {
    /// Whether `ancestor` is `descendant` or reachable from it (false when either is missing).
    pub(crate) fn is_ancestor(&self, ancestor: ObjectId, descendant: ObjectId) -> bool {
        ancestor == descendant
            || self
                .repo
                .merge_base(ancestor, descendant)
                .is_ok_and(|base| base.is_some_and(|base| base.detach() == ancestor))
    }
}
