//! The coding agents' settings files that `git fabro hooks install --claude` (and `--codex`,
//! `--gemini`, `--qwen`) writes to, and how git-fabro's entries in them are recognised.
//! Snapshots leave such a file out while it holds those entries: the hooks exist on this
//! machine only.

use std::path::Path;

/// What every hook command git-fabro writes starts with; it tells its entries from the user's.
pub const COMMAND_PREFIX: &str = "git fabro hooks run agent-";

/// Claude Code's, Codex's, Gemini CLI's and Qwen Code's settings file, relative to the work
/// tree's root.
pub const FILES: [&str; 4] = [
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".gemini/settings.json",
    ".qwen/settings.json",
];

/// The settings files of `workdir` that hold git-fabro's hooks, as exclude patterns; for one
/// that is a symbolic link, the file of the work tree it leads to as well, since that is the
/// file install wrote.
pub fn never_captured(workdir: &Path) -> Vec<String> {
    let root = std::fs::canonicalize(workdir).unwrap_or_else(|_| workdir.to_owned());
    FILES
        .iter()
        .filter(|file| {
            std::fs::read_to_string(workdir.join(file))
                .is_ok_and(|text| text.contains(COMMAND_PREFIX))
        })
        .flat_map(|file| {
            let real = std::fs::canonicalize(workdir.join(file)).ok();
            let linked = real
                .as_deref()
                .and_then(|real| real.strip_prefix(&root).ok())
                .map(|inside| inside.to_string_lossy().into_owned())
                .filter(|inside| inside != file);
            std::iter::once(file.to_string()).chain(linked)
        })
        .map(|file| format!("/{file}"))
        .collect()
}
