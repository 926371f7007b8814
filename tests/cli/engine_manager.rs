//! Manager loops (`shape=house`): the child workflow runs as a run of its own, in place in the
//! parent's worktree, linked from the parent's stage; its status decides the node's, its file
//! changes land in the parent's next run commit and its context changes reach the parent.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::failpoints::die_at;
use crate::common::{TestRepo, read_file, write_file};
use crate::engine_run::{meta_file, run, run_commits, run_json};

/// A parent whose manager node runs `child.fabro` (beside it, outside the repository), then
/// follows the child's `command.output` to `yes` or `no`.
fn family(repo: &TestRepo, child_script: &str) -> PathBuf {
    let dir = repo.root.join("flows");
    write_file(
        &dir.join("child.fabro"),
        &format!(
            "digraph Child {{ start [shape=Mdiamond]; exit [shape=Msquare]\n  \
             write [shape=parallelogram, script=\"echo from-child > child.txt\"]\n  \
             report [shape=parallelogram, goal_gate=true, script=\"{child_script}\"]\n  \
             start -> write -> report -> exit }}\n"
        ),
    );
    let parent = dir.join("parent.fabro");
    write_file(
        &parent,
        "digraph Parent { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
         manage [shape=house, stack.child_workflow=\"child.fabro\"]\n  \
         yes [shape=parallelogram, script=\"cat child.txt > seen.txt\"]\n  \
         no [shape=parallelogram, script=\"echo no > seen.txt\"]\n  \
         start -> manage\n  \
         manage -> yes [condition=\"context.command.output contains child-done\"]\n  \
         manage -> no\n  yes -> exit\n  no -> exit }\n",
    );
    parent
}

/// Runs whose `spec.parent_run_id` is `parent`.
fn children(repo: &TestRepo, parent: &str) -> Vec<(String, Value)> {
    let refs = repo.runs_with_metadata();
    refs.lines()
        .map(|id| (id.to_owned(), run_json(repo, id)))
        .filter(|(_, record)| record["spec"]["parent_run_id"] == parent)
        .collect()
}

/// The path of `file` in the stage folder of `node@visit` on the metadata branch.
fn stage_file(repo: &TestRepo, id: &str, stage: &str, file: &str) -> String {
    let names = repo.files_in(&format!("fabro/meta/{id}"));
    let path = names
        .lines()
        .find(|p| p.ends_with(&format!("-{stage}/{file}")))
        .unwrap_or_else(|| panic!("no {stage}/{file} in {names}"));
    meta_file(repo, id, path)
}

#[test]
fn a_child_workflow_runs_as_a_linked_run_and_brings_back_its_work() {
    let repo = TestRepo::new();
    let parent = family(&repo, "echo child-done");
    let ran = run(&repo, &parent, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);

    // The child is a run of its own, with both branches and its checkpoints.
    let kids = children(&repo, &ran.id);
    assert_eq!(kids.len(), 1);
    let (child, record) = &kids[0];
    assert_eq!(record["status"]["kind"], "succeeded");
    assert_eq!(record["spec"]["parent_node_id"], "manage");
    assert_eq!(record["spec"]["parent_visit"], 1);
    assert_eq!(record["spec"]["in_place"], true);
    assert_eq!(
        record["checkpoint"]["completed_nodes"],
        serde_json::json!(["start", "write", "report"])
    );
    let log = repo.ok(&["log", child]);
    assert!(log.contains("write@1") && log.contains("report@1"), "{log}");
    // It started from the parent's run branch at that point and its work is on its own branch.
    let child_base = record["start"]["base_sha"].as_str().unwrap().to_owned();
    let parent_base = run_json(&repo, &ran.id)["start"]["base_sha"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(child_base, parent_base);
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{child}:child.txt")]),
        "from-child\n"
    );

    // The parent's stage links it.
    let link: Value =
        serde_json::from_str(&stage_file(&repo, &ran.id, "manage@1", "child_run.json")).unwrap();
    assert_eq!(link["run_id"], child.as_str());
    assert_eq!(link["status"], "succeeded");
    assert_eq!(link["run_branch"], format!("fabro/run/{child}"));
    let status: Value =
        serde_json::from_str(&stage_file(&repo, &ran.id, "manage@1", "status.json")).unwrap();
    assert_eq!(status["outcome"], "succeeded");
    assert_eq!(status["notes"], "Child completed at cycle 1");

    // The child's file is in the parent's run commit of the manager node; its context
    // updates chose the parent's edge.
    let commits = run_commits(&repo, &ran.id);
    assert!(commits[0].0.contains("manage"), "{commits:?}");
    let manage_commit = repo.git(&[
        "rev-list",
        "--reverse",
        "--first-parent",
        &format!("fabro/run/{}", ran.id),
        "^main",
    ]);
    let manage_commit = manage_commit.lines().next().unwrap();
    assert_eq!(
        repo.git(&["show", &format!("{manage_commit}:child.txt")]),
        "from-child\n"
    );
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{}:seen.txt", ran.id)]),
        "from-child\n"
    );
    let parent_record = run_json(&repo, &ran.id);
    let context = &parent_record["checkpoint"]["context_values"];
    assert_eq!(context["stack.child.run_id"], child.as_str());
    assert_eq!(context["stack.child.status"], "succeeded");
    assert_eq!(
        parent_record["checkpoint"]["completed_nodes"],
        serde_json::json!(["start", "manage", "yes"])
    );
    assert_eq!(repo.ok(&["fsck"]), "");
}

