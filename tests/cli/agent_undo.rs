//! Taking back what an agent session did, whenever the user notices: `undo` in the checkout
//! (during the session or after it), `start` and `@-N` targets, a restore during a session
//! being the session's result, a session named by its first prompt, and a session whose agent
//! was killed. The hooks are driven with the payloads Claude Code sends.

use std::process::Stdio;

use serde_json::{Value, json};

use crate::agent_hooks::{our_command, run_hook};
use crate::common::{TestRepo, agent_transcript, path_with_fabro, read_file, run_err, run_ok};

const SESSION: &str = "0b7e4f0e-2f7c-4b59-9a43-3f1d5c2e7a10";
const NEXT_SESSION: &str = "9d2c7a4e-61b0-4c3e-8f5a-27e0c1b9d843";

/// A checkout with Claude Code's hooks installed, so that each session is a run of its own.
fn checkout() -> TestRepo {
    let repo = TestRepo::new();
    repo.ok(&["hooks", "install", "--claude"]);
    repo
}

fn fire(repo: &TestRepo, session: &str, event: &str, extra: Value) -> String {
    let settings: Value =
        serde_json::from_str(&read_file(repo.path.join(".claude/settings.local.json"))).unwrap();
    let mut input = json!({"session_id": session, "cwd": repo.path, "hook_event_name": event});
    input
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let out = run_hook(repo, &repo.path, &our_command(&settings, event), &input);
    assert!(out.status.success() && out.stdout.is_empty());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// One turn of `session`: its prompt, a write of `content` to src/lib.rs, its end.
fn turn(repo: &TestRepo, session: &str, prompt: &str, content: &str) {
    fire(repo, session, "UserPromptSubmit", json!({"prompt": prompt}));
    let file = repo.path.join("src/lib.rs");
    let edit = json!({"tool_name": "Edit", "tool_input": {"file_path": file}});
    fire(repo, session, "PreToolUse", edit);
    repo.write("src/lib.rs", content);
    fire(repo, session, "Stop", json!({"stop_hook_active": false}));
}

fn lib(repo: &TestRepo) -> String {
    read_file(repo.path.join("src/lib.rs"))
}

fn session_run(repo: &TestRepo) -> String {
    let ps: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    ps.iter()
        .find(|r| r["labels"]["agent_session"] == SESSION)
        .and_then(|r| r["run_id"].as_str())
        .expect("the session's run")
        .to_owned()
}

/// stderr with the run's id, its short id and commit hashes made stable.
fn stable(text: &str, run: &str) -> String {
    let text = text.replace(run, "RUN").replace(&run[..8], "RUN");
    hashes_as_sha(&text).trim_end().to_owned()
}

/// Every word of seven or more hex digits as `SHA`.
fn hashes_as_sha(text: &str) -> String {
    text.split_inclusive(|c: char| !c.is_ascii_hexdigit())
        .map(|word| {
            let hex = word.trim_end_matches(|c: char| !c.is_ascii_hexdigit());
            if hex.len() >= 7
                && hex
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
            {
                word.replacen(hex, "SHA", 1)
            } else {
                word.to_owned()
            }
        })
        .collect()
}

#[test]
fn a_session_is_undone_turn_by_turn_after_it_ended_and_every_undo_can_be_redone() {
    let repo = checkout();
    turn(
        &repo,
        SESSION,
        "Add a greeting\nwith details",
        "pub fn hello() {}\n",
    );
    turn(&repo, SESSION, "Break it", "broken\n");
    fire(&repo, SESSION, "SessionEnd", json!({"reason": "other"}));
    let run = session_run(&repo);

    let out = repo.output(&["undo"]);
    assert!(out.status.success());
    assert_eq!(lib(&repo), "pub fn hello() {}\n");
    assert_eq!(
        stable(&String::from_utf8_lossy(&out.stderr), &run),
        "took back @2 turn@2 of run RUN: the files are as at @1 turn@1 (`git fabro undo` again goes one step further back)\n\
         to redo: git fabro restore --run RUN SHA"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "restore   src/lib.rs\n"
    );
    let redo = String::from_utf8_lossy(&out.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("to redo: git fabro "))
        .unwrap()
        .to_owned();

    repo.ok(&["undo"]);
    assert_eq!(lib(&repo), "pub fn f() {}\n", "back to before the session");
    let (code, err) = run_err(repo.fabro().arg("undo"));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("nothing to undo in run"), "{err}");

    // Redoing the first undo brings back the second turn's file.
    let words: Vec<&str> = redo.split(' ').collect();
    run_ok(repo.fabro().args(&words));
    assert_eq!(lib(&repo), "broken\n");
    repo.git(&["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn an_undo_a_new_turn_and_an_undo_go_back_to_what_was_undone() {
    let repo = checkout();
    turn(&repo, SESSION, "one", "one\n");
    turn(&repo, SESSION, "two", "bad\n");
    repo.ok(&["undo"]);
    assert_eq!(lib(&repo), "one\n");
    turn(&repo, SESSION, "three", "one and three\n");
    repo.ok(&["undo"]);
    assert_eq!(
        lib(&repo),
        "one\n",
        "the state the new turn started from, not the undone turn"
    );
    repo.ok(&["undo"]);
    assert_eq!(lib(&repo), "pub fn f() {}\n");
}

#[test]
fn a_restore_during_a_session_is_its_result_and_land_commits_what_the_checkout_holds() {
    let repo = checkout();
    turn(&repo, SESSION, "Write it", "good\n");
    turn(&repo, SESSION, "Now break it", "bad\n");
    let run = session_run(&repo);
    repo.ok(&["restore", "--run", &run, "@-1"]);
    fire(&repo, SESSION, "SessionEnd", json!({"reason": "other"}));
    let log = repo.log_json(&run);
    assert_eq!(log.last().unwrap()["node_id"], "end", "{log:?}");

    run_ok(repo.fabro().arg("land"));
    assert_eq!(repo.git(&["show", "HEAD:src/lib.rs"]), "good\n");
    assert_eq!(repo.git(&["status", "--short", "--untracked-files=no"]), "");
    let body = repo.git(&["log", "-1", "--format=%B"]);
    assert!(
        body.starts_with("Write it\n\n"),
        "named by the first prompt: {body}"
    );
    assert!(body.contains("- @1 turn@1 succeeded: Write it\n"), "{body}");
    assert!(
        body.contains("- @2 turn@2 succeeded: Now break it\n"),
        "{body}"
    );
}

#[test]
fn land_says_which_files_of_the_checkout_differ_from_what_it_landed() {
    let repo = checkout();
    turn(&repo, SESSION, "Write it", "good\n");
    fire(&repo, SESSION, "SessionEnd", json!({"reason": "other"}));
    repo.write("src/lib.rs", "my own edit after the session\n");
    let out = repo.output(&["land"]);
    assert!(out.status.success());
    let run = session_run(&repo);
    assert_eq!(
        stable(&String::from_utf8_lossy(&out.stderr), &run),
        "warning: run RUN landed what it recorded last; the checkout holds other content in 1 file: src/lib.rs (`git status` shows it as your change)\n\
         landed run RUN on main as SHA (squash)"
    );
}

#[test]
fn start_and_counted_back_targets_name_the_start_and_earlier_checkpoints() {
    let repo = TestRepo::new();
    let run = repo.run_with_checkpoints(3);
    let sha = |target: &str| -> String {
        let shown: Value =
            serde_json::from_str(&repo.ok(&["show", &run, target, "--json"])).unwrap();
        shown["run_commit"].as_str().unwrap().to_owned()
    };
    let log = repo.log_json(&run);
    assert_eq!(sha("@-1"), log[1]["run_commit"]);
    assert_eq!(sha("@-2"), log[0]["run_commit"]);
    let base = repo.git(&["rev-parse", "main"]).trim().to_owned();
    assert_eq!(sha("start"), base);
    assert_eq!(sha("@0"), base);
    assert_eq!(
        sha("@-3"),
        base,
        "as many steps back as checkpoints is the start"
    );
    let (code, err) = run_err(repo.fabro().args(["show", &run, "@-4"]));
    assert_eq!(code, 2, "{err}");
    // A fork at the start is a run with nothing done yet, on the start's files.
    let fork = repo.ok(&["fork", &run, "start"]).trim().to_owned();
    assert!(repo.log_json(&fork).is_empty());
    assert_eq!(
        repo.git(&["rev-parse", &format!("fabro/run/{fork}")])
            .trim(),
        base
    );
    repo.ok(&["resume", &fork, "--prepare-only"]);
    let (code, err) = run_err(repo.fabro().args(["undo", &fork]));
    assert_eq!(code, 1, "a fork with no step has nothing to undo: {err}");
    let first = log[0]["run_commit"].as_str().unwrap();
    assert_eq!(
        repo.ok(&["diff", &run, "start", "@-2", "--name-only"]),
        repo.git(&["diff", "--name-only", &base, first])
    );
}

#[test]
fn a_killed_agent_leaves_its_session_interrupted_and_the_next_session_names_it() {
    let repo = checkout();
    turn(&repo, SESSION, "Write it", "good\n");
    // An agent that runs its write hook, writes, and is killed mid-turn.
    let settings: Value =
        serde_json::from_str(&read_file(repo.path.join(".claude/settings.local.json"))).unwrap();
    let input = json!({"session_id": SESSION, "cwd": repo.path, "tool_name": "Edit",
        "tool_input": {"file_path": repo.path.join("src/lib.rs")}});
    let script = "import subprocess,sys,time\n\
        subprocess.run(['sh','-c',sys.argv[1]],input=sys.argv[2].encode())\n\
        open('src/lib.rs','w').write('half done\\n')\n\
        print('wrote',flush=True)\n\
        time.sleep(600)\n";
    let path = path_with_fabro();
    let mut agent: std::process::Child = repo
        .command("python3")
        .args([
            "-c",
            script,
            &our_command(&settings, "PreToolUse"),
            &input.to_string(),
        ])
        .env("PATH", path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(agent.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line, "wrote\n");
    let run = session_run(&repo);
    let status = |repo: &TestRepo| -> Value {
        serde_json::from_str(&repo.ok(&["status", &run, "--json"])).unwrap()
    };
    assert_eq!(status(&repo)["agent_session"], "running");
    agent.kill().unwrap();
    agent.wait().unwrap();
    assert_eq!(status(&repo)["agent_session"], "interrupted");
    let ps = repo.ok(&["ps"]);
    assert!(ps.contains(" interrupted "), "{ps}");

    let warned = fire(
        &repo,
        NEXT_SESSION,
        "UserPromptSubmit",
        json!({"prompt": "next"}),
    );
    assert!(warned.contains("was cut off mid-turn"), "{warned}");
    repo.write("README.md", "the next session's\n");
    fire(&repo, NEXT_SESSION, "Stop", json!({}));
    fire(
        &repo,
        NEXT_SESSION,
        "SessionEnd",
        json!({"reason": "other"}),
    );
    // Without a run, undo is about the latest session, not the one still registered here.
    let planned: Value = serde_json::from_str(&repo.ok(&["undo", "--dry-run", "--json"])).unwrap();
    assert_ne!(planned["restored"]["run_id"], run.as_str(), "{planned}");
    // undo takes back what the cut-off turn wrote, in no checkpoint.
    repo.ok(&["undo", &run]);
    assert_eq!(lib(&repo), "good\n");
}

#[test]
fn no_secret_of_a_prompt_or_a_transcript_reaches_the_metadata_branch() {
    let repo = checkout();
    let token = format!("ghp_{}", "Q7w8E9r0T1y2U3i4O5p6A7s8D9f0G1h2J3k4");
    let transcript = agent_transcript(&repo.root, "claude", "transcript.jsonl");
    std::fs::write(
        &transcript,
        format!("{{\"type\":\"user\",\"message\":{{\"content\":\"push with {token}\"}}}}\n"),
    )
    .unwrap();
    let prompt = format!("Push it with {token} to the remote");
    fire(
        &repo,
        SESSION,
        "UserPromptSubmit",
        json!({"prompt": prompt}),
    );
    repo.write("src/lib.rs", "pushed\n");
    fire(
        &repo,
        SESSION,
        "Stop",
        json!({"transcript_path": transcript}),
    );
    fire(&repo, SESSION, "SessionEnd", json!({"reason": "other"}));
    let run = session_run(&repo);
    let meta = format!("fabro/meta/{run}");
    let found = repo
        .command("git")
        .args(["grep", "-c", "ghp_", &meta])
        .output()
        .unwrap();
    assert!(
        found.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&found.stdout)
    );
    let shown = repo.ok(&["show", &run, "--file", "prompt.md"]);
    assert_eq!(shown, "Push it with REDACTED:github-token to the remote\n");
    run_ok(repo.fabro().arg("land"));
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert_eq!(
        subject.trim(),
        "Push it with REDACTED:github-token to the remote"
    );
}
