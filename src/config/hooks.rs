//! Run hooks, `[[hooks]]` in `run.toml` and `settings.toml`, in Fabro's shape: a shell command
//! run on a run, stage, edge or checkpoint event, which may block a stage, skip it or send the
//! walk down another edge. They are how a team plugs notifications, policy checks and CI into
//! runs without an agent. Fabro's LLM and HTTP hooks (`type = "prompt"`, `"agent"`, `"http"`)
//! and its tool-use events belong to its built-in agent, which git-fabro does not have: they
//! are refused by name rather than silently never run.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A hook's timeout when it sets none: 60 s, as in Fabro.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The events a hook runs on, with Fabro's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookEvent {
    RunStart,
    RunComplete,
    RunFailed,
    StageStart,
    StageComplete,
    StageFailed,
    StageRetrying,
    EdgeSelected,
    CheckpointSaved,
    ParallelStart,
    ParallelComplete,
    SandboxReady,
    SandboxCleanup,
    PreToolUse,
    PostToolUse,
    PostToolUseFailure,
}

impl HookEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::RunStart => "run_start",
            HookEvent::RunComplete => "run_complete",
            HookEvent::RunFailed => "run_failed",
            HookEvent::StageStart => "stage_start",
            HookEvent::StageComplete => "stage_complete",
            HookEvent::StageFailed => "stage_failed",
            HookEvent::StageRetrying => "stage_retrying",
            HookEvent::EdgeSelected => "edge_selected",
            HookEvent::CheckpointSaved => "checkpoint_saved",
            HookEvent::ParallelStart => "parallel_start",
            HookEvent::ParallelComplete => "parallel_complete",
            HookEvent::SandboxReady => "sandbox_ready",
            HookEvent::SandboxCleanup => "sandbox_cleanup",
            HookEvent::PreToolUse => "pre_tool_use",
            HookEvent::PostToolUse => "post_tool_use",
            HookEvent::PostToolUseFailure => "post_tool_use_failure",
        }
    }

    /// Fabro's default: the events that come before what they gate wait for their hooks'
    /// decision; the others only tell.
    pub fn blocks_by_default(self) -> bool {
        matches!(
            self,
            HookEvent::RunStart | HookEvent::StageStart | HookEvent::EdgeSelected
        )
    }

    /// Why git-fabro never reaches this event, if it does not.
    fn never_reached(self) -> Option<&'static str> {
        match self {
            HookEvent::SandboxReady | HookEvent::SandboxCleanup => {
                Some("git-fabro runs nodes in a worktree, not a sandbox")
            }
            HookEvent::PreToolUse | HookEvent::PostToolUse | HookEvent::PostToolUseFailure => {
                Some("agents are an external command: use that agent's own hooks")
            }
            _ => None,
        }
    }
}

/// One `[[hooks]]` entry. Fabro's other fields (`url`, `prompt`, `model`, ...) are read only
/// to refuse them with a clear message.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookDefinition {
    pub name: Option<String>,
    pub event: HookEvent,
    /// `command` (the default); Fabro's `http`, `prompt` and `agent` are refused.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Run as `/bin/bash -c COMMAND` in the run's worktree.
    pub command: Option<String>,
    /// A regex that must match the node id, handler type, or an edge's ends.
    pub matcher: Option<String>,
    /// Overrides the event's default ([`HookEvent::blocks_by_default`]).
    pub blocking: Option<bool>,
    pub timeout_ms: Option<u64>,
    /// Fabro's choice between sandbox and host; git-fabro has no sandbox, so both run the
    /// command in the run's worktree.
    pub sandbox: Option<bool>,
    url: Option<toml::Value>,
    headers: Option<toml::Value>,
    allowed_env_vars: Option<toml::Value>,
    tls: Option<toml::Value>,
    prompt: Option<toml::Value>,
    model: Option<toml::Value>,
    max_tool_rounds: Option<toml::Value>,
}

impl HookDefinition {
    pub fn is_blocking(&self) -> bool {
        self.blocking
            .unwrap_or_else(|| self.event.blocks_by_default())
    }

    pub fn timeout(&self) -> Duration {
        self.timeout_ms
            .map_or(DEFAULT_TIMEOUT, Duration::from_millis)
    }

    /// The command to run (checked present by [`check`]).
    pub fn command(&self) -> &str {
        self.command.as_deref().unwrap_or("")
    }