#[test]
fn a_failing_child_fails_the_manager_node() {
    let repo = TestRepo::new();
    let parent = family(&repo, "echo broken; exit 3");
    let ran = run(&repo, &parent, &[]);
    // The failed node follows its unconditional edge, as any failed node does.
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let kids = children(&repo, &ran.id);
    assert_eq!(kids.len(), 1);
    let (child, record) = &kids[0];
    assert_eq!(record["status"]["kind"], "failed");
    let status: Value =
        serde_json::from_str(&stage_file(&repo, &ran.id, "manage@1", "status.json")).unwrap();
    assert_eq!(status["outcome"], "failed");
    let reason = status["failure_reason"].as_str().unwrap();
    assert!(
        reason.contains(&format!("Child run {child} failed")),
        "{reason}"
    );
    let context = &run_json(&repo, &ran.id)["checkpoint"]["context_values"];
    assert_eq!(context["stack.child.status"], "failed");
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{}:seen.txt", ran.id)]),
        "no\n"
    );
    assert_eq!(repo.ok(&["fsck"]), "");
}

#[test]
fn a_missing_child_file_fails_the_stage_with_a_clear_message() {
    let repo = TestRepo::new();
    let parent = repo.write_beside(
        "flows/lonely.fabro",
        "digraph P { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
         manage [shape=house, stack.child_workflow=\"nowhere.fabro\"]\n  \
         start -> manage -> exit }\n",
    );
    let ran = run(&repo, &parent, &[]);
    // The failed node follows its unconditional edge, as any failed node does.
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("Failed to parse child pipeline")
            && ran.stderr.contains("nowhere.fabro: No such file"),
        "{}",
        ran.stderr
    );
    assert!(children(&repo, &ran.id).is_empty());
    let status: Value =
        serde_json::from_str(&stage_file(&repo, &ran.id, "manage@1", "status.json")).unwrap();
    assert_eq!(status["outcome"], "failed");
    assert!(
        status["failure_reason"]
            .as_str()
            .unwrap()
            .contains("nowhere.fabro"),
        "{status}"
    );
    assert_eq!(repo.ok(&["fsck"]), "");
}

