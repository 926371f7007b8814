//! Fabro's run-hook tests (`fabro-workflow/tests/it/integration.rs` at 7cec7825d, the
//! `hook_*` tests and their neighbours), each translated into a workflow of command nodes run
//! through `git fabro run` with the hooks in its `run.toml`, under Fabro's test name. Fabro's
//! `fabro-cli/tests/it/workflow/hooks.rs` drives LLM hooks (`type = "prompt"` and `"agent"`)
//! only; git-fabro refuses those by name (`run_hooks::hooks_of_fabros_builtin_agent_are_refused`).

use serde_json::Value;

use crate::common::TestRepo;
use crate::engine_retry::{events, stages};
use crate::run_hooks::{
    branching, failed, hook, linear, marker, read, run_hooked, run_hooked_in, succeeded, two_step,
};

// --- run_start ---

#[test]
fn hook_run_start_proceed_allows_run() {
    let (_, ran) = run_hooked(&hook("run_start", "exit 0", ""), &linear());
    succeeded(&ran);
}

#[test]
fn hook_run_start_block_prevents_run() {
    let (repo, ran) = run_hooked(&hook("run_start", "exit 1", ""), &linear());
    let failure = failed(&ran);
    assert!(
        failure.contains("blocked by run_start hook: hook exited with code 1"),
        "{failure}"
    );
    assert_eq!(events(&repo, &ran.id, "run.started").len(), 1);
    assert!(events(&repo, &ran.id, "stage.started").is_empty());
    assert!(stages(&ran).is_empty(), "{:?}", stages(&ran));
}

#[test]
fn hook_run_start_block_with_json_reason() {
    let command = r#"echo '{"decision":"block","reason":"policy violation"}'; exit 2"#;
    let (_, ran) = run_hooked(&hook("run_start", command, ""), &linear());
    assert!(failed(&ran).contains("policy violation"));
}

// --- stage_start ---

#[test]
fn hook_stage_start_proceed_allows_execution() {
    let (_, ran) = run_hooked(&hook("stage_start", "exit 0", ""), &linear());
    succeeded(&ran);
    assert!(stages(&ran).contains(&"work@1 succeeded".to_owned()));
}

#[test]
fn hook_stage_start_skip_bypasses_node() {
    let command = r#"echo '{"decision":"skip","reason":"not needed"}'; exit 0"#;
    let (repo, ran) = run_hooked(&hook("stage_start", command, ""), &linear());
    succeeded(&ran);
    assert!(stages(&ran).contains(&"work@1 skipped".to_owned()));
    // A stage a hook skipped never started, and its script never ran.
    let started: Vec<Value> = events(&repo, &ran.id, "stage.started");
    assert!(started.is_empty(), "{started:?}");
    assert!(events(&repo, &ran.id, "command.started").is_empty());
}

#[test]
fn hook_stage_start_block_aborts_run() {
    let (_, ran) = run_hooked(&hook("stage_start", "exit 1", ""), &linear());
    assert!(failed(&ran).contains("blocked by stage_start hook"));
}

#[test]
fn hook_stage_start_matcher_filters_by_node_id() {
    let command = r#"echo '{"decision":"skip","reason":"filtered"}'"#;
    let (_, ran) = run_hooked(
        &hook("stage_start", command, "matcher = 'step2'"),
        &two_step(),
    );
    succeeded(&ran);
    let stages = stages(&ran);
    assert!(
        stages.contains(&"step1@1 succeeded".to_owned()),
        "{stages:?}"
    );
    assert!(stages.contains(&"step2@1 skipped".to_owned()), "{stages:?}");
}

#[test]
fn hook_stage_start_matcher_no_match_proceeds() {
    let hooks = hook("stage_start", "exit 1", "matcher = 'nonexistent_node'");
    let (_, ran) = run_hooked(&hooks, &linear());
    succeeded(&ran);
}

#[test]
fn hook_stage_start_exit_2_blocks() {
    let (_, ran) = run_hooked(&hook("stage_start", "exit 2", ""), &linear());
    assert!(failed(&ran).contains("hook exited with code 2"));
}

// --- stage_complete, stage_failed ---

#[test]
fn hook_stage_complete_fires_after_success() {
    let repo = TestRepo::new();
    let hooks = hook(
        "stage_complete",
        r#"echo $FABRO_NODE_ID >> "$HOME/stage_complete""#,
        "",
    );
    succeeded(&run_hooked_in(&repo, &hooks, &two_step()));
    let content = read(&marker(&repo, "stage_complete"));
    assert_eq!(content, "start\nstep1\nstep2\n");
}

