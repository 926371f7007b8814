//! Output as git prints it: `diff --name-only` and `--name-status` byte for byte, the patch in
//! git's colours (`--color`, `color.ui`, `NO_COLOR`), a pager chosen and started as git starts
//! one, times in local time with their offset while JSON stays UTC, and null for absent values.

use serde_json::Value;

use crate::common::{OnTerminal, TestRepo, assert_success, run_ok};

/// A run whose two checkpoints add, delete, modify and retype files, some with names git
/// quotes, and whose patch has a function name in a hunk header and trailing blanks.
fn two_checkpoints() -> (TestRepo, String, String, String) {
    let repo = TestRepo::new();
    repo.write("gone.txt", "bye\n");
    std::fs::write(repo.path.join("blob.bin"), b"\0binary").unwrap();
    repo.write("link", "was a file\n");
    let body: String = (1..=12).map(|i| format!("    step {i}\n")).collect();
    repo.write("src/main.rs", &format!("fn main() {{\n{body}}}\n"));
    repo.commit_all("more");
    let run = repo.start();
    let first = repo.checkpoint(&run.id, "plan");
    let wt = &run.worktree;
    std::fs::remove_file(wt.join("gone.txt")).unwrap();
    std::fs::write(wt.join("blob.bin"), b"\0binary, longer").unwrap();
    std::fs::remove_file(wt.join("link")).unwrap();
    std::os::unix::fs::symlink("README.md", wt.join("link")).unwrap();
    std::fs::write(wt.join("naïve name.txt"), "quoted\n").unwrap();
    std::fs::write(wt.join("README.md"), "hello\nagain  \n").unwrap();
    let changed = body.replace("step 10", "step ten");
    std::fs::write(
        wt.join("src/main.rs"),
        format!("fn main() {{\n{changed}}}\n"),
    )
    .unwrap();
    let second = repo.checkpoint(&run.id, "code");
    (repo, run.id, first, second)
}

#[test]
fn name_only_and_name_status_match_git_byte_for_byte() {
    let (repo, id, first, second) = two_checkpoints();
    for flag in ["--name-only", "--name-status"] {
        let ours = repo.output(&["diff", &id, "@1", "@2", flag]);
        let git = repo.git_output(&repo.path, &["diff", "--no-renames", flag, &first, &second]);
        assert_success(&ours);
        assert_eq!(
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&git.stdout),
            "{flag}"
        );
    }
    let status = repo.ok(&["diff", &id, "@1", "@2", "--name-status"]);
    assert!(
        status.contains("T\tlink\n") && status.contains("D\tgone.txt\n"),
        "{status}"
    );
}

#[test]
fn the_patch_is_coloured_as_git_colours_it_and_only_when_asked_or_on_a_terminal() {
    let (repo, id, first, second) = two_checkpoints();
    let args = ["diff", id.as_str(), "@1", "@2"];
    let ours = run_ok(repo.fabro().args(args).arg("--color=always"));
    let git = repo.git(&["diff", "--no-renames", "--color=always", &first, &second]);
    assert_eq!(ours, git);
    assert!(
        ours.contains("\x1b[41m  \x1b[m"),
        "trailing blanks shown: {ours:?}"
    );
    assert!(
        !run_ok(repo.fabro().args(args)).contains('\x1b'),
        "piped: no colour"
    );
    let ours = run_ok(repo.fabro().args(args).args(["--stat", "--color=always"]));
    let git = repo.git(&[
        "diff",
        "--no-renames",
        "--stat",
        "--color=always",
        &first,
        &second,
    ]);
    assert_eq!(ours, git, "--stat in colour");

    let line = format!("diff {id} @1 @2 --no-pager");
    let on_tty = repo.on_terminal(&repo.path, &line, &[]);
    assert_eq!(on_tty.code, Some(0), "{}", on_tty.output);
    assert!(
        on_tty.output.contains("\x1b[32m+\x1b[m"),
        "{:?}",
        on_tty.output
    );
    let no_color = repo.on_terminal(&repo.path, &line, &[("NO_COLOR", "1")]);
    assert!(!no_color.output.contains('\x1b'), "{:?}", no_color.output);
    repo.git(&["config", "color.ui", "never"]);
    let never = repo.on_terminal(&repo.path, &line, &[]);
    assert!(!never.output.contains('\x1b'), "{:?}", never.output);
    let forced = repo.on_terminal(&repo.path, &format!("{line} --color"), &[]);
    assert!(forced.output.contains("\x1b[31m-"), "{:?}", forced.output);
}

/// Runs on a terminal and checks it ended with exit 0.
fn terminal(repo: &TestRepo, line: &str, env: &[(&str, &str)]) -> OnTerminal {
    let run = repo.on_terminal(&repo.path, line, env);
    assert_eq!(run.code, Some(0), "`{line}`: {}", run.output);
    run
}

