//! The index side of a snapshot: the changes a snapshot makes to the index so that `git status`
//! stays clean and the next snapshot starts warm, the stat data it records, and the stamp
//! beside an index git-fabro wrote, which lets an unchanged index skip its comparison.

use std::path::Path;

use gix::bstr::BString;
use gix::index::entry::{Mode, Stat};
use gix::objs::tree::EntryKind;

use super::ObjectId;
use crate::git::error::Result;

/// Beside an index git-fabro wrote: the tree that index matched and the index's checksum then.
/// While both still hold, comparing the index with that tree again can only find nothing.
pub(super) fn stamp_path(index: &Path) -> std::path::PathBuf {
    let name = index
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    index.with_file_name(format!("{name}.fabro-tree"))
}

pub(super) fn write_stamp(index: &Path, tree: ObjectId, checksum: ObjectId) -> std::io::Result<()> {
    let stamp = stamp_path(index);
    let temp = stamp.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&temp, format!("{tree} {checksum}\n"))?;
    std::fs::rename(&temp, &stamp)
}

/// Whether `index` is, unchanged, the one git-fabro wrote to match `tree`.
pub(super) fn index_matches(index: &gix::index::File, tree: ObjectId) -> bool {
    let Some(checksum) = index.checksum() else {
        return false;
    };
    let Ok(stamp) = std::fs::read_to_string(stamp_path(index.path())) else {
        return false;
    };
    stamp.trim_end() == format!("{tree} {checksum}")
}

/// Whether a file may have changed within the same timestamp tick as the index was written, so
/// that its stat data cannot vouch for it and status hashes it. Git rewrites such an index
/// even when nothing changed (its new timestamp settles those entries); so does a snapshot,
/// or every later snapshot would hash those files again. Otherwise an index that already
/// matches the tree is left as it is: rewriting it is most of an unchanged snapshot's cost.
pub(super) fn has_racy_entries(
    index: &gix::index::File,
    options: gix::index::entry::stat::Options,
) -> bool {
    let timestamp = index.timestamp();
    index
        .entries()
        .iter()
        .any(|entry| entry.stat.is_racy(timestamp, options))
}

pub(super) enum IndexChange {
    Content {
        entry: usize,
        id: ObjectId,
        mode: Mode,
        stat: Stat,
    },
    Stat {
        entry: usize,
        stat: Stat,
    },
    SmudgeSize {
        entry: usize,
    },
    Remove {
        entry: usize,
    },
    Add {
        path: BString,
        id: ObjectId,
        mode: Mode,
        stat: Stat,
    },
}

pub(super) fn apply(index: &mut gix::index::File, changes: Vec<IndexChange>) {
    let mut removed = vec![false; index.entries().len()];
    let mut added = false;
    for change in changes {
        match change {
            IndexChange::Content {
                entry,
                id,
                mode,
                stat,
            } => {
                let e = &mut index.entries_mut()[entry];
                e.id = id;
                e.mode = mode;
                e.stat = stat;
            }
            IndexChange::Stat { entry, stat } => index.entries_mut()[entry].stat = stat,
            IndexChange::SmudgeSize { entry } => index.entries_mut()[entry].stat.size = 0,
            IndexChange::Remove { entry } => removed[entry] = true,
            IndexChange::Add {
                path,
                id,
                mode,
                stat,
            } => {
                index.dangerously_push_entry(
                    stat,
                    id,
                    gix::index::entry::Flags::empty(),
                    mode,
                    path.as_ref(),
                );
                added = true;
            }
        }
    }
    if removed.iter().any(|r| *r) {
        index.remove_entries(|idx, _, _| removed.get(idx).copied().unwrap_or(false));
    }
    if added {
        index.sort_entries();
    }
}

pub(super) fn mode_of(kind: EntryKind) -> Mode {
    match kind {
        EntryKind::BlobExecutable => Mode::FILE_EXECUTABLE,
        EntryKind::Link => Mode::SYMLINK,
        EntryKind::Commit => Mode::COMMIT,
        EntryKind::Tree => Mode::DIR,
        EntryKind::Blob => Mode::FILE,
    }
}

/// The index's stat data for a file, from the metadata taken before its content was read: a
/// write during the read then shows as a changed stat and is hashed again next time.
#[cfg(unix)]
pub(super) fn stat_of(md: std::fs::Metadata) -> Result<Stat> {
    use gix::index::entry::stat::Time;
    use std::os::unix::fs::MetadataExt;
    // The index stores 32-bit fields; truncation is what git does too.
    Ok(Stat {
        mtime: Time {
            secs: md.mtime() as u32,
            nsecs: md.mtime_nsec() as u32,
        },
        ctime: Time {
            secs: md.ctime() as u32,
            nsecs: md.ctime_nsec() as u32,
        },
        dev: md.dev() as u32,
        ino: md.ino() as u32,
        uid: md.uid(),
        gid: md.gid(),
        size: md.size() as u32,
    })
}

/// Without unix metadata the entry gets an empty stat, which only means it is hashed again.
#[cfg(not(unix))]
pub(super) fn stat_of(_md: std::fs::Metadata) -> Result<Stat> {
    Ok(Stat::default())
}
