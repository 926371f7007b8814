//! Commits a first-parent walk read before, kept whole in one file so that the next walk over
//! the same history reads that file instead of a thousand objects: a timeline mostly walks the
//! same commits again, and gix reads each loose commit with a file mapping of its own and
//! each packed one by inflating its delta base again.
//!
//! The file is never a source of truth. It holds each commit's content exactly as git hashes
//! it, and a commit is taken from it only when that content hashes to the commit's id, so it
//! can only ever give what the object store would. A record that does not parse or hash ends
//! the file's use and has it written again; failing to write it changes nothing but the next
//! walk's speed. New commits are appended; a new or damaged file is replaced whole (a
//! temporary file renamed over it), so readers never see half of one.
//!
//! A walk looks commits up in the cache and gathers those it read from the object store
//! ([`Learned`]); the cache keeps them once the walk ends.
//!
//! `GIT_FABRO_OBJECT_READER=gix` turns the cache off (docs/decisions.md): what it buys is
//! measured against that in the benchmarks' `gix reader` rows.
//!
//! The format: a header line, then for each commit `<id in hex> <length>\n<content>\n`.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::ops::Range;
use std::path::PathBuf;

use super::ObjectId;

const HEADER: &[u8] = b"git-fabro commits 1\n";

/// A walk that read fewer commits than this from the object store makes no file: reading so
/// few again costs less than making one.
const WORTH_A_FILE: usize = 16;

pub struct CommitCache {
    path: PathBuf,
    bytes: Vec<u8>,
    /// Where each stored commit's content lies in `bytes`.
    stored: HashMap<ObjectId, Range<usize>>,
    /// The file is missing or ends in a record that does not parse: it is written again whole
    /// rather than appended to. So is a file that holds a record that does not hash to its id.
    rewrite: bool,
    /// There is no file yet.
    missing: bool,
}

/// Commits a walk read from the object store, encoded as the file's records.
#[derive(Default)]
pub struct Learned {
    ids: Vec<ObjectId>,
    records: Vec<u8>,
}

impl Learned {
    /// Keeps commit `id`, read from the object store, for the next walk.
    pub(crate) fn add(&mut self, id: ObjectId, content: &[u8]) {
        self.ids.push(id);
        encode(&mut self.records, id, content);
    }
}

impl CommitCache {
    /// The cache in file `path` (empty when there is none or it is not one).
    pub fn open(path: PathBuf) -> CommitCache {
        let read = fs::read(&path);
        let missing = read.is_err();
        let bytes = read.unwrap_or_default();
        let (stored, complete) = match bytes.strip_prefix(HEADER) {
            Some(records) => index(records, HEADER.len()),
            None => (HashMap::new(), false),
        };
        CommitCache {
            path,
            bytes,
            stored,
            rewrite: !complete,
            missing,
        }
    }

    /// The content of commit `id` when the file holds it and it hashes to `id`.
    pub(crate) fn get(&self, id: ObjectId) -> Option<&[u8]> {
        let content = &self.bytes[self.stored.get(&id)?.clone()];
        let hashed = gix::objs::compute_hash(id.kind(), gix::objs::Kind::Commit, content);
        (hashed.ok() == Some(id)).then_some(content)
    }

    /// Writes the commits a walk `learned`. Best effort: the cache only saves time.
    pub fn save(mut self, learned: Learned) {
        // A walk reads from the store only what the file lacks or holds a bad record of.
        for id in &learned.ids {
            self.rewrite |= self.stored.remove(id).is_some();
        }
        if (learned.ids.is_empty() && !self.rewrite)
            || (self.missing && learned.ids.len() < WORTH_A_FILE)
        {
            return;
        }
        let written = if self.rewrite {
            self.replace(&learned.records)
        } else {
            fs::OpenOptions::new()
                .append(true)
                .open(&self.path)
                .and_then(|mut file| file.write_all(&learned.records))
        };
        if written.is_err() && self.rewrite {
            let _ = fs::remove_file(self.temp_path());
        }
    }

    /// The whole file written anew from the records that stay and those learned; the learned
    /// records are written as they are, not copied behind the others first.
    fn replace(&self, learned: &[u8]) -> std::io::Result<()> {
        let mut kept = HEADER.to_vec();
        for (id, range) in &self.stored {
            encode(&mut kept, *id, &self.bytes[range.clone()]);
        }
        let temp = self.temp_path();
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir)?;
        }
        let mut file = fs::File::create(&temp)?;
        file.write_all(&kept)?;
        file.write_all(learned)?;
        drop(file);
        fs::rename(&temp, &self.path)
    }

    fn temp_path(&self) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_owned();
        name.push(format!(".{}.tmp", std::process::id()));
        self.path.with_file_name(name)
    }
}

fn encode(out: &mut Vec<u8>, id: ObjectId, content: &[u8]) {
    use std::io::Write as _;
    let _ = writeln!(out, "{id} {}", content.len()); // writing to a Vec cannot fail
    out.extend_from_slice(content);
    out.push(b'\n');
}

/// Where each record's content lies (offsets from `start`, where `records` begins in the
/// file), and whether every record parsed to the end of the file.
fn index(records: &[u8], start: usize) -> (HashMap<ObjectId, Range<usize>>, bool) {
    let mut stored = HashMap::new();
    let mut at = 0;
    while at < records.len() {
        let Some(range) = record(records, at) else {
            return (stored, false);
        };
        let (id, content) = range;
        at = content.end + 1;
        stored.insert(id, content.start + start..content.end + start);
    }
    (stored, true)
}

/// The record at `at`: its id and where its content lies in `records`.
fn record(records: &[u8], at: usize) -> Option<(ObjectId, Range<usize>)> {
    let rest = records.get(at..)?;
    let line_end = rest.iter().position(|b| *b == b'\n')?;
    let line = std::str::from_utf8(&rest[..line_end]).ok()?;
    let (hex, len) = line.split_once(' ')?;
    let id = ObjectId::from_hex(hex.as_bytes()).ok()?;
    let len: usize = len.parse().ok()?;
    let start = at + line_end + 1;
    let end = start.checked_add(len)?;
    (records.get(end) == Some(&b'\n')).then_some((id, start..end))
}
