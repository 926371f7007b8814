//! First-parent history walks over run branches, decoding only what a timeline needs: the
//! commit's parents, message and committer time.

use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

use super::commit_cache::CommitCache;
use super::pack_reader::PackReader;
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
    pub fn commit_info(&self, id: ObjectId) -> Result<CommitInfo> {
        let commit = self.repo.find_commit(id)?;
        CommitInfo::decode(id, &commit.decode()?)
    }

    /// Walks `tip` and its first parents, newest first.
    pub fn first_parents(&self, tip: ObjectId) -> FirstParentWalk<'_> {
        FirstParentWalk {
            repo: self,
            next: Some(tip),
            last: None,
            loose: Some(self.repo.objects.store_ref().path().to_owned()),
            met_packed: false,
            packs: None,
            uncached: None,
            cache: None,
            inflate: None,
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
    /// The walk ends after this commit.
    last: Option<ObjectId>,
    /// The loose objects' directory, until the first commit that is not loose.
    loose: Option<PathBuf>,
    /// Whether the walk met packed history: its first packed commit is read through the object
    /// store, whose indexes are open already, so that a walk of a commit or two (the latest
    /// checkpoint) does not open every pack again, and a second walk finds it in the cache.
    met_packed: bool,
    /// The packs, read by the walk itself from its second packed commit on: the object store
    /// would inflate a delta's base again for every delta on it.
    packs: Option<PackReader>,
    /// The store without its object cache, for what the packs do not give: a walk reads each
    /// commit once, and copying every one into the cache cost a packed `log` 5%.
    uncached: Option<Repo>,
    /// Commits read by an earlier walk.
    cache: Option<&'a CommitCache>,
    /// One inflater for every loose commit: a new one allocates and clears 47 KB.
    inflate: Option<gix::zlib::Inflate>,
    compressed: Vec<u8>,
    buf: Vec<u8>,
}

impl<'a> FirstParentWalk<'a> {
    /// The same walk, ending after commit `last` when it meets it.
    pub fn ending_after(self, last: Option<ObjectId>) -> FirstParentWalk<'a> {
        FirstParentWalk { last, ..self }
    }

    /// The commit the walk reads next.
    pub(super) fn pending(&self) -> Option<ObjectId> {
        self.next
    }

    /// The same walk, reading the commits `cache` holds from it.
    pub fn cached_in(self, cache: &'a CommitCache) -> FirstParentWalk<'a> {
        FirstParentWalk {
            cache: Some(cache),
            ..self
        }
    }

    /// The next commit, its content into `buf`: what the walk itself needs, the decoding of
    /// the rest left to whoever uses the commit.
    pub(super) fn next_content(&mut self) -> Option<Result<Read>> {
        let id = self.next.take()?;
        let cached = self.read_cached(id);
        let first_parent = match cached {
            Some(first_parent) => Ok(first_parent),
            None => self.read(id),
        };
        Some(first_parent.map(|first_parent| {
            self.next = first_parent.filter(|_| self.last != Some(id));
            Read {
                id,
                cached: cached.is_some(),
            }
        }))
    }

    /// The content of the commit `next_content` read last.
    pub(super) fn content(&self) -> &[u8] {
        &self.buf
    }

    /// Commit `id`'s content into `buf` from the commit cache, its first parent; `None` when
    /// the cache does not hold it.
    fn read_cached(&mut self, id: ObjectId) -> Option<Option<ObjectId>> {
        let content = self.cache?.get(id)?;
        let parent = first_parent(content)?;
        self.buf.clear();
        self.buf.extend_from_slice(content);
        Some(parent)
    }

    /// Commit `id`'s content into `buf`, from its loose file, the packs or else the object
    /// store, in that order; its first parent.
    fn read(&mut self, id: ObjectId) -> Result<Option<ObjectId>> {
        match self.read_loose(id).and_then(|()| first_parent(&self.buf)) {
            Some(parent) => Ok(parent),
            None => self.read_stored(id),
        }
    }

    /// Commit `id` from the packs or else through the object store, its content into `buf`.
    fn read_stored(&mut self, id: ObjectId) -> Result<Option<ObjectId>> {
        if !std::mem::replace(&mut self.met_packed, true) {
            return read_through(&self.repo.repo, id, &mut self.buf);
        }
        let packs = self.packs.get_or_insert_with(|| {
            let objects = self.repo.repo.objects.store_ref().path();
            PackReader::open(objects, self.repo.repo.object_hash())
        });
        if let Some(parent) = packs
            .commit(id, &mut self.buf)
            .and_then(|()| first_parent(&self.buf))
        {
            return Ok(parent);
        }
        let uncached = self.uncached.get_or_insert_with(|| {
            let mut repo = self.repo.repo.clone();
            repo.object_cache_size(0);
            Repo {
                repo,
                workdir: self.repo.workdir.clone(),
            }
        });
        read_through(&uncached.repo, id, &mut self.buf)
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
        let inflate = self.inflate.get_or_insert_with(Default::default);
        let kind = inflate_loose(inflate, &self.compressed, &mut self.buf)?;
        (kind == gix::objs::Kind::Commit).then_some(())
    }
}

