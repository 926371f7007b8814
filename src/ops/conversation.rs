//! A recorded agent conversation made resumable again. A checkpoint of an agent's turn holds
//! the session's transcript as it was when the turn ended (`transcript.jsonl` in the stage
//! `turn@N`); giving that copy back to the agent, as a session of its own, lets the user go on
//! talking from that turn, beside the session that went further, which stays as it is: no
//! file of the agent's is ever overwritten. Each agent keeps its sessions its own way:
//!
//! - Claude Code ([`restore_claude`]): the copy goes into Claude's folder for the checkout,
//!   under a new session id; `claude --resume <id>`.
//! - Codex CLI ([`restore_codex`]): the copy goes into Codex's sessions as a new rollout, under
//!   a new session id; `codex resume <id>`.
//! - Gemini CLI ([`restore_gemini`]): the copy goes where the caller says, as it is; `gemini
//!   --session-file <path>` imports it as a new session.
//!
//! The callers find the agents' folders ([`crate::input::agent_dirs`]) and read the clock;
//! this module only decides and writes.

mod claude;
mod codex;
mod gemini;
mod json_scan;
mod session_lines;

pub use claude::{claude_project_dir, claude_project_name, restore_claude};
pub use codex::restore_codex;
pub use gemini::restore_gemini;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::Error;

/// The agents whose conversations can be given back, by the name a session run's `agent`
/// label carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
}

impl Agent {
    /// The agent a run's `agent` label names, if its conversations can be given back.
    pub fn from_label(label: &str) -> Option<Agent> {
        match label {
            "claude" => Some(Agent::Claude),
            "codex" => Some(Agent::Codex),
            "gemini" => Some(Agent::Gemini),
            _ => None,
        }
    }

    /// The agent's name for people.
    pub fn title(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
        }
    }
}

/// A conversation written back for the agent to resume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RestoredConversation {
    pub agent: Agent,
    /// The new session's id: a UUID (version 4 for Claude Code, 7 for Codex). `None` for
    /// Gemini CLI, which gives the session its id when it imports the copy.
    pub session_id: Option<String>,
    /// The session id the recorded transcript carried, if any line had one.
    pub recorded_session_id: Option<String>,
    /// The transcript written.
    pub path: PathBuf,
    /// Where [`command`](Self::command) must run (the real path of the checkout it was
    /// restored for: Claude Code looks for the session there); `None` when it runs anywhere.
    pub workdir: Option<PathBuf>,
    /// The command that continues the conversation: `claude --resume <id>`, `codex resume
    /// <id>`, `gemini --session-file <path>`.
    pub command: Vec<String>,
    /// Non-blank lines that were not JSON objects, copied as they were.
    pub unreadable_lines: usize,
}

impl RestoredConversation {
    /// [`command`](Self::command) as one line to type in a POSIX shell, each word quoted when
    /// it needs to be.
    pub fn command_line(&self) -> String {
        let words: Vec<String> = self
            .command
            .iter()
            .map(|w| crate::format::shell::quote(w))
            .collect();
        words.join(" ")
    }
}

/// Why a conversation could not be written back.
#[derive(Debug, thiserror::Error)]
pub enum ConversationError {
    /// The transcript has nothing the agent could resume (an empty file, or another agent's).
    #[error("the transcript is not a {} session: none of its {lines} lines {missing}", .agent.title())]
    NotATranscript {
        agent: Agent,
        lines: usize,
        missing: &'static str,
    },
    /// The system gave no random bytes for a new session id.
    #[error("cannot make a new session id: the system's random source failed: {0}")]
    NoRandom(getrandom::Error),
    /// The new session's file already exists; it is never overwritten.
    #[error("{} already exists; it was left as it is", .0.display())]
    Exists(PathBuf),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
}

impl ConversationError {
    fn not_a_transcript(
        agent: Agent,
        transcript: &[u8],
        missing: &'static str,
    ) -> ConversationError {
        let lines = transcript.split(|&b| b == b'\n').filter(|l| !l.is_empty());
        ConversationError::NotATranscript {
            agent,
            lines: lines.count(),
            missing,
        }
    }
}