    /// Its `name`, else Fabro's generated one: the event and the command's first 20
    /// characters. Layers replace hooks by this name.
    pub fn effective_name(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        let short: String = self.command().chars().take(20).collect();
        format!("{}:{short}", self.event.as_str())
    }

    /// What is wrong with this hook, if anything.
    fn problem(&self) -> Option<String> {
        let kind = self.kind.as_deref().unwrap_or("command");
        let fabro_only = [&self.url, &self.headers, &self.allowed_env_vars, &self.tls]
            .iter()
            .chain([&self.prompt, &self.model, &self.max_tool_rounds].iter())
            .any(|field| field.is_some());
        if kind != "command" || fabro_only {
            return Some(format!(
                "only command hooks run in git-fabro (type = {kind:?}, or url/prompt/model set); \
                 call the service or model from a command hook instead"
            ));
        }
        if self.command().trim().is_empty() {
            return Some("`command` is missing or empty".into());
        }
        if let Some(why) = self.event.never_reached() {
            return Some(format!(
                "git-fabro never reaches event {:?}: {why}",
                self.event.as_str()
            ));
        }
        let matcher = self.matcher.as_deref().unwrap_or("");
        if let Err(err) = regex::Regex::new(matcher) {
            return Some(format!("matcher {matcher:?} is not a regex: {err}"));
        }
        None
    }
}

/// The first problem of `hooks`, naming the hook (checked when the file is read).
pub fn check(hooks: &[HookDefinition]) -> Result<(), String> {
    match hooks.iter().find_map(|h| Some((h, h.problem()?))) {
        Some((hook, problem)) => Err(format!("hook {:?}: {problem}", hook.effective_name())),
        None => Ok(()),
    }
}

/// `over` layered on `base`, as Fabro merges run hooks over server hooks: both lists, in
/// order, a hook of `over` replacing the one of `base` with the same effective name in place.
pub fn merge(base: &[HookDefinition], over: &[HookDefinition]) -> Vec<HookDefinition> {
    let mut merged: Vec<HookDefinition> = Vec::new();
    for hook in base.iter().chain(over) {
        let name = hook.effective_name();
        match merged.iter_mut().find(|h| h.effective_name() == name) {
            Some(slot) => *slot = hook.clone(),
            None => merged.push(hook.clone()),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hooks(text: &str) -> Vec<HookDefinition> {
        #[derive(Deserialize)]
        struct File {
            hooks: Vec<HookDefinition>,
        }
        toml::from_str::<File>(text).unwrap().hooks
    }

    #[test]
    fn merge_concatenates_and_later_layer_wins_by_name() {
        let base = hooks(
            "[[hooks]]\nname = \"shared\"\nevent = \"run_start\"\ncommand = \"exit 1\"\n\
             [[hooks]]\nname = \"server\"\nevent = \"run_start\"\ncommand = \"true\"\n",
        );
        let over = hooks(
            "[[hooks]]\nname = \"shared\"\nevent = \"run_start\"\ncommand = \"exit 0\"\n\
             [[hooks]]\nevent = \"stage_complete\"\ncommand = \"true\"\n",
        );
        let merged = merge(&base, &over);
        let names: Vec<String> = merged.iter().map(|h| h.effective_name()).collect();
        assert_eq!(names, ["shared", "server", "stage_complete:true"]);
        assert_eq!(merged[0].command(), "exit 0");
    }

    #[test]
    fn defaults_follow_fabro() {
        let h = hooks("[[hooks]]\nevent = \"stage_complete\"\ncommand = \"x\"\n");
        assert!(!h[0].is_blocking());
        assert_eq!(h[0].timeout(), DEFAULT_TIMEOUT);
        let h = hooks("[[hooks]]\nevent = \"edge_selected\"\ncommand = \"x\"\n");
        assert!(h[0].is_blocking());
    }

    #[test]
    fn refuses_what_never_runs() {
        for bad in [
            "event = \"run_start\"\ntype = \"prompt\"\nprompt = \"ok?\"\n",
            "event = \"run_start\"\n",
            "event = \"pre_tool_use\"\ncommand = \"x\"\n",
            "event = \"run_start\"\ncommand = \"x\"\nmatcher = \"(\"\n",
        ] {
            let h = hooks(&format!("[[hooks]]\n{bad}"));
            assert!(check(&h).is_err(), "{bad}");
        }
    }
}
