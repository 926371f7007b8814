//! Who moved a ref, from its reflog. A long-lived writer (the workflow engine) builds each
//! checkpoint on the tip it reads; the compare-and-swap only guards the moment between that
//! read and the write. A run's branch that something outside git-fabro moved while the engine
//! ran (a `git fetch`, a `git update-ref`, a `git branch -f`) would be built on silently, so the
//! engine asks here first. Every git-fabro ref move writes a reflog message starting with
//! `fabro`; git's own commands write theirs.
//!
//! The engine notes where each reflog ends when it begins ([`ReflogMarks`]) and reads only the
//! entries appended since, moving the mark on each time: no clock is compared (reflog times are
//! whole seconds, so a fetch just before a `resume` would look like one during it), and each
//! check reads only what the last node added.
//!
//! Who may move what ([`Movers`]): a metadata branch is git-fabro's alone. A run branch is also
//! checked out in the run's worktree, where a node's own `git commit`, `reset` or `merge` is the
//! node's work, which its checkpoint records; what a fetch or a push brought from another
//! repository is not.

use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use super::Repo;
use crate::git::error::{Error, Result};

/// Who may move a watched ref while a long-lived writer works on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Movers {
    /// git-fabro alone (a metadata branch).
    Fabro,
    /// git-fabro and commands in the worktree that has the branch checked out, but nothing that
    /// came from another repository (a run branch).
    FabroAndWorktree,
}

impl Movers {
    /// Whether the reflog `message` names a move that this kind of ref does not allow.
    fn forbids(self, message: &str) -> bool {
        if message.starts_with("fabro") {
            return false;
        }
        match self {
            Movers::Fabro => true,
            Movers::FabroAndWorktree => ["fetch", "push"].iter().any(|p| message.starts_with(p)),
        }
    }
}

/// Where the reflogs of some refs ended when last read.
#[derive(Debug)]
pub(crate) struct ReflogMarks {
    logs: Vec<(String, Movers, PathBuf, u64)>,
}

impl Repo {
    /// Marks the current end of the reflogs of `refs` (a missing reflog ends at 0).
    pub(crate) fn reflog_marks(&self, refs: &[(&str, Movers)]) -> ReflogMarks {
        let logs = refs
            .iter()
            .map(|(name, movers)| {
                let path = self.common_dir().join("logs").join(name);
                let end = std::fs::metadata(&path).map_or(0, |m| m.len());
                ((*name).to_owned(), *movers, path, end)
            })
            .collect();
        ReflogMarks { logs }
    }

    /// Refuses (a conflict) when something its [`Movers`] do not allow moved one of the marked
    /// refs since the marks were set or last checked; then marks the reflogs' new ends. Where
    /// reflogs are not kept, or one was rewritten (`git reflog expire`), nothing can be told
    /// and nothing is refused.
    pub(crate) fn ensure_moved_only_by_allowed(&self, marks: &mut ReflogMarks) -> Result<()> {
        for (name, movers, path, end) in &mut marks.logs {
            let Some((appended, new_end)) = read_from(path, *end) else {
                continue;
            };
            let foreign = appended
                .lines()
                .filter(|line| !line.trim().is_empty())
                .map(|line| line.split_once('\t').map_or("", |(_, m)| m).trim())
                .find(|message| movers.forbids(message));
            if let Some(message) = foreign {
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
            *end = new_end;
        }
        Ok(())
    }
}

/// The text appended to the file at `path` past `end`, and its new end; `None` when the file is
/// gone or shorter than `end` (rewritten).
fn read_from(path: &std::path::Path, end: u64) -> Option<(String, u64)> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    if len < end {
        return None;
    }
    file.seek(SeekFrom::Start(end)).ok()?;
    let mut appended = Vec::new();
    file.read_to_end(&mut appended).ok()?;
    let new_end = end + appended.len() as u64;
    Some((String::from_utf8_lossy(&appended).into_owned(), new_end))
}
