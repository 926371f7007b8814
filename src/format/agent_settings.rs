//! The coding agents' settings files that `git fabro hooks install --claude` (and `--codex`,
//! `--gemini`) writes to, and how git-fabro's entries in them are recognised. Snapshots leave
//! such a file out while it holds those entries: the hooks exist on this machine only.

use std::path::Path;

/// What every hook command git-fabro writes starts with; it tells its entries from the user's.
pub const COMMAND_PREFIX: &str = "git fabro hooks run agent-";

/// Claude Code's, Codex's and Gemini CLI's settings file, relative to the work tree's root.
pub const FILES: [&str; 3] = [
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".gemini/settings.json",
];

/// The settings files of `workdir` that hold git-fabro's hooks, as exclude patterns.
pub fn never_captured(workdir: &Path) -> Vec<String> {
    FILES
        .iter()
        .filter(|file| {
            std::fs::read_to_string(workdir.join(file))
                .is_ok_and(|text| text.contains(COMMAND_PREFIX))
        })
        .map(|file| format!("/{file}"))
        .collect()
}
