//! `gc --remote`: finished runs move off the run-store remote into the clone that collects,
//! and a run still on the pool stays.

use serde_json::Value;

use super::{Pool, held_at_two};
use crate::common::run_ok;

#[test]
fn finished_runs_move_off_the_remote_into_this_clone_and_queued_ones_stay() {
    let pool = Pool::new();
    std::fs::write(pool.repo.root.join("go"), "").unwrap();
    let finished = pool.submit(&held_at_two(&pool.repo.root));
    let worker = pool.machine("worker-1");
    run_ok(&mut pool.fabro_on(
        &worker,
        &["worker", "--remote", "origin", "--once", "--trust"],
    ));
    let queued = pool.submit(&held_at_two(&pool.repo.root));
    let branches = |id: &str| {
        pool.remote_git(&[
            "for-each-ref",
            "--format=%(refname)",
            &format!("refs/heads/fabro/*/{id}"),
        ])
    };
    let finished_tip = pool.remote_git(&["rev-parse", &format!("fabro/run/{finished}")]);

    // Too recent for --finished-older-than: nothing moves.
    let out = pool
        .repo
        .ok(&["gc", "--remote", "origin", "--finished-older-than", "1d"]);
    assert_eq!(out, "");
    assert_ne!(branches(&finished), "");

    let moved: Value =
        serde_json::from_str(&pool.repo.ok(&["gc", "--remote", "origin", "--json"])).unwrap();
    assert_eq!(moved["runs"].as_array().unwrap().len(), 1, "{moved}");
    assert_eq!(moved["runs"][0]["run_id"], finished.as_str());
    assert_eq!(moved["runs"][0]["status"], "succeeded");
    assert_eq!(moved["kept"], serde_json::json!([]));
    assert_eq!(branches(&finished), "", "gone from the remote");
    assert_eq!(
        branches(&queued),
        format!("refs/heads/fabro/meta/{queued}\nrefs/heads/fabro/run/{queued}\n")
    );
    assert_eq!(pool.pool_refs(), format!("refs/fabro/queue/{queued}\n"));
    // Here, as the remote had it.
    assert_eq!(
        pool.repo
            .git(&["rev-parse", &format!("fabro/run/{finished}")]),
        finished_tip
    );
    let ps: Value = serde_json::from_str(&pool.repo.ok(&["ps", "--json"])).unwrap();
    let here = ps
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["run_id"] == finished.as_str());
    assert_eq!(here.unwrap()["status"], "succeeded");
    pool.repo.ok(&["fsck"]);
    pool.remote_git(&["fsck", "--strict"]);

    let again = pool.repo.output(&["gc", "--remote", "origin"]);
    assert_eq!(
        String::from_utf8_lossy(&again.stderr),
        format!("no finished run to move off {}\n", pool.bare.display())
    );
}
