//! Commits a first-parent walk read before, kept whole in one file so that the next walk over
//! the same history reads that file instead of a thousand objects. After `git gc` packed a
//! run, its commits are deltas to inflate and rebuild one by one (a third of the first `log`'s
//! time); a timeline mostly walks the same commits again.
//!
//! The file is never a source of truth. It holds each commit's content exactly as git hashes
//! it, and a commit is taken from it only when that content hashes to the commit's id, so it
//! can only ever give what the object store would. A record that does not parse or hash ends
//! the file's use and has it written again; failing to write it changes nothing but the next
//! walk's speed. New commits are appended; a new or damaged file is replaced whole (a
//! temporary file renamed over it), so readers never see half of one.
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
    /// The file is missing, ends in a record that does not parse, or holds one that does not
    /// hash to its id: it is written again whole rather than appended to.
    rewrite: bool,
    /// Records of commits read from the object store during this walk, encoded.
    learned: Vec<u8>,
    learned_count: usize,
    /// There is no file yet.
    missing: bool,
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
            learned: Vec::new(),
            learned_count: 0,
            missing,
        }
    }

    /// The content of commit `id` when the file holds it and it hashes to `id`.
    pub fn get(&mut self, id: ObjectId) -> Option<&[u8]> {
        let range = self.stored.get(&id)?.clone();
        let content = &self.bytes[range.clone()];
        let hashed = gix::objs::compute_hash(id.kind(), gix::objs::Kind::Commit, content);
        if hashed.ok() != Some(id) {
            self.stored.remove(&id);
            self.rewrite = true;
            return None;
        }
        Some(&self.bytes[range])
    }

    /// Keeps commit `id`, read from the object store, for the next walk.
    pub fn learn(&mut self, id: ObjectId, content: &[u8]) {
        if !self.stored.contains_key(&id) {
            encode(&mut self.learned, id, content);
            self.learned_count += 1;
        }
    }

    /// Writes what this walk learned. Best effort: the cache only saves time.
    pub fn save(self) {
        if (self.learned.is_empty() && !self.rewrite)
            || (self.missing && self.learned_count < WORTH_A_FILE)
        {
            return;
        }
        let written = if self.rewrite {
            self.replace()
        } else {
            fs::OpenOptions::new()
                .append(true)
                .open(&self.path)
                .and_then(|mut file| file.write_all(&self.learned))
        };
        if written.is_err() && self.rewrite {
            let _ = fs::remove_file(self.temp_path());
        }
    }

    /// The whole file written anew from the records that stay and those learned.
    fn replace(&self) -> std::io::Result<()> {
        let mut text = HEADER.to_vec();
        for (id, range) in &self.stored {
            encode(&mut text, *id, &self.bytes[range.clone()]);
        }
        text.extend_from_slice(&self.learned);
        let temp = self.temp_path();
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir)?;
        }
        fs::File::create(&temp)?.write_all(&text)?;
        fs::rename(&temp, &self.path)
    }

    fn temp_path(&self) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_owned();
        name.push(format!(".{}.tmp", std::process::id()));
        self.path.with_file_name(name)
    }
}

fn encode(out: &mut Vec<u8>, id: ObjectId, content: &[u8]) {
    out.extend_from_slice(format!("{id} {}\n", content.len()).as_bytes());
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
