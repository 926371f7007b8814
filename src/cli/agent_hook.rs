//! What the hooks `git fabro hooks install --claude` (or `--codex`, `--gemini`, `--qwen`, and
//! the plugin of `--opencode`) writes do when the agent calls them: the JSON the agent sends on
//! stdin names the files a tool is about to write (a snapshot saves them first) or the
//! session's transcript (attached to the checkpoint of the turn that ended). A hook never stops the agent: it exits 0, says what went wrong on
//! stderr and logs it in the run's directory, where `git fabro status` shows it. It prints
//! nothing on stdout, which some agents read as the hook's answer.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use serde_json::Value;

use super::open_run::OpenRun;
use super::snapshot::{physical, relative_to_root};
use super::{Ctx, agent_session, output};
use crate::error::{Error, exit};
use crate::format::node::{NodeId, StageStatus};
use crate::format::time::Timestamp;
use crate::format::usage::transcript;
use crate::input;
use crate::ops::checkpoint::{Attachment, CheckpointRequest, checkpoint, retrying_vanished};
use crate::ops::hook_failures::{self, HookFailure};
use crate::ops::restore::restored_since_tip;
use crate::ops::snapshot::snapshot;
use crate::ops::{agent_process, turn_prompts, undo};

/// The node each turn is recorded as.
const TURN_NODE: &str = "turn";
/// The node a session's end is recorded as, when the files moved since its last turn.
const END_NODE: &str = "end";
/// How often a turn's checkpoint is tried when another one of the same run wins a race.
const TRIES: u32 = 5;

/// Runs `agent-turn` or `agent-edit` (`hook`) for the agent named in `args`.
pub fn run(ctx: impl FnOnce() -> Result<Ctx>, hook: &str, args: &[String]) {
    let agent = args.first().map_or("agent", String::as_str);
    let mut text = String::new();
    if let Err(err) = std::io::stdin().read_to_string(&mut text) {
        return output::warn(format!(
            "git-fabro {hook}: cannot read the hook's input: {err}"
        ));
    }
    let input: Value = match serde_json::from_str(&text) {
        Ok(input) => input,
        Err(err) => {
            return output::warn(format!(
                "git-fabro {hook}: the hook's input is not JSON: {err}"
            ));
        }
    };
    let ending = hook == "agent-end";
    let opened = ctx().and_then(|ctx| {
        let run = agent_session::open(&ctx, agent, &input, !ending)?;
        Ok((ctx, run))
    });
    let (ctx, run, own) = match opened {
        Ok((ctx, Some((run, own)))) => (ctx, run, own),
        Ok((_, None)) => return,
        Err(err) => {
            if matches!(err.downcast_ref::<Error>(), Some(Error::NoCurrentRun)) {
                output::note(format!("git-fabro {hook}: no run here, nothing recorded"));
            } else {
                output::warn(format!("git-fabro {hook}: {err:#}"));
            }
            return;
        }
    };
    let problems = match hook {
        "agent-prompt" => prompt(&ctx, &run, asked(agent, &input)).map(|()| Vec::new()),
        "agent-turn" => turn(&ctx, &run, &input, agent),
        "agent-edit" => edit(&ctx, &run, &input).map(|()| Vec::new()),
        // Only a session's own run ends with it; a run started by hand goes on.
        "agent-end" if own => end(&ctx, &run),
        "agent-end" => Ok(Vec::new()),
        other => Err(anyhow::anyhow!(
            "unknown hook {other:?} (a newer git-fabro wrote it?)"
        )),
    }
    .unwrap_or_else(|err| vec![format!("{err:#}")]);
    // The agent that called, for telling a session cut off from one that goes on.
    if let (true, false, Some(dir)) = (own, ending, &run.run_dir)
        && let Err(err) = agent_process::record(dir, hook != "agent-turn")
    {
        output::warn(format!("git-fabro {hook}: {err}"));
    }
    for problem in problems {
        output::warn(format!("git-fabro {hook}: {problem}"));
        let failure = HookFailure::now(hook, agent, problem);
        if let Some(dir) = &run.run_dir
            && let Err(err) = hook_failures::record(dir, &failure)
        {
            output::warn(format!("git-fabro {hook}: {err}"));
        }
    }
}

/// The longest session id recorded: agents' ids are UUIDs; anything much longer is not an id,
/// and would make the run's record too large to read back.
pub const MAX_SESSION_ID: usize = 1024;

/// Finishes a session's run when the session ends. Its result is what the checkout holds
/// then: files that moved since the last turn (a restore or an undo during the session, an
/// edit of the user's) are checkpointed first, as node `end`. A run in place leaves the
/// directory as it is.
fn end(ctx: &Ctx, run: &OpenRun) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let fresh;
    let run = if run.workspace()?.is_dirty(run.state.run_tip, &run.config)? {
        let request = checkpoint_request(END_NODE, Vec::new(), Vec::new())?;
        problems.extend(record(ctx, run, &request)?);
        fresh = ctx.open_run(Some(run.state.id.as_str()))?;
        &fresh
    } else {
        run
    };
    problems.extend(super::agent_session::finish_session(ctx, run)?);
    Ok(problems)
}

