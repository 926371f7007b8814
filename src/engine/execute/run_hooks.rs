//! Running the run hooks of `[[hooks]]` (see [`crate::config::hooks`]) at the walk's events,
//! with Fabro's contract. A hook is a script like a command node's: `/bin/bash -c` in the
//! run's worktree, in a process group of its own, stopped at its timeout or on Ctrl-C, with
//! the environment [`super::environment`] lets scripts see plus `FABRO_EVENT`,
//! `FABRO_RUN_ID`, `FABRO_WORKFLOW`, `FABRO_NODE_ID` and `FABRO_HOOK_CONTEXT` (the event as
//! JSON, also given on stdin).
//!
//! Exit 0 proceeds, unless stdout is a decision (`{"decision": "skip" | "block" | "override",
//! ...}`); exit 2 blocks unless stdout says otherwise; any other exit, a timeout or a command
//! that cannot start blocks. Only blocking hooks decide: they run one after the other and the
//! first block wins; a non-blocking hook's decision is ignored. What a decision does depends
//! on the event: `run_start` and `stage_start` may block (the run fails), `stage_start` may
//! skip the stage, `edge_selected` may block or send the walk to another node.
//!
//! Each hook's input and output stay in the run directory's `hooks/` folder.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Engine;
use super::command::Ran;
use super::environment::{Audience, allowed};
use super::process::{Ending, Shell, run_shell};
use super::stage::{Attempted, Stage};
use crate::config::hooks::{HookDefinition, HookEvent};
use crate::engine::graph::{Edge, Node};
use crate::engine::handler::Handler;
use crate::engine::outcome::{Outcome, Status};
use crate::format::run_id::RunId;
use crate::run::workspace::Workspace;

/// How much of a hook's stdout is read for its decision.
const MAX_DECISION: u64 = 1 << 20;

/// What a hook is told, as Fabro's hook context (absent fields are left out).
#[derive(Debug, Serialize)]
pub(super) struct HookContext {
    event: HookEvent,
    run_id: String,
    workflow_name: String,
    cwd: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    node_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    node_label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    handler_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edge_from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edge_to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edge_label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attempt: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_attempts: Option<u32>,
}

impl HookContext {
    /// The fields Fabro's matcher looks at.
    fn matched_fields(&self) -> [Option<&str>; 4] {
        [
            self.node_id.as_deref(),
            self.handler_type.as_deref(),
            self.edge_to.as_deref(),
            self.edge_from.as_deref(),
        ]
    }

    fn with_node(mut self, node: &Node) -> Self {
        self.node_id = Some(node.id.clone());
        self.node_label = Some(node.label().to_owned());
        self.handler_type = Some(Handler::of(node).as_str().to_owned());
        self
    }
}

/// What hooks decided, in Fabro's JSON shape.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub(super) enum Decision {
    #[default]
    Proceed,
    Skip {
        #[serde(default)]
        reason: Option<String>,
    },
    Block {
        #[serde(default)]
        reason: Option<String>,
    },
    Override {
        edge_to: String,
    },
}

impl Decision {
    /// Fabro's order: a block wins, then the first skip or override, then proceed.
    fn merge(self, other: Decision) -> Decision {
        match (&self, &other) {
            (Decision::Block { .. }, _) => self,
            (_, Decision::Block { .. }) => other,
            (Decision::Proceed, _) => other,
            _ => self,
        }
    }

    /// Fabro's reading of a hook's exit and stdout.
    fn of_exit(code: i32, stdout: &str) -> Decision {
        let stated = serde_json::from_str::<Decision>(stdout.trim()).ok();
        match (code, stated) {
            (0 | 2, Some(decision)) => decision,
            (0, None) => Decision::Proceed,
            (code, _) => block(format!("hook exited with code {code}")),
        }
    }
}

fn block(reason: String) -> Decision {
    Decision::Block {
        reason: Some(reason),
    }
}

