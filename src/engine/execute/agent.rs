//! The agent (`box`) and prompt (`tab`) handlers. Fabro calls a model itself; git-fabro hands
//! the stage to an agent command the user chooses (a preset such as `claude`, or any command
//! line: [`crate::engine::agents`]), run by `/bin/bash -c` in the run's worktree exactly as a
//! command node's script is run (own process group, the allowed environment plus the agents'
//! logins, streamed output, timeout), with the prompt on stdin and in `$FABRO_PROMPT_FILE`.
//! Its stdout is the response: `response.md` beside `prompt.md`, the context keys Fabro sets
//! after an LLM stage, and the routing JSON Fabro reads in responses (else in a `status.json`
//! the agent wrote during the stage: [`super::status_file`]). A non-zero exit fails the stage.
//! There is no timeout unless the node sets one: Fabro gives agents none either.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use serde_json::json;

use super::Engine;
use super::agent_usage;
use super::command::{self, Ran};
use super::context_text::{self, Tail};
use super::environment::Audience;
use super::process::{self, Ending, Shell};
use super::response;
use super::status_file::StatusFiles;
use crate::engine::agents;
use crate::engine::graph::{Graph, Node};
use crate::engine::outcome::Outcome;
use crate::engine::stylesheet;
use crate::format::run_id::RunId;
use crate::format::time::Timestamp;
use crate::ops::checkpoint::Attachment;
use crate::run::workspace::Workspace;

/// How much of `last_response` Fabro keeps in the context, in bytes.
const LAST_RESPONSE: usize = 200;
/// The most of an agent's response held in memory (`response.md` has it whole): all of a
/// smaller response, else its end. Routing reads what is held: Fabro's routing object is the
/// last one in the response, so it is found unless more than this follows it.
const RESPONSE_HELD: usize = 1 << 20;
/// How much of each stream a failure quotes, in characters (Fabro's CLI backend's tail).
const FAILURE_TAIL: usize = 500;
/// Where and how one agent stage runs.
pub struct Invocation<'a> {
    pub graph: &'a Graph,
    pub node: &'a Node,
    /// `agent` or `prompt`.
    pub kind: &'a str,
    /// The agent command; the run is refused before it starts when a workflow needs one and
    /// none is set, so `None` here only fails the stage.
    pub command: Option<&'a str>,
    pub worktree: &'a Path,
    /// The allowed environment plus the `FABRO_*` variables every handler gets.
    pub env: Vec<(OsString, OsString)>,
    pub stage_dir: PathBuf,
}

impl Engine<'_> {
    /// Runs an agent or prompt stage, between Fabro's `stage.prompt` and `prompt.completed`
    /// events.
    pub(super) fn run_agent(
        &self,
        id: &RunId,
        workspace: &Workspace,
        node: &Node,
        visit: u64,
        kind: &str,
    ) -> Ran {
        let stage = format!("{}@{visit}", node.id);
        let text = prompt(node);
        let started = json!({ "text": text, "mode": kind });
        self.event(id, "stage.prompt", node, &stage, started);
        let env = self.node_env(id, node, visit, Audience::Agent);
        let ran = run(&Invocation {
            graph: self.graph,
            node,
            kind,
            command: self.config.agent_command.as_deref(),
            worktree: &workspace.path,
            env,
            stage_dir: self.stage_dir(node, visit),
        });
        let key = format!("response.{}", node.id);
        let response = ran.outcome.context_updates.get(&key);
        self.event(
            id,
            "prompt.completed",
            node,
            &stage,
            json!({ "response": response }),
        );
        ran
    }
}

/// The prompt: the node's `prompt`, else its label (templates were rendered before the run).
pub fn prompt(node: &Node) -> &str {
    node.str_attr("prompt")
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| node.label())
}

pub fn run(invocation: &Invocation) -> Ran {
    let node = invocation.node;
    let prompt = prompt(node);
    let mut files = vec![(
        "prompt.md".to_owned(),
        Attachment::Bytes(prompt.as_bytes().to_vec()),
    )];
    let Some(agent) = invocation.command.map(agents::expand) else {
        return failed("no agent command is set (--agent, or git config fabro.agentCommand)");
    };
    let prompt_file = invocation.stage_dir.join("prompt.md");
    let written = std::fs::create_dir_all(&invocation.stage_dir)
        .and_then(|()| std::fs::write(&prompt_file, prompt));
    if let Err(err) = written {
        return failed(&format!("cannot write {}: {err}", prompt_file.display()));
    }
    let env = agent_env(invocation, &prompt_file);
    let status_files = StatusFiles::before(&invocation.stage_dir, invocation.worktree);
    let timeout = command::node_timeout(node);
    let clock = Instant::now();
    let started = (Timestamp::now(), SystemTime::now());
    let ending = process::run_shell(&Shell {
        command: agent,
        worktree: invocation.worktree,
        env: &env,
        stdin: Some(&prompt_file),
        stdout: invocation.stage_dir.join("response.md"),
        stderr: invocation.stage_dir.join("stderr.log"),
        timeout,
    });
    let duration_ms = u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX);
    let stdout = invocation.stage_dir.join("response.md");
    let stderr = invocation.stage_dir.join("stderr.log");
    let response = Response::read(&stdout);
    let errors = held_text(&stderr, context_text::LIMIT);
    files.push(("response.md".into(), Attachment::output(stdout)));
    files.push(("stderr.log".into(), Attachment::output(stderr)));
    let (outcome, exit_code) = match ending {
        Ok(Ending::Exited(Some(0))) => (answered(invocation, &response, &status_files), Some(0)),
        Ok(Ending::Exited(code)) => {
            let code_text = code.map_or_else(|| "<unknown>".to_owned(), |c| c.to_string());
            let detail = failure_detail(&response.held, &errors, agent);
            let reason = format!("Agent command exited with code {code_text}: {detail}");
            (Outcome::failed(&reason), code)
        }
        Ok(Ending::TimedOut) => {
            let detail = failure_detail(&response.held, &errors, agent);
            let reason = format!("Agent command timed out after {duration_ms} ms: {detail}");
            (Outcome::failed(&reason), None)
        }
        Err(err) => (
            Outcome::failed(&format!("cannot run /bin/bash: {err}")),
            None,
        ),
    };
    Ran {
        outcome,
        exit_code,
        files,
        usage: agent_usage::since(&env, invocation.worktree, started),
    }
}

