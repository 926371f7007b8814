//! `prompt="@prompts/plan.md"` and `goal="@goal.md"`: Fabro replaces such a value by the
//! file's content before validating. A reference that finds no file stays as written, and
//! validation reports it (`unresolved_file_ref`).
//!
//! The content is sent to agents and committed with the run, so a reference reads only what
//! the workflow could already see: a relative path, looked up beside the workflow, that with
//! every symlink and `..` resolved lies inside the workflow's directory or the repository.
//! Fabro also looks in its home; git-fabro does not, because the home holds other runs'
//! records and this machine's settings, which a workflow from elsewhere must not read.
//! `@/proc/self/environ`, `@../../.ssh/id_rsa` and a symlink leading out stay unresolved.

use std::path::{Component, Path, PathBuf};

use crate::engine::graph::{AttrValue, Graph};
use crate::input;

/// Where `@file` references are looked up, and what they may read.
pub struct FileRefs<'a> {
    /// The workflow's directory: references are relative to it.
    pub dir: &'a Path,
    /// The repository's work tree, which a reference may reach with `..`.
    pub repo: Option<&'a Path>,
}

/// Why a path named by the workflow was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreadable {
    /// An absolute path, or one with a root or drive.
    NotRelative,
    /// No such file (or not one that can be read as a file).
    Missing,
    /// It exists, but with its symlinks and `..` resolved it lies outside the workflow's
    /// directory and the repository.
    Outside,
}

impl FileRefs<'_> {
    /// The real path of the file `reference` names, looked up in `base` (the directory of
    /// the workflow that names it), when it lies inside the places a workflow may read.
    pub fn locate(&self, base: &Path, reference: &str) -> Result<PathBuf, Unreadable> {
        let path = Path::new(reference);
        let relative = path.components().all(|c| {
            matches!(
                c,
                Component::Normal(_) | Component::CurDir | Component::ParentDir
            )
        });
        if !relative {
            return Err(Unreadable::NotRelative);
        }
        let roots: Vec<PathBuf> = [Some(here(self.dir)), self.repo]
            .into_iter()
            .flatten()
            .filter_map(|root| std::fs::canonicalize(root).ok())
            .collect();
        let real = std::fs::canonicalize(here(base).join(path)).map_err(|_| Unreadable::Missing)?;
        if !roots.iter().any(|root| real.starts_with(root)) {
            return Err(Unreadable::Outside);
        }
        Ok(real)
    }

    /// The content of `@path`, looked up in `base`; `None` when it is not there, or not
    /// inside the places it may read.
    fn resolve(&self, base: &Path, value: &str) -> Option<String> {
        let real = self.locate(base, value.strip_prefix('@')?).ok()?;
        let bytes = input::read_file(&real, value, input::MAX_DEFINITION).ok()?;
        String::from_utf8(bytes).ok()
    }
}

/// `run x.fabro` has the workflow in "", which the file system knows as ".".
fn here(dir: &Path) -> &Path {
    Some(dir)
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Inlines every `@file` node prompt and graph goal that resolves.
pub fn inline_file_refs(graph: &mut Graph, refs: &FileRefs) {
    inline_file_refs_from(graph, refs, refs.dir);
}

/// [`inline_file_refs`] for a workflow in `base`, which an imported workflow's references
/// are relative to.
pub fn inline_file_refs_from(graph: &mut Graph, refs: &FileRefs, base: &Path) {
    for node in &mut graph.nodes {
        let prompt = node.attrs.get("prompt").and_then(AttrValue::as_str);
        if let Some(text) = prompt.and_then(|p| refs.resolve(base, p)) {
            node.attrs.insert("prompt".into(), AttrValue::String(text));
        }
    }
    let goal = graph.attrs.get("goal").and_then(AttrValue::as_str);
    if let Some(text) = goal.and_then(|g| refs.resolve(base, g)) {
        graph.attrs.insert("goal".into(), AttrValue::String(text));
    }
}
