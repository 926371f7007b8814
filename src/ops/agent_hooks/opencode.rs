//! OpenCode has no hook settings: its plugins, JavaScript files it loads from a project's
//! `.opencode/plugins/`, are its hooks. `hooks install --opencode` writes a plugin of
//! git-fabro's there, which runs the same `git fabro hooks run agent-*` commands as the other
//! agents' entries, with the JSON they read. The whole file is git-fabro's, so install writes
//! it and uninstall removes it; a file of the user's at that path is kept in the work tree's
//! git dir meanwhile and given back.

use std::path::{Path, PathBuf};

use super::{Agent, Original, forget_original, read_settings, remove_file, write_file};
use crate::error::Result;
use crate::format::agent_settings::COMMAND_PREFIX;
use crate::ops::work_tree_file;

/// The plugin. It names the hooks' command, [`COMMAND_PREFIX`], which is how a plugin file is
/// told to be git-fabro's (and, while there, left out of every checkpoint).
const PLUGIN: &str = include_str!("opencode_plugin.js");

fn is_ours(text: &str) -> bool {
    text.contains(COMMAND_PREFIX)
}

/// Writes the plugin into `workdir` (git dir `git_dir`), keeping what was at its path first.
pub(super) fn install(workdir: &Path, git_dir: &Path) -> Result<PathBuf> {
    let rel = Agent::OpenCode.settings_file();
    let path = work_tree_file::resolve(workdir, rel)?;
    let text = read_settings(&path)?;
    if !text.as_deref().is_some_and(is_ours) {
        Original::of(&path, text).keep(git_dir, Agent::OpenCode)?;
    }
    write_file(&path, PLUGIN)?;
    Ok(workdir.join(rel))
}

/// Removes the plugin, giving back the file that was at its path, or removing the directories
/// install created when they hold nothing else. Returns the file when it was the plugin.
pub(super) fn uninstall(workdir: &Path, git_dir: &Path) -> Result<Option<PathBuf>> {
    let rel = Agent::OpenCode.settings_file();
    let shown = workdir.join(rel);
    let Some(text) = read_settings(&shown)? else {
        forget_original(git_dir, Agent::OpenCode);
        return Ok(None);
    };
    if !is_ours(&text) {
        return Ok(None);
    }
    let path = work_tree_file::resolve(workdir, rel)?;
    let original = Original::load(git_dir, Agent::OpenCode);
    match original.as_ref().and_then(|o| o.text.as_deref()) {
        Some(old) => write_file(&path, old)?,
        None => {
            remove_file(&path)?;
            if let Some(original) = &original {
                original.remove_created_dirs(&path);
            }
        }
    }
    forget_original(git_dir, Agent::OpenCode);
    Ok(Some(shown))
}

/// Whether `workdir` holds the plugin.
pub(super) fn is_installed(workdir: &Path) -> bool {
    std::fs::read_to_string(workdir.join(Agent::OpenCode.settings_file()))
        .is_ok_and(|text| is_ours(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_is_told_from_other_files_and_runs_each_hook() {
        assert!(is_ours(PLUGIN));
        assert!(!is_ours("export const Mine = async () => ({})\n"));
        for hook in ["prompt", "edit", "turn"] {
            assert!(PLUGIN.contains(&format!("run(\"{hook}\"")), "{hook}");
        }
        assert!(PLUGIN.contains("spawnSync"), "the hooks run synchronously");
    }
}
