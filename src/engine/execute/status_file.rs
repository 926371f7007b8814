//! The `status.json` an agent may leave instead of putting its routing JSON in its response
//! (Fabro reads one at the worktree's root). A file that sits in the repository routes nothing:
//! a committed `status.json`, or one an earlier stage left, would otherwise decide the outcome
//! and context of every agent stage. So only a file this stage's agent wrote counts: one in the
//! stage's folder of the run directory (beside `$FABRO_PROMPT_FILE`) that is new or changed,
//! else one at the worktree's root that was not there when the stage began. The worktree's is
//! removed once read, so it never reaches a checkpoint nor routes a later stage; a file that
//! was there before is left untouched.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::response;

const NAME: &str = "status.json";
/// A `status.json` larger than this is not routing.
const MAX_STATUS_FILE: u64 = 1 << 20;

/// Where an agent may leave its `status.json`, and what was there when the stage began.
pub struct StatusFiles {
    in_stage: PathBuf,
    in_stage_before: Option<Vec<u8>>,
    in_worktree: PathBuf,
    in_worktree_before: bool,
}

impl StatusFiles {
    /// Notes what is there before the agent starts.
    pub fn before(stage_dir: &Path, worktree: &Path) -> StatusFiles {
        let in_stage = stage_dir.join(NAME);
        let in_worktree = worktree.join(NAME);
        StatusFiles {
            in_stage_before: read_small(&in_stage),
            // Anything at all by that name (a link, a directory) was not written by this stage.
            in_worktree_before: std::fs::symlink_metadata(&in_worktree).is_ok(),
            in_stage,
            in_worktree,
        }
    }

    /// The routing directives of a `status.json` the agent wrote during the stage: the stage
    /// folder's, else the worktree's, which is then removed.
    pub fn directives(&self) -> Option<Map<String, Value>> {
        let in_stage =
            read_small(&self.in_stage).filter(|now| Some(now) != self.in_stage_before.as_ref());
        if let Some(found) = in_stage.and_then(|bytes| parse(&bytes)) {
            return Some(found);
        }
        if self.in_worktree_before {
            return None;
        }
        let found = parse(&read_small(&self.in_worktree)?)?;
        // A file the stage cannot remove stays in its checkpoint, and routes no later stage.
        let _ = std::fs::remove_file(&self.in_worktree);
        Some(found)
    }
}

fn parse(bytes: &[u8]) -> Option<Map<String, Value>> {
    response::directives(std::str::from_utf8(bytes).ok()?)
}

/// The bytes of a regular file of routing size; a link, a device or a huge file is none.
fn read_small(path: &Path) -> Option<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_STATUS_FILE {
        return None;
    }
    std::fs::read(path).ok()
}
