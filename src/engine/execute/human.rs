//! Human gates (hexagon nodes): a question whose choices are the node's outgoing edges, in
//! their declared order, each with Fabro's accelerator key (`[A] Approve`, `A) Approve`,
//! `A - Approve`, else the first character). The answer comes from `--answer NODE=CHOICE`,
//! else `--auto-approve` (the first choice), else a person at the terminal; with none of
//! them the run blocks on the question, and `git fabro resume RUN --answer NODE=CHOICE` goes
//! on from the gate. A chosen edge becomes Fabro's outcome: preferred label, suggested next
//! node and the `human.gate.*` context keys.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::command::Ran;
use super::stage::Step;
use super::{Engine, Stop};
use crate::engine::dry_run::accelerator_key;
use crate::engine::graph::{Graph, Node};
use crate::engine::handler::Handler;
use crate::engine::outcome::Outcome;
use crate::engine::routing::normalize_label;
use crate::error::{Error, Result};
use crate::format::run_id::RunId;

/// One choice of a gate: an outgoing edge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub key: String,
    pub label: String,
    /// The node the edge leads to.
    pub target: String,
}

/// A gate's question, in the shape of Fabro's `InterviewQuestionRecord` (which a blocked
/// run's `pending_interviews` holds), with git-fabro's `target` in each option and
/// `freeform_target` beside them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    pub text: String,
    /// The gate's node id.
    pub stage: String,
    /// `multiple_choice`, or `freeform` when the gate has only a free-text edge.
    pub question_type: String,
    pub options: Vec<Choice>,
    pub allow_freeform: bool,
    /// The node a free-text answer goes to (the gate's `freeform=true` edge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freeform_target: Option<String>,
}

impl Question {
    pub fn of(graph: &Graph, node: &Node) -> Question {
        let mut choices = Vec::new();
        let mut freeform_target = None;
        for edge in graph.outgoing(&node.id) {
            if edge.freeform() {
                freeform_target = Some(edge.to.clone());
                continue;
            }
            let label = edge.label().filter(|l| !l.is_empty()).unwrap_or(&edge.to);
            choices.push(Choice {
                key: accelerator_key(label),
                label: label.to_string(),
                target: edge.to.clone(),
            });
        }
        Question {
            id: crate::format::run_id::new_ulid().to_string(),
            text: node.label().to_string(),
            stage: node.id.clone(),
            question_type: if choices.is_empty() {
                "freeform"
            } else {
                "multiple_choice"
            }
            .into(),
            options: choices,
            allow_freeform: freeform_target.is_some(),
            freeform_target,
        }
    }

    /// The choice `answer` names: its key (without case), its 1-based number, its label
    /// (without case, with or without its accelerator) or its target node id.
    pub fn choice(&self, answer: &str) -> Option<&Choice> {
        let answer = answer.trim();
        let by_number = answer
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| self.options.get(i));
        self.options
            .iter()
            .find(|c| c.key.eq_ignore_ascii_case(answer))
            .or(by_number)
            .or_else(|| {
                let answer = normalize_label(answer);
                self.options
                    .iter()
                    .find(|c| normalize_label(&c.label) == answer)
            })
            .or_else(|| self.options.iter().find(|c| c.target == answer))
    }

    /// The outcome of `answer`: a choice, else free text when the gate takes it.
    pub fn answered(&self, answer: &str) -> Option<Outcome> {
        if let Some(choice) = self.choice(answer) {
            let mut outcome = Outcome::succeeded(format!("Selected: {}", choice.label));
            outcome.preferred_label = Some(choice.label.clone());
            outcome.suggested_next_ids = vec![choice.target.clone()];
            let updates = &mut outcome.context_updates;
            updates.insert("human.gate.selected".into(), json!(choice.key));
            updates.insert("human.gate.label".into(), json!(choice.label));
            return Some(outcome);
        }
        let target = self.freeform_target.as_ref()?;
        let text = answer.trim();
        if text.is_empty() {
            return None;
        }
        let mut outcome = Outcome::succeeded(format!("Answered: {text}"));
        outcome.suggested_next_ids = vec![target.clone()];
        let updates = &mut outcome.context_updates;
        updates.insert("human.gate.selected".into(), json!("freeform"));
        updates.insert("human.gate.label".into(), json!(text));
        updates.insert("human.gate.text".into(), json!(text));
        Some(outcome)
    }

    /// `--auto-approve`: the first choice, else the free-text edge, as Fabro does.
    fn first(&self) -> Option<Outcome> {
        if let Some(choice) = self.options.first() {
            return self.answered(&choice.key);
        }
        let target = self.freeform_target.as_ref()?;
        let mut outcome = Outcome::succeeded("Auto-approved".into());
        outcome.suggested_next_ids = vec![target.clone()];
        let updates = &mut outcome.context_updates;
        updates.insert("human.gate.selected".into(), json!("freeform"));
        updates.insert("human.gate.label".into(), json!("auto-approved"));
        Some(outcome)
    }

    /// The choices as people read them: `[1] A - Approve` (for `[A] Approve`).
    pub fn listing(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .options
            .iter()
            .enumerate()
            .map(|(i, c)| format!("[{}] {} - {}", i + 1, c.key, without_key(&c.label, &c.key)))
            .collect();
        if self.freeform_target.is_some() {
            lines.push("or type an answer of your own".into());
        }
        lines
    }
}