/// A turn starts: when a restore or an undo moved the files since the last checkpoint, they
/// are saved as they are, so that undoing this turn goes back to exactly there; and the
/// prompt waits for the turn's checkpoint. Only then: a snapshot of every file is a walk of
/// the whole checkout, which the agent would wait for before every turn.
fn prompt(ctx: &Ctx, run: &OpenRun, asked: Option<&str>) -> Result<()> {
    if restored_since_tip(&ctx.repo, &run.state)? {
        save(ctx, run, undo::TURN_START, &[])?;
    }
    if let (Some(dir), Some(prompt)) = (&run.run_dir, asked) {
        turn_prompts::hand_over(dir, prompt)?;
    }
    Ok(())
}

/// What the user asked, from the hook of a turn's start: its `prompt`, but Qwen Code's
/// `submitted_prompt`. Qwen Code calls that hook before each of a turn's model calls, and
/// sends what goes to the model then (the tool results, or nothing) as `prompt`; what the user
/// typed comes once, as `submitted_prompt`.
pub fn asked<'a>(agent: &str, input: &'a Value) -> Option<&'a str> {
    let key = match agent {
        "qwen" => "submitted_prompt",
        _ => "prompt",
    };
    input[key]
        .as_str()
        .filter(|prompt| !prompt.trim().is_empty())
}

/// Checkpoints the turn that ended, with the session's transcript attached when the agent
/// names one in its transcript folders, and the turn's prompts. Returns what went wrong
/// without stopping the checkpoint.
fn turn(ctx: &Ctx, run: &OpenRun, input: &Value, agent: &str) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let mut attachments = Vec::new();
    let prompts = run
        .run_dir
        .as_ref()
        .map(turn_prompts::waiting)
        .unwrap_or_default();
    if !prompts.is_empty() {
        let text = turn_prompts::stage_text(&prompts).into_bytes();
        attachments.push((
            turn_prompts::PROMPT_FILE.to_owned(),
            Attachment::Bytes(text),
        ));
    }
    let mut turn_usage = None;
    if let Some(path) = input["transcript_path"].as_str().filter(|p| !p.is_empty()) {
        let path = Path::new(path);
        let folders = input::transcript::folders(agent, |name| std::env::var_os(name));
        match input::transcript::read(path, &folders, input::MAX_ATTACHMENT) {
            Ok(data) => {
                turn_usage = transcript::turn_usage(&data, last_checkpoint_time(run));
                attachments.push((transcript_name(path), Attachment::Bytes(data)));
            }
            Err(err) => problems.push(format!("checkpointed without the transcript: {err}")),
        }
    }
    let mut context = Vec::new();
    match input["session_id"].as_str() {
        Some(id) if id.len() > MAX_SESSION_ID => problems.push(format!(
            "checkpointed without the session id: it is {} bytes, over the {MAX_SESSION_ID} a session id can be",
            id.len()
        )),
        Some(id) => context.push(("agent_session_id".to_owned(), Value::from(id))),
        None => {}
    }
    let mut request = checkpoint_request(TURN_NODE, context, attachments)?;
    if let Some(turn) = turn_usage {
        request.usage = Some(turn.usage);
        request.duration_ms = turn.duration_ms;
    }
    problems.extend(record(ctx, run, &request)?);
    if let Some(dir) = &run.run_dir {
        turn_prompts::taken(dir);
    }
    Ok(problems)
}

/// When the run's newest checkpoint was taken: the turn that ends is what the agent wrote
/// since.
fn last_checkpoint_time(run: &OpenRun) -> Option<Timestamp> {
    let checkpoint = run.state.record.checkpoint.as_ref()?;
    Timestamp::parse_rfc3339(&checkpoint.timestamp)
}

/// A succeeded checkpoint of `node` with its run commit.
fn checkpoint_request(
    node: &str,
    context: Vec<(String, Value)>,
    attachments: Vec<(String, Attachment)>,
) -> Result<CheckpointRequest> {
    Ok(CheckpointRequest::by_hand(
        NodeId::parse(node)?,
        StageStatus::parse("succeeded")?,
        context,
        attachments,
    ))
}

/// Checkpoints the run, trying again when another checkpoint of it wins a race; returns the
/// checkpoint's warnings.
fn record(ctx: &Ctx, run: &OpenRun, request: &CheckpointRequest) -> Result<Vec<String>> {
    let mut pause = Duration::from_millis(50);
    for tried in 1..=TRIES {
        // After a lost race the run is read afresh: another checkpoint moved it.
        let fresh;
        let run = if tried == 1 {
            run
        } else {
            fresh = ctx.open_run(Some(&run.state.id.to_string()))?;
            &fresh
        };
        let workspace = run.workspace()?;
        let done = retrying_vanished(|| {
            checkpoint(
                &ctx.repo,
                Some(workspace),
                &run.state,
                &run.config,
                request,
                run.run_dir.as_ref(),
            )
        });
        match done {
            Err(err) if err.exit_code() == exit::CONFLICT && tried < TRIES => {
                std::thread::sleep(pause);
                pause *= 2;
            }
            done => return Ok(done?.warnings),
        }
    }
    Ok(Vec::new())
}

