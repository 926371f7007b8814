//! Fabro's `--dry-run`: the workflow walked from its start node with every handler
//! simulated, so that the path a run would take shows without an LLM, a script or a person.
//!
//! As in Fabro: agent and prompt nodes answer `[Simulated] Response for stage: <id>`; command
//! nodes are skipped with an empty `command.output`; a human gate takes its first choice that
//! is not free text; a parallel node simulates each branch's target on a copy of the context
//! and jumps to the node all branches lead to; a fan-in picks the best branch. Every node is
//! counted against `max_visits` and `max_node_visits` (10 when the graph sets none), with
//! Fabro's `>=`; goal gates are checked at the exit; a `loop_restart` edge starts over from its
//! target with a fresh context. The exit node is shown as the last stage.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::{Value, json};

use super::execute::fan_in::best_candidate;
use super::execute::loops::is_loop_restart;
use super::execute::parallel::join_node;
use super::graph::{Graph, Node};
use super::handler::Handler;
use super::outcome::{Outcome, Status};
use super::routing::{is_terminal, retry_target, select_edge};

/// What a dry run is given besides the workflow.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Replaces the graph's `goal`.
    pub goal: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Stage {
    pub node_id: String,
    pub visit: usize,
    pub status: Status,
    /// The node's label, for people.
    #[serde(skip)]
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DryRun {
    pub status: Status,
    pub(crate) stages: Vec<Stage>,
    /// Why the run failed, in Fabro's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// A graph `max_node_visits` of 0 or none means 10 in a dry run.
const DRY_RUN_VISIT_LIMIT: usize = 10;
/// Steps past this end the walk, whatever the limits say (a graph may set huge ones).
const MAX_STEPS: usize = 100_000;
/// Parallel nodes nested (or looping into themselves) deeper than this fail.
const MAX_PARALLEL_DEPTH: usize = 32;

struct Walk<'g> {
    graph: &'g Graph,
    options: &'g Options,
    context: BTreeMap<String, Value>,
    outcomes: HashMap<String, Outcome>,
    visits: HashMap<String, usize>,
    stages: Vec<Stage>,
}

pub fn dry_run(graph: &Graph, options: &Options) -> DryRun {
    let mut walk = Walk {
        graph,
        options,
        context: BTreeMap::new(),
        outcomes: HashMap::new(),
        visits: HashMap::new(),
        stages: Vec::new(),
    };
    let failure = walk.run().err();
    DryRun {
        status: if failure.is_some() {
            Status::Failed
        } else {
            Status::Succeeded
        },
        stages: walk.stages,
        failure,
    }
}

impl Walk<'_> {
    /// The context a run starts with: every graph attribute as `graph.<key>`.
    fn seed_context(&mut self) {
        self.context = self
            .graph
            .attrs()
            .iter()
            .map(|(k, v)| (format!("graph.{k}"), Value::String(v.to_text())))
            .collect();
        let goal = self.options.goal.as_deref().or(self.graph.goal());
        self.context
            .insert("graph.goal".into(), json!(goal.unwrap_or("")));
    }

    fn push_stage(&mut self, node: &Node, visit: usize, status: Status) {
        self.stages.push(Stage {
            node_id: node.id.clone(),
            visit,
            status,
            label: node.label().to_string(),
        });
    }

    /// At a terminal node: the exit, recorded, when every goal gate is satisfied (None), else
    /// the retry target of the first one that is not.
    fn at_exit(&mut self, node: &Node) -> Result<Option<String>, String> {
        let graph = self.graph;
        let Some(gate) = self.failed_goal_gate() else {
            let visit = self.visits.get(&node.id).copied().unwrap_or(0) + 1;
            self.push_stage(node, visit, Status::Succeeded);
            return Ok(None);
        };
        let retry = retry_target(graph, &gate)
            .filter(|t| graph.node(t).is_some_and(|n| !is_terminal(n)))
            .ok_or_else(|| format!("goal gate unsatisfied for node {gate} and no retry target"))?;
        Ok(Some(retry))
    }

    /// Counts a visit of `node`, within the node's `max_visits` and the graph's `limit`.
    fn count_visit(&mut self, node: &Node, limit: usize) -> Result<usize, String> {
        let visits = self.visits.entry(node.id.clone()).or_insert(0);
        *visits += 1;
        let visit = *visits;
        let node_limit = node
            .int_attr("max_visits")
            .filter(|n| *n > 0)
            .map(|n| (usize::try_from(n).unwrap_or(usize::MAX), "node"));
        for (max, source) in node_limit.into_iter().chain([(limit, "graph")]) {
            if visit >= max {
                return Err(format!(
                    "node \"{}\" visited {visit} times ({source} limit {max}); run is stuck in a cycle",
                    node.id
                ));
            }
        }
        Ok(visit)
    }

    fn run(&mut self) -> Result<(), String> {
        self.seed_context();
        let graph = self.graph;
        let start = graph.start_node().ok_or("the workflow has no start node")?;
        let limit = match graph
            .attrs()
            .get("max_node_visits")
            .and_then(|v| v.as_i64())
        {
            Some(n) if n > 0 => usize::try_from(n).unwrap_or(usize::MAX),
            _ => DRY_RUN_VISIT_LIMIT,
        };
        let mut current = start.id.clone();
        for _ in 0..MAX_STEPS {
            let node = graph
                .node(&current)
                .ok_or_else(|| format!("node {current:?} not found"))?;
            if is_terminal(node) {
                match self.at_exit(node)? {
                    Some(target) => {
                        current = target;
                        continue;
                    }
                    None => return Ok(()),
                }
            }
            let visit = self.count_visit(node, limit)?;
            self.context.insert("current_node".into(), json!(node.id));
            self.context
                .insert("internal.node_visit_count".into(), json!(visit));
            let outcome = self.simulate(node, 0);
            self.push_stage(node, visit, outcome.status);
            self.context.extend(outcome.context_updates.clone());
            self.context
                .insert("outcome".into(), json!(outcome.status.as_str()));
            if let Some(label) = &outcome.preferred_label {
                self.context.insert("preferred_label".into(), json!(label));
            }
            self.outcomes.insert(node.id.clone(), outcome.clone());

            if let Some(target) = &outcome.jump_to_node {
                current = target.clone();
                continue;
            }
            match select_edge(graph, node, &outcome, &self.context) {
                Some(edge) if is_loop_restart(edge) => {
                    self.outcomes.clear();
                    self.seed_context();
                    current = edge.to.clone();
                }
                Some(edge) => current = edge.to.clone(),
                None => {
                    let retry = outcome
                        .status
                        .is_failure()
                        .then(|| retry_target(graph, &node.id));
                    match retry.flatten() {
                        Some(target) => current = target,
                        None if outcome.status.is_failure() => {
                            return Err(format!(
                                "stage {} failed with no outgoing fail edge",
                                node.id
                            ));
                        }
                        None => return Ok(()),
                    }
                }
            }
        }
        Err(format!("the dry run stopped after {MAX_STEPS} steps"))
    }

    /// A goal gate whose last outcome is neither succeeded nor partially succeeded.
    fn failed_goal_gate(&self) -> Option<String> {
        let mut failed: Vec<&String> = self
            .outcomes
            .iter()
            .filter(|(id, o)| {
                self.graph.node(id).is_some_and(Node::goal_gate)
                    && !matches!(o.status, Status::Succeeded | Status::PartiallySucceeded)
            })
            .map(|(id, _)| id)
            .collect();
        failed.sort();
        failed.first().map(|id| (*id).clone())
    }

    /// The handler's simulation, chosen by `type`, then shape, then the agent handler.
    fn simulate(&self, node: &Node, depth: usize) -> Outcome {
        let simulated = || Outcome::succeeded(format!("[Simulated] {}", node.id));
        match Handler::of(node) {
            Handler::Agent | Handler::Prompt => {
                let text = format!("[Simulated] Response for stage: {}", node.id);
                let mut outcome = simulated();
                let updates = &mut outcome.context_updates;
                updates.insert("last_stage".into(), json!(node.id));
                updates.insert(
                    "last_response".into(),
                    json!(text.chars().take(200).collect::<String>()),
                );
                updates.insert(format!("response.{}", node.id), json!(text));
                outcome
            }
            Handler::Command => {
                let script = node
                    .str_attr("script")
                    .or_else(|| node.str_attr("tool_command"));
                let mut outcome = Outcome::succeeded(format!(
                    "[Simulated] Command skipped: {}",
                    script.unwrap_or("")
                ));
                outcome
                    .context_updates
                    .insert("command.output".into(), json!(""));
                outcome
                    .context_updates
                    .insert("command.stderr".into(), json!(""));
                outcome
            }
            Handler::Human => self.simulate_human(node),
            Handler::Parallel => self.simulate_parallel(node, depth),
            Handler::FanIn => self.simulate_fan_in(),
            Handler::Start
            | Handler::Exit
            | Handler::Conditional
            | Handler::ManagerLoop
            | Handler::Wait => simulated(),
        }
    }

    fn simulate_human(&self, node: &Node) -> Outcome {
        let edges: Vec<_> = self.graph.outgoing(&node.id).collect();
        let mut outcome = Outcome::succeeded(format!("[Simulated] {}", node.id));
        let updates = &mut outcome.context_updates;
        if let Some(edge) = edges.iter().find(|e| !e.freeform()) {
            let label = edge.label().filter(|l| !l.is_empty()).unwrap_or(&edge.to);
            updates.insert("human.gate.selected".into(), json!(accelerator_key(label)));
            updates.insert("human.gate.label".into(), json!(label));
            outcome.preferred_label = Some(label.to_string());
            outcome.suggested_next_ids = vec![edge.to.clone()];
        } else if let Some(edge) = edges.first() {
            updates.insert("human.gate.selected".into(), json!("freeform"));
            updates.insert(
                "human.gate.label".into(),
                json!("[Simulated] auto-selected"),
            );
            outcome.suggested_next_ids = vec![edge.to.clone()];
        }
        outcome
    }

    fn simulate_parallel(&self, node: &Node, depth: usize) -> Outcome {
        if depth >= MAX_PARALLEL_DEPTH {
            return Outcome::failed("parallel branches nested too deeply");
        }
        let branches: Vec<&Node> = self
            .graph
            .outgoing(&node.id)
            .filter_map(|e| self.graph.node(&e.to))
            .collect();
        if self.graph.outgoing(&node.id).next().is_none() {
            return Outcome::failed("No branches for parallel node");
        }
        let results: Vec<(&Node, Outcome)> = branches
            .iter()
            .map(|b| (*b, self.simulate(b, depth + 1)))
            .collect();
        let mut outcome = Outcome::succeeded(format!(
            "[Simulated] Parallel node dispatched {} branches",
            results.len()
        ));
        let listed: Vec<Value> = results
            .iter()
            .map(|(b, o)| json!({ "id": b.id, "status": o.status.as_str() }))
            .collect();
        // Fabro writes these straight into the context, not as the outcome's updates; the
        // effect on the walk is the same.
        outcome
            .context_updates
            .insert("parallel.branch_count".into(), json!(results.len()));
        outcome
            .context_updates
            .insert("parallel.results".into(), Value::Array(listed));
        let ids: Vec<&str> = results.iter().map(|(b, _)| b.id.as_str()).collect();
        outcome.jump_to_node = join_node(self.graph, &ids);
        outcome
    }

    fn simulate_fan_in(&self) -> Outcome {
        let Some(Value::Array(results)) = self.context.get("parallel.results") else {
            return Outcome::failed("No parallel results to evaluate");
        };
        let best = best_candidate(results);
        let mut outcome =
            Outcome::succeeded(format!("[Simulated] Selected best candidate: {}", best.id));
        outcome.context_updates.extend([
            ("parallel.fan_in.best_id".into(), json!(best.id)),
            ("parallel.fan_in.best_outcome".into(), json!(best.status)),
        ]);
        outcome
    }
}

/// The key of a choice: `[K] Label`, `K) Label` or `K - Label` (1 to 3 letters or digits),
/// else the label's first character.
pub(crate) fn accelerator_key(label: &str) -> String {
    let short =
        |k: &str| (1..=3).contains(&k.chars().count()) && k.chars().all(char::is_alphanumeric);
    let label = label.trim();
    let keyed = label
        .strip_prefix('[')
        .and_then(|r| r.split_once(']'))
        .map(|(k, _)| k)
        .or_else(|| label.split_once(')').map(|(k, _)| k))
        .or_else(|| label.split_once(" - ").map(|(k, _)| k))
        .filter(|k| short(k));
    keyed
        .map(str::to_string)
        .or_else(|| label.chars().next().map(|c| c.to_string()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
