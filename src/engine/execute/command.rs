//! The command handler: a node's `script` run by `/bin/bash -c` in the run's worktree (a
//! `language=python` script as `python3 -c SCRIPT`, as Fabro runs it), in a process group of
//! its own (see [`super::process`]), with the environment [`super::environment`] allows
//! scripts and git-fabro's `FABRO_*` variables. Its output streams into `stdout.log` and
//! `stderr.log` as it runs; a timeout sends SIGTERM to the group, then SIGKILL 2 s later. Exit
//! 0 succeeds, anything else fails and is never retried, as in Fabro; a timeout may be retried.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::process::{Ending, Shell, run_shell};
use crate::engine::graph::{AttrValue, Node};
use crate::engine::outcome::{Outcome, Retry};
use crate::format::record::pretty;
use crate::format::usage::Usage;
use crate::ops::checkpoint::Attachment;

/// A script's timeout when the node sets none: 10 minutes, as in Fabro.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// How much of each stream a failure's notes quote.
const TAIL: usize = 4096;

/// Where and how one command runs.
pub struct Invocation<'a> {
    pub node: &'a Node,
    pub worktree: &'a Path,
    /// The allowed environment plus the `FABRO_*` variables.
    pub env: Vec<(OsString, OsString)>,
    /// The stage's folder in the run directory: `stdout.log` and `stderr.log` go there.
    pub stage_dir: PathBuf,
}

/// What a command left: its outcome and the stage files Fabro writes for it.
pub struct Ran {
    pub outcome: Outcome,
    pub exit_code: Option<i32>,
    /// Its output stays in the files it streamed into: they are attached as files.
    pub files: Vec<(String, Attachment)>,
    /// What an agent's work cost, when it recorded that.
    pub usage: Option<Usage>,
}

impl Ran {
    /// A stage that left no exit code and no files, only its outcome.
    pub fn outcome(outcome: Outcome) -> Ran {
        Ran {
            outcome,
            exit_code: None,
            files: Vec::new(),
            usage: None,
        }
    }
}

/// `text` quoted for bash, as one word.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

