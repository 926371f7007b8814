//! Coding agents' own hooks, pointed at git-fabro: each turn the agent ends becomes a
//! checkpoint, and each file write is preceded by a snapshot of the files it touches. The
//! entries go into the agent's settings file in the work tree, next to whatever the user keeps
//! there (OpenCode, which has plugins instead, gets a plugin file of git-fabro's); the file as
//! it was is kept in the work tree's git dir, so that uninstalling gives it back byte for byte.
//! While git-fabro's entries are in it, the file is never captured by a checkpoint (see
//! [`crate::format::agent_settings::never_captured`]).

mod entries;
mod opencode;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ordered_json::Json;
use super::work_tree_file;
use crate::error::{Error, Result};
use crate::format::agent_settings::{COMMAND_PREFIX, FILES};
use entries::{with_ours, without_ours};

/// The agents whose hook mechanism git-fabro knows. GitHub Copilot CLI runs Claude Code's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// Claude Code: `.claude/settings.local.json` (personal, never committed).
    Claude,
    /// OpenAI Codex CLI: `.codex/hooks.json`.
    Codex,
    /// Gemini CLI: `.gemini/settings.json`.
    Gemini,
    /// Qwen Code: `.qwen/settings.json`.
    Qwen,
    /// OpenCode: the plugin `.opencode/plugins/git-fabro.js`.
    OpenCode,
}

impl Agent {
    pub const ALL: [Agent; 5] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::OpenCode,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Qwen => "qwen",
            Agent::OpenCode => "opencode",
        }
    }

    /// The settings file (or plugin), relative to the work tree's root.
    pub fn settings_file(self) -> &'static str {
        let at = match self {
            Agent::Claude => 0,
            Agent::Codex => 1,
            Agent::Gemini => 2,
            Agent::Qwen => 3,
            Agent::OpenCode => 4,
        };
        FILES[at].path
    }

    fn command(self, action: &str) -> String {
        format!("{COMMAND_PREFIX}{action} {}", self.name())
    }
}

/// Where an agent's hooks stand in a work tree.
#[derive(Clone, Debug, Serialize)]
pub struct AgentStatus {
    pub hook: Agent,
    pub path: PathBuf,
    pub installed: bool,
    /// The file holds settings of the user's besides git-fabro's entries.
    pub chained: bool,
}

/// A work tree an agent runs in, and the repository's main checkout.
#[derive(Clone, Debug)]
pub struct WorkTree {
    pub dir: PathBuf,
    /// The git dir of this work tree alone.
    pub git_dir: PathBuf,
    pub main_dir: PathBuf,
    /// The git dir every work tree of the repository shares.
    pub common_dir: PathBuf,
}

impl WorkTree {
    fn is_linked(&self) -> bool {
        self.git_dir != self.common_dir
    }

    /// The work tree whose settings file the agent reads when it runs here, and its git dir:
    /// this one, except for Codex in a linked worktree (see [`super::codex_worktrees`]).
    fn settings_home(&self, agent: Agent) -> (&Path, &Path) {
        if agent == Agent::Codex && self.is_linked() {
            (&self.main_dir, &self.common_dir)
        } else {
            (&self.dir, &self.git_dir)
        }
    }
}

/// What uninstall did with the settings file the agent reads.
#[derive(Debug)]
pub enum Uninstalled {
    /// git-fabro's entries were taken out of it.
    Removed(PathBuf),
    /// They stay, for another work tree that installed them too (Codex's main checkout file).
    KeptForOthers(PathBuf),
    NotInstalled,
}

/// Adds git-fabro's entries to the settings file the agent reads when it runs in `tree`.
pub fn install(tree: &WorkTree, agent: Agent) -> Result<PathBuf> {
    let (dir, git_dir) = tree.settings_home(agent);
    let path = match agent {
        Agent::OpenCode => opencode::install(dir, git_dir)?,
        _ => install_file(dir, git_dir, agent)?,
    };
    if agent == Agent::Codex {
        super::codex_worktrees::mark(&tree.dir, &tree.git_dir, tree.is_linked())?;
    }
    Ok(path)
}

