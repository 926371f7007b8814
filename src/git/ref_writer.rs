//! The lock every git-fabro ref writer holds, so that a writer killed while it held ref lock
//! files (`refs/heads/fabro/meta/<id>.lock`, `packed-refs.lock`) blocks nobody.
//!
//! A writer takes an advisory lock (`flock`) on `<common dir>/fabro/ref-writer` before its ref
//! transaction and keeps it until every lock file of the transaction is gone; the kernel lets
//! go of it when the writer dies, however it dies. In that file the writer first records the
//! lock files it is about to take, then, once gix took them, each one's inode. A writer that
//! gets the lock and finds a record left in it knows its author died mid-transaction: it
//! removes the recorded lock files that are still the very files the dead writer created, and
//! goes on. No waiting for an age, no `fsck`.
//!
//! Decisions:
//! - One lock per repository, not one per ref: gix may take `packed-refs.lock` in any
//!   transaction (a deletion, or any edit while another writer's `packed-refs.lock` exists),
//!   so every writer would need the packed-refs lock anyway. It serialises ref transactions
//!   only (well under a millisecond each), never the work between them, and it ends the
//!   contention of git-fabro writers on git's lock files.
//! - A lock file no dead git-fabro writer recorded is never removed by a command: git's own
//!   commands take the same lock files without this lock, and only the record tells a file
//!   git-fabro created from one a live `git` holds.
//! - A kill in the instant between gix creating a lock file and the writer recording its inode
//!   leaves a lock of uncertain origin (a `git` could have taken it meanwhile). It counts as
//!   the dead writer's when it was created after the record and is still there, the same
//!   file, after git's own lock timeout: a live git lets go well within it.

use std::cell::Cell;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::Repo;
use super::flock::Flock;
use crate::git::error::{Error, Result};
use crate::process::command_line;

/// The writer lock and record, under the common git dir.
const WRITER: &str = "fabro/ref-writer";
/// How long a writer waits for another one to finish its ref transaction.
const WRITER_WAIT: Duration = Duration::from_secs(10);
/// How long a lock file of uncertain origin is given to go away (git's `core.packedRefsTimeout`).
const UNCERTAIN_WAIT: Duration = Duration::from_secs(1);

/// This process's hold on the writer lock, let go when dropped.
pub(super) struct RefWriter {
    lock: Flock,
    common: PathBuf,
    /// Whether the record holds anything: emptying an empty file is a needless write to it.
    written: Cell<bool>,
}

/// A lock file left by a git-fabro writer that died in its ref transaction.
#[derive(Clone, Debug)]
pub(crate) struct AbandonedLock {
    pub path: PathBuf,
    /// The dead writer, as its record names it.
    pub pid: Option<u32>,
    /// The inode the writer recorded; `None` when it died before recording it.
    identity: Option<(u64, u64)>,
    since: Option<SystemTime>,
}

impl Repo {
    /// Takes the writer lock, waiting for a live writer's transaction to end, and removes what
    /// a dead writer left.
    pub(super) fn ref_writer(&self) -> Result<RefWriter> {
        let common = self.common_dir();
        let path = common.join(WRITER);
        let lock = open_writer_lock(&path, WRITER_WAIT)?
            .ok_or_else(|| Error::Busy(describe_live_writer(&path)))?;
        let (writer, abandoned) = RefWriter::holding(lock, common);
        for abandoned in abandoned {
            abandoned.remove()?;
        }
        writer.clear()?;
        Ok(writer)
    }

    /// Lock files a killed git-fabro writer left, removed too when `repair`. Nothing while a
    /// live writer holds the lock: its record is its own.
    pub(crate) fn abandoned_ref_locks(&self, repair: bool) -> Result<Vec<AbandonedLock>> {
        let path = self.common_dir().join(WRITER);
        if !path.exists() {
            return Ok(Vec::new());
        }
        let Some(lock) = open_writer_lock(&path, Duration::ZERO)? else {
            return Ok(Vec::new());
        };
        let (writer, found) = RefWriter::holding(lock, self.common_dir());
        if repair {
            for abandoned in &found {
                abandoned.remove()?;
            }
            writer.clear()?;
        }
        // Only looking, the record stays for the next writer, or a repair, to act on.
        Ok(found)
    }
}

fn open_writer_lock(path: &Path, wait: Duration) -> Result<Option<Flock>> {
    Flock::acquire_making_dir(path, wait)
        .map_err(Error::io(format!("cannot lock {}", path.display())))
}

/// Names the live writer that kept the lock past the wait, from its record.
fn describe_live_writer(path: &Path) -> String {
    let pid = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| Record::parse(&text).pid);
    let who = match pid {
        Some(pid) => match command_line(pid) {
            Some(command) => format!("git-fabro process {pid} (`{command}`)"),
            None => format!("git-fabro process {pid}"),
        },
        None => "another git-fabro process".to_owned(),
    };
    format!(
        "{who} has been moving refs of this repository for {} s ({} is locked); retry when it is done",
        WRITER_WAIT.as_secs(),
        path.display()
    )
}

impl RefWriter {
    /// The writer that holds `lock`, and the lock files that the record a dead writer left in
    /// it names and that are still there.
    fn holding(lock: Flock, common: PathBuf) -> (RefWriter, Vec<AbandonedLock>) {
        let mut text = String::new();
        let read = std::io::Read::read_to_string(&mut lock.file(), &mut text);
        let writer = RefWriter {
            lock,
            common,
            // A record that could not be read is emptied all the same.
            written: Cell::new(read.is_err() || !text.is_empty()),
        };
        let abandoned = writer.abandoned(&Record::parse(&text));
        (writer, abandoned)
    }

    fn file(&self) -> &File {
        self.lock.file()
    }

