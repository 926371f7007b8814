//! Every relative link between the README and the docs leads somewhere: to a file that
//! exists and, for `file.md#anchor`, to a heading of that file (GitHub's anchor for it).

use std::path::{Component, Path, PathBuf};

use crate::docs_commands::{doc_files, read_doc};

/// The anchors GitHub gives a file's headings: lower case, punctuation but `-` and `_`
/// dropped, spaces as `-`. Headings inside code blocks are not headings.
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let heading = line.trim_start_matches('#');
        if fenced || heading.len() == line.len() || !heading.starts_with(' ') {
            continue;
        }
        let anchor: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        found.push(anchor);
    }
    found
}

/// The targets of the `[text](target)` links of a file, outside code blocks.
fn links(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            continue;
        }
        for (i, _) in line.match_indices("](") {
            let rest = &line[i + 2..];
            if let Some(end) = rest.find(')') {
                found.push(rest[..end].to_string());
            }
        }
    }
    found
}

/// `a/b/../c` as `a/c`, without asking the file system.
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn every_link_between_the_docs_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for file in doc_files() {
        let text = read_doc(&file);
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let linked = if path.is_empty() {
                file.clone()
            } else {
                normalized(&file.parent().unwrap_or(Path::new("")).join(path))
            };
            assert!(
                root.join(&linked).exists(),
                "{}: the link to {target} leads to no file",
                file.display()
            );
            if !anchor.is_empty() {
                let headings = anchors(&read_doc(&linked));
                assert!(
                    headings.iter().any(|h| h == anchor),
                    "{}: the link to {target}: {} has no heading #{anchor}",
                    file.display(),
                    linked.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} links found");
}

#[test]
fn anchors_are_the_ones_github_makes() {
    assert_eq!(
        anchors("# Guide\n## Agents: the `--agent` command\n```\n# not a heading\n```\n"),
        ["guide", "agents-the---agent-command"]
    );
}
