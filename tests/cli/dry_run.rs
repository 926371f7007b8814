//! `git fabro run --dry-run`: Fabro's simulation. The paths of Fabro's own examples are those
//! of Fabro's snapshot tests (fabro-cli/tests/it/workflow/dry_run_examples.rs), every valid
//! workflow in Fabro's repository runs to its end, and nothing is written anywhere.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{TestRepo, run_err, run_ok, tree_digest};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fabro-workflows")
}

/// The stages of a successful dry run, as `node@visit` (all succeeded).
fn path_of(repo: &TestRepo, workflow: &Path) -> Vec<String> {
    let out = run_ok(
        repo.fabro()
            .args(["run", "--dry-run", "--auto-approve"])
            .arg(workflow),
    );
    out.lines()
        .map(|l| {
            let (stage, status) = l.split_once(' ').expect("node@visit status");
            assert_eq!(status, "succeeded", "{l}");
            stage.to_string()
        })
        .collect()
}

#[test]
fn dry_run_takes_the_paths_fabro_takes() {
    let repo = TestRepo::new();
    let cases: [(&str, &[&str]); 5] = [
        (
            "branching",
            &["start", "plan", "implement", "validate", "gate", "exit"],
        ),
        // `context.mode` is unset, so Decide goes to Path B.
        ("conditions", &["start", "decide", "path_b", "exit"]),
        // Branch nodes run inside the parallel node and are not stages.
        ("parallel", &["start", "fork", "merge", "review", "exit"]),
        (
            "styled",
            &["start", "plan", "implement", "critical_review", "exit"],
        ),
        ("legacy_tool", &["start", "echo_task", "exit"]),
    ];
    for (name, nodes) in cases {
        let path = path_of(&repo, &corpus().join(format!("test/{name}.fabro")));
        let expected: Vec<String> = nodes.iter().map(|n| format!("{n}@1")).collect();
        assert_eq!(path, expected, "{name}");
    }
}

#[test]
fn dry_run_counts_visits_around_a_loop() {
    let repo = TestRepo::new();
    // The gate leaves when `internal.node_visit_count >= 5`, the gate's own visit count.
    let path = path_of(
        &repo,
        &corpus().join("test/docs/tutorials/branch-loop/fixed-loop.fabro"),
    );
    let mut expected = vec!["start@1".to_string()];
    for visit in 1..=5 {
        expected.push(format!("improve@{visit}"));
        expected.push(format!("gate@{visit}"));
    }
    expected.push("exit@1".into());
    assert_eq!(path, expected);
}

#[test]
fn dry_run_takes_the_first_choice_of_a_human_gate() {
    let repo = TestRepo::new();
    let flow = corpus().join("lib/crates/fabro-cli/tests/it/workflow/fixtures/human_gate.fabro");
    let path = path_of(&repo, &flow);
    assert!(path.contains(&"ship@1".to_string()), "{path:?}");
    assert!(!path.iter().any(|s| s.starts_with("revise@")), "{path:?}");
}

fn workflows(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("corpus").flatten() {
        let path = entry.path();
        if path.is_dir() {
            workflows(&path, out);
        } else if path.extension().is_some_and(|e| e == "fabro" || e == "dot") {
            out.push(path);
        }
    }
}

