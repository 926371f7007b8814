//! Where Codex reads its hooks from a linked worktree. Codex (0.169) takes the hooks of a
//! linked worktree's project layer from the matching `.codex/hooks.json` of the main checkout,
//! and has that layer only when the worktree has a `.codex/` folder of its own. So for a run in
//! a worktree, `hooks install --codex` writes the entries into the main checkout's file and makes
//! sure the worktree has an (empty) `.codex/`; an empty folder is nothing git records, so no
//! checkpoint carries it. The main checkout's file serves every work tree: each work tree that
//! installed keeps a marker in its own git dir, and uninstall takes the entries out of the file
//! only when no other work tree still has one.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Codex's folder in a work tree.
const FOLDER: &str = ".codex";
const MARKER: &str = "codex-in-use.json";

/// What install did in a work tree, kept in its git dir.
#[derive(Debug, Serialize, Deserialize)]
struct Marker {
    /// Whether install created the work tree's `.codex/` (removed again when empty).
    created_folder: bool,
}

fn marker_path(git_dir: &Path) -> PathBuf {
    git_dir.join("fabro").join("agent-settings").join(MARKER)
}

/// Records that `workdir` uses the hooks, giving it a `.codex/` folder when `needs_folder` (a
/// linked worktree) and it has none. A `.codex` that exists in any form (a link included) is
/// left as it is.
pub fn mark(workdir: &Path, git_dir: &Path, needs_folder: bool) -> Result<()> {
    let marker = marker_path(git_dir);
    let folder = workdir.join(FOLDER);
    let created_folder = if marker.exists() {
        read_marker(&marker).is_some_and(|m| m.created_folder)
    } else {
        needs_folder && std::fs::symlink_metadata(&folder).is_err()
    };
    if let Some(dir) = marker.parent() {
        std::fs::create_dir_all(dir)
            .map_err(Error::io(format!("cannot create {}", dir.display())))?;
    }
    let text = serde_json::to_string(&Marker { created_folder }).unwrap_or_default();
    super::hooks::replace_file(&marker, &text, 0o644)?;
    if needs_folder && std::fs::symlink_metadata(&folder).is_err() {
        std::fs::create_dir(&folder)
            .map_err(Error::io(format!("cannot create {}", folder.display())))?;
    }
    Ok(())
}

/// Forgets `workdir`'s use of the hooks, removing the `.codex/` install created when it is
/// still empty. Returns whether another work tree of the repository still uses them.
pub fn unmark(workdir: &Path, git_dir: &Path, common_dir: &Path) -> Result<bool> {
    let marker = marker_path(git_dir);
    if read_marker(&marker).is_some_and(|m| m.created_folder) {
        // Only when empty: anything Codex or the user put there since stays.
        let _ = std::fs::remove_dir(workdir.join(FOLDER));
    }
    match std::fs::remove_file(&marker) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => {
            return Err(Error::io(format!("cannot remove {}", marker.display()))(
                err,
            ));
        }
    }
    Ok(in_use(common_dir))
}

/// Whether a work tree of the repository (the main checkout, or a linked worktree) holds a
/// marker.
fn in_use(common_dir: &Path) -> bool {
    let linked = std::fs::read_dir(common_dir.join("worktrees"))
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path());
    std::iter::once(common_dir.to_owned())
        .chain(linked)
        .any(|git_dir| marker_path(&git_dir).is_file())
}

fn read_marker(path: &Path) -> Option<Marker> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}