/// Where a walk goes after the `edge_selected` hooks.
pub(super) enum EdgeVerdict {
    Proceed,
    To(String),
    Blocked(String),
}

impl Engine<'_> {
    fn hook_context(&self, id: &RunId, event: HookEvent, cwd: &Path) -> HookContext {
        HookContext {
            event,
            run_id: id.to_string(),
            workflow_name: self.graph.name().to_owned(),
            cwd: cwd.display().to_string(),
            node_id: None,
            node_label: None,
            handler_type: None,
            status: None,
            edge_from: None,
            edge_to: None,
            edge_label: None,
            failure_reason: None,
            attempt: None,
            max_attempts: None,
        }
    }

    /// Runs the hooks of `context`'s event that match it; their merged decision.
    fn run_hooks(&self, context: &HookContext) -> Decision {
        let matching: Vec<&HookDefinition> = (self.config.hooks.iter())
            .filter(|hook| hook.event == context.event && matches(hook, context))
            .collect();
        let mut merged = Decision::Proceed;
        for hook in matching {
            let decision = self.run_hook(hook, context);
            if hook.is_blocking() {
                merged = merged.merge(decision);
                if matches!(merged, Decision::Block { .. }) {
                    return merged;
                }
            }
        }
        merged
    }

    fn run_hook(&self, hook: &HookDefinition, context: &HookContext) -> Decision {
        let files = self.hook_files(context.event);
        let input = serde_json::to_vec_pretty(context).unwrap_or_default();
        if let Err(err) = write_new(&files.input, &input) {
            return block(format!("cannot write the hook's input: {err}"));
        }
        let ending = run_shell(&Shell {
            command: hook.command(),
            worktree: Path::new(&context.cwd),
            env: &self.hook_env(context, &files.input),
            stdin: Some(&files.input),
            stdout: files.stdout.clone(),
            stderr: files.stderr,
            timeout: Some(hook.timeout()),
        });
        match ending {
            Ok(Ending::Exited(code)) => {
                let stdout = crate::input::read_file(&files.stdout, "hook stdout", MAX_DECISION);
                let stdout = stdout.unwrap_or_default();
                Decision::of_exit(code.unwrap_or(-1), &String::from_utf8_lossy(&stdout))
            }
            // Ctrl-C stopped it: no decision; the engine stops the run, resumable, at its
            // next check, rather than failing it as a block would.
            Ok(Ending::TimedOut) if super::interrupt::requested() => Decision::Proceed,
            Ok(Ending::TimedOut) => {
                let ms = hook.timeout().as_millis();
                block(format!("hook timed out after {ms}ms"))
            }
            Err(err) => block(format!("cannot run hook: {err}")),
        }
    }

    fn hook_env(&self, context: &HookContext, input: &Path) -> Vec<(OsString, OsString)> {
        let mut ours = vec![
            ("FABRO_EVENT", OsString::from(context.event.as_str())),
            ("FABRO_RUN_ID", OsString::from(&context.run_id)),
            ("FABRO_WORKFLOW", OsString::from(&context.workflow_name)),
            ("FABRO_HOOK_CONTEXT", input.as_os_str().to_owned()),
            ("FABRO_RUN_DIR", self.run_dir.path.clone().into_os_string()),
            ("FABRO_HOME", self.config.home.clone().into_os_string()),
        ];
        if let Some(node) = &context.node_id {
            ours.push(("FABRO_NODE_ID", OsString::from(node)));
        }
        let mut env: Vec<(OsString, OsString)> =
            allowed(&self.env, &self.config.env_pass, Audience::Script)
                .into_iter()
                .filter(|(k, _)| !ours.iter().any(|(name, _)| k == name))
                .collect();
        env.extend(ours.into_iter().map(|(k, v)| (OsString::from(k), v)));
        env
    }

    /// Fresh files for one hook's run: named by a ULID, so they sort by time and two hooks
    /// (parallel branches, a resumed run) never share one.
    fn hook_files(&self, event: HookEvent) -> HookFiles {
        let stem = format!("{}-{}", ulid::Ulid::generate(), event.as_str());
        let dir = self.run_dir.path.join("hooks");
        HookFiles {
            input: dir.join(format!("{stem}.json")),
            stdout: dir.join(format!("{stem}.stdout")),
            stderr: dir.join(format!("{stem}.stderr")),
        }
    }

    /// `run_start`: the reason the run may not start, if a hook blocks it.
    pub(super) fn run_start_hooks(&self, id: &RunId, workspace: &Workspace) -> Option<String> {
        let context = self.hook_context(id, HookEvent::RunStart, &workspace.path);
        blocked(self.run_hooks(&context), "run_start")
    }

    /// `run_complete` or `run_failed`, as the run ends (before it is finished, as in Fabro).
    pub(super) fn run_end_hooks(&self, id: &RunId, workspace: &Workspace, failure: Option<&str>) {
        let event = match failure {
            None => HookEvent::RunComplete,
            Some(_) => HookEvent::RunFailed,
        };
        let mut context = self.hook_context(id, event, &workspace.path);
        context.failure_reason = failure.map(str::to_owned);
        self.run_hooks(&context);
    }

    /// `stage_start`, before each attempt: the stage as a skip or a block decided it, or
    /// None to run it.
    pub(super) fn stage_start_hooks(
        &self,
        id: &RunId,
        workspace: &Workspace,
        stage: &Stage,
        (attempt, max_attempts): (u32, u32),
    ) -> Option<Attempted> {
        let context = self.hook_context(id, HookEvent::StageStart, &workspace.path);
        let mut context = context.with_node(stage.node);
        (context.attempt, context.max_attempts) = (Some(attempt), Some(max_attempts));
        let (outcome, blocked) = match self.run_hooks(&context) {
            Decision::Skip { reason } => {
                let reason = reason.unwrap_or_else(|| "skipped by stage_start hook".into());
                let outcome = Outcome {
                    status: Status::Skipped,
                    ..Outcome::succeeded(reason)
                };
                (outcome, None)
            }
            decision => {
                let reason = blocked(decision, "stage_start")?;
                (Outcome::failed(&reason), Some(reason))
            }
        };
        Some(Attempted {
            ran: Ran::outcome(outcome),
            attempt,
            max_attempts,
            blocked,
        })
    }

    /// `stage_complete` or `stage_failed`; nothing for a stage a hook skipped or blocked.
    pub(super) fn stage_end_hooks(
        &self,
        id: &RunId,
        workspace: &Workspace,
        stage: &Stage,
        attempted: &Attempted,
    ) {
        let outcome = &attempted.ran.outcome;
        if outcome.status == Status::Skipped || attempted.blocked.is_some() {
            return;
        }
        let event = match outcome.status.is_failure() {
            true => HookEvent::StageFailed,
            false => HookEvent::StageComplete,
        };
        let mut context = self
            .hook_context(id, event, &workspace.path)
            .with_node(stage.node);
        context.status = Some(outcome.status.as_str().to_owned());
        context.failure_reason = (outcome.status.is_failure()).then(|| outcome.notes.clone());
        self.run_hooks(&context);
    }

    /// `stage_retrying`, before another attempt.
    pub(super) fn stage_retrying_hooks(
        &self,
        id: &RunId,
        workspace: &Workspace,
        stage: &Stage,
        (attempt, max_attempts): (u32, u32),
    ) {
        let context = self.hook_context(id, HookEvent::StageRetrying, &workspace.path);
        let mut context = context.with_node(stage.node);
        (context.attempt, context.max_attempts) = (Some(attempt), Some(max_attempts));
        self.run_hooks(&context);
    }

    /// `edge_selected`, once the walk knows where it goes from `node`.
    pub(super) fn edge_hooks(
        &self,
        id: &RunId,
        workspace: &Workspace,
        node: &Node,
        to: &str,
        edge: Option<&Edge>,
    ) -> EdgeVerdict {
        let mut context = self.hook_context(id, HookEvent::EdgeSelected, &workspace.path);
        context.edge_from = Some(node.id.clone());
        context.edge_to = Some(to.to_owned());
        context.edge_label = edge.and_then(Edge::label).map(str::to_owned);
        match self.run_hooks(&context) {
            Decision::Override { edge_to } => EdgeVerdict::To(edge_to),
            decision => match blocked(decision, "edge_selected") {
                Some(reason) => EdgeVerdict::Blocked(reason),
                None => EdgeVerdict::Proceed,
            },
        }
    }

    /// `parallel_start` or `parallel_complete` of a parallel node (they only tell).
    pub(super) fn parallel_hooks(
        &self,
        id: &RunId,
        workspace: &Workspace,
        node: &Node,
        event: HookEvent,
    ) {
        let context = self
            .hook_context(id, event, &workspace.path)
            .with_node(node);
        self.run_hooks(&context);
    }

    /// `checkpoint_saved`, once the stage of `node` is recorded.
    pub(super) fn checkpoint_hooks(&self, id: &RunId, workspace: &Workspace, node: &Node) {
        let mut context = self.hook_context(id, HookEvent::CheckpointSaved, &workspace.path);
        context.node_id = Some(node.id.clone());
        self.run_hooks(&context);
    }
}