/// Takes git-fabro's entries out of the settings file the agent reads in `tree`.
pub fn uninstall(tree: &WorkTree, agent: Agent) -> Result<Uninstalled> {
    let (dir, git_dir) = tree.settings_home(agent);
    if agent == Agent::Codex {
        // Entries an earlier git-fabro wrote into the worktree's own file go too.
        let own = if tree.is_linked() {
            uninstall_file(&tree.dir, &tree.git_dir, agent)?
        } else {
            None
        };
        let others = super::codex_worktrees::unmark(&tree.dir, &tree.git_dir, &tree.common_dir)?;
        if others {
            return Ok(Uninstalled::KeptForOthers(dir.join(agent.settings_file())));
        }
        if let Some(own) = own
            && !status_of(dir, agent).0
        {
            return Ok(Uninstalled::Removed(own));
        }
    }
    let removed = match agent {
        Agent::OpenCode => opencode::uninstall(dir, git_dir)?,
        _ => uninstall_file(dir, git_dir, agent)?,
    };
    Ok(match removed {
        Some(path) => Uninstalled::Removed(path),
        None => Uninstalled::NotInstalled,
    })
}

/// Whether `workdir`'s settings file for `agent` holds git-fabro's entries, and other settings.
fn status_of(workdir: &Path, agent: Agent) -> (bool, bool) {
    if agent == Agent::OpenCode {
        return (opencode::is_installed(workdir), false);
    }
    let parsed = std::fs::read_to_string(workdir.join(agent.settings_file()))
        .ok()
        .and_then(|text| Json::parse(&text).ok());
    match parsed {
        Some(json) => {
            let (rest, removed) = without_ours(json);
            (removed, rest != Json::Object(Vec::new()))
        }
        None => (false, false),
    }
}

pub fn status(tree: &WorkTree) -> Vec<AgentStatus> {
    Agent::ALL
        .iter()
        .map(|&agent| {
            let (workdir, _) = tree.settings_home(agent);
            let path = workdir.join(agent.settings_file());
            let (installed, chained) = status_of(workdir, agent);
            AgentStatus {
                hook: agent,
                path,
                installed,
                chained,
            }
        })
        .collect()
}

/// The file as it was before the first install, kept in the work tree's git dir.
#[derive(Debug, Serialize, Deserialize)]
struct Original {
    /// Its text; null when there was no file.
    text: Option<String>,
    /// Whether install created the directory holding it.
    created_dir: bool,
    /// How many directories above that one install created too (`.opencode` above
    /// `.opencode/plugins`); absent from what an older git-fabro kept.
    #[serde(default)]
    created_above: usize,
}

impl Original {
    /// What `path` is now, before install writes it: its text, and the directories on its way
    /// that do not exist yet.
    fn of(path: &Path, text: Option<String>) -> Original {
        let missing = path
            .ancestors()
            .skip(1)
            .take_while(|dir| !dir.exists())
            .count();
        Original {
            text,
            created_dir: missing > 0,
            created_above: missing.saturating_sub(1),
        }
    }

    /// Keeps it in `git_dir`, unless the first install already did.
    fn keep(&self, git_dir: &Path, agent: Agent) -> Result<()> {
        let saved = original_path(git_dir, agent);
        if saved.exists() {
            return Ok(());
        }
        write_file(&saved, &serde_json::to_string(self).unwrap_or_default())
    }

    fn load(git_dir: &Path, agent: Agent) -> Option<Original> {
        std::fs::read_to_string(original_path(git_dir, agent))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
    }

    /// Removes the directories install created for `path`, each only when empty: anything the
    /// agent put there since stays.
    fn remove_created_dirs(&self, path: &Path) {
        let created = if self.created_dir {
            1 + self.created_above
        } else {
            0
        };
        for dir in path.ancestors().skip(1).take(created) {
            if std::fs::remove_dir(dir).is_err() {
                break;
            }
        }
    }
}

fn forget_original(git_dir: &Path, agent: Agent) {
    let _ = std::fs::remove_file(original_path(git_dir, agent));
}

