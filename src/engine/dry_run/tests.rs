use super::{DryRun, Options, accelerator_key, dry_run};
use crate::engine::outcome::Status;
use crate::engine::workflow::parse;

fn walk(source: &str) -> DryRun {
    let graph = parse(source, "t.fabro").expect("parses");
    dry_run(&graph, &Options::default())
}

fn stages(run: &DryRun) -> Vec<String> {
    run.stages
        .iter()
        .map(|s| format!("{}@{} {}", s.node_id, s.visit, s.status.as_str()))
        .collect()
}

/// Why the run failed; the test fails if it did not.
fn failure(run: &DryRun) -> &str {
    assert_eq!(run.status, Status::Failed, "{:?}", stages(run));
    run.failure.as_deref().expect("a failed run says why")
}

const FRAME: &str = "start [shape=Mdiamond]; exit [shape=Msquare];";

#[test]
fn conditions_beat_weights_and_weights_beat_ids() {
    let run = walk(&format!(
        r#"digraph G {{ {FRAME} a; b; c; d
        start -> a
        a -> c [weight=1]
        a -> b [weight=5]
        b -> exit
        c -> d -> exit
        a -> d [condition="outcome=succeeded && context.last_stage=a"] }}"#
    ));
    assert_eq!(run.status, Status::Succeeded);
    assert_eq!(
        stages(&run),
        [
            "start@1 succeeded",
            "a@1 succeeded",
            "d@1 succeeded",
            "exit@1 succeeded"
        ]
    );
}

#[test]
fn a_fan_in_without_results_fails_and_still_follows_its_edge() {
    let run = walk(&format!(
        "digraph G {{ {FRAME} m [shape=tripleoctagon]; start -> m -> exit }}"
    ));
    assert_eq!(
        stages(&run),
        ["start@1 succeeded", "m@1 failed", "exit@1 succeeded"]
    );
    assert_eq!(run.status, Status::Succeeded);
}

#[test]
fn a_failed_goal_gate_sends_the_run_to_its_retry_target_until_the_limit() {
    let run = walk(&format!(
        r#"digraph G {{ {FRAME} max_node_visits=3
        fix [label="Fix"]
        m [shape=tripleoctagon, goal_gate=true, retry_target=fix]
        start -> fix -> m -> exit }}"#
    ));
    assert_eq!(
        failure(&run),
        "node \"fix\" visited 3 times (graph limit 3); run is stuck in a cycle"
    );
    assert_eq!(
        stages(&run),
        [
            "start@1 succeeded",
            "fix@1 succeeded",
            "m@1 failed",
            "fix@2 succeeded",
            "m@2 failed"
        ]
    );
}

#[test]
fn a_failed_goal_gate_without_retry_target_fails_the_run_at_the_exit() {
    let run = walk(&format!(
        "digraph G {{ {FRAME} m [shape=tripleoctagon, goal_gate=true]; start -> m -> exit }}"
    ));
    assert_eq!(
        failure(&run),
        "goal gate unsatisfied for node m and no retry target"
    );
}

#[test]
fn parallel_branches_are_simulated_inside_the_parallel_node() {
    let run = walk(&format!(
        r#"digraph G {{ {FRAME} p [shape=component]; x; y; j [shape=tripleoctagon]
        start -> p; p -> x; p -> y; x -> j; y -> j; j -> exit }}"#
    ));
    assert_eq!(
        stages(&run),
        [
            "start@1 succeeded",
            "p@1 succeeded",
            "j@1 succeeded",
            "exit@1 succeeded"
        ]
    );
}

#[test]
fn loop_restart_starts_over_from_the_edge_target_with_visits_kept() {
    let run = walk(&format!(
        r#"digraph G {{ {FRAME} a; g [shape=diamond]
        start -> a -> g
        g -> exit [condition="internal.node_visit_count=2"]
        g -> a [loop_restart=true] }}"#
    ));
    assert_eq!(
        stages(&run),
        [
            "start@1 succeeded",
            "a@1 succeeded",
            "g@1 succeeded",
            "a@2 succeeded",
            "g@2 succeeded",
            "exit@1 succeeded"
        ]
    );
}

#[test]
fn a_dead_end_ends_the_run_with_its_outcome() {
    let run = walk(&format!(
        "digraph G {{ {FRAME} a; start -> a; a2 -> exit }}"
    ));
    assert_eq!(run.status, Status::Succeeded);
    assert_eq!(stages(&run), ["start@1 succeeded", "a@1 succeeded"]);
}

#[test]
fn human_gates_choose_their_first_plain_choice() {
    let run = walk(&format!(
        r#"digraph G {{ {FRAME} h [shape=hexagon]; other; yes
        start -> h
        h -> other [label="Tell me", freeform=true]
        h -> yes [label="[Y] Yes", weight=0]
        h -> other [label="[N] No", weight=9]
        yes -> exit; other -> exit }}"#
    ));
    assert_eq!(
        stages(&run),
        [
            "start@1 succeeded",
            "h@1 succeeded",
            "yes@1 succeeded",
            "exit@1 succeeded"
        ]
    );
}

#[test]
fn accelerator_keys() {
    assert_eq!(accelerator_key("[A] Approve"), "A");
    assert_eq!(accelerator_key("Y) Yes"), "Y");
    assert_eq!(accelerator_key("ok - fine"), "ok");
    assert_eq!(accelerator_key("Revise"), "R");
    assert_eq!(accelerator_key(""), "");
}
