//! Blobs, commits and tree reads. Commits are written as plain objects, never through a
//! porcelain path, so no hook runs and nothing is signed.

use std::io::Read;
use std::path::Path;

use gix::bstr::ByteSlice;
use gix::objs::Write as _;

use super::{ObjectId, Repo};
use crate::git::error::{Error, Result};

/// The author and committer of git-fabro's commits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub email: String,
}

impl Identity {
    /// Signed now, in UTC: git-fabro's records say when, not where.
    pub(super) fn signature_now(&self) -> gix::actor::Signature {
        gix::actor::Signature {
            name: self.name.as_str().into(),
            email: self.email.as_str().into(),
            time: gix::date::Time {
                seconds: jiff::Timestamp::now().as_second(),
                offset: 0,
            },
        }
    }
}

/// One entry of a tree listing.
#[derive(Clone, Debug)]
pub(crate) struct TreeEntry {
    pub name: String,
    pub id: ObjectId,
    pub is_tree: bool,
}

impl Repo {
    /// Writes `data` as a blob unless the repository has it already.
    pub(crate) fn write_blob(&self, data: &[u8]) -> Result<ObjectId> {
        let id = super::maintenance::retry_write(|| self.repo.write_blob(data))?;
        Ok(id.detach())
    }

    /// Writes a tree or commit unless the repository has it already.
    pub(super) fn write_object(&self, object: &impl gix::objs::WriteTo) -> Result<ObjectId> {
        let id = super::maintenance::retry_write(|| self.repo.write_object(object))?;
        Ok(id.detach())
    }

    pub fn write_commit(
        &self,
        tree: ObjectId,
        parents: &[ObjectId],
        message: &str,
        who: &Identity,
    ) -> Result<ObjectId> {
        let signature = who.signature_now();
        let commit = gix::objs::Commit {
            tree,
            parents: parents.iter().copied().collect(),
            author: signature.clone(),
            committer: signature,
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        let id = self.write_object(&commit)?;
        super::maintenance::note_written();
        Ok(id)
    }

    /// The empty tree, written, so that a commit of it can be pushed to any remote.
    pub(crate) fn write_empty_tree(&self) -> Result<ObjectId> {
        self.write_object(&gix::objs::Tree::empty())
    }

    pub fn empty_tree(&self) -> ObjectId {
        ObjectId::empty_tree(self.repo.object_hash())
    }

    /// The tree of a commit.
    pub(crate) fn commit_tree(&self, commit: ObjectId) -> Result<ObjectId> {
        Ok(self.repo.find_commit(commit)?.tree_id()?.detach())
    }

    /// The blob at `path` (slash-separated) inside `tree`, or `None` when there is none.
    pub(crate) fn blob_at(&self, tree: ObjectId, path: &str) -> Result<Option<Vec<u8>>> {
        let tree = self.repo.find_tree(tree)?;
        let Some(entry) = tree.lookup_entry_by_path(path)? else {
            return Ok(None);
        };
        if !entry.mode().is_blob() {
            return Ok(None);
        }
        Ok(Some(self.repo.find_blob(entry.object_id())?.data.clone()))
    }

    /// The id of the entry at `path` inside `tree`, if it exists.
    pub(crate) fn entry_at(&self, tree: ObjectId, path: &str) -> Result<Option<ObjectId>> {
        let tree = self.repo.find_tree(tree)?;
        Ok(tree.lookup_entry_by_path(path)?.map(|e| e.object_id()))
    }

    /// The entries of the tree `id`, in git's order.
    pub(crate) fn list_tree(&self, id: ObjectId) -> Result<Vec<TreeEntry>> {
        let tree = self.repo.find_tree(id)?;
        let decoded = tree.decode()?;
        Ok(decoded
            .entries
            .iter()
            .map(|e| TreeEntry {
                name: e.filename.to_str_lossy().into_owned(),
                id: e.oid.to_owned(),
                is_tree: e.mode.is_tree(),
            })
            .collect())
    }

    pub(crate) fn read_blob(&self, id: ObjectId) -> Result<Vec<u8>> {
        Ok(self.repo.find_blob(id)?.data.clone())
    }

    /// The size of object `id`, from its header alone: a record found in a repository can be
    /// refused for its size before it is read into memory.
    pub(crate) fn object_size(&self, id: ObjectId) -> Result<u64> {
        Ok(self.repo.find_header(id)?.size())
    }

    /// Like [`Repo::blob_at`], for a file another clone may have written: one over `limit`
    /// bytes is refused from its header, unread.
    pub(crate) fn blob_at_most(
        &self,
        tree: ObjectId,
        path: &str,
        limit: u64,
    ) -> Result<Option<Vec<u8>>> {
        let Some(id) = self.entry_at(tree, path)? else {
            return Ok(None);
        };
        let size = self.object_size(id)?;
        if size > limit {
            return Err(Error::Corrupt(format!(
                "{path} on the metadata branch is {size} bytes, over the {} MiB git-fabro reads",
                limit >> 20
            )));
        }
        self.blob_at(tree, path)
    }
}

/// Files up to this size are read whole, so that a blob the repository already has (an empty
/// log, an unchanged file) is not written again: each loose object is a new file on disk.
const READ_WHOLE: u64 = 1 << 20;

/// Streams the file at `path` into the object database as a blob. The blob's size goes in its
/// header before its bytes, so a file that shrinks while it is read fails the write (the object
/// is never finalized) instead of storing a blob that disagrees with its header; bytes appended
/// meanwhile are left out.
pub(super) fn write_file_blob(repo: &Repo, path: &Path) -> Result<ObjectId> {
    super::maintenance::retry_write(|| {
        let file = std::fs::File::open(path)
            .map_err(Error::io(format!("cannot store {}", path.display())))?;
        write_opened_file_blob(repo, file, path)
    })
}

/// [`write_file_blob`] for `file`, already open at `path`.
pub(super) fn write_opened_file_blob(
    repo: &Repo,
    file: std::fs::File,
    path: &Path,
) -> Result<ObjectId> {
    let context = || format!("cannot store {}", path.display());
    let size = file.metadata().map_err(Error::io(context()))?.len();
    let mut reader = Exactly {
        inner: file.take(size),
        left: size,
    };
    if size <= READ_WHOLE {
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        reader
            .read_to_end(&mut bytes)
            .map_err(Error::io(context()))?;
        return repo.write_blob(&bytes);
    }
    let id = repo
        .repo
        .objects
        .write_stream(gix::objs::Kind::Blob, size, &mut reader)?;
    Ok(id)
}

/// A reader that ends in an error, not early, when its file holds fewer bytes than announced.
struct Exactly<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Exactly<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buf)?;
        if read == 0 && self.left > 0 && !buf.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("the file lost {} bytes while it was stored", self.left),
            ));
        }
        self.left -= read as u64;
        Ok(read)
    }
}