struct HookFiles {
    input: PathBuf,
    stdout: PathBuf,
    stderr: PathBuf,
}

/// Whether `hook`'s matcher, if any, matches one of the fields Fabro matches.
fn matches(hook: &HookDefinition, context: &HookContext) -> bool {
    let Some(pattern) = &hook.matcher else {
        return true;
    };
    // Checked when the settings were read; a pattern that still fails matches nothing.
    let Ok(regex) = regex::Regex::new(pattern) else {
        return false;
    };
    context
        .matched_fields()
        .iter()
        .flatten()
        .any(|field| regex.is_match(field))
}

/// The run's failure when `decision` blocks, in Fabro's words.
fn blocked(decision: Decision, event: &str) -> Option<String> {
    match decision {
        Decision::Block { reason } => {
            let reason = reason.unwrap_or_else(|| "no reason given".into());
            Some(format!("blocked by {event} hook: {reason}"))
        }
        _ => None,
    }
}

fn write_new(path: &Path, data: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, data)
}

#[cfg(test)]
mod tests {
    use super::Decision;

    #[test]
    fn exit_codes_and_stdout_decide_as_in_fabro() {
        assert_eq!(Decision::of_exit(0, ""), Decision::Proceed);
        assert_eq!(Decision::of_exit(0, "not json"), Decision::Proceed);
        let skip = r#"{"decision":"skip","reason":"no"}"#;
        assert!(matches!(Decision::of_exit(0, skip), Decision::Skip { .. }));
        assert!(matches!(Decision::of_exit(2, skip), Decision::Skip { .. }));
        assert!(matches!(Decision::of_exit(2, ""), Decision::Block { .. }));
        assert!(matches!(Decision::of_exit(1, skip), Decision::Block { .. }));
        let over = r#"{"decision":"override","edge_to":"b"}"#;
        assert_eq!(
            Decision::of_exit(0, over),
            Decision::Override {
                edge_to: "b".into()
            }
        );
    }

    #[test]
    fn block_wins_then_the_first_other_decision() {
        let skip = Decision::Skip { reason: None };
        let block = Decision::Block { reason: None };
        assert_eq!(Decision::Proceed.merge(skip.clone()), skip);
        assert_eq!(skip.clone().merge(block.clone()), block);
        assert_eq!(block.clone().merge(skip.clone()), block);
    }
}
