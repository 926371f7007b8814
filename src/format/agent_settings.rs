//! The files `git fabro hooks install --claude` (and `--codex`, `--gemini`, `--qwen`,
//! `--opencode`) writes for a coding agent, and how git-fabro's entries in them are
//! recognised. Snapshots leave such a file out while it holds those entries, and with it what
//! the agent writes beside it on its own: the hooks exist on this machine only.

use std::path::Path;

/// What every hook command git-fabro writes starts with; it tells its entries from the user's.
/// The OpenCode plugin holds it too, as the command it runs.
pub const COMMAND_PREFIX: &str = "git fabro hooks run agent-";

/// A file git-fabro writes for an agent, relative to the work tree's root.
pub struct AgentFile {
    pub path: &'static str,
    /// What the agent itself writes while the file is there, never the user's work: OpenCode
    /// installs its plugin API beside a project's plugins (its `node_modules`, which no
    /// snapshot ever takes, a manifest, a lock file and a `.gitignore`).
    pub beside: &'static [&'static str],
}

/// Claude Code's, Codex's, Gemini CLI's and Qwen Code's settings files, and OpenCode's
/// plugin (OpenCode has plugins, not hook settings).
pub const FILES: [AgentFile; 5] = [
    AgentFile::alone(".claude/settings.local.json"),
    AgentFile::alone(".codex/hooks.json"),
    AgentFile::alone(".gemini/settings.json"),
    AgentFile::alone(".qwen/settings.json"),
    AgentFile {
        path: ".opencode/plugins/git-fabro.js",
        beside: &[
            ".opencode/package.json",
            ".opencode/package-lock.json",
            ".opencode/bun.lock",
            ".opencode/bun.lockb",
            ".opencode/.gitignore",
        ],
    },
];

impl AgentFile {
    const fn alone(path: &'static str) -> AgentFile {
        AgentFile { path, beside: &[] }
    }
}

/// The files of `workdir` that hold git-fabro's hooks and what their agent writes beside them,
/// as exclude patterns; for one that is a symbolic link, the file of the work tree it leads to
/// as well, since that is the file install wrote.
pub fn never_captured(workdir: &Path) -> Vec<String> {
    let root = std::fs::canonicalize(workdir).unwrap_or_else(|_| workdir.to_owned());
    FILES
        .iter()
        .filter(|file| {
            std::fs::read_to_string(workdir.join(file.path))
                .is_ok_and(|text| text.contains(COMMAND_PREFIX))
        })
        .flat_map(|file| {
            let real = std::fs::canonicalize(workdir.join(file.path)).ok();
            let linked = real
                .as_deref()
                .and_then(|real| real.strip_prefix(&root).ok())
                .map(|inside| inside.to_string_lossy().into_owned())
                .filter(|inside| inside != file.path);
            std::iter::once(file.path.to_owned())
                .chain(linked)
                .chain(file.beside.iter().map(|path| (*path).to_owned()))
        })
        .map(|file| format!("/{file}"))
        .collect()
}