/// Refuses (before anything is written) an `--answer` for a node that is not a human gate of
/// `graph` or of a workflow it nests (`nested`), or whose choice names nothing there.
pub fn check_answers(graph: &Graph, nested: &[Graph], answers: &[(String, String)]) -> Result<()> {
    for (node_id, answer) in answers {
        let gate = std::iter::once(graph).chain(nested).find_map(|g| {
            let node = g
                .node(node_id)
                .filter(|n| Handler::of(n) == Handler::Human)?;
            Some((g, node))
        });
        let (graph, node) = gate.ok_or_else(|| {
            Error::Usage(format!(
                "--answer {node_id}={answer}: the workflow has no human gate {node_id:?}"
            ))
        })?;
        let question = Question::of(graph, node);
        if question.answered(answer).is_none() {
            let keys: Vec<&str> = question.options.iter().map(|c| c.key.as_str()).collect();
            return Err(Error::Usage(format!(
                "--answer {node_id}={answer}: no choice of {node_id} matches; its keys are {}",
                keys.join(", ")
            )));
        }
    }
    Ok(())
}

impl Engine<'_> {
    /// Asks the gate's question of whoever can answer it.
    pub(super) fn gate(&self, id: &RunId, node: &Node, stage_id: &str) -> Step {
        let question = Question::of(self.graph, node);
        let options: Vec<_> = question
            .options
            .iter()
            .map(|c| json!({ "key": c.key, "label": c.label }))
            .collect();
        self.event(
            id,
            "interview.started",
            node,
            stage_id,
            json!({
                "question_id": question.id, "question": question.text, "stage": node.id,
                "options": options, "allow_freeform": question.allow_freeform,
                "question_type": question.question_type,
            }),
        );
        let clock = Instant::now();
        let given = self.directions.next_answer(&node.id);
        let answer = match given {
            Some(answer) => question.answered(&answer).map(|o| (answer, o)),
            None if self.directions.auto_approve => question.first().map(|o| (String::new(), o)),
            None if let Some(interviewer) = self.interviewer => match interviewer.ask(&question) {
                Asked::Answer(text) => question.answered(&text).map(|o| (text, o)),
                Asked::Nothing => {
                    let properties = json!({
                        "question": question.text, "stage": node.id,
                        "reason": "interrupted", "duration_ms": elapsed_ms(clock),
                    });
                    self.event(id, "interview.interrupted", node, stage_id, properties);
                    return answered(Outcome::failed(
                        "human interaction interrupted before an answer was provided",
                    ));
                }
                Asked::Interrupted => {
                    return Step::Stopped(Stop::Interrupted {
                        stage: stage_id.to_string(),
                    });
                }
            },
            None => {
                self.run_event(
                    id,
                    "run.blocked",
                    json!({ "blocked_reason": "human_input_required" }),
                );
                return Step::Stopped(Stop::Blocked(question));
            }
        };
        let Some((text, outcome)) = answer else {
            return answered(Outcome::failed("No outgoing edges for human gate"));
        };
        let text = match text.is_empty() {
            true => outcome.preferred_label.clone().unwrap_or_default(),
            false => text,
        };
        self.event(
            id,
            "interview.completed",
            node,
            stage_id,
            json!({
                "question": question.text, "answer": text, "duration_ms": elapsed_ms(clock),
            }),
        );
        answered(outcome)
    }
}

fn answered(outcome: Outcome) -> Step {
    Step::Ran(Ran::outcome(outcome))
}