impl From<ConversationError> for Error {
    fn from(err: ConversationError) -> Error {
        match err {
            ConversationError::Io { context, source } => Error::Io { context, source },
            other => Error::Failed(other.to_string()),
        }
    }
}

fn io(context: String) -> impl FnOnce(std::io::Error) -> ConversationError {
    move |source| ConversationError::Io { context, source }
}

/// A new random session id, a UUID of version 4 (as Claude Code makes its own).
pub fn uuid_v4() -> Result<String, ConversationError> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(ConversationError::NoRandom)?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    Ok(uuid_text(&b))
}

/// A new session id of the time `unix_millis`, a UUID of version 7 (as Codex makes its own):
/// the 48-bit time in milliseconds, then random bits.
pub fn uuid_v7(unix_millis: i64) -> Result<String, ConversationError> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(ConversationError::NoRandom)?;
    let millis = u64::try_from(unix_millis).unwrap_or(0).min((1 << 48) - 1);
    b[..6].copy_from_slice(&millis.to_be_bytes()[2..]);
    b[6] = (b[6] & 0x0f) | 0x70;
    b[8] = (b[8] & 0x3f) | 0x80;
    Ok(uuid_text(&b))
}

fn uuid_text(b: &[u8; 16]) -> String {
    let hex: String = b.iter().map(|byte| format!("{byte:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// Writes `bytes` to `path`, which must not exist, through a temporary file beside it (mode
/// 0600, readable by its owner only, as the agents' own session files are) that is renamed
/// only where nothing is: a kill leaves nothing half-written, and no file is ever replaced.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), ConversationError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::Builder::new()
        .prefix(".git-fabro-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io(format!("cannot create a file in {}", dir.display())))?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.as_file().sync_all());
    written.map_err(io(format!("cannot write {}", file.path().display())))?;
    file.persist_noclobber(path).map_err(|err| {
        if err.error.kind() == std::io::ErrorKind::AlreadyExists {
            ConversationError::Exists(path.to_owned())
        } else {
            io(format!("cannot write {}", path.display()))(err.error)
        }
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `path` is readable by its owner only.
    pub fn assert_private(path: &Path) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{}", path.display());
        }
        #[cfg(not(unix))]
        let _ = path;
    }

    fn parts(id: &str) -> Vec<&str> {
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(matches!(parts[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'));
        parts
    }

    #[test]
    fn session_ids_are_uuids_v4() {
        let id = uuid_v4().unwrap();
        assert!(parts(&id)[2].starts_with('4'));
        assert_ne!(id, uuid_v4().unwrap());
    }

    #[test]
    fn codex_ids_are_uuids_v7_of_the_time() {
        // Codex 0.171 named a session started at 2026-12-01T20:08:19.741Z 01a23338-f211-7d71-...
        let id = uuid_v7(1_796_155_699_729).unwrap();
        let p = parts(&id);
        assert_eq!((p[0], p[1]), ("01a23338", "f211"));
        assert!(p[2].starts_with('7'));
        assert_ne!(id, uuid_v7(1_796_155_699_729).unwrap());
        assert!(uuid_v7(-5).unwrap().starts_with("00000000-0000-7"));
    }

    #[test]
    fn agents_are_named_by_their_label() {
        assert_eq!(Agent::from_label("codex"), Some(Agent::Codex));
        assert_eq!(Agent::from_label("aider"), None);
        let json = serde_json::to_string(&Agent::Gemini).unwrap();
        assert_eq!(json, "\"gemini\"");
    }

    #[test]
    fn an_existing_file_is_never_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.jsonl");
        std::fs::write(&path, "theirs").unwrap();
        let err = write_new(&path, b"ours").unwrap_err();
        assert!(matches!(err, ConversationError::Exists(_)), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "theirs");
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
    }
}
