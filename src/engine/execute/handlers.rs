//! Every handler to the code that runs it: one arm per [`Handler`], so a new handler does
//! not compile until it runs somewhere.

use std::time::Duration;

use super::command::{self, Ran};
use super::environment::Audience;
use super::events::command_completed;
use super::stage::{Stage, Staged, Step};
use super::{Engine, interrupt, manager};
use crate::engine::handler::Handler;
use crate::engine::outcome::Outcome;
use crate::error::Result;
use crate::format::run_id::RunId;
use crate::run::workspace::Workspace;

impl Engine<'_> {
    /// One attempt of the stage's handler.
    pub(super) fn run_handler(&self, staged: &Staged) -> Result<Step> {
        let Staged {
            id,
            workspace,
            stage,
            context,
        } = *staged;
        let (node, visit) = (stage.node, stage.visit);
        let handler = Handler::of(node);
        let ran = match handler {
            Handler::Start | Handler::Exit => Ran::outcome(Outcome::succeeded(String::new())),
            Handler::Conditional => Ran::outcome(Outcome::succeeded(format!(
                "Conditional node evaluated: {}",
                node.id
            ))),
            Handler::Wait => {
                let wait = node
                    .attrs
                    .get("duration")
                    .and_then(|d| d.as_duration())
                    .unwrap_or(Duration::ZERO);
                interrupt::sleep(wait);
                Ran::outcome(Outcome::succeeded(format!("Waited {}ms", wait.as_millis())))
            }
            Handler::Command => self.run_command(id, workspace, stage),
            Handler::Agent | Handler::Prompt => {
                self.run_agent(id, workspace, node, visit, handler.as_str())
            }
            Handler::Human => return Ok(self.gate(id, node, &stage.id())),
            Handler::Parallel => return self.run_parallel(id, workspace, node, visit, context),
            Handler::FanIn => self.run_fan_in(id, workspace, context),
            Handler::ManagerLoop => return manager::run(self, id, workspace, node, visit),
        };
        Ok(Step::Ran(ran))
    }

    fn run_command(&self, id: &RunId, workspace: &Workspace, stage: &Stage) -> Ran {
        let (node, visit) = (stage.node, stage.visit);
        let invocation = command::Invocation {
            node,
            worktree: &workspace.path,
            env: self.node_env(id, node, visit, Audience::Script),
            stage_dir: self.stage_dir(node, visit),
        };
        let stage_id = stage.id();
        let started = command::invocation_json(node);
        self.event(id, "command.started", node, &stage_id, started);
        let ran = command::run(&invocation);
        let completed = command_completed(&ran.files);
        self.event(id, "command.completed", node, &stage_id, completed);
        ran
    }
}
