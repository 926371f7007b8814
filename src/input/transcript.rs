//! The transcript an agent's turn hook names (`transcript_path`), which the turn's checkpoint
//! stores and `push` shares. The path comes from JSON on the hook's stdin, and whatever calls
//! the hook can write that JSON: `/proc/self/environ` would store git-fabro's environment,
//! tokens included, and a link to `~/.ssh/id_ed25519` a private key. So only a file where the
//! agent keeps its sessions is read: a regular file of this user's that, with every link
//! resolved, lies in one of the agent's transcript folders.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::agent_dirs::{self, Var};
use crate::error::{Error, Result};

/// Where `agent` (the name its hook passes, `claude`) keeps its session transcripts, as the
/// agent finds them; `var` reads the environment. Claude Code keeps them in `projects/` of its
/// config dir, and GitHub Copilot CLI, which runs Claude Code's hooks, in
/// `~/.copilot/session-state/`; Codex in `sessions/` of its home, Gemini CLI in
/// `.gemini/tmp/`, Qwen Code in its runtime folder (`~/.qwen/`), and git-fabro's OpenCode
/// plugin hands one over in OpenCode's data folder; any other agent in its folder of the home
/// directory, `~/.NAME/`.
pub fn folders(agent: &str, var: impl Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let var: Var = &var;
    let folder = match agent {
        "claude" => {
            let claude = agent_dirs::claude_config(var).map(|dir| dir.join("projects"));
            let copilot = agent_dirs::copilot_dir(var).map(|dir| dir.join("session-state"));
            return claude.into_iter().chain(copilot).collect();
        }
        "qwen" => agent_dirs::qwen_runtime(var),
        "opencode" => agent_dirs::opencode_data(var).map(|dir| dir.join("git-fabro")),
        "codex" => agent_dirs::codex_home(var).map(|dir| dir.join("sessions")),
        "gemini" => agent_dirs::gemini_dir(var).map(|dir| dir.join("tmp")),
        other if is_plain_name(other) => agent_dirs::in_home(var, &format!(".{other}")),
        _ => None,
    };
    folder.into_iter().collect()
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Reads the transcript at `path`, up to `limit` bytes, when it is a regular file of this
/// user's in one of `folders` (links resolved), as [`super::read_attachment`] reads a file.
pub fn read(path: &Path, folders: &[PathBuf], limit: u64) -> Result<Vec<u8>> {
    const WHAT: &str = "the transcript";
    let real = std::fs::canonicalize(path)
        .map_err(|err| Error::Usage(format!("{WHAT}: cannot read {}: {err}", path.display())))?;
    let inside = folders
        .iter()
        .filter_map(|dir| std::fs::canonicalize(dir).ok())
        .any(|dir| real.starts_with(dir));
    if !inside {
        let shown: Vec<_> = folders.iter().map(|d| d.display().to_string()).collect();
        return Err(Error::Usage(format!(
            "{WHAT}: {} is not in the agent's transcript folders ({}), so it is not read",
            path.display(),
            if shown.is_empty() {
                "none known".to_owned()
            } else {
                shown.join(", ")
            }
        )));
    }
    refuse_others(path, &real)?;
    super::read_attachment(&real, WHAT, limit)
}

/// Refuses a file another user owns: an agent writes its transcripts as the user it runs as.
#[cfg(unix)]
fn refuse_others(path: &Path, real: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let owner = std::fs::metadata(real).map(|m| m.uid()).ok();
    if owner.is_some_and(|uid| uid != rustix::process::geteuid().as_raw()) {
        return Err(Error::Usage(format!(
            "the transcript: {} belongs to another user, so it is not read",
            path.display()
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_others(_path: &Path, _real: &Path) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, OsString)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn each_agent_has_its_folders() {
        let home = env(&[("HOME", "/h")]);
        let one = |agent: &str| folders(agent, &home);
        assert_eq!(
            one("claude"),
            [
                PathBuf::from("/h/.claude/projects"),
                PathBuf::from("/h/.copilot/session-state")
            ]
        );
        assert_eq!(one("codex"), [PathBuf::from("/h/.codex/sessions")]);
        assert_eq!(one("gemini"), [PathBuf::from("/h/.gemini/tmp")]);
        assert_eq!(one("qwen"), [PathBuf::from("/h/.qwen")]);
        assert_eq!(one("copilot"), [PathBuf::from("/h/.copilot")]);
        assert_eq!(
            one("opencode"),
            [PathBuf::from("/h/.local/share/opencode/git-fabro")]
        );
        assert!(one("../etc").is_empty());
        let moved = env(&[
            ("HOME", "/h"),
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("CODEX_HOME", ""),
        ]);
        assert_eq!(
            folders("claude", &moved),
            [
                PathBuf::from("/c/projects"),
                PathBuf::from("/h/.copilot/session-state")
            ]
        );
        assert_eq!(
            folders("codex", &moved),
            [PathBuf::from("/h/.codex/sessions")]
        );
    }

    #[test]
    fn only_a_file_in_the_folders_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        let folder = tmp.path().join("projects");
        std::fs::create_dir(&folder).unwrap();
        let inside = folder.join("s.jsonl");
        std::fs::write(&inside, "{}\n").unwrap();
        let outside = tmp.path().join("secret");
        std::fs::write(&outside, "key").unwrap();
        let link = folder.join("link.jsonl");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let dirs = [folder];
        assert_eq!(read(&inside, &dirs, 100).unwrap(), b"{}\n");
        assert!(read(&outside, &dirs, 100).is_err());
        assert!(read(&link, &dirs, 100).is_err(), "a link out of the folder");
        assert!(read(Path::new("/proc/self/environ"), &dirs, 100).is_err());
    }
}
