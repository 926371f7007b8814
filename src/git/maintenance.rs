//! git's own housekeeping after git-fabro wrote objects. Every checkpoint writes its commits,
//! the changed trees and `run.json` as loose objects, and a long run would otherwise leave
//! thousands of them behind (each a new copy of the growing `stages/` tree). git's porcelain
//! starts `git gc --auto` after it writes; git-fabro does the same, with git's own cheap
//! estimate made in-process so that a command that need not start anything spawns nothing,
//! and with the gc detached so that it never adds to the time of the command that wrote.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use super::Repo;

/// git's default `gc.auto`: the number of loose objects past which `git gc --auto` packs.
const DEFAULT_GC_AUTO: i64 = 6700;

/// The one loose-object directory git samples: a 256th of all loose objects land there.
const SAMPLE_DIR: &str = "17";

/// Set once this process wrote a commit: every command that writes objects writes one.
static WROTE_OBJECTS: AtomicBool = AtomicBool::new(false);

pub(super) fn note_written() {
    WROTE_OBJECTS.store(true, Ordering::Relaxed);
}

impl Repo {
    /// When this process wrote objects and loose objects are past git's threshold, starts
    /// `git gc --auto` in the background and returns at once. Honours `gc.auto` (0 or less
    /// turns it off) and `maintenance.auto = false`, as git's own commands do. Best-effort: a
    /// git that cannot be started leaves the objects loose and changes nothing else.
    pub(crate) fn start_auto_gc_if_due(&self) {
        if !WROTE_OBJECTS.swap(false, Ordering::Relaxed) || !self.auto_gc_due() {
            return;
        }
        let mut gc = Command::new("git");
        gc.arg("--git-dir")
            .arg(self.common_dir())
            .args(["gc", "--auto", "--quiet"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // Its own process group: a Ctrl-C meant for the command that wrote must not stop a
        // gc halfway (git's gc is safe to stop, but it would only start again next time).
        crate::process::own_group(&mut gc);
        // Not waited on: the gc outlives this process and is reparented when it exits.
        let _ = gc.spawn();
    }

    /// git's estimate (`too_many_loose_objects`): more loose objects in `objects/17` than
    /// `gc.auto` / 256, rounded up.
    fn auto_gc_due(&self) -> bool {
        let config = self.repo.config_snapshot();
        if config.boolean("maintenance.auto") == Some(false) {
            return false;
        }
        let gc_auto = config.integer("gc.auto").unwrap_or(DEFAULT_GC_AUTO);
        // 0 or less turns automatic gc off.
        let Some(gc_auto) = u64::try_from(gc_auto).ok().filter(|&n| n > 0) else {
            return false;
        };
        let per_directory = gc_auto.div_ceil(256);
        let sample = self.repo.objects.store_ref().path().join(SAMPLE_DIR);
        let name_len = self.repo.object_hash().len_in_hex() - SAMPLE_DIR.len();
        count_loose_objects(&sample, name_len, per_directory) > per_directory
    }
}

/// The loose objects in `dir` (files named by the rest of a hex object id), counted up to one
/// past `limit`: more is never needed.
fn count_loose_objects(dir: &Path, name_len: usize, limit: u64) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let hex_name = |name: &str| {
        name.len() == name_len && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    };
    let mut count = 0;
    for entry in entries.flatten() {
        if entry.file_name().to_str().is_some_and(hex_name) {
            count += 1;
            if count > limit {
                break;
            }
        }
    }
    count
}

/// Runs a loose-object write, trying again when it fails. A gc running beside the command
/// (started by an earlier one) removes fan-out directories it emptied, and one can vanish
/// between gix creating it and moving the new object into it; git's own writes retry
/// likewise. Objects are content-addressed, so writing one again is always safe.
pub(super) fn retry_write<T, E>(mut write: impl FnMut() -> Result<T, E>) -> Result<T, E> {
    const ATTEMPTS: usize = 3;
    let mut attempt = 1;
    loop {
        match write() {
            Err(_) if attempt < ATTEMPTS => attempt += 1,
            result => return result,
        }
    }
}
