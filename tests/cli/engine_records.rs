//! What the engine leaves besides the checkpoints: Fabro's per-stage summaries in
//! `conclusion.json`, each node's `diff.patch` (the same diff `git diff` shows between its run
//! commit and the one before), Fabro's event names in Fabro's order, progress on a terminal
//! and in a pipe; `resume --workflow` under a changed workflow; and random SIGKILLs of the
//! engine, after which `resume` completes the workflow with the timeline of an uninterrupted
//! run.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::failpoints::Tally;
use crate::common::{TestRepo, assert_success, read_file, rerun, run_ok};
use crate::engine_run::{
    assert_counted_pipeline_finished, counted, counted_pipeline_killed_at, meta_file, run, run_dir,
    run_json, the_only_run, workflow,
};
use crate::torture::{Lcg, assert_consistent};

const TWO_CHANGES: &str = r#"digraph two {
  start [shape=Mdiamond, label="Begin"]
  exit [shape=Msquare]
  make [shape=parallelogram, label="Make a file", script="printf 'one\n' > made.txt"]
  grow [shape=parallelogram, script="printf 'two\n' >> made.txt"]
  look [shape=parallelogram, script="cat made.txt"]
  start -> make -> grow -> look -> exit
}"#;

#[test]
fn the_conclusion_summarises_each_stage_as_fabro_does() {
    let repo = TestRepo::new();
    let path = workflow(&repo, "two", TWO_CHANGES);
    let ran = run(&repo, &path, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let conclusion: Value =
        serde_json::from_str(&read_file(run_dir(&repo, &ran.id).join("conclusion.json"))).unwrap();
    let rows: Vec<(String, String, u64)> = conclusion["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .map(|s| {
            (
                s["stage_id"].as_str().unwrap().to_owned(),
                s["stage_label"].as_str().unwrap().to_owned(),
                s["retries"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("start", "Begin"),
        ("make", "Make a file"),
        ("grow", "grow"),
        ("look", "look"),
    ];
    assert_eq!(
        rows,
        expected
            .iter()
            .map(|(id, label)| (id.to_string(), label.to_string(), 0))
            .collect::<Vec<_>>()
    );
    assert_eq!(conclusion["total_retries"], 0);
    assert_eq!(
        run_json(&repo, &ran.id)["conclusion"]["stages"],
        conclusion["stages"]
    );
}

#[test]
fn each_node_that_changed_the_work_records_the_diff_git_shows() {
    let repo = TestRepo::new();
    let path = workflow(&repo, "two", TWO_CHANGES);
    let ran = run(&repo, &path, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let branch = format!("fabro/run/{}", ran.id);
    // make is the run's second completed node, grow its third (Fabro counts the start node).
    for (stage, commit) in [
        ("002-make@1", format!("{branch}~2")),
        ("003-grow@1", format!("{branch}~1")),
    ] {
        let recorded = meta_file(&repo, &ran.id, &format!("stages/{stage}/diff.patch"));
        let git = repo.git(&["diff", &format!("{commit}~1"), &commit]);
        assert_eq!(recorded, git, "{stage}");
        let local = read_file(
            run_dir(&repo, &ran.id)
                .join(format!("nodes/{}/diff.patch", &stage[4..stage.len() - 2])),
        );
        assert_eq!(local, git, "{stage} in the run directory");
    }
    // look changed nothing: no patch, and status.json does not list one.
    let status = meta_file(&repo, &ran.id, "stages/004-look@1/status.json");
    assert!(!status.contains("diff.patch"), "{status}");
    let tree = repo.git(&[
        "ls-tree",
        "--name-only",
        &format!("fabro/meta/{}:stages/004-look@1", ran.id),
    ]);
    assert!(!tree.contains("diff.patch"), "{tree}");
}

#[test]
fn events_come_in_fabros_order() {
    let repo = TestRepo::new();
    let path = workflow(&repo, "two", TWO_CHANGES);
    let ran = run(&repo, &path, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let log = read_file(run_dir(&repo, &ran.id).join("progress.jsonl"));
    let events: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(names.first(), Some(&"run.started"));
    assert_eq!(names.last(), Some(&"run.completed"));
    let for_make: Vec<&str> = events
        .iter()
        .filter(|e| e["node_id"] == "make" || e["stage_id"] == "make@1")
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        for_make,
        [
            "stage.started",
            "command.started",
            "command.completed",
            "stage.completed",
            "edge.selected",
            "checkpoint.completed",
            "git.commit"
        ]
    );
}

#[test]
fn a_failed_run_ends_its_events_with_run_failed() {
    let repo = TestRepo::new();
    let path = workflow(
        &repo,
        "fails",
        "digraph f { start [shape=Mdiamond]\n exit [shape=Msquare]\n bad [shape=parallelogram, goal_gate=true, script=\"exit 3\"]\n start -> bad -> exit }",
    );
    let ran = run(&repo, &path, &[]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let log = read_file(run_dir(&repo, &ran.id).join("progress.jsonl"));
    let last: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "run.failed");
}

#[test]
fn progress_draws_a_spinner_on_a_terminal_and_stamps_lines_in_a_pipe() {
    let repo = TestRepo::new();
    let path = workflow(
        &repo,
        "slow",
        "digraph s { start [shape=Mdiamond]\n exit [shape=Msquare]\n slow [shape=parallelogram, goal_gate=true, script=\"sleep 0.5; exit 2\"]\n start -> slow -> exit }",
    );
    let shown = repo.on_terminal(&repo.path, &format!("run {}", path.display()), &[]);
    assert_eq!(shown.code, Some(1), "{}", shown.output);
    // While it ran: the spinner with the time so far; then the stage's line with its mark.
    assert!(shown.output.contains(" slow@1  0."), "{}", shown.output);
    assert!(shown.output.contains("slow@1  failed"), "{}", shown.output);
    assert!(shown.output.contains("(exit 2)"), "{}", shown.output);
    assert!(shown.output.contains('✗'), "{}", shown.output);

    let piped = run(&repo, &path, &[]);
    assert_eq!(piped.code, 1);
    // The stage's two lines; the run's last line names the failed stage too.
    let lines: Vec<&str> = piped
        .stderr
        .lines()
        .filter(|l| l.contains("slow@1") && !l.starts_with("error:"))
        .collect();
    assert_eq!(lines.len(), 2, "{}", piped.stderr);
    for line in &lines {
        let stamp = line.split(' ').next().unwrap();
        assert!(
            stamp.len() == 8 && stamp.as_bytes()[2] == b':' && stamp.as_bytes()[5] == b':',
            "{line}"
        );
    }
    assert!(lines[0].ends_with("slow@1 started"), "{}", lines[0]);
    assert!(
        lines[1].contains("slow@1  failed") && lines[1].ends_with("(exit 2)"),
        "{}",
        lines[1]
    );
    assert!(!piped.stderr.contains('\x1b'), "{}", piped.stderr);
    assert!(!piped.stderr.contains('\r'), "{}", piped.stderr);
}

#[test]
fn resume_continues_under_a_changed_workflow_only_with_force() {
    let repo = TestRepo::new();
    let (path, log, id) = counted_pipeline_killed_at(&repo, "engine:checkpointed:a@1");
    let original = read_file(&path);
    let changed = workflow(
        &repo,
        "changed",
        &original.replace(
            &counted(&log, "c"),
            &counted(&log, "c2").replace("c2 [", "c ["),
        ),
    );
    let out = repo
        .fabro()
        .args(["resume", &id, "--workflow"])
        .arg(&changed)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(read_file(&log), "a\n", "nothing ran");

    let out = repo
        .fabro()
        .args(["resume", &id, "--force", "--workflow"])
        .arg(&changed)
        .output()
        .unwrap();
    assert_success(&out);
    assert_eq!(read_file(&log), "a\nb\nc2\n");
    assert_eq!(run_json(&repo, &id)["status"]["kind"], "succeeded");
}

/// Kills `git fabro run` with SIGKILL at pseudo-random moments (a fixed seed), then resumes.
/// Every trial ends with the timeline of an uninterrupted run; a node runs twice only when it
/// was the one running at the kill (the log shows it twice in a row), never one whose
/// checkpoint was recorded.
#[test]
fn killed_engine_runs_are_completed_by_resume_with_the_uninterrupted_timeline() {
    let mut rng = Lcg(0x5eed_e261);
    let mut tally = Tally::default();
    let trials = crate::torture::trials() / 5;
    let mut resumed = 0;
    for trial in 0..trials.max(4) {
        let repo = TestRepo::new();
        let (path, log) = slow_pipeline(&repo);
        let (exited_ok, landed) =
            tally.kill_after(&repo, repo.fabro().arg("run").arg(&path), rng.next(600_000));
        let context = format!("trial {trial} ({landed})");
        // A kill inside the worktree's checkout may leave a registration git trips over until
        // the next start or resume (or `fsck --repair`) removes it; nothing else.
        assert_only_repairable(&repo, &context);
        let metas = repo.git(&["for-each-ref", "refs/heads/fabro/meta/"]);
        if metas.trim().is_empty() {
            assert!(!exited_ok, "{context}");
            run_ok(repo.fabro().args(["fsck", "--repair"]));
            assert_consistent(&repo, &context);
            continue; // killed before the run existed: nothing to resume
        }
        let id = the_only_run(&repo);
        if run_json(&repo, &id)["status"]["kind"] != "succeeded" {
            rerun(&repo, &["resume", &id]);
            resumed += 1;
        }
        assert_counted_pipeline_finished(&repo, &id, &context);
        let ran = std::fs::read_to_string(&log).unwrap_or_default();
        assert_ran_each_once_but_the_interrupted(&ran, &context);
        assert_consistent(&repo, &format!("{context}, resumed"));
    }
    tally.report("killed engine runs");
    assert!(resumed > 0, "no kill landed inside a run");
}

/// a, b and c, each logging its start and taking 100 ms, so that kills land inside nodes too.
fn slow_pipeline(repo: &TestRepo) -> (std::path::PathBuf, std::path::PathBuf) {
    let log = repo.root.join("ran.log");
    let node = |n: &str| {
        format!(
            r#"{n} [shape=parallelogram, script="echo {n} >> {}; sleep 0.1; echo {n} > {n}.txt"]"#,
            log.display()
        )
    };
    let text = format!(
        "digraph slow {{\n start [shape=Mdiamond]\n exit [shape=Msquare]\n {}\n {}\n {}\n start -> a -> b -> c -> exit\n}}",
        node("a"),
        node("b"),
        node("c")
    );
    (workflow(repo, "slow", &text), log)
}

fn assert_only_repairable(repo: &TestRepo, context: &str) {
    let out = repo.output(&["fsck", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for problem in report["problems"].as_array().unwrap() {
        assert_eq!(problem["repairable"], true, "{context}: {problem}");
    }
}

/// `a b c` in order, with at most one node repeated, right after itself.
fn assert_ran_each_once_but_the_interrupted(ran: &str, context: &str) {
    let nodes: Vec<&str> = ran.lines().collect();
    let mut distinct = nodes.clone();
    distinct.dedup();
    assert_eq!(distinct, ["a", "b", "c"], "{context}: {ran:?}");
    let counts = nodes.iter().fold(BTreeMap::new(), |mut m, n| {
        *m.entry(*n).or_insert(0) += 1;
        m
    });
    let repeated = counts.values().filter(|&&n| n > 1).count();
    assert!(
        repeated <= 1 && counts.values().all(|&n| n <= 2),
        "{context}: {ran:?}"
    );
}
