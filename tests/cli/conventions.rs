//! The conventions of a git command: -C, --json on read commands, colour only for a terminal
//! and never with NO_COLOR, --quiet, and no progress noise when piped.

use serde_json::Value;

use crate::common::{TestRepo, run_ok, write_file};

#[test]
fn every_read_command_speaks_json() {
    let repo = TestRepo::new();
    let run = repo.start();
    write_file(&run.worktree.join("a.txt"), "a\n");
    repo.checkpoint(&run.id, "a");
    for args in [
        vec!["log", run.id.as_str(), "--json"],
        vec!["ps", "--json"],
        vec!["show", run.id.as_str(), "--json"],
        vec!["diff", run.id.as_str(), "--json"],
        vec!["hooks", "status", "--json"],
        vec!["agents", "--json"],
        vec!["fork", run.id.as_str(), "--list", "--json"],
        vec!["restore", "--run", run.id.as_str(), "--dry-run", "--json"],
    ] {
        let out = repo.ok(&args);
        assert!(
            serde_json::from_str::<Value>(&out).is_ok(),
            "{args:?}: {out}"
        );
    }
    let diff: Value = serde_json::from_str(&repo.ok(&["diff", &run.id, "--json"])).unwrap();
    assert_eq!(diff["files"][0]["path"], "a.txt");
    assert!(diff["patch"].as_str().unwrap().contains("+a"));
}

#[test]
fn dash_c_runs_as_if_started_elsewhere() {
    let repo = TestRepo::new();
    let run = repo.start();
    let elsewhere = repo.root.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let runs: Vec<Value> = serde_json::from_str(&run_ok(repo.fabro_in(&elsewhere).args([
        "-C",
        repo.path.to_str().unwrap(),
        "ps",
        "--json",
    ])))
    .unwrap();
    assert_eq!(runs[0]["run_id"], run.id.as_str());
    run_ok(repo.fabro_in(&elsewhere).args([
        "-C",
        run.worktree.to_str().unwrap(),
        "checkpoint",
        "--node",
        "n",
    ]));
    assert_eq!(repo.log_json(&run.id).len(), 1);
}

#[test]
fn quiet_silences_messages_but_not_data() {
    let repo = TestRepo::new();
    // A global option counts before the command and after it.
    for args in [["--quiet", "start"], ["start", "--quiet"]] {
        let out = repo.fabro().args(args).output().unwrap();
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim().len(), 26);
    }
    let loud = repo.fabro().args(["start"]).output().unwrap();
    assert!(String::from_utf8_lossy(&loud.stderr).contains("started run"));
}

#[test]
fn global_options_and_values_named_like_commands_parse_as_meant() {
    let repo = TestRepo::new();
    repo.start();
    // After a command's own command.
    let hooks: Value =
        serde_json::from_str(&repo.ok(&["hooks", "status", "-q", "--json"])).unwrap();
    assert!(hooks.is_array() || hooks.is_object(), "{hooks}");
    // A value that is also a command's name (a directory called `log`) leaves the command as
    // it is.
    std::fs::create_dir(repo.path.join("log")).unwrap();
    let runs: Value = serde_json::from_str(&repo.ok(&["-C", "log", "ps", "--json"])).unwrap();
    assert_eq!(runs.as_array().map(Vec::len), Some(1), "{runs}");
}

#[test]
fn piped_output_has_no_colour_or_progress() {
    let repo = TestRepo::new();
    let run = repo.start();
    repo.checkpoint(&run.id, "a");
    for args in [vec!["log", run.id.as_str()], vec!["ps"], vec!["start"]] {
        let out = repo.fabro().args(&args).output().unwrap();
        let all = [out.stdout, out.stderr].concat();
        assert!(
            !all.contains(&0x1b) && !all.contains(&b'\r'),
            "{args:?}: {}",
            String::from_utf8_lossy(&all)
        );
    }
}
