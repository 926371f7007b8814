//! First-parent history walks over run branches, decoding only what a timeline needs: the
//! commit's parents, message and committer time.

use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

use super::commit_cache::CommitCache;
use super::pack_reader::PackReader;
use super::{ObjectId, Repo};
use crate::git::error::Result;

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
    pub fn commit_info(&self, id: ObjectId) -> Result<CommitInfo> {
        let commit = self.repo.find_commit(id)?;
        CommitInfo::decode(id, &commit.decode()?)
    }

    /// Walks `tip` and its first parents, newest first.
    pub fn first_parents(&self, tip: ObjectId) -> FirstParentWalk<'_> {
        FirstParentWalk {
            repo: self,
            next: Some(tip),
            loose: Some(self.repo.objects.store_ref().path().to_owned()),
            packs: None,
            uncached: None,
            cache: None,
            compressed: Vec::new(),
            buf: Vec::new(),
        }
    }
}

/// Checkpoint commits are written loose and stay loose until `git gc` packs them. The object
/// store looks in its packs first and then stats a loose object before opening it; reading
/// loose commits straight from the loose store saves that stat on every commit of a recent
/// run. Walking newest first, the first commit that is not loose marks where packed history
/// begins, and from there on the walk goes through the store.
pub struct FirstParentWalk<'a> {
    repo: &'a Repo,
    next: Option<ObjectId>,
    /// The loose objects' directory, until the first commit that is not loose.
    loose: Option<PathBuf>,
    /// The packs, read by the walk itself for packed history: the object store would inflate a
    /// delta's base again for every delta on it.
    packs: Option<PackReader>,
    /// The store without its object cache, for what the packs do not give: a walk reads each
    /// commit once, and copying every one into the cache cost a packed `log` 5%.
    uncached: Option<Repo>,
    /// Commits read by an earlier walk, and where this one keeps those it reads.
    cache: Option<&'a mut CommitCache>,
    compressed: Vec<u8>,
    buf: Vec<u8>,
}

impl<'a> FirstParentWalk<'a> {
    /// The same walk, reading the commits `cache` holds from it and keeping there those it
    /// reads from the object store.
    pub fn cached_in(self, cache: &'a mut CommitCache) -> FirstParentWalk<'a> {
        FirstParentWalk {
            cache: Some(cache),
            ..self
        }
    }

    fn read(&mut self, id: ObjectId) -> Result<CommitInfo> {
        if let Some(info) = self
            .cache
            .as_deref_mut()
            .and_then(|cache| cache.get(id))
            .and_then(|content| decode(id, content))
        {
            return Ok(info);
        }
        let info = match self.read_loose(id).and_then(|()| decode(id, &self.buf)) {
            Some(info) => info,
            None => self.read_stored(id)?,
        };
        if let Some(cache) = self.cache.as_deref_mut() {
            cache.learn(id, &self.buf);
        }
        Ok(info)
    }

    /// Commit `id` from the packs or else through the object store, its content into `buf`.
    fn read_stored(&mut self, id: ObjectId) -> Result<CommitInfo> {
        let packs = self.packs.get_or_insert_with(|| {
            let objects = self.repo.repo.objects.store_ref().path();
            PackReader::open(objects, self.repo.repo.object_hash())
        });
        if let Some(info) = packs
            .commit(id, &mut self.buf)
            .and_then(|()| decode(id, &self.buf))
        {
            return Ok(info);
        }
        let uncached = self.uncached.get_or_insert_with(|| {
            let mut repo = self.repo.repo.clone();
            repo.object_cache_size(0);
            Repo { repo }
        });
        let commit = uncached.repo.find_commit(id)?;
        let info = CommitInfo::decode(id, &commit.decode()?)?;
        self.buf.clear();
        self.buf.extend_from_slice(&commit.data);
        Ok(info)
    }

    /// Commit `id`'s content into `buf`, straight from its loose file; `None` when it is not
    /// loose or does not inflate to a commit (the store then says what is wrong).
    fn read_loose(&mut self, id: ObjectId) -> Option<()> {
        let dir = self.loose.as_ref()?;
        let hex = id.to_hex().to_string();
        if read_into(&dir.join(&hex[..2]).join(&hex[2..]), &mut self.compressed).is_none() {
            // Not loose: packed history starts here.
            self.loose = None;
            return None;
        }
        let kind = inflate_loose(&self.compressed, &mut self.buf)?;
        (kind == gix::objs::Kind::Commit).then_some(())
    }
}

/// What a timeline reads from commit `id`, whose content is `content`.
fn decode(id: ObjectId, content: &[u8]) -> Option<CommitInfo> {
    let commit = gix::objs::CommitRef::from_bytes(content, id.kind()).ok()?;
    CommitInfo::decode(id, &commit).ok()
}

/// The whole file at `path` into `buf`: one `read` for a loose commit, where the object store
/// maps each loose object into memory and unmaps it again, which costs more for a few hundred
/// bytes.
fn read_into(path: &Path, buf: &mut Vec<u8>) -> Option<()> {
    use std::io::Read;
    buf.clear();
    std::fs::File::open(path).ok()?.read_to_end(buf).ok()?;
    Some(())
}

/// Larger loose objects than this are left to the store and its allocation limit.
const MOST_INFLATED: usize = 64 << 20;

/// A loose object's kind, its content inflated into `out`: the header first, then the rest
/// into a buffer of the size the header gives.
fn inflate_loose(compressed: &[u8], out: &mut Vec<u8>) -> Option<gix::objs::Kind> {
    let mut header = [0; 64];
    let mut inflate = gix::zlib::Inflate::default();
    let (status, consumed, written) = inflate.prefix(compressed, &mut header).ok()?;
    let (kind, size, header_len) = gix::objs::decode::loose_header(header.get(..written)?).ok()?;
    let size = usize::try_from(size)
        .ok()
        .filter(|size| *size <= MOST_INFLATED)?;
    let inflated = if status == gix::zlib::Status::StreamEnd {
        out.clear();
        out.extend_from_slice(header.get(header_len..written)?);
        out.len()
    } else {
        let rest = compressed.get(consumed..)?;
        inflate
            .rest(rest, &header[..written], header_len, out, size)
            .ok()?
    };
    (inflated == size).then_some(kind)
}

impl Iterator for FirstParentWalk<'_> {
    type Item = Result<CommitInfo>;

    fn next(&mut self) -> Option<Self::Item> {
        let id = self.next.take()?;
        let info = self.read(id);
        if let Ok(info) = &info {
            self.next = info.first_parent;
        }
        Some(info)
    }
}

impl Repo {
    /// Who wrote commit `id` and when (seconds since the epoch): where a record came from.
    pub fn commit_author(&self, id: ObjectId) -> Result<(super::Identity, i64)> {
        let commit = self.repo.find_commit(id)?;
        let author = commit.author()?;
        let who = super::Identity {
            name: author.name.to_str_lossy().into_owned(),
            email: author.email.to_str_lossy().into_owned(),
        };
        Ok((who, author.time()?.seconds))
    }

    /// The messages of the reflog of ref `name`, newest first; none when it keeps no reflog.
    pub fn reflog_messages(&self, name: &str) -> Vec<String> {
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
pub fn for_each_trailer(message: &[u8], mut each: impl FnMut(&str, &str)) {
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
    pub fn is_ancestor(&self, ancestor: ObjectId, descendant: ObjectId) -> bool {
        ancestor == descendant
            || self
                .repo
                .merge_base(ancestor, descendant)
                .is_ok_and(|base| base.is_some_and(|base| base.detach() == ancestor))
    }
}
