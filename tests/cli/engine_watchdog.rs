//! Fabro's stall watchdog (`stall_timeout`): a node silent for that long fails the run, with
//! its process group stopped; output counts as activity; `0s` turns the watch off.

use crate::engine_retry::events;
use crate::engine_run::{run, run_json, the_only_run, workflow};

fn one_node(stall: &str, script: &str) -> String {
    format!(
        "digraph w {{ graph [stall_timeout={stall}, default_max_retries=0]\n \
         start [shape=Mdiamond]\n exit [shape=Msquare]\n \
         work [shape=parallelogram, script=\"{script}\"]\n start -> work -> exit }}"
    )
}

#[test]
fn a_silent_node_past_the_stall_timeout_fails_the_run() {
    let repo = crate::common::TestRepo::new();
    let path = workflow(&repo, "silent", &one_node("300ms", "sleep 30"));
    let ran = run(&repo, &path, &[]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("stall watchdog: node \"work\" had no activity for 0s"),
        "{}",
        ran.stderr
    );
    let id = the_only_run(&repo);
    let record = run_json(&repo, &id);
    assert_eq!(record["status"]["kind"], "failed");
    // The stalled node is not recorded as completed.
    assert_eq!(
        record["checkpoint"]["completed_nodes"],
        serde_json::json!(["start"])
    );
    let fired = events(&repo, &id, "watchdog.timeout");
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0]["properties"]["node"], "work");
}

#[test]
fn output_is_activity_and_zero_turns_the_watch_off() {
    let repo = crate::common::TestRepo::new();
    // Talks every 100 ms for over a second, with a 400 ms watch: never stalls.
    let chatty = "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo $i; sleep 0.1; done";
    let path = workflow(&repo, "chatty", &one_node("400ms", chatty));
    let ran = run(&repo, &path, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);

    let repo = crate::common::TestRepo::new();
    let path = workflow(&repo, "off", &one_node("0s", "sleep 0.6"));
    let ran = run(&repo, &path, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}
