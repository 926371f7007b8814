//! Edits a person or an agent makes in a run's worktree, done on disk and mirrored in the
//! model's files: writing, deleting, a symlink, and a symlink replaced by a directory.

use std::path::Path;

use super::ops::Op;
use super::state::{Entry, Files};

/// Removes whatever stands at `path` (a directory with everything below it).
fn clear(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path).expect("remove dir"),
        Ok(_) => std::fs::remove_file(path).expect("remove file"),
        Err(_) => {}
    }
}

/// Forgets `path` and everything below it.
fn forget(files: &mut Files, path: &str) {
    let below = format!("{path}/");
    files.retain(|p, _| p != path && !p.starts_with(&below));
}

pub fn edit(root: &Path, files: &mut Files, op: &Op) {
    match op {
        Op::Write { path, text, .. } => {
            let at = root.join(path);
            clear(&at);
            if let Some(parent) = at.parent() {
                std::fs::create_dir_all(parent).expect("parent dir");
            }
            std::fs::write(&at, text).expect("write");
            forget(files, path);
            files.insert(path.clone(), Entry::File(text.clone()));
        }
        Op::Delete { path, .. } => {
            clear(&root.join(path));
            forget(files, path);
        }
        Op::Link { path, .. } => {
            let at = root.join(path);
            clear(&at);
            std::os::unix::fs::symlink("f0", &at).expect("symlink");
            forget(files, path);
            files.insert(path.clone(), Entry::Link("f0".to_owned()));
        }
        Op::LinkToDir { path, .. } => {
            let at = root.join(path);
            clear(&at);
            std::fs::create_dir(&at).expect("dir");
            std::fs::write(at.join("inner"), "inside\n").expect("write");
            forget(files, path);
            files.insert(format!("{path}/inner"), Entry::File("inside\n".to_owned()));
        }
        _ => unreachable!("not an edit"),
    }
}

/// The files of `target` at `path` (the path itself or below it) put over `files`.
pub fn restore_path(files: &mut Files, target: &Files, path: &str) {
    forget(files, path);
    let below = format!("{path}/");
    for (p, entry) in target {
        if p == path || p.starts_with(&below) {
            files.insert(p.clone(), entry.clone());
        }
    }
}
