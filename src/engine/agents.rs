//! The agent presets: `--agent claude` (or `codex`, `gemini`, `aider`, `copilot`, `qwen`,
//! `opencode`, and the same word in `fabro.agentCommand` or `[agent] command`) stands for the
//! command line that makes that CLI work as an agent node, run by `/bin/bash -c` in a worktree
//! it has never seen, with the prompt on stdin and in `$FABRO_PROMPT_FILE`, its stdout taken
//! as the response, nobody at a terminal to answer, and possibly as root in a container. Any other agent command is run as
//! written. A preset is expanded where the agent command is run, so every way of naming it
//! (flag, run.toml, git config, settings, resume, manager children) gets the same line.
//!
//! Each flag is there for one reason, checked with Claude Code 2.1, Codex 0.169, Gemini CLI
//! 0.61 and aider 0.86, as root and as a user, and with GitHub Copilot CLI 1.0.102, Qwen Code
//! 0.24.4 and OpenCode 1.18.33 as root:
//!
//! - Claude Code: `-p` answers once and prints the response (the prompt comes on stdin).
//!   `--permission-mode acceptEdits` lets it edit files without asking; shell commands still
//!   need a rule the user's settings allow. `--dangerously-skip-permissions` is not used: it
//!   is refused as root, and it would open every tool.
//! - Codex: `codex exec -` reads the prompt from stdin and prints only its last message on
//!   stdout. `--sandbox workspace-write` lets it write in the worktree, and its commands run
//!   in the sandbox, never outside it.
//! - Gemini CLI: with stdin not a terminal it answers the prompt on stdin and exits.
//!   `--skip-trust` trusts the worktree for this session only: every run's worktree is a new
//!   folder, where by default Gemini CLI refuses to run (exit 55) and would otherwise need
//!   the user's trusted-folders file edited. `--approval-mode auto_edit` edits without asking,
//!   as Claude Code's preset does, rather than `--yolo`.
//! - aider: `--yes-always` answers its questions (`--yes` is only an abbreviation of it),
//!   `--no-auto-commits` leaves the commits to git-fabro's checkpoints, `--no-gitignore` keeps
//!   it from adding `.aider*` to `.gitignore` (which would land in the checkpoint),
//!   `--no-check-update` and `--no-analytics` keep `--yes-always` from installing an upgrade
//!   or opting in to analytics for the user. Its chat and input histories go beside the
//!   prompt in the run's directory, and the repository map's cache it creates is removed when
//!   it exits: neither is the user's work, and left in the worktree they would be committed.
//! - GitHub Copilot CLI: with stdin not a terminal it answers the prompt on stdin and exits
//!   (`-p TEXT` would put the prompt on the command line, where a long one does not fit);
//!   `-s` prints the answer alone, without its statistics. `--allow-tool=write` lets it create
//!   and edit files without asking; a shell command it does not count as a write is denied,
//!   nobody being there to approve it.
//!   `--allow-all-tools` is not used: it would open every tool. `--no-auto-update` keeps it
//!   from downloading a newer version mid-run. No `--trust-folder`: a node needs none of the
//!   worktree's hooks, plugins or MCP servers, and Copilot runs without them.
//! - Qwen Code: with stdin not a terminal it answers the prompt on stdin once and exits.
//!   `--approval-mode auto-edit` edits without asking (its shell tool is not offered then),
//!   rather than `--yolo`.
//! - OpenCode: `opencode run` with no message answers the prompt on stdin. It asks for no
//!   approval: what it may do is what the user's OpenCode `permission` settings allow
//!   (`--auto`, which would grant what they leave to be asked, is not used). Its `--model`
//!   takes `provider/model`.
//!
//! Every preset passes the node's model (`$FABRO_MODEL`, from the node or its stylesheet) when
//! there is one, and otherwise leaves the choice to the CLI's own configuration.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A word that stands for an agent command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// What the user writes: `--agent claude`.
    pub name: &'static str,
    /// The program the command line starts, looked for on `PATH`.
    pub program: &'static str,
    /// What the name expands to.
    pub command: &'static str,
}

