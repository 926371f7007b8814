//! Retries, `loop_restart` edges and the loop breaker, as Fabro runs them: a timed-out script
//! is tried again with Fabro's backoff while a non-zero exit never is; a restart starts over at
//! its edge's target with a fresh context and is refused after a deterministic failure; the
//! same deterministic failure three times ends the run.

use std::path::Path;

use serde_json::Value;

use crate::common::failpoints::die_at;
use crate::common::workflow::{between, command};
use crate::common::{TestRepo, assert_success};
pub use crate::engine_run::{Ran, run_json, workflow};
use crate::engine_run::{run_dir, summary};
use crate::format_contract::assert_fabro_shapes;

/// The events of `progress.jsonl` named `name`, in order.
pub fn events(repo: &TestRepo, id: &str, name: &str) -> Vec<Value> {
    let text =
        std::fs::read_to_string(run_dir(repo, id).join("progress.jsonl")).expect("progress.jsonl");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .filter(|e| e["event"] == name)
        .collect()
}

/// `git fabro run WORKFLOW --json`.
pub fn run(repo: &TestRepo, path: &Path) -> Ran {
    crate::engine_run::run(repo, path, &["--json"])
}

/// `node@visit status` of each stage in the `--json` summary.
pub fn stages(ran: &Ran) -> Vec<String> {
    crate::engine_run::stages(&summary(ran))
}

/// A script that appends a line to `counter` (outside the worktree) and prints how many
/// lines it now holds.
fn counting(counter: &Path) -> String {
    let counter = counter.display();
    format!("echo x >> {counter}; n=$(wc -l < {counter}); n=$((n)); ")
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

#[test]
fn a_timed_out_script_is_retried_and_its_retry_recorded() {
    let repo = TestRepo::new();
    let counter = repo.root.join("flaky.count");
    let script = format!(
        "{}if [ $n -lt 2 ]; then sleep 5; fi; echo attempt $n > attempt.txt",
        counting(&counter)
    );
    let text = format!(
        r#"digraph retry {{
  start [shape=Mdiamond]
  exit [shape=Msquare]
  flaky [shape=parallelogram, timeout=300ms, retry_policy="linear", script="{script}"]
  start -> flaky -> exit
}}"#
    );
    let ran = run(&repo, &workflow(&repo, "retry", &text));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(lines(&counter), 2);
    assert_eq!(stages(&ran), ["start@1 succeeded", "flaky@1 succeeded"]);
    let id = &ran.id;
    let attempt = repo.git(&["show", &format!("fabro/run/{id}:attempt.txt")]);
    assert_eq!(attempt, "attempt 2\n");

    let checkpoint = &run_json(&repo, id)["checkpoint"];
    assert_eq!(checkpoint["node_retries"]["flaky"], 1);
    assert_eq!(
        checkpoint["context_values"]["internal.retry_count.flaky"],
        1
    );
    assert_eq!(
        checkpoint["completed_nodes"],
        serde_json::json!(["start", "flaky"])
    );

    let started: Vec<(u64, u64)> = events(&repo, id, "stage.started")
        .iter()
        .filter(|e| e["node_id"] == "flaky")
        .map(|e| {
            let p = &e["properties"];
            (
                p["attempt"].as_u64().unwrap(),
                p["max_attempts"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(started, [(1, 3), (2, 3)]);
    let failed = events(&repo, id, "stage.failed");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["properties"]["will_retry"], true);
    assert_eq!(
        failed[0]["properties"]["failure"]["failure_class"],
        "transient_infra"
    );
    let retrying = events(&repo, id, "stage.retrying");
    assert_eq!(retrying.len(), 1);
    let props = &retrying[0]["properties"];
    assert_eq!(
        (props["attempt"].as_u64(), props["max_attempts"].as_u64()),
        (Some(1), Some(3))
    );
    // linear: 500 ms with Fabro's jitter of ×[0.5, 1.5).
    let delay = props["delay_ms"].as_u64().unwrap();
    assert!((250..750).contains(&delay), "{delay}");
    let completed = events(&repo, id, "stage.completed");
    let flaky = completed.iter().find(|e| e["node_id"] == "flaky").unwrap();
    assert_eq!(flaky["properties"]["attempt"], 2);
    repo.git(&["fsck", "--strict"]);
    assert_fabro_shapes(&repo);
}

#[test]
fn a_non_zero_exit_is_never_retried_and_attempts_run_out() {
    let repo = TestRepo::new();
    let failing = repo.root.join("failing.count");
    let slow = repo.root.join("slow.count");
    let text = format!(
        r#"digraph no_retry {{
  default_max_retries=4
  start [shape=Mdiamond]
  exit [shape=Msquare]
  failing [shape=parallelogram, max_retries=3, script="{}exit 1"]
  slow [shape=parallelogram, timeout=200ms, retry_policy="linear", max_retries=1, script="{}sleep 5"]
  start -> failing -> slow -> exit
}}"#,
        counting(&failing),
        counting(&slow)
    );
    let ran = run(&repo, &workflow(&repo, "no_retry", &text));
    // Failed nodes follow their plain edges, as in Fabro; nothing fails the run.
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(lines(&failing), 1, "a non-zero exit is not retried");
    assert_eq!(
        lines(&slow),
        3,
        "linear: three attempts, max_retries ignored"
    );
    assert_eq!(
        stages(&ran),
        ["start@1 succeeded", "failing@1 failed", "slow@1 failed"]
    );
    let checkpoint = &run_json(&repo, &ran.id)["checkpoint"];
    assert_eq!(checkpoint["node_retries"], serde_json::json!({ "slow": 2 }));
    assert_eq!(
        checkpoint["node_outcomes"]["slow"]["failure"]["failure_class"],
        "transient_infra"
    );
    let retried: Vec<Value> = events(&repo, &ran.id, "stage.retrying")
        .iter()
        .map(|e| e["properties"]["attempt"].clone())
        .collect();
    assert_eq!(retried, [1, 2]);
    let last = events(&repo, &ran.id, "stage.failed")
        .into_iter()
        .rfind(|e| e["node_id"] == "slow")
        .unwrap();
    assert_eq!(last["properties"]["attempt"], 3);
    assert!(last["properties"].get("will_retry").is_none());
}

