//! Coding agents' own hooks, pointed at git-fabro: each turn the agent ends becomes a
//! checkpoint, and each file write is preceded by a snapshot of the files it touches. The
//! entries go into the agent's settings file in the work tree, next to whatever the user keeps
//! there; the file as it was is kept in the work tree's git dir, so that uninstalling gives it
//! back byte for byte. While git-fabro's entries are in it, the file is never captured by a
//! checkpoint (see [`crate::format::agent_settings::never_captured`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ordered_json::Json;
use super::work_tree_file;
use crate::error::{Error, Result};
use crate::format::agent_settings::{COMMAND_PREFIX, FILES};

/// The agents whose hook mechanism git-fabro knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    /// Claude Code: `.claude/settings.local.json` (personal, never committed).
    Claude,
    /// OpenAI Codex CLI: `.codex/hooks.json`.
    Codex,
    /// Gemini CLI: `.gemini/settings.json`.
    Gemini,
}

/// One hook entry: the agent's event, its tool matcher, and what git-fabro does on it.
struct Entry {
    event: &'static str,
    matcher: Option<&'static str>,
    action: &'static str,
}

impl Agent {
    pub const ALL: [Agent; 3] = [Agent::Claude, Agent::Codex, Agent::Gemini];

    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    pub fn parse(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The settings file, relative to the work tree's root.
    pub fn settings_file(self) -> &'static str {
        match self {
            Agent::Claude => FILES[0],
            Agent::Codex => FILES[1],
            Agent::Gemini => FILES[2],
        }
    }

    /// The start of a turn (its prompt), the end of a turn, every tool that can write a file
    /// (the editing tools, and the shell, which can write anything: Codex runs a patch through
    /// its shell, `exec_command`, when it has no `apply_patch` tool for the model; its hooks
    /// name that tool `Bash`), and the end of a session, which finishes a session's run (Codex
    /// has no such event).
    fn entries(self) -> Vec<Entry> {
        let prompt = match self {
            Agent::Claude | Agent::Codex => "UserPromptSubmit",
            Agent::Gemini => "BeforeAgent",
        };
        let (turn, edit, tools) = match self {
            Agent::Claude => (
                "Stop",
                "PreToolUse",
                "Write|Edit|MultiEdit|NotebookEdit|Bash",
            ),
            Agent::Codex => ("Stop", "PreToolUse", "apply_patch|Bash"),
            Agent::Gemini => (
                "AfterAgent",
                "BeforeTool",
                "write_file|replace|run_shell_command",
            ),
        };
        let mut entries = vec![
            Entry {
                event: prompt,
                matcher: None,
                action: "prompt",
            },
            Entry {
                event: turn,
                matcher: None,
                action: "turn",
            },
            Entry {
                event: edit,
                matcher: Some(tools),
                action: "edit",
            },
        ];
        if self != Agent::Codex {
            entries.push(Entry {
                event: "SessionEnd",
                matcher: None,
                action: "end",
            });
        }
        entries
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

    /// The settings file the agent reads when it runs here.
    pub fn settings_file(&self, agent: Agent) -> PathBuf {
        self.settings_home(agent).0.join(agent.settings_file())
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
    let path = install_file(dir, git_dir, agent)?;
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
    Ok(match uninstall_file(dir, git_dir, agent)? {
        Some(path) => Uninstalled::Removed(path),
        None => Uninstalled::NotInstalled,
    })
}

/// Whether `workdir`'s settings file for `agent` holds git-fabro's entries, and other settings.
fn status_of(workdir: &Path, agent: Agent) -> (bool, bool) {
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
    let saved = original_path(git_dir, agent);
    if !saved.exists() {
        let dir = path.parent().unwrap_or(workdir);
        let original = Original {
            text: text.clone(),
            created_dir: !dir.exists(),
        };
        write_file(
            &saved,
            &serde_json::to_string(&original).unwrap_or_default(),
        )?;
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(Error::io(format!("cannot create {}", dir.display())))?;
    }
    write_file(&path, &json.to_pretty())?;
    Ok(shown)
}

/// Removes git-fabro's entries: the file goes back to what it was before install, byte for
/// byte, when the user changed nothing else in it meanwhile. Returns the file when it held
/// git-fabro's entries.
fn uninstall_file(workdir: &Path, git_dir: &Path, agent: Agent) -> Result<Option<PathBuf>> {
    let shown = workdir.join(agent.settings_file());
    let saved = original_path(git_dir, agent);
    let original: Option<Original> = std::fs::read_to_string(&saved)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok());
    let Some(text) = read_settings(&shown)? else {
        let _ = std::fs::remove_file(&saved);
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
            std::fs::remove_file(&path)
                .map_err(Error::io(format!("cannot remove {}", path.display())))?;
            if original.as_ref().is_some_and(|o| o.created_dir)
                && let Some(dir) = path.parent()
            {
                // Only when empty: anything the agent put there since stays.
                let _ = std::fs::remove_dir(dir);
            }
        }
        Some(Some(old)) if unchanged_since(old, &rest, agent, &path) => {
            write_file(&path, old)?;
        }
        _ => write_file(&path, &rest.to_pretty())?,
    }
    let _ = std::fs::remove_file(&saved);
    Ok(Some(shown))
}

