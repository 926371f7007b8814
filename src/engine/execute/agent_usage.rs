//! What an agent node cost, read where the agent CLIs record it: each keeps a transcript of
//! every session with the model and the tokens of each response. A node's worktree is new to
//! the agent, so the sessions run in it since the node started are the node's: Claude Code's
//! project folder for the worktree, the Codex rollouts whose session ran there, and the chats
//! of the Gemini CLI project that `projects.json` names for the worktree, Qwen Code's project
//! folder, and the GitHub Copilot CLI sessions that ran there. An agent
//! that keeps no such record (or one git-fabro cannot place) leaves the stage without usage.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::format::time::Timestamp;
use crate::format::usage::Usage;
use crate::format::usage::transcript::turn_usage;
use crate::input;
use crate::input::agent_dirs::{self, Var};
use crate::ops::conversation::{claude_project_dir, claude_project_name};

/// How much of a Codex rollout's start is read to find where its session ran: its first line,
/// `session_meta`, carries the session's instructions too.
const HEAD: u64 = 1 << 20;

/// The usage of the agent sessions run in `worktree` since `started`, with the agent's
/// environment `env`; `None` when no session there recorded any.
pub fn since(
    env: &[(OsString, OsString)],
    worktree: &Path,
    started: (Timestamp, SystemTime),
) -> Option<Usage> {
    let lookup = |name: &str| {
        env.iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let var: Var = &lookup;
    let real = std::fs::canonicalize(worktree).unwrap_or_else(|_| worktree.to_owned());
    let since = started.1;
    let mut files = Vec::new();
    if let Some(config) = agent_dirs::claude_config(var) {
        files.extend(written_since(&claude_project_dir(&config, &real), since));
    }
    if let Some(codex) = agent_dirs::codex_home(var) {
        files.extend(codex_rollouts(&codex.join("sessions"), &real, since));
    }
    if let Some(gemini) = agent_dirs::gemini_dir(var) {
        files.extend(gemini_chats(&gemini, &real, since));
    }
    // Qwen Code names a project's folder as Claude Code does.
    if let Some(qwen) = agent_dirs::qwen_runtime(var) {
        let project = qwen.join("projects").join(claude_project_name(&real));
        files.extend(written_since(&project.join("chats"), since));
    }
    if let Some(copilot) = agent_dirs::copilot_dir(var) {
        files.extend(copilot_sessions(
            &copilot.join("session-state"),
            &real,
            since,
        ));
    }
    let mut total: Option<Usage> = None;
    for file in files {
        let Ok(data) = input::read_file(&file, "a transcript", input::MAX_ATTACHMENT) else {
            continue;
        };
        if let Some(turn) = turn_usage(&data, Some(started.0)) {
            let usage = total.get_or_insert_with(Usage::default);
            for model in turn.usage.models {
                usage.add(model.model, model.tokens);
            }
            usage.tool_calls += turn.usage.tool_calls;
        }
    }
    total
}

/// The `.jsonl` files directly in `dir` modified at or after `since`.
fn written_since(dir: &Path, since: SystemTime) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension() == Some(OsStr::new("jsonl")))
        .filter(|path| modified_since(path, since))
        .collect()
}

fn modified_since(path: &Path, since: SystemTime) -> bool {
    std::fs::symlink_metadata(path)
        .and_then(|meta| meta.modified())
        .is_ok_and(|modified| modified >= since)
}

/// Codex's rollouts (`sessions/YYYY/MM/DD/rollout-*.jsonl`) modified since `since` whose
/// session ran in `worktree`: the newest day folders, which hold every session started
/// today or late yesterday.
fn codex_rollouts(sessions: &Path, worktree: &Path, since: SystemTime) -> Vec<PathBuf> {
    let newest = |dir: &Path, count: usize| -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.is_dir())
            .collect();
        dirs.sort();
        dirs.into_iter().rev().take(count).collect()
    };
    let mut days = Vec::new();
    for year in newest(sessions, 2) {
        for month in newest(&year, 2) {
            days.extend(newest(&month, 2));
        }
    }
    days.iter()
        .flat_map(|day| written_since(day, since))
        .filter(|file| ran_in(file, worktree))
        .collect()
}

/// Gemini CLI's chats for `worktree`: `projects.json` maps each project's path to the name of
/// its folder under `tmp/`, whose `chats/` hold its sessions.
fn gemini_chats(gemini: &Path, worktree: &Path, since: SystemTime) -> Vec<PathBuf> {
    let Ok(projects) = input::read_file(&gemini.join("projects.json"), "projects", HEAD) else {
        return Vec::new();
    };
    let projects: serde_json::Value = serde_json::from_slice(&projects).unwrap_or_default();
    let Some(name) = worktree
        .to_str()
        .and_then(|dir| projects["projects"][dir].as_str())
        .filter(|name| !name.is_empty() && !name.contains(['/', '\\']) && *name != "..")
    else {
        return Vec::new();
    };
    written_since(&gemini.join("tmp").join(name).join("chats"), since)
}

/// GitHub Copilot CLI's sessions (`session-state/<id>/events.jsonl`) modified since `since`
/// whose `session.start` event names `worktree` as its directory.
fn copilot_sessions(state: &Path, worktree: &Path, since: SystemTime) -> Vec<PathBuf> {
    std::fs::read_dir(state)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("events.jsonl"))
        .filter(|file| modified_since(file, since) && ran_in(file, worktree))
        .collect()
}

/// Whether the first line of the session's file (Codex's `session_meta`, Copilot's
/// `session.start`) names `worktree` as its directory.
fn ran_in(file: &Path, worktree: &Path) -> bool {
    use std::io::Read;
    let Some(dir) = worktree.to_str() else {
        return false;
    };
    let needle = format!("\"cwd\":{}", serde_json::Value::from(dir));
    let mut head = Vec::new();
    let read = std::fs::File::open(file).and_then(|f| f.take(HEAD).read_to_end(&mut head));
    let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
    read.is_ok() && first.windows(needle.len()).any(|w| w == needle.as_bytes())
}
