//! The workflow engine: reading Fabro workflows and deciding what runs, between the
//! operations on runs (`ops`) and the command line.
//!
//! - `dot`: Fabro's dialect of Graphviz DOT, parsed by hand with file:line:column errors;
//! - `condition`: the guard language of edges, parsed and evaluated as Fabro does;
//! - `graph`: the workflow model (nodes, edges, typed attributes) and Fabro's JSON shape of it;
//! - `files`: `@file` prompts and goals, inlined from beside the workflow as Fabro does;
//! - `import`: `import="part.fabro"` nodes, replaced by the part's nodes as Fabro does;
//! - `stylesheet`: the `model_stylesheet` attribute's rules, and what they give a node;
//! - `template`: `{{ goal }}` and `{{ inputs.x }}` in attributes, rendered strictly (MiniJinja);
//! - `validate`: Fabro's validation rules, names, severities and messages;
//! - `outcome`, `routing`: what a node reports and which edge it then follows;
//! - `dry_run`: Fabro's simulation of a run, every handler simulated;
//! - `execute`: running a workflow for real (start, exit, conditional, wait, command, agent,
//!   prompt, parallel and fan-in nodes, with retries and loop restarts), every node
//!   checkpointed through `ops`, the run finished through `ops::finish`;
//! - `picture`: a workflow or a run of it drawn as DOT, Mermaid or SVG (`graph`);
//! - `workflow`: the entry points other layers call (`parse`, `Graph`);
//! - `agents`: the agent presets (`--agent claude`) and the command lines they stand for.
//!
//! Nothing here prints, parses arguments or reads the environment.

pub(crate) mod agents;
pub(crate) mod condition;
pub(crate) mod dot;
pub mod dry_run;
pub(crate) mod execute;
pub(crate) mod files;
pub(crate) mod graph;
pub(crate) mod handler;
mod import;
pub(crate) mod outcome;
pub(crate) mod picture;
pub(crate) mod routing;
mod script_template;
pub(crate) mod stylesheet;
pub(crate) mod template;
pub(crate) mod trusted;
pub mod validate;
pub mod workflow;
