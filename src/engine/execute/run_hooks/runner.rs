//! Running the hooks of one event: choosing those that match it, running each as a script
//! with the event as JSON, and reading their exit and stdout as Fabro does.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::super::Engine;
use super::super::environment::{Audience, allowed};
use super::super::interrupt;
use super::super::process::{Ending, Shell, run_shell};
use crate::config::hooks::{HookDefinition, HookEvent};
use crate::engine::graph::Node;
use crate::engine::handler::Handler;
use crate::format::run_id::RunId;

/// How much of a hook's stdout is read for its decision.
const MAX_DECISION: u64 = 1 << 20;

/// What a hook is told, as Fabro's hook context (absent fields are left out).
#[derive(Debug, Serialize)]
pub(super) struct HookContext {
    pub(super) event: HookEvent,
    pub(super) run_id: String,
    pub(super) workflow_name: String,
    pub(super) cwd: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) node_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) node_label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) handler_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) status: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edge_from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edge_to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edge_label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) failure_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) attempt: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) max_attempts: Option<u32>,
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

    pub(super) fn with_node(mut self, node: &Node) -> Self {
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

/// Why an exit-0 `stdout` that looks like a JSON object is not a decision, if it is not one.
fn not_a_decision(code: i32, stdout: &str) -> Option<String> {
    let text = stdout.trim();
    if code != 0 || !text.starts_with('{') {
        return None;
    }
    serde_json::from_str::<Decision>(text)
        .err()
        .map(|err| err.to_string())
}

pub(super) fn block(reason: String) -> Decision {
    Decision::Block {
        reason: Some(reason),
    }
}

impl Engine<'_> {
    pub(super) fn hook_context(&self, id: &RunId, event: HookEvent, cwd: &Path) -> HookContext {
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
    pub(super) fn run_hooks(&self, context: &HookContext) -> Decision {
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
            stderr: files.stderr.clone(),
            timeout: Some(hook.timeout()),
        });
        match ending {
            Ok(Ending::Exited(code)) => self.decision(hook, context, code.unwrap_or(-1), &files),
            // Ctrl-C stopped it: no decision; the engine stops the run, resumable, at its
            // next check, rather than failing it as a block would.
            Ok(Ending::TimedOut) if interrupt::requested() => Decision::Proceed,
            Ok(Ending::TimedOut) => {
                let ms = hook.timeout().as_millis();
                block(format!("hook timed out after {ms}ms"))
            }
            Err(err) => block(format!("cannot run hook: {err}")),
        }
    }

    /// The decision of a hook that exited with `code`. A blocking hook whose stdout cannot be
    /// read (past [`MAX_DECISION`], say) blocks, naming why: read as empty, its exit 0 would
    /// proceed whatever it said. A stdout that looks like JSON but is no decision proceeds, as
    /// in Fabro, with a warning, since it is most often a decision misspelt.
    fn decision(
        &self,
        hook: &HookDefinition,
        context: &HookContext,
        code: i32,
        files: &HookFiles,
    ) -> Decision {
        let stdout = match crate::input::read_file(&files.stdout, "hook stdout", MAX_DECISION) {
            Ok(stdout) => stdout,
            Err(err) if hook.is_blocking() => {
                return block(format!("the hook's decision cannot be read: {err}"));
            }
            Err(_) => Vec::new(),
        };
        let stdout = String::from_utf8_lossy(&stdout);
        if let (true, Some(why)) = (hook.is_blocking(), not_a_decision(code, &stdout)) {
            self.warn(format!(
                "{} hook {}: its stdout looks like JSON but is not a decision ({why}); read as \
                 proceed",
                context.event.as_str(),
                hook.effective_name(),
            ));
        }
        Decision::of_exit(code, &stdout)
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
        let stem = format!("{}-{}", crate::format::run_id::new_ulid(), event.as_str());
        let dir = self.run_dir.path.join("hooks");
        HookFiles {
            input: dir.join(format!("{stem}.json")),
            stdout: dir.join(format!("{stem}.stdout")),
            stderr: dir.join(format!("{stem}.stderr")),
        }
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
    fn json_that_is_no_decision_is_told_apart() {
        use super::not_a_decision;
        assert_eq!(not_a_decision(0, "plain text"), None);
        assert_eq!(not_a_decision(0, r#"{"decision":"skip"}"#), None);
        assert_eq!(not_a_decision(2, r#"{"decison":"block"}"#), None);
        let why = not_a_decision(0, r#" {"decison":"block"} "#).unwrap();
        assert!(why.contains("decision"), "{why}");
        assert!(not_a_decision(0, r#"{"decision":"halt"}"#).is_some());
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
