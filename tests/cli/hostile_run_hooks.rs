//! Run hooks (`[[hooks]]`) whose answers the engine cannot take as they stand: a blocking
//! hook's decision too large to read, a stdout that looks like a decision and is none, an
//! `edge_selected` override to a node no edge leads to. None of them is read as "proceed"
//! in silence: the first blocks naming why, the others go on with a warning. And a cycle that
//! nothing breaks stops at a visit limit with a clear failure, instead of running without end.

use crate::common::TestRepo;
use crate::engine_retry::stages;
use crate::engine_run::workflow;
use crate::run_hooks::{branching, failed, hook, linear, run_hooked, succeeded};

#[test]
fn a_blocking_hooks_decision_too_large_to_read_blocks_naming_why() {
    let command = r#"printf '{"decision":"block","reason":"'; head -c 1100000 /dev/zero | tr '\0' a; printf '"}'"#;
    let (_, ran) = run_hooked(
        &hook("stage_start", command, "matcher = '^work$'"),
        &linear(),
    );
    let failure = failed(&ran);
    assert!(
        failure.contains("blocked by stage_start hook: the hook's decision cannot be read")
            && failure.contains("larger than 1 MiB"),
        "{failure}"
    );
    assert!(
        !stages(&ran)
            .iter()
            .any(|s| s.contains("succeeded") && s.starts_with("work"))
    );
}

#[test]
fn a_stdout_that_looks_like_json_but_is_no_decision_proceeds_with_a_warning() {
    let command = r#"echo '{"decison": "block", "reason": "typo"}'"#;
    let hooks = hook(
        "stage_start",
        command,
        "name = 'policy'\nmatcher = '^work$'",
    );
    let (_, ran) = run_hooked(&hooks, &linear());
    succeeded(&ran);
    assert!(
        ran.stderr.contains(
            "warning: stage_start hook policy: its stdout looks like JSON but is not a decision"
        ) && ran.stderr.contains("read as proceed"),
        "{}",
        ran.stderr
    );
}

#[test]
fn an_edge_selected_override_to_a_node_no_edge_leads_to_is_refused_with_a_warning() {
    let command = r#"echo '{"decision":"override","edge_to":"start"}'"#;
    let (_, ran) = run_hooked(
        &hook("edge_selected", command, "matcher = '^plan$'"),
        &branching(),
    );
    succeeded(&ran);
    let stages = stages(&ran);
    assert_eq!(
        stages.iter().filter(|s| s.starts_with("start")).count(),
        1,
        "{stages:?}"
    );
    assert!(
        stages.contains(&"plan@1 succeeded".to_owned()),
        "{stages:?}"
    );
    assert!(
        ran.stderr.contains(
            "edge_selected hook: its override to \"start\" was refused, as no edge leads there from plan"
        ),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_cycle_nothing_breaks_stops_at_the_default_visit_limit() {
    let repo = TestRepo::new();
    let path = workflow(
        &repo,
        "cycle",
        "digraph Cycle { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
         work [shape=parallelogram, script=\"true\"]\n  start -> work\n  \
         work -> exit [condition=\"context.never=yes\"]\n  work -> work }\n",
    );
    let ran = crate::engine_run::run(&repo, &path, &["--json"]);
    let failure = failed(&ran);
    assert!(
        failure.contains(
            "node \"work\" visited 100 times (limit 100, as the graph sets no max_node_visits); \
             run is stuck in a cycle"
        ),
        "{failure}"
    );
    assert_eq!(stages(&ran).len(), 100, "start and 99 visits of work");
}
