//! `prompt="@prompts/plan.md"` and `goal="@goal.md"`: Fabro replaces such a value by the
//! file's content before validating, looking beside the workflow first, then in the fabro
//! home. A reference that finds no file stays as written, and validation reports it
//! (`unresolved_file_ref`).

use std::path::Path;

use crate::engine::graph::{AttrValue, Graph};
use crate::input;

/// The content of `@path`, from `dir` or else `home`; `None` when neither has it.
fn resolve(value: &str, dir: &Path, home: Option<&Path>) -> Option<String> {
    let path = value.strip_prefix('@')?;
    [Some(dir), home].into_iter().flatten().find_map(|base| {
        let bytes = input::read_file(&base.join(path), value, input::MAX_DEFINITION).ok()?;
        String::from_utf8(bytes).ok()
    })
}

/// Inlines every `@file` node prompt and graph goal that resolves.
pub fn inline_file_refs(graph: &mut Graph, dir: &Path, home: Option<&Path>) {
    for node in &mut graph.nodes {
        let prompt = node.attrs.get("prompt").and_then(AttrValue::as_str);
        if let Some(text) = prompt.and_then(|p| resolve(p, dir, home)) {
            node.attrs.insert("prompt".into(), AttrValue::String(text));
        }
    }
    let goal = graph.attrs.get("goal").and_then(AttrValue::as_str);
    if let Some(text) = goal.and_then(|g| resolve(g, dir, home)) {
        graph.attrs.insert("goal".into(), AttrValue::String(text));
    }
}