/// Commit `id` through the object store of `repo`, its content into `buf`; its first parent.
fn read_through(
    repo: &gix::Repository,
    id: ObjectId,
    buf: &mut Vec<u8>,
) -> Result<Option<ObjectId>> {
    let commit = repo.find_commit(id)?;
    let parent = commit.decode()?.parents().next();
    buf.clear();
    buf.extend_from_slice(&commit.data);
    Ok(parent)
}

/// A commit a walk read.
pub(super) struct Read {
    pub id: ObjectId,
    /// It came from the commit cache, not the object store.
    pub cached: bool,
}

/// What a timeline reads from commit `id`, whose content is `content`.
pub(super) fn decode(id: ObjectId, content: &[u8]) -> Result<CommitInfo> {
    let commit = gix::objs::CommitRef::from_bytes(content, id.kind())
        .map_err(|err| Error::Corrupt(format!("commit {id} cannot be read: {err}")))?;
    CommitInfo::decode(id, &commit)
}

/// The first parent a commit's content names, `Some(None)` for a root commit: the line after
/// `tree`, where git writes parents. `None` when the content does not start as a commit does.
fn first_parent(content: &[u8]) -> Option<Option<ObjectId>> {
    let rest = content.strip_prefix(b"tree ")?;
    let hex_len = rest.iter().position(|b| *b == b'\n')?;
    ObjectId::from_hex(&rest[..hex_len]).ok()?;
    let Some(parent) = rest[hex_len + 1..].strip_prefix(b"parent ") else {
        return Some(None);
    };
    let hex = parent.get(..hex_len)?;
    (parent.get(hex_len) == Some(&b'\n')).then_some(())?;
    Some(Some(ObjectId::from_hex(hex).ok()?))
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
fn inflate_loose(
    inflate: &mut gix::zlib::Inflate,
    compressed: &[u8],
    out: &mut Vec<u8>,
) -> Option<gix::objs::Kind> {
    let mut header = [0; 64];
    inflate.reset();
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
        Some(
            self.next_content()?
                .and_then(|read| decode(read.id, &self.buf)),
        )
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

#[cfg(test)]
mod tests {
    use super::*;

    const TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    const PARENT: &str = "0123456789abcdef0123456789abcdef01234567";

    #[test]
    fn the_first_parent_is_the_line_after_the_tree() {
        let id = |hex: &str| ObjectId::from_hex(hex.as_bytes()).unwrap();
        let root = format!("tree {TREE}\nauthor A <a> 1 +0000\n\nroot\n");
        assert_eq!(first_parent(root.as_bytes()), Some(None));
        let merge = format!("tree {TREE}\nparent {PARENT}\nparent {TREE}\n\nmerge\n");
        assert_eq!(first_parent(merge.as_bytes()), Some(Some(id(PARENT))));
        for broken in [
            format!("tree {TREE}"),
            format!("tree {}\n", &TREE[1..]),
            format!("tree {TREE}\nparent {}\n", &PARENT[1..]),
            format!("tree {TREE}\nparent {PARENT}x\n"),
            format!("parent {PARENT}\ntree {TREE}\n"),
            String::new(),
        ] {
            assert_eq!(first_parent(broken.as_bytes()), None, "{broken:?}");
        }
    }
}