#[test]
fn a_pager_runs_as_git_runs_one_only_on_a_terminal() {
    let (repo, id, _, _) = two_checkpoints();
    let log = format!("log {id}");
    // The pager sees LESS=FRX unless LESS is set, and marks every line it shows.
    let pager = "echo \"LESS=$LESS\"; sed s/^/paged:/";
    let paged = terminal(&repo, &log, &[("GIT_PAGER", pager)]);
    assert!(paged.output.contains("LESS=FRX"), "{}", paged.output);
    assert!(paged.output.contains("paged:@2"), "{}", paged.output);
    let own_less = terminal(&repo, &log, &[("GIT_PAGER", pager), ("LESS", "-S")]);
    assert!(own_less.output.contains("LESS=-S"), "{}", own_less.output);
    let unpaged = terminal(&repo, &format!("--no-pager {log}"), &[("GIT_PAGER", pager)]);
    assert!(!unpaged.output.contains("paged:"), "{}", unpaged.output);
    let piped = run_ok(repo.fabro().args(["log", &id]).env("GIT_PAGER", pager));
    assert!(!piped.contains("paged:"), "{piped}");
    // core.pager when GIT_PAGER is unset, then PAGER.
    repo.git(&["config", "core.pager", "sed s/^/core:/"]);
    let core = terminal(&repo, &log, &[("PAGER", "sed s/^/env:/")]);
    assert!(core.output.contains("core:@1"), "{}", core.output);
    repo.git(&["config", "--unset", "core.pager"]);
    let env = terminal(&repo, &log, &[("PAGER", "sed s/^/env:/")]);
    assert!(env.output.contains("env:@1"), "{}", env.output);
    let cat = terminal(&repo, &format!("diff {id} @1 @2"), &[("GIT_PAGER", "cat")]);
    assert!(cat.output.contains("diff --git"), "{}", cat.output);
}

fn wait_for_file(path: &std::path::Path) {
    let patience = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !path.exists() {
        assert!(
            std::time::Instant::now() < patience,
            "no {}",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Ctrl-C while the pager shows the text is the pager's (less stops a search with it):
/// git-fabro does not die under it, which would leave the pager fighting the shell for the
/// terminal, but waits until the person quits the pager.
#[test]
fn ctrl_c_while_paging_is_the_pagers() {
    use std::io::Write;
    let (repo, id, _, _) = two_checkpoints();
    let root = repo.root.display();
    let pager = repo.root.join("pager.sh");
    crate::common::write_file(
        &pager,
        &format!(
            "trap '' INT\ncat > {root}/paged.txt\ntouch {root}/ready\n\
             while [ ! -e {root}/quit ]; do sleep 0.05; done\necho quit > {root}/quitted\n"
        ),
    );
    let mut terminal = repo
        .fabro_on_terminal(&format!("log {id}"))
        .env("TERM", "dumb")
        .env("GIT_PAGER", format!("sh {}", pager.display()))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("util-linux `script` runs (.ci/run installs it)");
    let mut keyboard = terminal.stdin.take().expect("stdin");
    wait_for_file(&repo.root.join("ready"));
    keyboard.write_all(b"\x03").expect("typed");
    keyboard.flush().expect("typed");
    crate::common::write_file(&repo.root.join("quit"), "");
    let patience = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = terminal.try_wait().expect("wait for script") {
            break status;
        }
        if std::time::Instant::now() > patience {
            let _ = terminal.kill();
            panic!("git-fabro did not end once its pager was quit");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    drop(keyboard);
    assert_eq!(status.code(), Some(0), "git-fabro went on after Ctrl-C");
    assert!(
        repo.root.join("quitted").exists(),
        "git-fabro waited for the pager"
    );
    let paged = std::fs::read_to_string(repo.root.join("paged.txt")).unwrap_or_default();
    assert!(paged.contains("@2"), "{paged}");
}

#[test]
fn times_are_local_with_their_offset_and_json_stays_utc_with_nulls() {
    let (repo, run) = TestRepo::with_run();
    let sha = repo.checkpoint(&run.id, "plan");
    std::fs::write(run.worktree.join("README.md"), "changed\n").unwrap();
    let long = "x".repeat(80);
    run_ok(
        repo.fabro_in(&run.worktree)
            .args(["snapshot", "--reason", &long]),
    );
    let table = run_ok(
        repo.fabro()
            .args(["log", &run.id, "--all"])
            .env("TZ", "Asia/Kolkata"),
    );
    let git_time = repo
        .git_output(
            &repo.path,
            &["log", "-1", "--date=iso", "--format=%cd", &sha],
        )
        .stdout;
    let kolkata = repo
        .command("git")
        .args(["log", "-1", "--date=iso-local", "--format=%cd", &sha])
        .env("TZ", "Asia/Kolkata")
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&kolkata.stdout).trim().to_owned();
    assert!(shown.ends_with("+0530"), "{shown} (UTC: {git_time:?})");
    assert!(
        table.contains(&shown),
        "the time as git log shows it: {table}"
    );
    let cut = format!("snapshot: {}...", "x".repeat(47));
    assert!(
        table.contains(&format!("{cut}  ")) || table.contains(&cut),
        "{table}"
    );
    assert!(!table.contains(&long), "{table}");

    let entries: Vec<Value> =
        serde_json::from_str(&repo.ok(&["log", &run.id, "--all", "--json"])).unwrap();
    assert!(entries[0]["timestamp"].as_str().unwrap().ends_with('Z'));
    let snapshot = entries
        .iter()
        .find(|e| e.get("snapshot").is_some())
        .unwrap();
    assert_eq!(snapshot["snapshot"], long.as_str());
    assert!(
        snapshot["meta_commit"].is_null() && snapshot["node_id"].is_null(),
        "{snapshot}"
    );
}