fn failed(reason: &str) -> Ran {
    Ran::outcome(Outcome::failed(reason))
}

/// An agent's response as the stage reads it, bounded however long the response is.
struct Response {
    /// Its first [`LAST_RESPONSE`] bytes, cut on a character: `last_response`.
    head: String,
    /// Up to [`RESPONSE_HELD`] bytes of its end, starting on a character.
    held: String,
    /// As the context holds it (`response.<node>`).
    context: String,
}

impl Response {
    /// Reads the response in `response.md`: its head, and its end after a seek. A response
    /// the agent never wrote is empty.
    fn read(path: &Path) -> Response {
        let tail = context_text::read_tail(path, RESPONSE_HELD).unwrap_or(Tail {
            bytes: Vec::new(),
            skipped: 0,
        });
        let (held, _) = context_text::tail_text(&tail.bytes, tail.skipped);
        // A character that starts within the head ends at most 3 bytes past it.
        let head = match tail.skipped {
            0 => held.clone(),
            _ => String::from_utf8_lossy(
                &context_text::read_head(path, LAST_RESPONSE + 3).unwrap_or_default(),
            )
            .into_owned(),
        };
        let mut cut = head.len().min(LAST_RESPONSE);
        while !head.is_char_boundary(cut) {
            cut -= 1;
        }
        Response {
            head: head[..cut].to_owned(),
            context: context_text::tail_context_text(&tail.bytes, tail.skipped, "response.md"),
            held,
        }
    }
}

/// Up to `limit` bytes of the end of the file at `path`, as text; empty when there is none.
fn held_text(path: &Path, limit: usize) -> String {
    context_text::read_tail(path, limit)
        .map(|tail| context_text::tail_text(&tail.bytes, tail.skipped).0)
        .unwrap_or_default()
}

/// A stage whose agent exited 0: Fabro's context keys, then what its routing JSON says.
fn answered(invocation: &Invocation, response: &Response, status_files: &StatusFiles) -> Outcome {
    let id = &invocation.node.id;
    let mut outcome = Outcome::succeeded(format!("Stage completed: {id}"));
    let updates = [
        ("last_stage".to_owned(), json!(id)),
        ("last_response".to_owned(), json!(response.head)),
        (format!("response.{id}"), json!(response.context)),
    ];
    outcome.context_updates.extend(updates);
    let found = (response::directives(&response.held).map(|d| (d, "response.md")))
        .or_else(|| status_files.directives().map(|d| (d, "status.json")));
    if let Some((directives, file)) = found {
        response::apply(&directives, file, &mut outcome);
    }
    outcome
}

/// The environment of every script, plus what an agent needs to know about its stage. The
/// model, provider and reasoning effort come from the node, else its stylesheet rules; the
/// reasoning effort defaults to `high` as in Fabro, the others to empty.
fn agent_env(invocation: &Invocation, prompt_file: &Path) -> Vec<(OsString, OsString)> {
    let resolve = |property| stylesheet::resolve(invocation.graph, invocation.node, property);
    let ours = [
        ("FABRO_PROMPT_FILE", prompt_file.as_os_str().to_owned()),
        ("FABRO_NODE_TYPE", OsString::from(invocation.kind)),
        ("FABRO_MODEL", resolve("model").unwrap_or_default().into()),
        (
            "FABRO_PROVIDER",
            resolve("provider").unwrap_or_default().into(),
        ),
        (
            "FABRO_REASONING_EFFORT",
            resolve("reasoning_effort")
                .unwrap_or_else(|| "high".to_owned())
                .into(),
        ),
    ];
    let mut env: Vec<(OsString, OsString)> = invocation
        .env
        .iter()
        .filter(|(k, _)| !ours.iter().any(|(name, _)| k == name))
        .cloned()
        .collect();
    env.extend(ours.into_iter().map(|(k, v)| (OsString::from(k), v)));
    env
}

/// The tails of both streams, as Fabro quotes a failed agent CLI: stderr, then stdout, else
/// the command itself.
fn failure_detail(stdout: &str, stderr: &str, agent: &str) -> String {
    let tail = |text: &str| -> String {
        let text = text.trim_end();
        let count = text.chars().count();
        text.chars()
            .skip(count.saturating_sub(FAILURE_TAIL))
            .collect()
    };
    let (err, out) = (tail(stderr), tail(stdout));
    match (err.is_empty(), out.is_empty()) {
        (false, false) => format!("{err}\nstdout: {out}"),
        (false, true) => err,
        (true, false) => format!("stdout: {out}"),
        (true, true) => format!("command: {agent}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_quote_stderr_then_stdout() {
        assert_eq!(failure_detail("out\n", "bad\n", "x"), "bad\nstdout: out");
        assert_eq!(failure_detail("", "", "claude -p"), "command: claude -p");
        let long = "é".repeat(600);
        assert_eq!(failure_detail(&long, "", "x").chars().count(), 8 + 500);
    }
}
