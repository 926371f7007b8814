//! A Codex or Gemini CLI session's conversation given back by `restore`: the transcript of the
//! turn restored, written as a session of the agent's own, and the command that continues it
//! printed. The hooks are driven with the payloads each agent sends; the real agents resume
//! the copies in tests/agents/run_resume.sh.

use std::path::Path;

use serde_json::{Value, json};

use crate::agent_hooks::{our_command, run_hook};
use crate::common::{TestRepo, agent_transcript, assert_success, read_file};

const SESSION: &str = "01a23338-f211-7d71-bacc-cc57242f8f78";

/// A session of two turns of `agent` in a checkout with its hooks installed, its transcript
/// (at `transcript`) growing by `lines(n)` in turn n; returns the session's run.
fn two_turns(repo: &TestRepo, agent: &str, lines: impl Fn(usize) -> String) -> String {
    repo.ok(&["hooks", "install", &format!("--{agent}")]);
    let (settings, prompt, stop) = match agent {
        "codex" => (".codex/hooks.json", "UserPromptSubmit", "Stop"),
        _ => (".gemini/settings.json", "BeforeAgent", "AfterAgent"),
    };
    let settings: Value = serde_json::from_str(&read_file(repo.path.join(settings))).unwrap();
    let transcript = agent_transcript(&repo.root, agent, &format!("{agent}-session.jsonl"));
    let mut written = String::new();
    for n in 1..=2 {
        let fire = |event: &str, extra: Value| {
            let mut input = json!({
                "session_id": SESSION, "cwd": repo.path, "hook_event_name": event,
                "transcript_path": transcript,
            });
            input
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            let out = run_hook(repo, &repo.path, &our_command(&settings, event), &input);
            assert_success(&out);
        };
        fire(prompt, json!({"prompt": format!("turn {n}")}));
        repo.write("src/lib.rs", &format!("pub fn f() -> u8 {{ {n} }}\n"));
        written.push_str(&lines(n));
        std::fs::write(&transcript, &written).unwrap();
        fire(
            stop,
            json!({"stop_hook_active": false, "prompt_response": "done"}),
        );
    }
    let ps: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    ps[0]["run_id"].as_str().unwrap().to_owned()
}

/// `restore --run RUN turn@1` with `env`; the command it printed to continue the conversation.
fn restore_turn_1(repo: &TestRepo, run: &str, env: &[(&str, &Path)]) -> String {
    let mut cmd = repo.fabro();
    cmd.args(["restore", "--run", run, "turn@1"]);
    for (key, value) in env {
        cmd.env(key, value);
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        read_file(repo.path.join("src/lib.rs")),
        "pub fn f() -> u8 { 1 }\n"
    );
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("the conversation as it was there: "))
        .unwrap_or_else(|| panic!("no conversation offered: {stderr}"));
    let command = line.strip_suffix(" (a copy; the session's own is as it was)");
    command.unwrap_or_else(|| panic!("{line}")).to_owned()
}

#[test]
fn a_codex_sessions_turn_comes_back_as_a_new_rollout_for_codex_resume() {
    let repo = TestRepo::new();
    let run = two_turns(&repo, "codex", |n| {
        let meta = format!(
            r#"{{"type":"session_meta","payload":{{"id":"{SESSION}","session_id":"{SESSION}"}}}}"#
        );
        let message = format!(
            r#"{{"type":"response_item","payload":{{"type":"message","content":[{{"text":"MARKER-{n} {SESSION}"}}]}}}}"#
        );
        if n == 1 {
            format!("{meta}\n{message}\n")
        } else {
            format!("{message}\n")
        }
    });
    let home = repo.root.join("codex-home");
    let command = restore_turn_1(&repo, &run, &[("CODEX_HOME", &home)]);
    let id = command.strip_prefix("codex resume ").expect(&command);
    assert_eq!(id.len(), 36);
    assert_eq!(&id[14..15], "7", "a UUID v7 as Codex makes: {id}");
    let files: Vec<_> = walk(&home.join("sessions"));
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("rollout-") && name.ends_with(&format!("-{id}.jsonl")),
        "{name}"
    );
    let copy = read_file(&files[0]);
    assert_eq!(
        copy.matches(id).count(),
        2,
        "the session's id, not the message's text: {copy}"
    );
    assert!(copy.contains(&format!("MARKER-1 {SESSION}")) && !copy.contains("MARKER-2"));
}

#[test]
fn a_gemini_sessions_turn_comes_back_as_a_file_for_gemini_session_file() {
    let repo = TestRepo::new();
    let run = two_turns(&repo, "gemini", |n| {
        let meta = format!(r#"{{"sessionId":"{SESSION}","projectHash":"h","kind":"main"}}"#);
        let message =
            format!(r#"{{"id":"m{n}","type":"user","content":[{{"text":"MARKER-{n}"}}]}}"#);
        if n == 1 {
            format!("{meta}\n{message}\n")
        } else {
            format!("{message}\n")
        }
    });
    let command = restore_turn_1(&repo, &run, &[]);
    let path = command
        .strip_prefix("gemini --session-file ")
        .expect(&command);
    let dir = std::fs::canonicalize(repo.path.join(".git/fabro/conversations"))
        .unwrap()
        .join(&run);
    assert_eq!(Path::new(path).parent(), Some(dir.as_path()), "{path}");
    let copy = read_file(path);
    assert!(
        copy.contains("MARKER-1") && !copy.contains("MARKER-2"),
        "{copy}"
    );
    assert!(
        copy.starts_with(&format!(r#"{{"sessionId":"{SESSION}""#)),
        "kept as it is"
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}
