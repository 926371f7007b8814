//! First-parent history walks over run branches, decoding only what a timeline needs: the
//! commit's parents, message and committer time.

use super::{ObjectId, Repo};
use crate::error::Result;

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

impl Repo {
    pub fn commit_info(&self, id: ObjectId) -> Result<CommitInfo> {
        let commit = self.repo.find_commit(id)?;
        let decoded = commit.decode()?;
        Ok(CommitInfo {
            id,
            tree: decoded.tree(),
            first_parent: decoded.parents().next(),
            message: decoded.message.to_vec(),
            time: decoded.time()?.seconds,
        })
    }

    /// Walks `tip` and its first parents, newest first.
    pub fn first_parents(&self, tip: ObjectId) -> FirstParentWalk<'_> {
        FirstParentWalk {
            repo: self,
            next: Some(tip),
        }
    }
}

pub struct FirstParentWalk<'repo> {
    repo: &'repo Repo,
    next: Option<ObjectId>,
}

impl Iterator for FirstParentWalk<'_> {
    type Item = Result<CommitInfo>;

    fn next(&mut self) -> Option<Self::Item> {
        let id = self.next.take()?;
        let info = self.repo.commit_info(id);
        if let Ok(info) = &info {
            self.next = info.first_parent;
        }
        Some(info)
    }
}