/// `transcript` with the extension of the agent's file (`.jsonl` for Claude Code).
fn transcript_name(path: &Path) -> String {
    match path.extension().and_then(|e| e.to_str()) {
        Some(ext) if ext.chars().all(|c| c.is_ascii_alphanumeric()) => format!("transcript.{ext}"),
        _ => "transcript".into(),
    }
}

/// Snapshots the run's files a tool is about to write. A file that does not exist yet has
/// nothing to save, and one outside the run's files is not the run's. A shell command can write
/// any file, so before one that names no file (a patch names its files) every changed file is
/// saved; a snapshot writes nothing when nothing changed since the last one.
fn edit(ctx: &Ctx, run: &OpenRun, input: &Value) -> Result<()> {
    let workspace = run.workspace()?;
    let root = std::fs::canonicalize(&workspace.path)?;
    let base = input["cwd"]
        .as_str()
        .map(PathBuf::from)
        .map_or_else(std::env::current_dir, Ok)?;
    let tool = input["tool_name"].as_str().unwrap_or("a tool");
    let named = tool_paths(&input["tool_input"]);
    if named.is_empty() && input["tool_input"]["command"].is_string() {
        return save(ctx, run, &format!("before {tool}"), &[]);
    }
    let mut paths: Vec<Vec<u8>> = Vec::new();
    for named in named {
        let full = base.join(&named);
        if std::fs::symlink_metadata(&full).is_err() {
            continue;
        }
        if let Ok(rel) = relative_to_root(&root, &base, &[PathBuf::from(named)], physical)
            && let [rel] = rel.as_slice()
            && !paths.contains(rel)
        {
            paths.push(rel.clone());
        }
    }
    let Some(first) = paths.first() else {
        return Ok(());
    };
    let mut reason = format!("before {tool} {}", String::from_utf8_lossy(first));
    if paths.len() > 1 {
        reason.push_str(&format!(" and {} more", paths.len() - 1));
    }
    save(ctx, run, &reason, &paths)
}

/// A snapshot of `paths` (every changed file when empty), warning of files left out.
fn save(ctx: &Ctx, run: &OpenRun, reason: &str, paths: &[Vec<u8>]) -> Result<()> {
    let done = snapshot(
        &ctx.repo,
        run.workspace()?,
        &run.state,
        &run.config,
        Some(reason),
        paths,
    )?;
    for skipped in &done.skipped_files {
        output::warn(format!(
            "left out {} ({} bytes, over the size limit)",
            skipped.path, skipped.size
        ));
    }
    Ok(())
}

/// The files a tool names: `file_path` (Claude Code's Write, Edit and MultiEdit, Gemini CLI's
/// write_file and replace, Qwen Code's edit and write_file), `path` (GitHub Copilot CLI's edit
/// and create), `notebook_path` (NotebookEdit), `edits[].file_path`, and the files of a patch
/// (`*** Update File: PATH` and its kin): in `command`, whether the patch is Codex's
/// `apply_patch` tool's input or a shell command feeding it to `apply_patch`, or the whole
/// input, as Copilot sends its `apply_patch`.
fn tool_paths(tool_input: &Value) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    let mut add = |path: &str| {
        if !path.is_empty() {
            paths.push(path.to_owned());
        }
    };
    for key in ["file_path", "path", "notebook_path"] {
        if let Some(path) = tool_input[key].as_str() {
            add(path);
        }
    }
    for edit in tool_input["edits"].as_array().into_iter().flatten() {
        if let Some(path) = edit["file_path"].as_str() {
            add(path);
        }
    }
    if let Some(patch) = tool_input.as_str().or(tool_input["command"].as_str()) {
        for line in patch.lines() {
            let named = ["Update File: ", "Delete File: ", "Add File: ", "Move to: "]
                .iter()
                .find_map(|marker| line.strip_prefix("*** ")?.strip_prefix(marker));
            if let Some(path) = named {
                add(path.trim());
            }
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_come_from_every_agents_tool_input() {
        let claude = serde_json::json!({"file_path": "/w/a.rs", "edits": [{"old_string": "x"}]});
        assert_eq!(tool_paths(&claude), ["/w/a.rs"]);
        let codex = serde_json::json!({"command": "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: b.txt\n+hi\n*** End Patch\n"});
        assert_eq!(tool_paths(&codex), ["src/a.rs", "b.txt"]);
        let copilot = serde_json::json!({"path": "/w/a.rs", "old_str": "x", "new_str": "y"});
        assert_eq!(tool_paths(&copilot), ["/w/a.rs"]);
        let copilot_patch =
            serde_json::json!("*** Begin Patch\n*** Delete File: /w/c.rs\n*** End Patch\n");
        assert_eq!(tool_paths(&copilot_patch), ["/w/c.rs"]);
    }
}
