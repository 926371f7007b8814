//! Where each coding agent keeps its own files, found as the agent finds them: from its own
//! environment variable when set and not empty, else a folder of the home directory. Three
//! readers share them: the turn hook (a transcript is read only from these), the engine (the
//! sessions an agent node recorded) and `restore` (a conversation given back). The caller
//! reads the environment (`var`); this only decides.

use std::ffi::OsString;
use std::path::PathBuf;

/// Reads one environment variable.
pub type Var<'a> = &'a dyn Fn(&str) -> Option<OsString>;

/// The variable `name` as a path, when set and not empty.
fn set(var: Var, name: &str) -> Option<PathBuf> {
    var(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// `rel` in the home directory.
pub fn in_home(var: Var, rel: &str) -> Option<PathBuf> {
    set(var, "HOME").map(|home| home.join(rel))
}

/// Claude Code's config dir: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn claude_config(var: Var) -> Option<PathBuf> {
    set(var, "CLAUDE_CONFIG_DIR").or_else(|| in_home(var, ".claude"))
}

/// Codex's home: `$CODEX_HOME`, else `~/.codex`.
pub fn codex_home(var: Var) -> Option<PathBuf> {
    set(var, "CODEX_HOME").or_else(|| in_home(var, ".codex"))
}

/// Gemini CLI's folder: `.gemini` in `$GEMINI_CLI_HOME`, else in the home directory.
pub fn gemini_dir(var: Var) -> Option<PathBuf> {
    set(var, "GEMINI_CLI_HOME")
        .or_else(|| set(var, "HOME"))
        .map(|home| home.join(".gemini"))
}

/// Qwen Code's runtime folder (its conversations): `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`,
/// else `~/.qwen`.
pub fn qwen_runtime(var: Var) -> Option<PathBuf> {
    set(var, "QWEN_RUNTIME_DIR")
        .or_else(|| set(var, "QWEN_HOME"))
        .or_else(|| in_home(var, ".qwen"))
}

/// GitHub Copilot CLI's folder, `~/.copilot`.
pub fn copilot_dir(var: Var) -> Option<PathBuf> {
    in_home(var, ".copilot")
}

/// OpenCode's data folder: `opencode` in `$XDG_DATA_HOME`, else in `~/.local/share`.
pub fn opencode_data(var: Var) -> Option<PathBuf> {
    set(var, "XDG_DATA_HOME")
        .or_else(|| in_home(var, ".local/share"))
        .map(|data| data.join("opencode"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn each_agent_is_found_as_it_finds_itself() {
        let moved = env(&[
            ("HOME", "/h"),
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("CODEX_HOME", ""),
            ("QWEN_HOME", "/q"),
        ]);
        assert_eq!(claude_config(&moved), Some(PathBuf::from("/c")));
        assert_eq!(codex_home(&moved), Some(PathBuf::from("/h/.codex")));
        assert_eq!(gemini_dir(&moved), Some(PathBuf::from("/h/.gemini")));
        assert_eq!(qwen_runtime(&moved), Some(PathBuf::from("/q")));
        assert_eq!(copilot_dir(&moved), Some(PathBuf::from("/h/.copilot")));
        let data = opencode_data(&moved);
        assert_eq!(data, Some(PathBuf::from("/h/.local/share/opencode")));
        let nothing = env(&[]);
        assert_eq!(claude_config(&nothing), None);
        assert_eq!(codex_home(&nothing), None);
        let empty = env(&[("HOME", "/h"), ("CLAUDE_CONFIG_DIR", "")]);
        assert_eq!(claude_config(&empty), Some(PathBuf::from("/h/.claude")));
        let codex_only = env(&[("CODEX_HOME", "/c")]);
        assert_eq!(codex_home(&codex_only), Some(PathBuf::from("/c")));
        assert_eq!(codex_home(&env(&[("CODEX_HOME", "")])), None);
    }
}