/// A workflow whose `work` node runs `script` and restarts from `work` until it has run twice
/// (as `counter` counts).
fn restarting(repo: &TestRepo, counter: &Path, script: &str) -> std::path::PathBuf {
    let work = command(
        "work",
        &format!(
            "{}{script}if [ $n -lt 2 ]; then echo again; else echo done; fi",
            counting(counter)
        ),
    );
    let text = &between(
        "restart",
        &format!(
            r#"{work}
  gate [shape=diamond]
  start -> work -> gate
  gate -> work [condition="context.command.output contains again", loop_restart=true]
  gate -> exit"#
        ),
    );
    workflow(repo, "restart", text)
}

#[test]
fn a_loop_restart_edge_starts_over_at_its_target_with_a_fresh_context() {
    let repo = TestRepo::new();
    let counter = repo.root.join("work.count");
    let path = restarting(&repo, &counter, "echo pass $n >> passes.txt; ");
    let ran = run(&repo, &path);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        stages(&ran),
        [
            "start@1 succeeded",
            "work@1 succeeded",
            "gate@1 succeeded",
            "work@2 succeeded",
            "gate@2 succeeded"
        ]
    );
    let id = &ran.id;
    let restarts = events(&repo, id, "loop.restart");
    assert_eq!(restarts.len(), 1);
    assert_eq!(restarts[0]["properties"]["from_node"], "gate");
    assert_eq!(restarts[0]["properties"]["to_node"], "work");

    // Completed nodes and outcomes start over; visits go on; the work done stays.
    let checkpoint = &run_json(&repo, id)["checkpoint"];
    assert_eq!(
        checkpoint["completed_nodes"],
        serde_json::json!(["work", "gate"])
    );
    assert_eq!(checkpoint["node_visits"]["work"], 2);
    assert!(checkpoint["node_outcomes"].get("start").is_none());
    let context = &checkpoint["context_values"];
    assert_eq!(context["command.output"], "done\n");
    assert_eq!(context["internal.run_id"], id.as_str());
    assert!(
        context.get("internal.retry_count.start").is_none(),
        "{context}"
    );
    let passes = repo.git(&["show", &format!("fabro/run/{id}:passes.txt")]);
    assert_eq!(passes, "pass 1\npass 2\n");
    repo.git(&["fsck", "--strict"]);
    assert_fabro_shapes(&repo);
}