/// Every workflow of Fabro's repository: the invalid ones are refused with exit 2 before
/// anything runs, and every valid one runs to its end. Lists the exceptions and why.
#[test]
fn dry_run_completes_every_valid_workflow_of_fabros_repository() {
    // Invalid for Fabro too: `all_conditional_edges` errors, a deliberately invalid fixture,
    // and an `@prompts/simplify.md` that is not beside the workflow in Fabro's repository.
    let invalid_for_fabro = [
        "test/invalid.fabro",
        "test/attractor/consensus_task.dot",
        "test/attractor/green_test_complex.dot",
        "test/attractor/green_test_moderate.dot",
        "test/attractor/green_test_vague.dot",
        "test/attractor/refactor_test_complex.dot",
        "test/attractor/refactor_test_moderate.dot",
        "test/attractor/refactor_test_vague.dot",
        "test/attractor/semport.dot",
        ".fabro/workflows/implement-plan/workflow.fabro",
    ];
    // Ends failed, as in Fabro: its fidelity gate waits for `context.all_acs_pass`, which only
    // an agent sets, so the simulated loop reaches the visit limit.
    let fails_by_design = ["test/docs/examples/clone-substack/clone-substack.fabro"];

    let repo = TestRepo::new();
    let mut files = Vec::new();
    workflows(&corpus(), &mut files);
    files.sort();
    assert_eq!(files.len(), 88);
    let mut succeeded = 0;
    for file in &files {
        let rel = file
            .strip_prefix(corpus())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let out = repo
            .fabro()
            .args(["run", "--dry-run", "--auto-approve", "--json"])
            .arg(file)
            .output()
            .expect("runs");
        let code = out.status.code();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if invalid_for_fabro.contains(&rel.as_str()) {
            assert_eq!(code, Some(2), "{rel} should be refused: {stderr}");
            assert!(stderr.contains("error"), "{rel}: {stderr}");
            continue;
        }
        let result: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{rel}: {e}: {stderr}"));
        let stages = result["stages"].as_array().expect("stages");
        if fails_by_design.contains(&rel.as_str()) {
            assert_eq!(
                (code, &result["status"]),
                (Some(1), &Value::from("failed")),
                "{rel}"
            );
            assert!(
                result["failure"]
                    .as_str()
                    .unwrap()
                    .contains("visited 10 times"),
                "{rel}"
            );
            continue;
        }
        assert_eq!(code, Some(0), "{rel}: {stderr}");
        assert_eq!(result["status"], "succeeded", "{rel}");
        let last = stages.last().expect("at least the exit");
        assert_eq!(last["status"], "succeeded", "{rel}");
        succeeded += 1;
    }
    assert_eq!(succeeded, 88 - 10 - 1);
}

#[test]
fn dry_run_writes_nothing() {
    let repo = TestRepo::new();
    let before = (repo.git(&["for-each-ref"]), tree_digest(&repo.path));
    run_ok(
        repo.fabro()
            .args(["run", "--dry-run"])
            .arg(corpus().join("test/branching.fabro")),
    );
    assert_eq!(
        (repo.git(&["for-each-ref"]), tree_digest(&repo.path)),
        before
    );
    assert!(!repo.home.exists(), "the fabro home was created");
}

#[test]
fn dry_run_json_lists_the_stages() {
    let repo = TestRepo::new();
    let out = run_ok(
        repo.fabro()
            .args(["run", "--dry-run", "--json", "--goal", "other"])
            .arg(corpus().join("test/legacy_tool.fabro")),
    );
    let result: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(result["status"], "succeeded");
    assert_eq!(
        result["stages"][1],
        serde_json::json!({"node_id": "echo_task", "visit": 1, "status": "succeeded"})
    );
    assert!(result.get("failure").is_none());
}

#[test]
fn run_without_an_agent_command_refuses_agent_nodes_and_points_to_the_dry_run() {
    let repo = TestRepo::new();
    let (code, stderr) = run_err(
        repo.fabro()
            .args(["run"])
            .arg(corpus().join("test/branching.fabro")),
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("agent or prompt nodes (plan, ") && stderr.contains("--dry-run"),
        "{stderr}"
    );
}

#[test]
fn dry_run_refuses_an_invalid_workflow_with_its_errors() {
    let repo = TestRepo::new();
    let (code, stderr) = run_err(
        repo.fabro()
            .args(["run", "--dry-run"])
            .arg(corpus().join("test/invalid.fabro")),
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("(start_node)") && stderr.contains("(exit_no_outgoing)"),
        "{stderr}"
    );
    repo.write("bad.fabro", "digraph B { a -> }");
    let (code, stderr) = run_err(repo.fabro().args(["run", "--dry-run", "bad.fabro"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("bad.fabro:1:18: expected a node id"),
        "{stderr}"
    );
}

#[test]
fn dry_run_fails_at_a_visit_limit_as_fabro_does() {
    let repo = TestRepo::new();
    repo.write(
        "loop.fabro",
        "digraph L { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
         work [label=\"Work\", max_visits=3]\n  gate [shape=diamond]\n  \
         start -> work -> gate\n  gate -> exit [condition=\"context.done=yes\"]\n  gate -> work }\n",
    );
    let out = repo.output(&["run", "--dry-run", "loop.fabro"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        "start@1 succeeded\nwork@1 succeeded\ngate@1 succeeded\nwork@2 succeeded\ngate@2 succeeded\n"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "error: node \"work\" visited 3 times (node limit 3); run is stuck in a cycle"
        ),
        "{stderr}"
    );
}
