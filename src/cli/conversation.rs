//! After `restore` or `undo` of an agent's session (Claude Code, Codex, Gemini CLI), the
//! conversation as it stood there: the transcript of the last turn at or before the restored
//! state, written back for the agent as a session of its own (see
//! [`crate::ops::conversation`]), with the command that continues it. The session's own
//! transcript is never touched.

use std::path::Path;

use super::{Ctx, output};
use crate::format::run_id::new_ulid;
use crate::input::agent_dirs;
use crate::ops::agent_sessions::{AGENT_LABEL, SESSION_LABEL};
use crate::ops::conversation::{self, Agent, RestoredConversation};
use crate::run::RunState;
use crate::run::inspect::stage_file;
use crate::run::timeline::timeline_with;

/// The largest transcript given back (what a checkpoint attaches at most).
const LIMIT: u64 = crate::input::MAX_ATTACHMENT;

/// Gives back the conversation of the agent session `state` as of the state `commit` (a
/// checkpoint, the start of a turn) for the checkout `workdir`, and says how to go on with
/// it. A run that is no session of an agent whose conversations come back, or a state before
/// the first turn, has none; what goes wrong is a warning, since the files are restored
/// already.
pub fn offer(
    ctx: &Ctx,
    state: &RunState,
    commit: &str,
    workdir: &Path,
) -> Option<RestoredConversation> {
    let labels = &state.record.spec.labels;
    let agent = Agent::from_label(labels.get(AGENT_LABEL)?)?;
    if !labels.contains_key(SESSION_LABEL) {
        return None;
    }
    let transcript = match transcript_at(ctx, state, commit) {
        Ok(found) => found?,
        Err(err) => {
            output::warn(format!("the conversation was not restored: {err:#}"));
            return None;
        }
    };
    let var = |name: &str| std::env::var_os(name);
    let restored = match agent {
        Agent::Claude => {
            let config_dir = agent_dirs::claude_config(&var)?;
            conversation::restore_claude(&transcript, workdir, &config_dir)
        }
        Agent::Codex => {
            let codex_home = agent_dirs::codex_home(&var)?;
            let now = jiff::Timestamp::now().to_zoned(output::local_zone().clone());
            conversation::restore_codex(&transcript, &codex_home, &now)
        }
        Agent::Gemini => {
            // Gemini only reads the file it imports: the copy is kept with the repository's
            // own files, one per restore.
            let dest = ctx
                .repo
                .common_dir()
                .join("fabro")
                .join("conversations")
                .join(state.id.as_str())
                .join(format!("{}.jsonl", new_ulid()));
            conversation::restore_gemini(&transcript, &dest)
        }
    };
    match restored {
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
