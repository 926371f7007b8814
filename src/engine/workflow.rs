//! What the other layers call to read a workflow: `parse` a `.fabro` source into a [`Graph`],
//! then count, name or serialise it (`Graph::to_fabro_json` is Fabro's `spec.graph`).
//!
//! [`load`] is the one way a workflow file is read, whoever names it (`run`, `validate` and
//! `resume --workflow` on the command line, a manager loop for its child): as a regular file
//! within the size limit, as UTF-8 text, parsed, its imports spliced in and its `@file`
//! references inlined from beside it (Fabro's order), and validated. The caller decides what
//! the diagnostics mean for it.

use std::borrow::Cow;
use std::path::Path;

use serde_json::Value;

pub use super::dot::{ParseError, parse};
use super::files::{self, FileRefs};
pub use super::graph::Graph;
use super::import;
use super::validate::{self, Diagnostic};
use crate::error::{Error, Result};
use crate::input;

/// A workflow read and checked: runnable when `diagnostics` holds no error.
pub(crate) struct Loaded {
    /// With its imports spliced in and its `@file` references inlined.
    pub graph: Graph,
    /// The text as read, which the run records and trust approvals hash.
    pub source: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads the workflow file at `path`; `what` names it in messages (`WORKFLOW`,
/// `stack.child_workflow`). Its `@file` references may read beside it and, when given, in the
/// repository's work tree `repo`.
///
/// Errors: [`Error::Usage`] when it is not a readable regular file within
/// [`input::MAX_DEFINITION`], [`Error::WorkflowSyntax`] when it is not UTF-8 text or not
/// Fabro's DOT.
pub(crate) fn load(path: &Path, what: &str, repo: Option<&Path>) -> Result<Loaded> {
    let bytes = input::read_file(path, what, input::MAX_DEFINITION)?;
    load_bytes(bytes, path, path.parent().unwrap_or(Path::new(".")), repo)
}

/// Like [`load`], for the workflow a user names on the command line, which may also be `-`
/// (standard input) or a pipe (`<(...)`), as git takes its file arguments: read once, within
/// the same size limit, its `@file` references read from the current directory.
pub(crate) fn load_named(path: &Path, what: &str, repo: Option<&Path>) -> Result<Loaded> {
    let bytes = input::read_named(path, what, input::MAX_DEFINITION)?;
    load_bytes(bytes, path, input::named_dir(path), repo)
}

fn load_bytes(bytes: Vec<u8>, path: &Path, dir: &Path, repo: Option<&Path>) -> Result<Loaded> {
    let name = path.display().to_string();
    let source = utf8(bytes, &name)?;
    let refs = FileRefs { dir, repo };
    checked(source, &name, Some(&refs))
}

/// A workflow given as text (a manager loop's `stack.child_dot_source`), named `name` in
/// messages: parsed and validated. It has no directory, so `@file` references stay as written
/// and imports unresolved (validation reports them).
pub(crate) fn load_source(source: &str, name: &str) -> Result<Loaded> {
    checked(source.to_owned(), name, None)
}

fn checked(source: String, name: &str, refs: Option<&FileRefs>) -> Result<Loaded> {
    let mut graph = parse(&source, name).map_err(syntax)?;
    if let Some(refs) = refs {
        graph = import::expand_imports(graph, source.len(), refs);
        files::inline_file_refs(&mut graph, refs);
    }
    let diagnostics = validate::validate(&graph);
    Ok(Loaded {
        graph,
        source,
        diagnostics,
    })
}

/// Whether `graph` (as parsed, before loading) imports other workflows.
fn imports(graph: &Graph) -> bool {
    graph.nodes().iter().any(|n| n.attrs.contains_key("import"))
}

/// The graph to go on with for a run that recorded the workflow `source` and its loaded
/// graph `spec_graph`: the source parsed again, or, when it imports other workflows, the
/// graph recorded with them spliced in, since the imported files may have changed or gone.
/// `None` when the source imports and `spec_graph` is not a graph.
///
/// Errors: the source does not parse.
pub(crate) fn recorded_graph(
    source: &str,
    spec_graph: &Value,
    name: &str,
) -> std::result::Result<Option<Graph>, ParseError> {
    let graph = parse(source, name)?;
    if !imports(&graph) {
        return Ok(Some(graph));
    }
    Ok(Graph::from_fabro_json(spec_graph))
}

/// The text the trust gate approves for a run of `source` whose loaded graph is `spec_graph`:
/// the source or, when it imports other workflows, the source followed by that graph, which is
/// what a resume runs ([`recorded_graph`]), so that a changed graph needs a new approval.
pub(crate) fn trusted_text<'s>(source: &'s str, spec_graph: &Value) -> Cow<'s, str> {
    if !parse(source, "").is_ok_and(|g| imports(&g)) {
        return Cow::Borrowed(source);
    }
    let graph = serde_json::to_string_pretty(spec_graph).unwrap_or_default();
    Cow::Owned(format!(
        "{source}\n// The graph recorded with its imports spliced in:\n{graph}\n"
    ))
}

/// The text of `bytes`, or where in `name` the first byte that is not UTF-8 is.
fn utf8(bytes: Vec<u8>, name: &str) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let before = String::from_utf8_lossy(valid);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        syntax(ParseError {
            file: name.to_owned(),
            line,
            column,
            message: "the file is not UTF-8 text".into(),
        })
    })
}

fn syntax(err: ParseError) -> Error {
    Error::WorkflowSyntax(err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("fabro-load-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[test]
    fn a_file_is_parsed_inlined_and_validated() {
        let dir = temp_dir("ok");
        std::fs::write(dir.join("plan.md"), "Plan it.").expect("write");
        let source = "digraph G { start [shape=Mdiamond]; exit [shape=Msquare]\n\
                      a [prompt=\"@plan.md\"]; start -> a -> exit }\n";
        std::fs::write(dir.join("w.fabro"), source).expect("write");
        let loaded = load(&dir.join("w.fabro"), "WORKFLOW", None).expect("loads");
        assert_eq!(loaded.source, source);
        let prompt = loaded.graph.node("a").and_then(|a| a.str_attr("prompt"));
        assert_eq!(prompt, Some("Plan it."));
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn bytes_that_are_not_utf8_are_a_syntax_error_at_their_place() {
        let dir = temp_dir("utf8");
        let path = dir.join("w.fabro");
        std::fs::write(&path, b"digraph G {\n  a [label=\"\xff\"] }\n").expect("write");
        let err = load(&path, "WORKFLOW", None).err().expect("refused");
        assert!(matches!(err, Error::WorkflowSyntax(_)), "{err:?}");
        let shown = err.to_string();
        assert!(
            shown.ends_with("w.fabro:2:13: the file is not UTF-8 text"),
            "{shown}"
        );
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_missing_file_is_a_usage_error_naming_it() {
        let err = load(Path::new("no/such.fabro"), "WORKFLOW", None).err();
        let shown = err.map(|e| (e.exit_code(), e.to_string()));
        assert!(
            shown.as_ref().is_some_and(|(code, text)| *code == 2
                && text.starts_with("WORKFLOW: cannot read no/such.fabro")),
            "{shown:?}"
        );
    }
}
