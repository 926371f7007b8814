//! `git fabro validate`: Fabro's rules and messages, syntax errors with their position, exit
//! codes, and Fabro's JSON report. The expected text of Fabro's own workflows is what Fabro's
//! snapshot tests (fabro-cli/tests/it/cmd/validate.rs) show.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{TestRepo, run_err, write_file};

fn fabro_tests() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fabro-workflows/test")
}

/// Runs `validate` in `dir`; returns (exit code, stdout, stderr).
fn validate(repo: &TestRepo, dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = repo
        .fabro_in(dir)
        .arg("validate")
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn validate_prints_what_fabro_prints_for_its_own_workflows() {
    let repo = TestRepo::new();
    let dir = fabro_tests();
    let cases = [
        (
            "simple.fabro",
            "Workflow: Simple (4 nodes, 3 edges)\nGraph: simple.fabro\nValidation: OK\n",
        ),
        (
            "branching.fabro",
            "Workflow: Branch (6 nodes, 6 edges)\nGraph: branching.fabro\nwarning [node: implement]: \
             Node 'implement' has goal_gate=true but no retry_target or fallback_retry_target \
             (goal_gate_has_retry)\nValidation: OK\n",
        ),
        (
            "conditions.fabro",
            "Workflow: Conditions (5 nodes, 5 edges)\nGraph: conditions.fabro\nValidation: OK\n",
        ),
        (
            "parallel.fabro",
            "Workflow: Parallel (7 nodes, 7 edges)\nGraph: parallel.fabro\nValidation: OK\n",
        ),
        (
            "styled.fabro",
            "Workflow: Styled (5 nodes, 4 edges)\nGraph: styled.fabro\nValidation: OK\n",
        ),
        (
            "legacy_tool.fabro",
            "Workflow: LegacyTool (3 nodes, 2 edges)\nGraph: legacy_tool.fabro\nValidation: OK\n",
        ),
    ];
    for (file, expected) in cases {
        let (code, stdout, stderr) = validate(&repo, &dir, &[file]);
        assert_eq!((code, stdout.as_str()), (0, ""), "{file}: {stderr}");
        assert_eq!(stderr, expected, "{file}");
    }
}

#[test]
fn validate_exits_1_on_an_error_with_fabros_failure_line() {
    let repo = TestRepo::new();
    let (code, _, stderr) = validate(&repo, &fabro_tests(), &["invalid.fabro"]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "Workflow: Invalid (2 nodes, 1 edges)\nGraph: invalid.fabro\n\
         error: Pipeline must have exactly one start node (shape=Mdiamond or id start/Start) (start_node)\n\
         error [node: exit]: Exit node 'exit' has 1 outgoing edge(s) but must have none (exit_no_outgoing)\n  \
         × Validation failed\n"
    );
}

#[test]
fn validate_json_is_fabros_report() {
    let repo = TestRepo::new();
    let (code, stdout, _) = validate(&repo, &fabro_tests(), &["invalid.fabro", "--json"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(report["workflow_name"], "Invalid");
    assert_eq!(
        (report["nodes"].as_u64(), report["edges"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(report["valid"], false);
    let second = &report["diagnostics"][1];
    assert_eq!(second["rule"], "exit_no_outgoing");
    assert_eq!(second["severity"], "Error");
    assert_eq!(second["node_id"], "exit");
    assert_eq!(second["edge"], Value::Null);
    assert_eq!(second["fix"], "Remove outgoing edges from the exit node");

    let (code, stdout, _) = validate(&repo, &fabro_tests(), &["branching.fabro", "--json"]);
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(report["valid"], true);
    assert_eq!(report["diagnostics"][0]["severity"], "Warning");
}

#[test]
fn validate_shows_a_syntax_error_at_its_line_and_column() {
    let repo = TestRepo::new();
    repo.write(
        "bad.fabro",
        "digraph Bad {\n  start [shape=Mdiamond]\n  start -> \"exit\"\n}\n",
    );
    let (code, stdout, stderr) = validate(&repo, &repo.path, &["bad.fabro"]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert_eq!(
        stderr,
        "error: bad.fabro:3:12: expected a node id after `->` (an unquoted identifier), found a quoted string\n"
    );
}

#[test]
fn validate_exits_2_when_the_file_cannot_be_read() {
    let repo = TestRepo::new();
    for target in ["missing.fabro", "src"] {
        let (code, stderr) = run_err(repo.fabro().args(["validate", target]));
        assert_eq!(code, 2, "{target}: {stderr}");
        assert!(stderr.starts_with("error: "), "{stderr}");
    }
}

#[test]
fn validate_accepts_a_manager_loop() {
    let repo = TestRepo::new();
    repo.write(
        "parent.fabro",
        "digraph P { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
         child [shape=house, stack.child_workflow=\"c.fabro\"]\n  start -> child -> exit }\n",
    );
    let (code, _, stderr) = validate(&repo, &repo.path, &["parent.fabro"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("Validation: OK"), "{stderr}");
}

#[test]
fn validate_inlines_file_prompts_from_beside_the_workflow() {
    let repo = TestRepo::new();
    let flow = "digraph F { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
                work [prompt=\"@prompts/work.md\"]\n  start -> work -> exit }\n";
    write_file(&repo.root.join("flows/f.fabro"), flow);
    let (code, _, stderr) = validate(&repo, &repo.path, &["-C", "../flows", "f.fabro"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(
            "error [node: work]: Node 'work' has unresolved file reference: @prompts/work.md \
             (unresolved_file_ref)"
        ),
        "{stderr}"
    );
    write_file(&repo.root.join("flows/prompts/work.md"), "Do the work.\n");
    let (code, _, stderr) = validate(&repo, &repo.path, &["-C", "../flows", "f.fabro"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn validate_reports_conditions_and_edges_as_fabro_does() {
    let repo = TestRepo::new();
    repo.write(
        "c.fabro",
        "digraph C { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
         gate [shape=diamond]\n  start -> gate\n  gate -> exit [condition=\"outcome=succeeded &\"]\n  \
         gate -> exit\n  rankdir=XY }\n",
    );
    let (code, _, stderr) = validate(&repo, &repo.path, &["c.fabro"]);
    assert_eq!(code, 1);
    assert!(stderr.contains(
        "error [edge: gate -> exit]: Condition 'outcome=succeeded &' on edge gate -> exit failed \
         parse: Parse error: unexpected character '&' in condition expression (condition_syntax)"
    ), "{stderr}");
    assert!(
        stderr.contains("warning: Graph has invalid rankdir 'XY' (direction_valid)"),
        "{stderr}"
    );
}

/// Typos Fabro accepts silently (each makes the node an agent, or is ignored) are warnings
/// naming the closest name Fabro knows; the workflow still validates, as under Fabro.
#[test]
fn typos_are_warnings_that_say_what_was_meant() {
    let repo = TestRepo::new();
    let path = repo.write_beside(
        "typo.fabro",
        r#"digraph typo {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  ask [shape=hexagn, label="Go?"]
  plan [shape=parallelogram, script="true", timout="5s", color=blue]
  review [type=comand, script="true"]
  start -> ask -> plann -> exit
  ask -> plan -> review -> exit
}"#,
    );
    let (code, _, stderr) = validate(&repo, &repo.path, &[path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    for line in [
        "Node 'ask' has shape 'hexagn', which Fabro does not know: it runs as an agent; did you mean hexagon? (shape_known)",
        "Node 'plan' has attribute 'timout', which Fabro does not read; did you mean timeout? (attribute_known)",
        "Node 'review' has unrecognized type 'comand'; did you mean command? (type_known)",
        "Node 'plann' is named only by an edge, never declared: DOT creates it, and Fabro runs it as an agent; did you mean plan? (edge_target_declared)",
    ] {
        assert!(stderr.contains(line), "{line}\n{stderr}");
    }
    assert!(
        !stderr.contains("'color'"),
        "layout attributes are fine: {stderr}"
    );
}
