//! Who moved a ref last, from its reflog. A long-lived writer (the workflow engine) builds each
//! checkpoint on the tip it reads; the compare-and-swap only guards the moment between that
//! read and the write. A run's branch that something outside git-fabro moved while the engine
//! ran (a `git fetch`, a `git update-ref`, a `git branch -f`) would be built on silently, so the
//! engine asks here first. Every git-fabro ref move writes a reflog message starting with
//! `fabro`; git's own commands write theirs.

use std::io::{Read, Seek, SeekFrom};
use std::time::SystemTime;

use super::Repo;
use crate::git::error::{Error, Result};

/// How much of a reflog's end is read: its newest entry is the last line.
const TAIL: u64 = 8 * 1024;

impl Repo {
    /// Refuses (a conflict) when one of the refs `names` was last moved, at or after `since`,
    /// by something other than git-fabro. Where reflogs are not kept, nothing can be told and
    /// nothing is refused.
    pub fn ensure_moved_by_fabro_only(&self, names: &[&str], since: SystemTime) -> Result<()> {
        let since = since
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        for name in names {
            let Some((when, message)) = self.last_move(name) else {
                continue;
            };
            // Reflog times are whole seconds: a move in the second the engine started may
            // have come before it, and is let through.
            if when > since && !message.starts_with("fabro") {
                return Err(Error::Conflict(format!(
                    "{} was moved while this run's engine worked on it, by something other than git-fabro ({}): \
                     the run stops here, without building on it; look at the branch, then `git fabro resume` continues from what it holds",
                    name.trim_start_matches("refs/heads/"),
                    if message.is_empty() {
                        "no reflog message".to_owned()
                    } else {
                        format!("reflog: {message:?}")
                    }
                )));
            }
        }
        Ok(())
    }

    /// The newest entry of `name`'s reflog: when (seconds) and its message.
    fn last_move(&self, name: &str) -> Option<(u64, String)> {
        let mut file = std::fs::File::open(self.common_dir().join("logs").join(name)).ok()?;
        let len = file.metadata().ok()?.len();
        file.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
        let mut tail = Vec::new();
        file.read_to_end(&mut tail).ok()?;
        let tail = String::from_utf8_lossy(&tail);
        let line = tail.lines().rev().find(|line| !line.trim().is_empty())?;
        // `<old> <new> <name> <<email>> <seconds> <zone>\t<message>`
        let (header, message) = line.split_once('\t').unwrap_or((line, ""));
        let mut fields = header.rsplitn(3, ' ');
        let _zone = fields.next()?;
        let when = fields.next()?.parse().ok()?;
        Some((when, message.trim().to_owned()))
    }
}