#[test]
fn a_gate_of_a_recorded_child_is_answered_after_the_child_file_is_gone() {
    let repo = TestRepo::new();
    write_file(
        &repo.root.join("flows/child.fabro"),
        "digraph Child { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
         check [shape=hexagon, label=\"Ship it?\"]\n  \
         ship [shape=parallelogram, script=\"echo shipped > shipped.txt\"]\n  \
         start -> check\n  check -> ship [label=\"[Y] Yes\"]\n  ship -> exit }\n",
    );
    let parent = repo.write_beside(
        "flows/parent.fabro",
        "digraph Parent { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
         manage [shape=house, stack.child_workflow=\"child.fabro\"]\n  \
         start -> manage -> exit }\n",
    );
    let ran = run(&repo, &parent, &[]);
    assert_eq!(ran.code, 4, "blocked at the child's gate: {}", ran.stderr);
    // The answer names a node of the child the run recorded, not of a file.
    std::fs::remove_dir_all(repo.root.join("flows")).unwrap();
    let resumed = repo
        .fabro()
        .args(["resume", &ran.id, "--answer", "check=Y"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{stderr}");
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{}:shipped.txt", ran.id)]),
        "shipped\n"
    );
    assert_eq!(repo.ok(&["fsck"]), "");
}

#[test]
fn an_invalid_inline_child_fails_the_stage_and_a_valid_one_runs() {
    let repo = TestRepo::new();
    let parent = repo.write_beside(
        "inline.fabro",
        "digraph P { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
         bad [shape=house, stack.child_dot_source=\"digraph C { a -> b }\"]\n  \
         good [shape=house, stack.child_dot_source=\"digraph C { s [shape=Mdiamond]; \
         e [shape=Msquare]; w [shape=parallelogram, script=\\\"echo inline > inline.txt\\\"]; \
         s -> w -> e }\"]\n  \
         start -> bad -> good -> exit }\n",
    );
    let ran = run(&repo, &parent, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let bad: Value =
        serde_json::from_str(&stage_file(&repo, &ran.id, "bad@1", "status.json")).unwrap();
    assert_eq!(bad["outcome"], "failed");
    assert!(
        bad["failure_reason"]
            .as_str()
            .unwrap()
            .contains("Failed to parse child pipeline"),
        "{bad}"
    );
    let kids = children(&repo, &ran.id);
    assert_eq!(kids.len(), 1);
    assert_eq!(kids[0].1["spec"]["parent_node_id"], "good");
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{}:inline.txt", ran.id)]),
        "inline\n"
    );
}

#[test]
fn resume_of_a_parent_killed_while_its_child_ran_takes_the_child_up_where_it_was() {
    let repo = TestRepo::new();
    // Dies inside the child, once its first node is checkpointed.
    let parent_id = parent_killed_at(&repo, "engine:checkpointed:write@1");
    let stale = children(&repo, &parent_id);
    assert_eq!(stale.len(), 1);
    assert_eq!(stale[0].1["status"]["kind"], "running");

    repo.ok(&["resume", &parent_id]);
    // The same child went on from its checkpoint: `write` ran once, `report` once.
    let kids = children(&repo, &parent_id);
    assert_eq!(kids.len(), 1);
    let (child, record) = &kids[0];
    assert_eq!(child, &stale[0].0);
    assert_eq!(record["status"]["kind"], "succeeded");
    assert_eq!(
        record["checkpoint"]["node_visits"],
        serde_json::json!({ "start": 1, "write": 1, "report": 1 })
    );
    assert_parent_took_the_result_of(&repo, &parent_id, child);
}

#[test]
fn fabros_poll_settings_and_unrunnable_children_decide_the_stage() {
    let repo = TestRepo::new();
    let parent = repo.write_beside("polled.fabro", r#"digraph P { start [shape=Mdiamond]; exit [shape=Msquare]
  stopped [shape=house, manager.poll_interval="0s", manager.stop_condition="outcome=succeeded",
    stack.child_dot_source="digraph C { s [shape=Mdiamond]; e [shape=Msquare]; s -> e }"]
  slow [shape=house, manager.poll_interval="1ms", manager.max_cycles=2,
    stack.child_dot_source="digraph C { s [shape=Mdiamond]; e [shape=Msquare]; w [shape=insulator, duration=\"50ms\"]; s -> w -> e }"]
  agentic [shape=house,
    stack.child_dot_source="digraph C { s [shape=Mdiamond]; e [shape=Msquare]; think [prompt=\"x\"]; s -> think -> e }"]
  start -> stopped -> slow -> agentic -> exit }
"#);
    let ran = run(&repo, &parent, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let status = |stage: &str| -> Value {
        serde_json::from_str(&stage_file(&repo, &ran.id, stage, "status.json")).unwrap()
    };
    let stopped = status("stopped@1");
    assert_eq!(stopped["outcome"], "succeeded");
    assert_eq!(stopped["notes"], "Stop condition satisfied at cycle 1");
    // The child slept 50 ms: far more than two cycles of 1 ms.
    let slow = status("slow@1");
    assert_eq!(slow["outcome"], "failed");
    assert_eq!(
        slow["failure_reason"],
        "Max cycles (2) exceeded for manager loop node: slow"
    );
    let agentic = status("agentic@1");
    assert_eq!(agentic["outcome"], "failed");
    assert!(
        agentic["failure_reason"]
            .as_str()
            .unwrap()
            .contains("the child has agent or prompt nodes (think) and no agent command"),
        "{agentic}"
    );
    // Only the two children that ran are runs; each is finished.
    let kids = children(&repo, &ran.id);
    assert_eq!(kids.len(), 2);
    assert!(kids.iter().all(|(_, r)| r["status"]["kind"] == "succeeded"));
    assert_eq!(repo.ok(&["fsck"]), "");
}

#[test]
fn a_parent_run_in_place_runs_its_child_in_the_same_directory() {
    let repo = TestRepo::new();
    let parent = family(&repo, "echo child-done");
    let ran = run(&repo, &parent, &["--in-place"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let kids = children(&repo, &ran.id);
    assert_eq!(kids.len(), 1);
    let (child, record) = &kids[0];
    assert_eq!(record["status"]["kind"], "succeeded");
    assert_eq!(
        record["start"]["base_sha"],
        run_json(&repo, &ran.id)["start"]["base_sha"]
    );
    // The user's directory holds what both runs wrote; both runs' branches record it.
    assert_eq!(read_file(repo.path.join("seen.txt")), "from-child\n");
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{child}:child.txt")]),
        "from-child\n"
    );
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{}:child.txt", ran.id)]),
        "from-child\n"
    );
    assert_eq!(repo.ok(&["fsck"]), "");
}

#[test]
fn resume_of_a_parent_killed_after_its_child_ended_takes_that_childs_result() {
    let repo = TestRepo::new();
    // The child's finish is the first to move its refs; the parent dies right after it.
    let parent_id = parent_killed_at(&repo, "finish:refs-moved");
    let before = children(&repo, &parent_id);
    assert_eq!(before.len(), 1);
    assert_eq!(before[0].1["status"]["kind"], "succeeded");

    repo.ok(&["resume", &parent_id]);
    let after = children(&repo, &parent_id);
    assert_eq!(after.len(), 1, "the child ran again");
    assert_parent_took_the_result_of(&repo, &parent_id, &before[0].0);
}

/// Runs [`family`] until the failpoint `at` kills it; the parent's id.
fn parent_killed_at(repo: &TestRepo, at: &str) -> String {
    let parent = family(repo, "echo child-done");
    die_at(repo.fabro().arg("run").arg(&parent), at);
    let refs = repo.runs_with_metadata();
    refs.lines()
        .find(|id| run_json(repo, id)["spec"]["parent_run_id"].is_null())
        .expect("the parent run")
        .to_owned()
}

/// The parent succeeded with `child`'s result: its record names the child and its branch
/// holds what the child wrote.
fn assert_parent_took_the_result_of(repo: &TestRepo, parent_id: &str, child: &str) {
    let record = run_json(repo, parent_id);
    assert_eq!(record["status"]["kind"], "succeeded");
    assert_eq!(
        record["checkpoint"]["context_values"]["stack.child.run_id"],
        child
    );
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{parent_id}:seen.txt")]),
        "from-child\n"
    );
    assert_eq!(repo.ok(&["fsck"]), "");
}