/// What a person answered, as an [`Interviewer`] reports it.
pub enum Asked {
    /// Text that [`Question::answered`] takes.
    Answer(String),
    /// An empty line or the end of input: Fabro's "interrupted" interview.
    Nothing,
    /// Ctrl-C.
    Interrupted,
}

/// Asks a person (the command line's terminal).
pub trait Interviewer {
    fn ask(&self, question: &Question) -> Asked;
}

/// The label without its accelerator (`[A] Approve`, `A) Approve`, `A - Approve`).
fn without_key<'l>(label: &'l str, key: &str) -> &'l str {
    let label = label.trim();
    let rest = label
        .strip_prefix('[')
        .and_then(|r| r.strip_prefix(key))
        .and_then(|r| r.strip_prefix(']'))
        .or_else(|| label.strip_prefix(key).and_then(|r| r.strip_prefix(')')))
        .or_else(|| label.strip_prefix(key).and_then(|r| r.strip_prefix(" - ")));
    match rest.map(str::trim_start) {
        Some(rest) if !rest.is_empty() => rest,
        _ => label,
    }
}

fn elapsed_ms(clock: Instant) -> u64 {
    u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::{Question, check_answers, without_key};
    use crate::engine::workflow::parse;

    const GATE: &str = r#"digraph G {
  start [shape=Mdiamond]; exit [shape=Msquare]
  ask [shape=hexagon, label="Go?"]
  start -> ask
  ask -> yes [label="[Y] Yes please"]
  ask -> no [label="N) No"]
  ask -> later
  ask -> other [freeform=true]
  yes -> exit; no -> exit; later -> exit; other -> exit
}"#;

    fn question() -> Question {
        let graph = parse(GATE, "g.fabro").expect("parses");
        Question::of(&graph, graph.node("ask").expect("ask"))
    }

    #[test]
    fn options_follow_the_edges_with_their_keys() {
        let q = question();
        let options: Vec<(&str, &str, &str)> = q
            .options
            .iter()
            .map(|c| (c.key.as_str(), c.label.as_str(), c.target.as_str()))
            .collect();
        assert_eq!(
            options,
            [
                ("Y", "[Y] Yes please", "yes"),
                ("N", "N) No", "no"),
                ("l", "later", "later")
            ]
        );
        assert_eq!(q.freeform_target.as_deref(), Some("other"));
        assert_eq!(q.stage, "ask");
        assert_eq!(q.text, "Go?");
    }

    #[test]
    fn an_answer_names_a_key_number_label_or_target() {
        let q = question();
        let target = |answer: &str| q.choice(answer).map(|c| c.target.as_str());
        assert_eq!(target("y"), Some("yes"));
        assert_eq!(target("2"), Some("no"));
        assert_eq!(target("yes please"), Some("yes"));
        assert_eq!(target("N) No"), Some("no"));
        assert_eq!(target("later"), Some("later"));
        assert_eq!(target("4"), None);
        assert_eq!(target("0"), None);
    }

    #[test]
    fn an_answer_becomes_fabros_outcome() {
        let q = question();
        let chosen = q.answered("n").expect("a choice");
        assert_eq!(chosen.preferred_label.as_deref(), Some("N) No"));
        assert_eq!(chosen.suggested_next_ids, ["no"]);
        assert_eq!(chosen.context_updates["human.gate.selected"], "N");
        let free = q.answered("ship it tomorrow").expect("free text");
        assert_eq!(free.suggested_next_ids, ["other"]);
        assert_eq!(free.context_updates["human.gate.selected"], "freeform");
        assert_eq!(free.context_updates["human.gate.text"], "ship it tomorrow");
        assert!(q.answered("  ").is_none());
    }

    #[test]
    fn answers_are_checked_against_the_workflow() {
        let graph = parse(GATE, "g.fabro").expect("parses");
        let answer = |node: &str, choice: &str| vec![(node.to_string(), choice.to_string())];
        assert!(check_answers(&graph, &[], &answer("ask", "Y")).is_ok());
        assert!(check_answers(&graph, &[], &answer("yes", "Y")).is_err());
        assert!(check_answers(&graph, &[], &answer("missing", "Y")).is_err());
    }

    #[test]
    fn listings_drop_the_accelerator_from_the_label() {
        assert_eq!(without_key("[Y] Yes please", "Y"), "Yes please");
        assert_eq!(without_key("N) No", "N"), "No");
        assert_eq!(without_key("A - Approve", "A"), "Approve");
        assert_eq!(without_key("later", "l"), "later");
    }
}
