//! What the trust gate approves of a run. The workflow is code, but so is what it runs with:
//! `resume` renders the recorded workflow with the run's goal and inputs, sends agents the
//! `@file` texts the run recorded, and looks up child workflow files in the directory the run
//! recorded, and all of them come from `run.json`, which travels between clones like the
//! workflow. A collaborator who changes only `spec.inputs` of a run blocked at a gate would
//! otherwise have their text rendered into the victim's prompts and conditions unasked.
//!
//! So a run is approved in two parts, each by the sha256 of its text: the workflow
//! ([`workflow::trusted_text`]) and its values ([`values_text`]). `run` and a manager loop's
//! child run approve both when they record them ([`texts`]); `resume` runs only what both
//! approvals cover. They are kept apart so that one approval of a workflow still covers
//! every run of it, while each set of values is approved on its own.

use serde_json::{Map, Value, json};

use super::graph::{AttrValue, Graph};
use super::workflow::{self, parse};
use crate::engine::execute::CHILD_WORKFLOWS;
use crate::format::record::{RunRecord, Spec};
use crate::ops::start::WORKFLOW_DIR;
use crate::ops::trust::Part;

/// The texts the gate approves for `record`, with the part each is: none for a run that
/// recorded no workflow.
pub fn texts(record: &RunRecord) -> Vec<(Part, String)> {
    let Some(source) = record.graph_source.as_deref() else {
        return Vec::new();
    };
    let workflow = workflow::trusted_text(source, &record.spec.graph).into_owned();
    vec![
        (Part::Workflow, workflow),
        (Part::Values, values_text(source, &record.spec)),
    ]
}

/// [`texts`] as the bytes `ops::start` approves when it records a run.
pub fn approved_at_start(record: &RunRecord) -> Vec<String> {
    texts(record).into_iter().map(|(_, text)| text).collect()
}

/// What the run of `source` recorded in `spec` renders and reads it with: the goal given to
/// it, its inputs, its workflow's directory, the texts its `@file` references had and the
/// child workflows it recorded. Pretty
/// JSON with sorted keys, so that a change shows as a readable diff.
pub fn values_text(source: &str, spec: &Spec) -> String {
    let mut files = Map::new();
    if let Ok(graph) = parse(source, "") {
        for (node, text) in recorded_file_texts(&graph, &spec.graph) {
            let key = node.map_or_else(|| "goal".to_owned(), |id| format!("prompt of {id}"));
            files.insert(key, json!(text));
        }
    }
    let mut values = json!({
        "goal": spec.given_goal(),
        "inputs": spec.inputs(),
        "workflow_dir": spec.extra.get(WORKFLOW_DIR),
        "file_texts": files,
    });
    // The child workflows it recorded run unasked with it: a changed one needs a new approval.
    if let Some(children) = spec.extra.get(CHILD_WORKFLOWS) {
        values[CHILD_WORKFLOWS] = children.clone();
    }
    let text = serde_json::to_string_pretty(&values).unwrap_or_default();
    format!("// The values the run's workflow is rendered with and reads files by:\n{text}\n")
}

/// Gives `@file` prompts and goal the text they had when the run started, from the graph it
/// recorded (`spec.graph`): the files may have changed or gone since, and a resumed run must
/// send its agents what the run started with.
pub fn inline_recorded(graph: &mut Graph, recorded: &Value) {
    for (node, text) in recorded_file_texts(graph, recorded) {
        let text = AttrValue::String(text);
        match node {
            Some(id) => {
                if let Some(node) = graph.node_mut(&id) {
                    node.attrs.insert("prompt".into(), text);
                }
            }
            None => {
                graph.attrs.insert("goal".into(), text);
            }
        }
    }
}

/// The recorded text of each `@file` prompt (by node id) and goal (`None`) of `graph`.
fn recorded_file_texts(graph: &Graph, recorded: &Value) -> Vec<(Option<String>, String)> {
    let text = |pointer: String| {
        recorded
            .pointer(&pointer)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let mut found: Vec<(Option<String>, String)> = graph
        .nodes()
        .iter()
        .filter(|node| node.str_attr("prompt").is_some_and(|p| p.starts_with('@')))
        .filter_map(|node| {
            let prompt = text(format!("/nodes/{}/attrs/prompt/String", node.id))?;
            Some((Some(node.id.clone()), prompt))
        })
        .collect();
    if graph.goal().is_some_and(|g| g.starts_with('@'))
        && let Some(goal) = text("/attrs/goal/String".into())
    {
        found.push((None, goal));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "digraph g { graph [goal=\"@goal.md\"]\n  a [prompt=\"@a.md\"]\n  \
                          b [prompt=\"plain\"] }";

    fn spec() -> Spec {
        let mut recorded = parse(SOURCE, "g").unwrap().to_fabro_json();
        recorded["nodes"]["a"]["attrs"]["prompt"] = json!({ "String": "A's text" });
        recorded["attrs"]["goal"] = json!({ "String": "The goal's text" });
        let mut spec = Spec {
            graph: recorded,
            ..Spec::default()
        };
        spec.extra.insert("inputs".into(), json!({ "t": "x" }));
        spec.extra.insert(WORKFLOW_DIR.into(), json!("/flows"));
        spec
    }

    #[test]
    fn the_values_hold_inputs_directory_and_recorded_file_texts() {
        let text = values_text(SOURCE, &spec());
        for part in [
            "\"t\": \"x\"",
            "\"workflow_dir\": \"/flows\"",
            "\"prompt of a\": \"A's text\"",
            "\"goal\": \"The goal's text\"",
        ] {
            assert!(text.contains(part), "{part} in {text}");
        }
        assert!(!text.contains("plain"), "{text}");
    }

    #[test]
    fn any_change_of_a_value_changes_the_text() {
        let base = values_text(SOURCE, &spec());
        let mut changed = spec();
        changed.extra.insert("inputs".into(), json!({ "t": "y" }));
        assert_ne!(values_text(SOURCE, &changed), base);
        let mut changed = spec();
        changed.goal = Some("another".into());
        assert_ne!(values_text(SOURCE, &changed), base);
        let mut changed = spec();
        changed
            .extra
            .insert(WORKFLOW_DIR.into(), json!("/elsewhere"));
        assert_ne!(values_text(SOURCE, &changed), base);
        let mut changed = spec();
        changed.graph["nodes"]["a"]["attrs"]["prompt"] = json!({ "String": "other" });
        assert_ne!(values_text(SOURCE, &changed), base);
    }

    #[test]
    fn recorded_texts_replace_file_references() {
        let mut graph = parse(SOURCE, "g").unwrap();
        inline_recorded(&mut graph, &spec().graph);
        assert_eq!(
            graph.node("a").unwrap().str_attr("prompt"),
            Some("A's text")
        );
        assert_eq!(graph.node("b").unwrap().str_attr("prompt"), Some("plain"));
        assert_eq!(graph.goal(), Some("The goal's text"));
    }
}