/// The presets, in the order `git fabro agents` lists them.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "claude",
        program: "claude",
        command: r#"claude -p --permission-mode acceptEdits ${FABRO_MODEL:+--model "$FABRO_MODEL"}"#,
    },
    Preset {
        name: "codex",
        program: "codex",
        command: r#"codex exec --sandbox workspace-write ${FABRO_MODEL:+--model "$FABRO_MODEL"} -"#,
    },
    Preset {
        name: "gemini",
        program: "gemini",
        command: r#"gemini --skip-trust --approval-mode auto_edit ${FABRO_MODEL:+--model "$FABRO_MODEL"}"#,
    },
    Preset {
        name: "aider",
        program: "aider",
        command: concat!(
            r#"ls -d .aider.tags.cache.v* >/dev/null 2>&1 || trap 'rm -rf .aider.tags.cache.v*' EXIT; "#,
            r#"aider --message-file "$FABRO_PROMPT_FILE" --yes-always --no-auto-commits --no-gitignore "#,
            r#"--no-check-update --no-analytics "#,
            r#"--chat-history-file "${FABRO_PROMPT_FILE%/*}/aider.chat.history.md" "#,
            r#"--input-history-file "${FABRO_PROMPT_FILE%/*}/aider.input.history" "#,
            r#"${FABRO_MODEL:+--model "$FABRO_MODEL"}"#,
        ),
    },
    Preset {
        name: "copilot",
        program: "copilot",
        command: r#"copilot -s --allow-tool=write --no-auto-update ${FABRO_MODEL:+--model "$FABRO_MODEL"}"#,
    },
    Preset {
        name: "qwen",
        program: "qwen",
        command: r#"qwen --approval-mode auto-edit ${FABRO_MODEL:+--model "$FABRO_MODEL"}"#,
    },
    Preset {
        name: "opencode",
        program: "opencode",
        command: r#"opencode run ${FABRO_MODEL:+--model "$FABRO_MODEL"}"#,
    },
];

/// The preset `command` names, if it is one word naming one (spaces around it ignored).
pub fn preset(command: &str) -> Option<&'static Preset> {
    let word = command.trim();
    PRESETS.iter().find(|preset| preset.name == word)
}

/// The command line an agent command stands for: a preset's, else the command as written.
pub fn expand(command: &str) -> &str {
    preset(command).map_or(command, |preset| preset.command)
}

/// Where a preset's program was found, and what it says its version is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    pub path: PathBuf,
    /// The first line `PROGRAM --version` printed; `None` when it failed or printed nothing.
    pub version: Option<String>,
}

impl Preset {
    /// The preset's program on `search_path` (a `PATH` value) and its version, or `None` when
    /// no directory of it holds an executable of that name.
    pub fn installed(&self, search_path: &OsStr) -> Option<Installed> {
        let path = self.find(search_path)?;
        let version = version_of(&path);
        Some(Installed { path, version })
    }

    /// The preset's program on `search_path`, as the shell that runs the stage finds it.
    pub fn find(&self, search_path: &OsStr) -> Option<PathBuf> {
        std::env::split_paths(search_path)
            .filter(|dir| dir.is_absolute())
            .map(|dir| dir.join(self.program))
            .find(|candidate| is_executable(candidate))
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// `PROGRAM --version`'s first non-empty line on stdout, with nothing on stdin.
fn version_of(program: &Path) -> Option<String> {
    let output = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preset_name_expands_and_anything_else_is_kept() {
        assert!(expand("claude").starts_with("claude -p --permission-mode acceptEdits"));
        assert!(expand(" codex\n").starts_with("codex exec --sandbox workspace-write"));
        assert!(expand("gemini").contains("--skip-trust"));
        assert!(expand("aider").contains("--yes-always"));
        assert!(expand("copilot").contains("--allow-tool=write"));
        assert!(expand("qwen").contains("--approval-mode auto-edit"));
        assert!(expand("opencode").starts_with("opencode run"));
        for written in ["claude -p", "Claude", "./claude", "my-agent --x", ""] {
            assert_eq!(expand(written), written);
        }
    }

    #[test]
    fn every_preset_starts_its_program_and_passes_the_model() {
        for preset in PRESETS {
            assert!(preset.command.contains(&format!("{} ", preset.program)));
            assert!(preset.command.contains("$FABRO_MODEL"), "{}", preset.name);
            for opening in ["dangerously", "--allow-all", "--yolo", "--auto "] {
                assert!(!preset.command.contains(opening), "{}", preset.name);
            }
        }
    }

    #[test]
    fn a_program_not_on_the_path_is_not_installed() {
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(PRESETS[0].installed(empty.path().as_os_str()), None);
        assert_eq!(PRESETS[0].installed(OsStr::new("relative/dir")), None);
    }
}
