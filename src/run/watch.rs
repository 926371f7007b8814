//! Which paths of a run's files may have changed since the engine's last snapshot, so that the
//! next checkpoint looks at those paths instead of every file: git's fsmonitor idea, on Linux's
//! inotify, kept for as long as the engine runs.
//!
//! The watch only narrows where a snapshot looks; it never decides what the snapshot holds.
//! Whenever it cannot vouch for a quiet path it says so, and the snapshot scans everything:
//! before its first settled snapshot, after the kernel's event queue overflowed, after a
//! directory moved, after a `.gitignore` or `.gitattributes` changed (or an exclude or attribute
//! file outside the files, which can turn an ignored file into one to take), when too many
//! paths changed to be worth naming, and when it could not watch every directory. A path stays
//! pending until a snapshot that looked at it has written its index, so a checkpoint that
//! failed halfway loses nothing for the next one. Writes made through a shared memory mapping
//! or through a hard link from outside raise no event; `checkpoint.watch_worktree = false`
//! turns the watch off for work that does that (docs/decisions.md).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::git::Excludes;

/// More changed paths than this are cheaper to find by scanning everything.
const MOST_PATHS: usize = 4096;

/// The files that decide what is ignored or how a file is read, besides those in the files.
const RULE_FILES: [&[u8]; 2] = [b".gitignore", b".gitattributes"];

pub struct WorktreeWatch {
    #[cfg(target_os = "linux")]
    root: PathBuf,
    #[cfg(target_os = "linux")]
    watcher: Option<inotify::Watcher>,
    /// What snapshots leave out, which decides the directories watched.
    excludes: Excludes,
    /// Paths (relative to the root, `/`-separated) with events since the last settled snapshot.
    pending: BTreeSet<Vec<u8>>,
    /// Whether the next snapshot must scan everything.
    full_scan_owed: bool,
    /// Exclude and attribute files outside the files, with what they looked like.
    rules: Vec<(PathBuf, Option<FileStamp>)>,
    /// Counts the looks, so that only the snapshot of the latest look settles the pending paths.
    looks: u64,
}

/// What a snapshot may rely on: the paths that may have changed, or nothing known.
pub struct Look {
    pub changed: Option<Vec<Vec<u8>>>,
    pub number: u64,
}

impl WorktreeWatch {
    /// Starts watching `root` for snapshots that leave out `excludes`; `rule_files` are the
    /// exclude and attribute files outside it. The first snapshot after this scans everything:
    /// what changed before it is not known.
    pub fn start(root: &Path, rule_files: Vec<PathBuf>, excludes: Excludes) -> WorktreeWatch {
        WorktreeWatch {
            #[cfg(target_os = "linux")]
            root: root.to_owned(),
            #[cfg(target_os = "linux")]
            watcher: inotify::Watcher::start(root, excludes.clone()),
            excludes,
            pending: BTreeSet::new(),
            full_scan_owed: true,
            rules: rule_files
                .into_iter()
                .map(|path| {
                    let stamp = FileStamp::of(&path);
                    (path, stamp)
                })
                .collect(),
            looks: 0,
        }
    }

    /// Takes in the events so far and says where the next snapshot, which leaves out
    /// `excludes`, must look. Excludes other than the watch's (an agent's settings file that
    /// gained or lost git-fabro's hooks) change what a snapshot takes: it scans everything,
    /// and the watch starts afresh on the new ones.
    pub fn look(&mut self, excludes: &Excludes) -> Look {
        self.looks += 1;
        let number = self.looks;
        if !self.take_events() {
            self.full_scan_owed = true;
        }
        if *excludes != self.excludes {
            self.excludes = excludes.clone();
            self.restart();
            self.full_scan_owed = true;
        }
        for (path, stamp) in &mut self.rules {
            let now = FileStamp::of(path);
            if now != *stamp {
                *stamp = now;
                self.full_scan_owed = true;
            }
        }
        let rule_changed = self.pending.iter().any(|path| {
            let name = path.rsplit(|b| *b == b'/').next().unwrap_or(path);
            RULE_FILES.contains(&name)
        });
        let changed = (!self.full_scan_owed && !rule_changed && self.pending.len() <= MOST_PATHS)
            .then(|| self.pending.iter().cloned().collect());
        Look { changed, number }
    }

    /// A snapshot taken on look `number` has written its index: what it looked at is settled,
    /// unless a later look took in more. The files it `left_out` (over the size limit) stay
    /// pending, so that every checkpoint reports them, as a full scan does.
    pub fn settled(&mut self, number: u64, left_out: impl IntoIterator<Item = Vec<u8>>) {
        if number == self.looks {
            self.pending.clear();
            self.pending.extend(left_out);
            self.full_scan_owed = false;
        }
    }

    /// Moves the kernel's events into `pending`; false when they cannot be trusted.
    #[cfg(target_os = "linux")]
    fn take_events(&mut self) -> bool {
        let Some(watcher) = &mut self.watcher else {
            return false;
        };
        if watcher.take_events(&mut self.pending) {
            return true;
        }
        // Lost track (an overflow, a moved directory): watch afresh; what changed meanwhile
        // is found by the full scan this owes.
        self.restart();
        false
    }

    #[cfg(target_os = "linux")]
    fn restart(&mut self) {
        self.watcher = inotify::Watcher::start(&self.root, self.excludes.clone());
    }

    #[cfg(not(target_os = "linux"))]
    fn take_events(&mut self) -> bool {
        false
    }

    #[cfg(not(target_os = "linux"))]
    fn restart(&mut self) {}
}

/// What a file looked like: a change of any of these means it may say something else.
#[derive(PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    inode: (u64, u64, i64, i64),
}

impl FileStamp {
    fn of(path: &Path) -> Option<FileStamp> {
        let meta = std::fs::metadata(path).ok()?;
        Some(FileStamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            inode: {
                use std::os::unix::fs::MetadataExt;
                (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec())
            },
        })
    }
}

#[cfg(target_os = "linux")]
mod inotify;