#[test]
fn hook_stage_complete_failure_does_not_block_pipeline() {
    let (_, ran) = run_hooked(&hook("stage_complete", "exit 1", ""), &linear());
    succeeded(&ran);
}

#[test]
fn hook_blocking_override_makes_non_blocking_event_blocking() {
    // As in Fabro, a stage that ended cannot be blocked: the run goes on.
    let (_, ran) = run_hooked(
        &hook("stage_complete", "exit 1", "blocking = true"),
        &linear(),
    );
    succeeded(&ran);
}

// --- run_complete, run_failed ---

#[test]
fn hook_run_complete_fires_on_success() {
    let repo = TestRepo::new();
    let hooks = hook("run_complete", r#"echo done > "$HOME/run_complete""#, "");
    succeeded(&run_hooked_in(&repo, &hooks, &linear()));
    assert_eq!(read(&marker(&repo, "run_complete")), "done\n");
}

#[test]
fn hook_run_complete_does_not_fire_on_blocked_run() {
    let repo = TestRepo::new();
    let hooks = hook("run_start", "exit 1", "")
        + &hook("run_complete", r#"echo done > "$HOME/run_complete""#, "");
    failed(&run_hooked_in(&repo, &hooks, &linear()));
    assert!(!marker(&repo, "run_complete").exists());
}

#[test]
fn hook_run_failed_fires_on_stage_block() {
    let repo = TestRepo::new();
    let hooks = hook("stage_start", "exit 1", "matcher = '^work$'")
        + &hook("run_failed", r#"cat > "$HOME/run_failed.json""#, "");
    failed(&run_hooked_in(&repo, &hooks, &linear()));
    let context: Value = serde_json::from_str(&read(&marker(&repo, "run_failed.json"))).unwrap();
    assert_eq!(context["event"], "run_failed");
    let reason = context["failure_reason"].as_str().unwrap();
    assert!(reason.contains("blocked by stage_start hook"), "{reason}");
}

// --- what a hook is given ---

#[test]
fn hook_receives_env_vars() {
    let repo = TestRepo::new();
    let command = r#"echo "event=$FABRO_EVENT run=$FABRO_RUN_ID wf=$FABRO_WORKFLOW node=$FABRO_NODE_ID" >> "$HOME/env""#;
    let ran = run_hooked_in(&repo, &hook("stage_complete", command, ""), &linear());
    succeeded(&ran);
    let content = read(&marker(&repo, "env"));
    let line = content.lines().find(|l| l.contains("node=work")).unwrap();
    let expected = format!("event=stage_complete run={} wf=HookTest node=work", ran.id);
    assert_eq!(line, expected);
}

#[test]
fn multiple_hooks_same_event_all_fire() {
    let repo = TestRepo::new();
    let hooks = hook("stage_complete", r#"echo hook1 > "$HOME/hook1""#, "")
        + &hook("stage_complete", r#"echo hook2 > "$HOME/hook2""#, "");
    succeeded(&run_hooked_in(&repo, &hooks, &linear()));
    assert!(marker(&repo, "hook1").exists() && marker(&repo, "hook2").exists());
}

#[test]
fn no_hooks_configured_runs_normally() {
    let (_, ran) = run_hooked("", &linear());
    succeeded(&ran);
}

// --- edge_selected ---

#[test]
fn hook_edge_selected_override_redirects_routing() {
    let command = r#"echo '{"decision":"override","edge_to":"pathB"}'"#;
    let (repo, ran) = run_hooked(
        &hook("edge_selected", command, "matcher = '^plan$'"),
        &branching(),
    );
    succeeded(&ran);
    let stages = stages(&ran);
    assert!(
        stages.contains(&"pathB@1 succeeded".to_owned()),
        "{stages:?}"
    );
    assert!(!stages.iter().any(|s| s.starts_with("pathA")), "{stages:?}");
    // As in Fabro, a matcher also matches an edge's end: `^plan$` matches the edge
    // start -> plan too. Fabro then jumps from start straight to pathB; git-fabro takes only
    // an override that an edge of the node leads to, and warns about the other.
    let edges: Vec<(Value, Value)> = events(&repo, &ran.id, "edge.selected")
        .iter()
        .map(|e| (e["node_id"].clone(), e["properties"]["to_node"].clone()))
        .collect();
    assert_eq!(
        edges,
        [
            ("start".into(), "plan".into()),
            ("plan".into(), "pathB".into()),
            ("pathB".into(), "exit".into())
        ]
    );
    assert!(
        ran.stderr.contains("its override to \"pathB\" was refused"),
        "{}",
        ran.stderr
    );
}

#[test]
fn hook_edge_selected_block_aborts_run() {
    let (_, ran) = run_hooked(
        &hook("edge_selected", "exit 1", "matcher = '^plan$'"),
        &branching(),
    );
    let failure = failed(&ran);
    assert!(
        failure.contains("blocked by edge_selected hook"),
        "{failure}"
    );
    assert!(!stages(&ran).iter().any(|s| s.starts_with("path")));
}

// --- checkpoint_saved ---

#[test]
fn hook_checkpoint_saved_fires() {
    let repo = TestRepo::new();
    let hooks = hook(
        "checkpoint_saved",
        r#"echo $FABRO_NODE_ID >> "$HOME/checkpoints""#,
        "",
    );
    let ran = run_hooked_in(&repo, &hooks, &linear());
    succeeded(&ran);
    assert_eq!(read(&marker(&repo, "checkpoints")), "start\nwork\n");
}

// --- settings layers ---

#[test]
fn hook_config_merge_concatenates() {
    let repo = TestRepo::new();
    let server = hook(
        "run_start",
        r#"echo server >> "$HOME/order""#,
        "name = 'server-hook'",
    );
    repo.write_settings(&server);
    let run_hook = hook(
        "run_start",
        r#"echo run >> "$HOME/order""#,
        "name = 'run-hook'",
    );
    succeeded(&run_hooked_in(&repo, &run_hook, &linear()));
    assert_eq!(read(&marker(&repo, "order")), "server\nrun\n");
}

#[test]
fn hook_config_merge_run_overrides_by_name() {
    let repo = TestRepo::new();
    repo.write_settings(&hook("run_start", "exit 1", "name = 'shared'"));
    succeeded(&run_hooked_in(
        &repo,
        &hook("run_start", "exit 0", "name = 'shared'"),
        &linear(),
    ));
}

// --- blocking ---

#[test]
fn hook_non_blocking_override_on_blocking_event() {
    let (_, ran) = run_hooked(&hook("run_start", "exit 1", "blocking = false"), &linear());
    succeeded(&ran);
}

#[test]
fn hook_matcher_regex_pattern() {
    let command = r#"echo '{"decision":"skip","reason":"regex match"}'"#;
    let (_, ran) = run_hooked(
        &hook("stage_start", command, "matcher = '^step'"),
        &two_step(),
    );
    succeeded(&ran);
    let stages = stages(&ran);
    assert!(stages.contains(&"step1@1 skipped".to_owned()), "{stages:?}");
    assert!(stages.contains(&"step2@1 skipped".to_owned()), "{stages:?}");
}

#[test]
fn hook_json_proceed_explicit() {
    let (_, ran) = run_hooked(
        &hook("run_start", r#"echo '{"decision":"proceed"}'"#, ""),
        &linear(),
    );
    succeeded(&ran);
}

#[test]
fn hook_json_block_with_reason() {
    let command = r#"echo '{"decision":"block","reason":"forbidden by policy"}'; exit 2"#;
    let (_, ran) = run_hooked(&hook("run_start", command, ""), &linear());
    assert!(failed(&ran).contains("forbidden by policy"));
}

#[test]
fn hook_sandbox_false_runs_on_host() {
    let repo = TestRepo::new();
    let hooks = hook(
        "run_complete",
        r#"echo host > "$HOME/host""#,
        "sandbox = false",
    );
    succeeded(&run_hooked_in(&repo, &hooks, &linear()));
    assert_eq!(read(&marker(&repo, "host")), "host\n");
}

#[test]
fn hooks_do_not_duplicate_workflow_events() {
    let hooks = ["run_start", "stage_start", "stage_complete", "run_complete"]
        .map(|event| hook(event, "exit 0", ""))
        .concat();
    let (repo, ran) = run_hooked(&hooks, &linear());
    succeeded(&ran);
    assert_eq!(events(&repo, &ran.id, "run.started").len(), 1);
    assert_eq!(events(&repo, &ran.id, "run.completed").len(), 1);
    assert!(events(&repo, &ran.id, "run.failed").is_empty());
}
