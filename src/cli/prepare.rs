//! What a workflow needs before the engine runs it, for `run` and `resume`: its templates
//! rendered with the run's goal and inputs, and an agent command when it has agent or prompt
//! nodes. Both are checked before a run starts, so that a workflow that cannot run writes
//! nothing, and again before each execution, which is where a resume meets them. A resume
//! works from the recorded source, whose `@file` prompts are taken as the run inlined them.

use std::collections::BTreeMap;
use std::path::Path;

use crate::config::{Config, Settings, fabro_home};
use crate::engine::agents;
use crate::engine::execute::agent_nodes;
use crate::engine::workflow::Graph;
use crate::engine::{template, trusted};
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::run::RunState;

/// `graph` with its templates rendered; an unknown variable or a syntax error is a usage
/// error naming where it is. `goal` is the user's (`--goal`), taken as written.
pub fn render(
    graph: &Graph,
    shown: &str,
    goal: Option<&str>,
    inputs: &BTreeMap<String, String>,
) -> Result<Graph> {
    template::render_graph(graph, goal, inputs)
        .map_err(|err| Error::Usage(format!("{shown}: {err}; nothing was run")))
}

/// [`render`] with the goal and inputs run `state` recorded, after [`trusted::inline_recorded`].
pub fn render_for(graph: &Graph, state: &RunState) -> Result<Graph> {
    let mut graph = graph.clone();
    trusted::inline_recorded(&mut graph, &state.record.spec.graph);
    let inputs = state.record.spec.inputs();
    let shown = format!("run {}'s workflow", state.id);
    render(
        &graph,
        &shown,
        state.record.spec.given_goal().as_deref(),
        &inputs,
    )
}

/// The agent command a run about to start would use: `--agent`, else run.toml, else git
/// config, else settings.toml (as [`Config`] resolves it).
pub fn configured_agent(
    flag: Option<&str>,
    repo: Option<&Repo>,
    run_toml: Option<&Path>,
) -> Result<Option<String>> {
    if let Some(agent) = flag {
        return Ok(Some(agent.to_owned()));
    }
    let run = run_toml.map(Settings::load).transpose()?;
    let home = fabro_home();
    match repo {
        Some(repo) => Ok(Config::load(repo, &home, run.as_ref())?.agent_command),
        None => Ok(run
            .and_then(|s| s.agent.command)
            .or(Settings::load_home(&home)?.agent.command)),
    }
}

/// Refuses a workflow with agent or prompt nodes when no agent command is set, or when it
/// names a preset whose program is not on PATH: every stage would fail the same way.
pub fn require_agent(graph: &Graph, shown: &str, agent: Option<&str>) -> Result<()> {
    let nodes = agent_nodes(graph);
    if nodes.is_empty() {
        return Ok(());
    }
    if let Some(preset) = agent.and_then(agents::preset) {
        let search_path = std::env::var_os("PATH").unwrap_or_default();
        if preset.find(&search_path).is_none() {
            return Err(Error::Usage(format!(
                "{shown} has agent or prompt nodes ({}) and the agent preset `{}` needs `{}`, \
                 which is not on PATH; nothing was run. Install it, or see `git fabro agents`",
                nodes.join(", "),
                preset.name,
                preset.program
            )));
        }
    }
    if agent.is_some_and(|a| !a.trim().is_empty()) {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "{shown} has agent or prompt nodes ({}) and no agent command to run them; nothing was \
         run. Set one with `--agent claude` (a preset: `git fabro agents` lists them) or \
         `--agent 'COMMAND'`, `git config fabro.agentCommand claude`, or `[agent] command` in \
         run.toml or settings.toml (`--dry-run` simulates them)",
        nodes.join(", ")
    )))
}
