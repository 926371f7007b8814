//! `run --json` and `resume --json` of an engine run: stdout is exactly one JSON document
//! whatever the ending (succeeded, failed, blocked at a human gate, interrupted), so that
//! `git fabro run --json WF | jq .` works; what people read goes to stderr. `start --json`
//! answers the same way.

use std::process::{Output, Stdio};

use serde_json::Value;

use crate::common::{TestRepo, write_file};
use crate::engine_interrupt::{slow_workflow, wait_exit, wait_for};
use crate::engine_run::{the_only_run, workflow};

/// All of stdout, read as one JSON document (trailing text other than whitespace fails it).
fn document(stdout: &[u8]) -> Value {
    serde_json::from_slice(stdout).unwrap_or_else(|err| {
        panic!(
            "stdout is not one JSON document ({err}): {:?}",
            String::from_utf8_lossy(stdout)
        )
    })
}

fn fabro(repo: &TestRepo, args: &[&str]) -> (i32, Value, String) {
    let out: Output = repo
        .fabro()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("git-fabro runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code().unwrap_or(-1);
    assert!(
        !out.stdout.is_empty(),
        "exit {code}, nothing on stdout: {stderr}"
    );
    (code, document(&out.stdout), stderr)
}

#[test]
fn run_json_prints_one_document_whether_the_run_succeeds_or_fails() {
    for (script, code, status) in [
        ("echo to stdout; echo to stderr >&2", 0, "succeeded"),
        ("echo to stdout; exit 3", 1, "failed"),
    ] {
        let repo = TestRepo::new();
        let text = format!(
            "digraph one {{ start [shape=Mdiamond]\n exit [shape=Msquare]\n \
             step [shape=parallelogram, goal_gate=true, script=\"{script}\"]\n \
             start -> step -> exit }}"
        );
        let path = workflow(&repo, "one", &text);
        let (exited, summary, stderr) = fabro(&repo, &["run", "--json", path.to_str().unwrap()]);
        assert_eq!(exited, code, "{stderr}");
        let id = the_only_run(&repo);
        assert_eq!(summary["run_id"], id.as_str());
        assert_eq!(summary["status"], status);
        assert_eq!(
            crate::engine_run::stages(&summary),
            ["start@1 succeeded", &format!("step@1 {status}")]
        );
        assert!(summary["duration_ms"].is_u64(), "{summary}");
        assert_eq!(
            summary["failure"].is_string(),
            status == "failed",
            "{summary}"
        );
        // The id is still there for the person at the terminal.
        assert!(stderr.contains(&id), "{stderr}");
    }
}

#[test]
fn run_and_resume_json_print_one_document_at_a_human_gate() {
    let repo = TestRepo::new();
    let path = workflow(
        &repo,
        "gate",
        "digraph g { start [shape=Mdiamond]\n exit [shape=Msquare]\n \
         approve [shape=hexagon, label=\"Ship it?\"]\n \
         ship [shape=parallelogram, script=\"echo shipped\"]\n \
         start -> approve\n approve -> ship [label=\"[A] Approve\"]\n ship -> exit }",
    );
    let (code, blocked, stderr) = fabro(&repo, &["run", "--json", path.to_str().unwrap()]);
    assert_eq!(code, 4, "{stderr}");
    let id = the_only_run(&repo);
    assert_eq!(blocked["run_id"], id.as_str());
    assert_eq!(blocked["status"], "blocked");
    assert_eq!(blocked["stop"]["blocked"]["stage"], "approve", "{blocked}");
    assert!(blocked["stages"].is_array(), "{blocked}");

    let (code, resumed, stderr) = fabro(&repo, &["resume", &id, "--json", "--answer", "approve=A"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(resumed["run_id"], id.as_str());
    assert_eq!(resumed["status"], "succeeded");
    let nodes: Vec<&str> = resumed["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .map(|s| s["node_id"].as_str().unwrap())
        .collect();
    assert_eq!(nodes, ["approve", "ship"]);

    let (code, started, stderr) = fabro(&repo, &["start", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(started["run_id"].is_string(), "{started}");
}

#[test]
fn run_json_prints_one_document_when_interrupted() {
    let repo = TestRepo::new();
    let path = slow_workflow(&repo);
    let child = repo
        .fabro()
        .args(["run", "--json"])
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git-fabro runs");
    wait_for(&repo.root.join("slow.pid"));
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let mut child = child;
    assert_eq!(wait_exit(&mut child), 130);
    let out = child.wait_with_output().expect("its output");
    let paused = document(&out.stdout);
    let id = the_only_run(&repo);
    assert_eq!(paused["run_id"], id.as_str());
    assert_eq!(paused["status"], "paused");
    assert_eq!(paused["stop"]["interrupted"]["stage"], "slow@1", "{paused}");

    write_file(&repo.root.join("go-fast"), "");
    let (code, resumed, stderr) = fabro(&repo, &["resume", &id, "--json"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(resumed["status"], "succeeded");
}

#[test]
fn a_stage_that_failed_is_named_even_when_the_workflow_routed_past_it() {
    let repo = TestRepo::new();
    let text = "digraph past { start [shape=Mdiamond]\n exit [shape=Msquare]\n \
                check [shape=parallelogram, script=\"echo broken >&2; exit 1\"]\n \
                start -> check -> exit }";
    let path = workflow(&repo, "past", text);
    let path = path.to_str().unwrap();
    // Fabro's routing follows the plain edge after a failure: the run succeeds.
    let (code, summary, stderr) = fabro(&repo, &["run", "--json", path]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary["status"], "succeeded");
    assert_eq!(summary["failed_stages"], serde_json::json!(["check@1"]));
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.contains("succeeded"), "{stderr}");
    assert!(last.contains("1 stage failed: check@1"), "{stderr}");

    let repo = TestRepo::new();
    let text = "digraph fine { start [shape=Mdiamond]\n exit [shape=Msquare]\n \
                ok [shape=parallelogram, script=\"true\"]\n start -> ok -> exit }";
    let path = workflow(&repo, "fine", text);
    let (code, summary, stderr) = fabro(&repo, &["run", "--json", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary["failed_stages"], serde_json::json!([]));
    assert!(!stderr.contains("failed"), "{stderr}");
}