pub fn run(invocation: &Invocation) -> Ran {
    let node = invocation.node;
    let script = node
        .str_attr("script")
        .or_else(|| node.str_attr("tool_command"))
        .unwrap_or("");
    let language = node.str_attr("language").unwrap_or("shell");
    let timeout = timeout(node);
    let mut files = vec![(
        "script_invocation.json".to_string(),
        Attachment::Bytes(pretty(&invocation_json(node))),
    )];
    let command = match command_line(script, language) {
        _ if script.trim().is_empty() => Err("No script specified".to_owned()),
        None => Err(format!(
            "Invalid language: {language:?} (expected \"shell\" or \"python\")"
        )),
        Some(command) => Ok(command),
    };
    let command = match command {
        Ok(command) => command,
        Err(reason) => {
            return Ran {
                outcome: Outcome::failed(&reason),
                exit_code: None,
                files,
                usage: None,
            };
        }
    };
    let (stdout, stderr) = (
        invocation.stage_dir.join("stdout.log"),
        invocation.stage_dir.join("stderr.log"),
    );
    let clock = Instant::now();
    let ending = run_shell(&Shell {
        command: &command,
        worktree: invocation.worktree,
        env: &invocation.env,
        stdin: None,
        stdout: stdout.clone(),
        stderr: stderr.clone(),
        timeout: Some(timeout),
    });
    let (exit_code, timed_out) = match &ending {
        Ok(Ending::Exited(code)) => (*code, false),
        Ok(Ending::TimedOut) => (None, true),
        Err(_) => (None, false),
    };
    let timing = json!({
        "duration_ms": u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX),
        "exit_code": exit_code,
        "timed_out": timed_out,
        "termination": if timed_out { "timed_out" } else { "exited" },
        "stdout_bytes": size(&stdout),
        "stderr_bytes": size(&stderr),
        "streams_separated": true,
        "live_streaming": true,
    });
    files.push((
        "script_timing.json".into(),
        Attachment::Bytes(pretty(&timing)),
    ));
    let outcome = outcome(script, timeout, ending, &stdout, &stderr);
    files.push(("stdout.log".into(), Attachment::output(stdout)));
    files.push(("stderr.log".into(), Attachment::output(stderr)));
    Ran {
        outcome,
        exit_code,
        files,
        usage: None,
    }
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Fabro's outcome of a script: its exit, with the tails of its output when it failed, and
/// its output in the context (`command.output`, `command.stderr`). Fabro retries a timeout
/// and a spawn failure, never an exit code.
fn outcome(
    script: &str,
    timeout: Duration,
    ending: std::io::Result<Ending>,
    stdout: &Path,
    stderr: &Path,
) -> Outcome {
    let out_text = super::context_text::file_context_text(stdout, "stdout.log");
    let err_text = super::context_text::file_context_text(stderr, "stderr.log");
    let with_tails = |mut reason: String| {
        push_tail(&mut reason, "stdout", &out_text);
        push_tail(&mut reason, "stderr", &err_text);
        reason
    };
    let mut outcome = match ending {
        Ok(Ending::Exited(Some(0))) => Outcome::succeeded(format!("Script completed: {script}")),
        Ok(Ending::Exited(code)) => {
            let code = code.unwrap_or(-1);
            Outcome::failed(&with_tails(format!("Script failed with exit code: {code}")))
        }
        Ok(Ending::TimedOut) => {
            let timeout_ms = timeout.as_millis();
            let reason = with_tails(format!("Script timed out after {timeout_ms}ms: {script}"));
            Outcome::retryable(&reason, Retry::Error)
        }
        Err(err) => Outcome::retryable(&format!("cannot run /bin/bash: {err}"), Retry::Error),
    };
    let updates = &mut outcome.context_updates;
    updates.insert("command.output".into(), Value::String(out_text));
    updates.insert("command.stderr".into(), Value::String(err_text));
    outcome
}

/// The shell line that runs `script` in `language`: Python goes through `python3 -c`, as in
/// Fabro; None for a language Fabro does not run.
fn command_line(script: &str, language: &str) -> Option<String> {
    match language {
        "python" => Some(format!("python3 -c {}", shell_quote(script))),
        "shell" => Some(script.to_owned()),
        _ => None,
    }
}

/// What Fabro's `command.started` event and `script_invocation.json` say of a command.
pub fn invocation_json(node: &Node) -> Value {
    let script = node
        .str_attr("script")
        .or_else(|| node.str_attr("tool_command"))
        .unwrap_or("");
    let language = node.str_attr("language").unwrap_or("shell");
    json!({
        "script": script,
        "command": command_line(script, language).as_deref().unwrap_or(script),
        "language": language,
        "timeout_ms": u64::try_from(timeout(node).as_millis()).unwrap_or(u64::MAX),
    })
}

/// The node's `timeout` (a duration, or milliseconds), else [`DEFAULT_TIMEOUT`].
fn timeout(node: &Node) -> Duration {
    node_timeout(node).unwrap_or(DEFAULT_TIMEOUT)
}

/// The node's `timeout`: a duration, or a number of milliseconds.
pub fn node_timeout(node: &Node) -> Option<Duration> {
    match node.attrs.get("timeout")? {
        AttrValue::Duration(d) => Some(*d),
        value => value
            .as_i64()
            .and_then(|ms| u64::try_from(ms).ok())
            .map(Duration::from_millis),
    }
}

pub fn push_tail(reason: &mut String, name: &str, text: &str) {
    if text.is_empty() {
        return;
    }
    let mut start = text.len().saturating_sub(TAIL);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    reason.push_str(&format!("\n\n## {name}\n{}", &text[start..]));
}
