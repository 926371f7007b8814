//! git-fabro's entries in an agent's JSON hook settings (every agent but OpenCode, which has
//! plugins): which of the agent's events run which hook, and how the entries are added to the
//! user's settings and taken out again without touching anything else.

use std::path::Path;

use super::Agent;
use crate::error::{Error, Result};
use crate::format::agent_settings::COMMAND_PREFIX;
use crate::ops::ordered_json::Json;

/// One hook entry: the agent's event, its tool matcher, and what git-fabro does on it.
struct Entry {
    event: &'static str,
    matcher: Option<&'static str>,
    action: &'static str,
}

/// The start of a turn (its prompt), the end of a turn, every tool that can write a file (the
/// editing tools, and the shell, which can write anything: Codex runs a patch through its
/// shell, `exec_command`, when it has no `apply_patch` tool for the model; its hooks name that
/// tool `Bash`), and the end of a session, which finishes a session's run (Codex has no such
/// event; Qwen Code sends it only from its terminal UI). GitHub Copilot CLI runs Claude
/// Code's entries and names its tools as Claude Code does in them (`create` is `Write`,
/// `edit` and its `apply_patch` are `Edit`, `bash` is `Bash`).
fn entries(agent: Agent) -> Vec<Entry> {
    let (prompt, turn, edit, tools) = match agent {
        Agent::Claude => (
            "UserPromptSubmit",
            "Stop",
            "PreToolUse",
            "Write|Edit|MultiEdit|NotebookEdit|Bash",
        ),
        Agent::Codex => ("UserPromptSubmit", "Stop", "PreToolUse", "apply_patch|Bash"),
        Agent::Gemini => (
            "BeforeAgent",
            "AfterAgent",
            "BeforeTool",
            "write_file|replace|run_shell_command",
        ),
        Agent::Qwen => (
            "UserPromptSubmit",
            "Stop",
            "PreToolUse",
            "edit|write_file|notebook_edit|run_shell_command",
        ),
        // A plugin, not hook settings (see `super::opencode`).
        Agent::OpenCode => return Vec::new(),
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
    if agent != Agent::Codex {
        entries.push(Entry {
            event: "SessionEnd",
            matcher: None,
            action: "end",
        });
    }
    entries
}

fn is_ours(hook: &Json) -> bool {
    hook.get("command")
        .and_then(Json::as_str)
        .is_some_and(|c| c.starts_with(COMMAND_PREFIX))
}

/// The settings without git-fabro's hooks, dropping the groups, events and `hooks` object
/// that only held them; and whether there were any.
pub(super) fn without_ours(json: Json) -> (Json, bool) {
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
pub(super) fn with_ours(json: Json, agent: Agent, path: &Path) -> Result<Json> {
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
    for entry in entries(agent) {
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