/// Whether the settings without git-fabro's entries are what the file held before install,
/// seen the same way: adding the entries and taking them out again drops what held nothing
/// (an empty `hooks` of the user's, say), so the old text goes through the same round trip.
fn unchanged_since(old: &str, rest: &Json, agent: Agent, path: &Path) -> bool {
    Json::parse(old)
        .ok()
        .and_then(|json| with_ours(json, agent, path).ok())
        .is_some_and(|json| without_ours(json).0 == *rest)
}

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

fn is_ours(hook: &Json) -> bool {
    hook.get("command")
        .and_then(Json::as_str)
        .is_some_and(|c| c.starts_with(COMMAND_PREFIX))
}

/// The settings without git-fabro's hooks, dropping the groups, events and `hooks` object
/// that only held them; and whether there were any.
fn without_ours(json: Json) -> (Json, bool) {
    let Json::Object(mut root) = json else {
        return (json, false);
    };
    let mut removed = false;
    if let Some(at) = root.iter().position(|(k, _)| k == "hooks")
        && let Json::Object(events) = &mut root[at].1
    {
        let mut emptied = Vec::new();
        for (event, groups) in events.iter_mut() {
            let Json::Array(list) = groups else { continue };
            let before = list.len();
            list.retain_mut(|group| {
                let Json::Object(fields) = group else {
                    return true;
                };
                let Some((_, Json::Array(hooks))) = fields.iter_mut().find(|(k, _)| k == "hooks")
                else {
                    return true;
                };
                let count = hooks.len();
                hooks.retain(|h| !is_ours(h));
                removed |= hooks.len() != count;
                !(hooks.is_empty() && count > 0)
            });
            removed |= list.len() != before;
            if list.is_empty() && before > 0 {
                emptied.push(event.clone());
            }
        }
        // Only what held git-fabro's entries alone goes; an empty list of the user's stays.
        if !emptied.is_empty() {
            events.retain(|(event, _)| !emptied.contains(event));
            if events.is_empty() {
                root.remove(at);
            }
        }
    }
    (Json::Object(root), removed)
}

/// The settings with git-fabro's hooks added at the end of each event's list.
fn with_ours(json: Json, agent: Agent, path: &Path) -> Result<Json> {
    let not_an = |what: &str| {
        Error::Failed(format!(
            "{} holds {what} where git-fabro expects an object; add the hooks by hand",
            path.display()
        ))
    };
    let Json::Object(mut root) = json else {
        return Err(not_an("something other than an object"));
    };
    if !root.iter().any(|(k, _)| k == "hooks") {
        root.push(("hooks".into(), Json::Object(Vec::new())));
    }
    let Some((_, Json::Object(events))) = root.iter_mut().find(|(k, _)| k == "hooks") else {
        return Err(not_an("a `hooks` that is not an object"));
    };
    for entry in agent.entries() {
        if !events.iter().any(|(k, _)| k == entry.event) {
            events.push((entry.event.into(), Json::Array(Vec::new())));
        }
        let Some((_, Json::Array(groups))) = events.iter_mut().find(|(k, _)| k == entry.event)
        else {
            return Err(not_an(&format!(
                "a `hooks.{}` that is not a list",
                entry.event
            )));
        };
        let hook = Json::object(vec![
            ("type", Json::string("command")),
            ("command", Json::String(agent.command(entry.action))),
        ]);
        let mut group = Vec::new();
        if let Some(matcher) = entry.matcher {
            group.push(("matcher", Json::string(matcher)));
        }
        group.push(("hooks", Json::Array(vec![hook])));
        groups.push(Json::object(group));
    }
    Ok(Json::Object(root))
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(Error::io(format!("cannot create {}", dir.display())))?;
    }
    let mode = super::hooks::existing_mode(path).unwrap_or(0o644);
    super::hooks::replace_file(path, text, mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_then_uninstall_gives_the_users_settings_back() {
        let user = r#"{"permissions":{"allow":["Bash(ls)"]},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}"#;
        let json = Json::parse(user).unwrap();
        let ours = with_ours(json.clone(), Agent::Claude, Path::new("x")).unwrap();
        let text = ours.to_pretty();
        assert!(
            text.contains("git fabro hooks run agent-turn claude"),
            "{text}"
        );
        assert!(text.find("permissions") < text.find("hooks"));
        let (rest, removed) = without_ours(Json::parse(&text).unwrap());
        assert!(removed);
        assert_eq!(rest, json);
        let (empty, removed) = without_ours(
            with_ours(Json::Object(Vec::new()), Agent::Gemini, Path::new("x")).unwrap(),
        );
        assert!(removed);
        assert_eq!(empty, Json::Object(Vec::new()));
    }
}
