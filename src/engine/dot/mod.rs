//! Fabro's dialect of Graphviz DOT, read by hand. Fabro's own parser (nom, in
//! `fabro-graphviz`) accepts a narrow DOT: `digraph Name { ... }`, unquoted identifiers as node
//! ids, `a -> b -> c` chains, comma-separated attribute blocks, typed values (durations,
//! floats, integers, booleans, bare strings such as `gpt-5.2`), qualified keys such as
//! `stack.child_workflow`. Generic DOT crates reject parts of it and accept what Fabro refuses,
//! so this module follows Fabro's grammar rule for rule, and says where an error is by file,
//! line and column.
//!
//! Three stages: `source` removes comments as Fabro does (keeping a map back to the original
//! positions), `syntax` reads the statements, `build` turns them into a [`Graph`] with Fabro's
//! defaults, subgraph classes and legacy attribute translations.

mod build;
pub(crate) use build::class_of_label;
mod source;
mod syntax;

use crate::engine::graph::Graph;

/// Where and why a workflow could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct ParseError {
    pub file: String,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub message: String,
}

/// Reads a workflow. `file` only names the source in errors.
pub fn parse(source: &str, file: &str) -> Result<Graph, ParseError> {
    let stripped = source::strip_comments(source).map_err(|at| locate(source, file, at))?;
    let statements = syntax::parse(&stripped.text).map_err(|err| {
        let at = stripped.original_offset(err.at);
        ParseError {
            message: err.message,
            ..locate(source, file, at)
        }
    })?;
    Ok(build::build(statements))
}

fn locate(source: &str, file: &str, at: source::Located) -> ParseError {
    let before = &source[..at.offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    ParseError {
        file: file.to_string(),
        line,
        column: before[line_start..].chars().count() + 1,
        message: at.message,
    }
}

#[cfg(test)]
mod tests;