#[test]
fn a_run_killed_right_after_choosing_a_loop_restart_resumes_with_the_fresh_start() {
    let repo = TestRepo::new();
    let counter = repo.root.join("work.count");
    let path = restarting(&repo, &counter, "");
    die_at(
        repo.fabro().arg("run").arg(&path),
        "engine:checkpointed:gate@1",
    );
    let ids = repo.runs_with_metadata();
    let id = ids.trim();
    assert_eq!(run_json(&repo, id)["checkpoint"]["next_node_id"], "work");
    let out = repo.output(&["resume", id]);
    assert_success(&out);
    assert_eq!(lines(&counter), 2);
    let checkpoint = &run_json(&repo, id)["checkpoint"];
    assert_eq!(
        checkpoint["completed_nodes"],
        serde_json::json!(["work", "gate"])
    );
    assert_eq!(checkpoint["node_visits"]["gate"], 2);
    assert!(checkpoint["node_outcomes"].get("start").is_none());
}

#[test]
fn a_loop_restart_after_a_deterministic_failure_is_blocked() {
    let repo = TestRepo::new();
    let text = &between(
        "blocked",
        r#"setup [shape=parallelogram, script="echo ready"]
  work [shape=parallelogram, script="echo broken; exit 3"]
  start -> setup -> work
  work -> setup [condition="outcome=failed", loop_restart=true]
  work -> exit"#,
    );
    let ran = run(&repo, &workflow(&repo, "blocked", text));
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(
            "loop_restart blocked: failure_class=deterministic (requires transient_infra), \
             failure_reason=Script failed with exit code: 3"
        ),
        "{}",
        ran.stderr
    );
    assert!(events(&repo, &ran.id, "loop.restart").is_empty());
    let record = run_json(&repo, &ran.id);
    assert_eq!(record["status"]["kind"], "failed");
    // The blocked node is not recorded, as in Fabro.
    assert_eq!(
        record["checkpoint"]["completed_nodes"],
        serde_json::json!(["start", "setup"])
    );
}

#[test]
fn the_same_deterministic_failure_three_times_stops_the_run() {
    let repo = TestRepo::new();
    let counter = repo.root.join("test.count");
    let text = format!(
        r#"digraph breaker {{
  start [shape=Mdiamond]
  exit [shape=Msquare]
  test [shape=parallelogram, script="{}echo failing run $n; exit 1"]
  fix [shape=parallelogram, script="echo fixing"]
  start -> test
  test -> fix [condition="outcome=failed"]
  test -> exit
  fix -> test
}}"#,
        counting(&counter)
    );
    let ran = run(&repo, &workflow(&repo, "breaker", &text));
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(lines(&counter), 3);
    assert!(
        ran.stderr.contains(
            "deterministic failure cycle detected: signature \
             test|deterministic|script failed with exit code: <n>"
        ),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("repeated 3 times (limit 3)"),
        "{}",
        ran.stderr
    );
    let checkpoint = &run_json(&repo, &ran.id)["checkpoint"];
    assert_eq!(
        checkpoint["completed_nodes"],
        serde_json::json!(["start", "test", "fix", "test", "fix"])
    );
    let counts = checkpoint["loop_failure_signatures"].as_object().unwrap();
    assert_eq!(counts.len(), 1);
    assert_eq!(counts.values().next().unwrap(), 2);
}