fn original_path(git_dir: &Path, agent: Agent) -> PathBuf {
    git_dir
        .join("fabro")
        .join("agent-settings")
        .join(format!("{}.json", agent.name()))
}

/// Adds (or replaces) git-fabro's entries in the agent's settings file of `workdir`.
/// A settings file that is a symbolic link inside the work tree stays one: the file it leads to
/// is written (see [`super::work_tree_file`]).
fn install_file(workdir: &Path, git_dir: &Path, agent: Agent) -> Result<PathBuf> {
    let shown = workdir.join(agent.settings_file());
    let path = work_tree_file::resolve(workdir, agent.settings_file())?;
    let text = read_settings(&path)?;
    let json = match &text {
        Some(text) => parse_settings(text, &path)?,
        None => Json::Object(Vec::new()),
    };
    let (json, _) = without_ours(json);
    let json = with_ours(json, agent, &path)?;
    Original::of(&path, text).keep(git_dir, agent)?;
    write_file(&path, &json.to_pretty())?;
    Ok(shown)
}

/// Removes git-fabro's entries: the file goes back to what it was before install, byte for
/// byte, when the user changed nothing else in it meanwhile. Returns the file when it held
/// git-fabro's entries.
fn uninstall_file(workdir: &Path, git_dir: &Path, agent: Agent) -> Result<Option<PathBuf>> {
    let shown = workdir.join(agent.settings_file());
    let original = Original::load(git_dir, agent);
    let Some(text) = read_settings(&shown)? else {
        forget_original(git_dir, agent);
        return Ok(None);
    };
    let (rest, removed) = without_ours(parse_settings(&text, &shown)?);
    if !removed {
        return Ok(None);
    }
    let path = work_tree_file::resolve(workdir, agent.settings_file())?;
    let before = original.as_ref().map(|o| o.text.as_deref());
    match before {
        Some(None) if rest == Json::Object(Vec::new()) => {
            remove_file(&path)?;
            if let Some(original) = &original {
                original.remove_created_dirs(&path);
            }
        }
        Some(Some(old)) if unchanged_since(old, &rest, agent, &path) => {
            write_file(&path, old)?;
        }
        _ => write_file(&path, &rest.to_pretty())?,
    }
    forget_original(git_dir, agent);
    Ok(Some(shown))
}

/// Whether the settings without git-fabro's entries are what the file held before install,
/// seen the same way: adding the entries and taking them out again drops what held nothing
/// (an empty `hooks` of the user's, say), so the old text goes through the same round trip.
/// Qwen Code marks a settings file it reads with its format's `$version`: that mark, on a
/// file that had none, is the agent's and no change of the user's.
fn unchanged_since(old: &str, rest: &Json, agent: Agent, path: &Path) -> bool {
    let Ok(old) = Json::parse(old) else {
        return false;
    };
    let mut rest = rest.clone();
    if let (Agent::Qwen, None, Json::Object(keys)) = (agent, old.get(QWEN_VERSION), &mut rest) {
        keys.retain(|(key, _)| key != QWEN_VERSION);
    }
    with_ours(old, agent, path).is_ok_and(|json| without_ours(json).0 == rest)
}

/// The key Qwen Code adds to a settings file when it reads it.
const QWEN_VERSION: &str = "$version";

fn read_settings(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(Error::io(format!("cannot read {}", path.display()))(err)),
    }
}

fn parse_settings(text: &str, path: &Path) -> Result<Json> {
    if text.trim().is_empty() {
        return Ok(Json::Object(Vec::new()));
    }
    Json::parse(text).map_err(|err| {
        Error::Failed(format!(
            "{} is not valid JSON ({err}); fix it, then install again",
            path.display()
        ))
    })
}

fn remove_file(path: &Path) -> Result<()> {
    std::fs::remove_file(path).map_err(Error::io(format!("cannot remove {}", path.display())))
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(Error::io(format!("cannot create {}", dir.display())))?;
    }
    let mode = super::hooks::existing_mode(path).unwrap_or(0o644);
    super::hooks::replace_file(path, text, mode)
}