    /// Records that this process is about to take `locks` (paths under the common dir).
    pub(super) fn intend(&self, locks: &[PathBuf]) -> Result<()> {
        let since = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        let mut text = format!(
            "pid {}\nsince {}.{:09}\n",
            std::process::id(),
            since.as_secs(),
            since.subsec_nanos()
        );
        for lock in locks {
            text.push_str(&format!("intent {}\n", self.relative(lock)));
        }
        self.clear()?;
        self.write(&text)
    }

    /// Records the inode of each of `locks`, which this process now holds.
    pub(super) fn confirm(&self, locks: &[PathBuf]) -> Result<()> {
        let mut text = String::new();
        for lock in locks {
            if let Some((dev, ino)) = std::fs::symlink_metadata(lock).ok().and_then(identity) {
                text.push_str(&format!("held {} {dev} {ino}\n", self.relative(lock)));
            }
        }
        self.write(&text)
    }

    fn write(&self, text: &str) -> Result<()> {
        let mut file = self.file();
        self.written.set(true);
        file.seek(SeekFrom::End(0))
            .and_then(|_| file.write_all(text.as_bytes()))
            .map_err(Error::io("cannot write the ref writer's record"))
    }

    /// Ends this process's transaction: its lock files are committed or rolled back, so the
    /// record is emptied and the lock let go. A writer that never gets here (killed) leaves
    /// its record for the next one.
    pub(super) fn release(self) {
        let _ = self.clear();
    }

    /// Empties the record: nothing this process holds is left to clear.
    fn clear(&self) -> Result<()> {
        if !self.written.get() {
            return Ok(());
        }
        self.file()
            .set_len(0)
            .map_err(Error::io("cannot clear the ref writer's record"))?;
        self.written.set(false);
        Ok(())
    }

    fn relative(&self, lock: &Path) -> String {
        lock.strip_prefix(&self.common)
            .unwrap_or(lock)
            .to_string_lossy()
            .into_owned()
    }

    /// The lock files `record` names that are still there.
    fn abandoned(&self, record: &Record) -> Vec<AbandonedLock> {
        record
            .intended
            .iter()
            .map(|rel| AbandonedLock {
                path: self.common.join(rel),
                pid: record.pid,
                identity: record
                    .held
                    .iter()
                    .find(|(r, _)| r == rel)
                    .map(|(_, id)| *id),
                since: record.since,
            })
            .filter(|lock| lock.path.exists())
            .collect()
    }
}

impl std::fmt::Display for AbandonedLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} was left by ", self.path.display())?;
        match self.pid {
            Some(pid) => write!(f, "git-fabro process {pid}")?,
            None => write!(f, "a git-fabro command")?,
        }
        write!(f, ", killed while moving refs")
    }
}

impl AbandonedLock {
    /// Removes the lock file if it is the one the dead writer took.
    fn remove(&self) -> Result<()> {
        let Some(found) = self.current_identity() else {
            return Ok(()); // gone already
        };
        let dead_writers = match self.identity {
            Some(recorded) => recorded == found,
            None => self.outlasts_a_live_git(found),
        };
        if !dead_writers {
            return Ok(());
        }
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(err) => Err(Error::io(format!("cannot remove {}", self.path.display()))(
                err,
            )),
        }
    }

    fn current_identity(&self) -> Option<(u64, u64)> {
        std::fs::symlink_metadata(&self.path)
            .ok()
            .and_then(identity)
    }

    /// A lock file of uncertain origin counts as the dead writer's when it was created after
    /// the writer's record and stays the same file past the time a live git would hold it.
    fn outlasts_a_live_git(&self, found: (u64, u64)) -> bool {
        let modified = std::fs::symlink_metadata(&self.path).and_then(|m| m.modified());
        let after_record = match (modified, self.since) {
            // Coarse file system clocks round a time down by up to a second.
            (Ok(modified), Some(since)) => modified + Duration::from_secs(1) >= since,
            _ => false,
        };
        if !after_record {
            return false;
        }
        let deadline = std::time::Instant::now() + UNCERTAIN_WAIT;
        while std::time::Instant::now() < deadline {
            if self.current_identity() != Some(found) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.current_identity() == Some(found)
    }
}

/// What a writer wrote in the lock file: its pid, when it began, the lock files it meant to
/// take and the inodes of those it took.
#[derive(Default)]
struct Record {
    pid: Option<u32>,
    since: Option<SystemTime>,
    intended: Vec<String>,
    held: Vec<(String, (u64, u64))>,
}

impl Record {
    fn parse(text: &str) -> Record {
        let mut record = Record::default();
        for line in text.lines() {
            let Some((key, value)) = line.split_once(' ') else {
                continue;
            };
            match key {
                "pid" => record.pid = value.parse().ok(),
                "since" => record.since = parse_time(value),
                "intent" => record.intended.push(value.to_owned()),
                "held" => {
                    let mut parts = value.rsplitn(3, ' ');
                    let ino = parts.next().and_then(|n| n.parse().ok());
                    let dev = parts.next().and_then(|n| n.parse().ok());
                    if let (Some(ino), Some(dev), Some(rel)) = (ino, dev, parts.next()) {
                        record.held.push((rel.to_owned(), (dev, ino)));
                    }
                }
                _ => {}
            }
        }
        record
    }
}

fn parse_time(text: &str) -> Option<SystemTime> {
    let (secs, nanos) = text.split_once('.')?;
    let since = Duration::new(secs.parse().ok()?, nanos.parse().ok()?);
    SystemTime::UNIX_EPOCH.checked_add(since)
}

#[cfg(unix)]
fn identity(meta: std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

/// Without inodes no lock file is known for certain to be the dead writer's.
#[cfg(not(unix))]
fn identity(_: std::fs::Metadata) -> Option<(u64, u64)> {
    None
}
