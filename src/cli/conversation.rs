//! After `restore` or `undo` of a Claude Code session, the conversation as it stood there:
//! the transcript of the last turn at or before the restored state, written back for Claude
//! under a new session id (see [`crate::ops::conversation`]), with the command that continues
//! it. The session's own transcript is never touched.

use std::path::Path;

use super::{Ctx, output};
use crate::ops::agent_sessions::{AGENT_LABEL, SESSION_LABEL};
use crate::ops::conversation::{self, RestoredConversation};
use crate::run::RunState;
use crate::run::inspect::stage_file;
use crate::run::timeline::timeline_with;

/// The largest transcript given back (what a checkpoint attaches at most).
const LIMIT: u64 = crate::input::MAX_ATTACHMENT;

/// Gives back the conversation of the Claude Code session `state` as of the state `commit`
/// (a checkpoint, the start of a turn) for the checkout `workdir`, and says how to go on with
/// it. A run that is no Claude session, or a state before the first turn, has none; what goes
/// wrong is a warning, since the files are restored already.
pub fn offer(
    ctx: &Ctx,
    state: &RunState,
    commit: &str,
    workdir: &Path,
) -> Option<RestoredConversation> {
    let labels = &state.record.spec.labels;
    if labels.get(AGENT_LABEL).map(String::as_str) != Some("claude")
        || !labels.contains_key(SESSION_LABEL)
    {
        return None;
    }
    let transcript = match transcript_at(ctx, state, commit) {
        Ok(found) => found?,
        Err(err) => {
            output::warn(format!("the conversation was not restored: {err:#}"));
            return None;
        }
    };
    let config_dir = conversation::claude_config_dir(
        std::env::var_os("CLAUDE_CONFIG_DIR").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )?;
    match conversation::restore_claude(&transcript, workdir, &config_dir) {
        Ok(restored) => {
            output::note(format!(
                "the conversation as it was there: {} (a copy; the session's own is as it was)",
                restored.command_line()
            ));
            Some(restored)
        }
        Err(err) => {
            output::warn(format!("the conversation was not restored: {err}"));
            None
        }
    }
}

/// The transcript of the newest checkpoint at or before `commit` in the run's timeline.
fn transcript_at(ctx: &Ctx, state: &RunState, commit: &str) -> anyhow::Result<Option<Vec<u8>>> {
    let entries = timeline_with(&ctx.repo, state, true)?;
    let Some(at) = entries.iter().rposition(|e| e.run_commit == commit) else {
        return Ok(None);
    };
    let Some(turn) = entries[..=at].iter().rev().find(|e| e.snapshot.is_none()) else {
        return Ok(None);
    };
    Ok(stage_file(&ctx.repo, turn, "transcript.jsonl", LIMIT)?)
}
