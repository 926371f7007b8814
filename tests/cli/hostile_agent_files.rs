//! Files that an agent's hook input or `checkpoint --attach` names, which a checkpoint stores
//! on the metadata branch that `push` shares. A turn hook's `transcript_path` is read only
//! when it is a regular file of the user's in the agent's transcript folder
//! (`~/.claude/projects/` for Claude Code): `/proc/self/environ` (git-fabro's environment), a
//! link out of the folder, a file elsewhere in the home and a FIFO are left out with a
//! warning, and the turn is checkpointed without them. `--attach` refuses what is in or leads
//! into `/proc`, `/sys` or `/dev` (exit 2), writing nothing.

use std::os::unix::fs::symlink;
use std::path::Path;

use serde_json::json;

use crate::agent_hooks::run_hook;
use crate::common::{Started, TestRepo, agent_transcript, run_err, run_ok, write_file};

/// A value only git-fabro's environment holds, to look for on the metadata branch.
const PLANTED: &str = "planted-environment-value-7f3a";

/// Ends a Claude Code turn in `run` whose input names `transcript`; returns the hook's stderr.
fn end_turn(repo: &TestRepo, run: &Started, transcript: &Path) -> String {
    let stop = json!({
        "session_id": "5e0b7c2a-hostile",
        "transcript_path": transcript,
        "cwd": run.worktree,
        "hook_event_name": "Stop",
        "stop_hook_active": false
    });
    let command = format!("FABRO_PLANTED={PLANTED} git fabro hooks run agent-turn claude");
    let out = run_hook(repo, &run.worktree, &command, &stop);
    assert!(out.status.success(), "a hook never stops the agent");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The stage folders of the metadata branch that hold a transcript.
fn stored_transcripts(repo: &TestRepo, run: &Started) -> Vec<String> {
    let meta = format!("fabro/meta/{}", run.id);
    repo.files_in(&meta)
        .lines()
        .filter(|p| p.contains("/transcript"))
        .map(ToOwned::to_owned)
        .collect()
}

fn assert_not_planted(repo: &TestRepo, run: &Started) {
    let meta = format!("fabro/meta/{}", run.id);
    let found = repo.git_output(&repo.path, &["grep", "-l", PLANTED, &meta, "--"]);
    assert!(
        found.stdout.is_empty(),
        "the environment reached the metadata branch: {}",
        String::from_utf8_lossy(&found.stdout)
    );
}

#[test]
fn a_transcript_path_outside_the_agents_folder_is_not_read() {
    let (repo, run) = TestRepo::with_run();
    run_ok(
        repo.fabro_in(&run.worktree)
            .args(["hooks", "install", "--claude"]),
    );
    let secret = repo.write_beside("secret.txt", "not a transcript\n");
    let to_environ = agent_transcript(&repo.root, "claude", "environ.jsonl");
    symlink("/proc/self/environ", &to_environ).unwrap();
    let to_secret = agent_transcript(&repo.root, "claude", "secret.jsonl");
    symlink(&secret, &to_secret).unwrap();
    let fifo = agent_transcript(&repo.root, "claude", "fifo.jsonl");
    let made = repo.command("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let hostile = [
        Path::new("/proc/self/environ"),
        &to_environ,
        &to_secret,
        &secret,
        &fifo,
    ];
    for (turn, path) in hostile.iter().enumerate() {
        write_file(&run.worktree.join("turn.txt"), &turn.to_string());
        let stderr = end_turn(&repo, &run, path);
        assert!(
            stderr.contains("checkpointed without the transcript"),
            "{}: {stderr}",
            path.display()
        );
        assert_eq!(stored_transcripts(&repo, &run), Vec::<String>::new());
    }
    assert_not_planted(&repo, &run);
    // The agent's own transcript is still attached.
    let own = agent_transcript(&repo.root, "claude", "own.jsonl");
    write_file(&own, "{\"type\":\"user\"}\n");
    write_file(&run.worktree.join("turn.txt"), "last");
    end_turn(&repo, &run, &own);
    let stored = stored_transcripts(&repo, &run);
    assert_eq!(stored.len(), 1, "{stored:?}");
}

#[test]
fn checkpoint_attach_refuses_the_kernels_files_and_devices() {
    let (repo, run) = TestRepo::with_run();
    let link = repo.root.join("innocent.txt");
    symlink("/proc/self/environ", &link).unwrap();
    let meta = format!("refs/heads/fabro/meta/{}", run.id);
    let before = repo.git(&["rev-parse", &meta]);
    for path in [
        "/proc/self/environ".to_owned(),
        link.display().to_string(),
        "/proc/self/root/proc/self/environ".to_owned(),
        "/dev/null".to_owned(),
    ] {
        let (code, stderr) = run_err(
            repo.fabro_in(&run.worktree)
                .args(["checkpoint", "--node", "n", "--attach"])
                .arg(format!("env={path}"))
                .env("FABRO_PLANTED", PLANTED),
        );
        assert_eq!(code, 2, "{path}: {stderr}");
        assert!(stderr.contains("--attach env"), "{path}: {stderr}");
    }
    assert_eq!(repo.git(&["rev-parse", &meta]), before, "nothing written");
}
