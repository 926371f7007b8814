//! What another clone pushes to a pool's refs is data: a wait commit's node names reach a
//! terminal escaped, and a queue commit that tells a worker an answer the gate does not have
//! is refused before anything runs, the run left queued.

use serde_json::Value;

use super::Pool;
use crate::common::run_err;

/// Points `name` in the remote at a new commit of the empty tree with `message`.
fn forge(pool: &Pool, name: &str, message: &str) {
    let tree = pool.remote_git(&["hash-object", "-t", "tree", "-w", "/dev/null"]);
    let commit = pool.remote_git(&[
        "-c",
        "user.name=Mallory",
        "-c",
        "user.email=mallory@example.invalid",
        "commit-tree",
        tree.trim(),
        "-m",
        message,
    ]);
    pool.remote_git(&["update-ref", name, commit.trim()]);
}

#[test]
fn forged_queue_and_wait_commits_are_shown_escaped_and_refused_before_anything_runs() {
    let pool = Pool::new();
    use crate::common::workflow::{command, gated};
    let gate = gated("Gate", &command("ship", "echo shipped > out.txt"));
    let id = pool.submit(&gate);
    let other = pool.submit(&gate);
    // A wait that names a node with a terminal escape in it.
    pool.remote_git(&["update-ref", "-d", &format!("refs/fabro/queue/{other}")]);
    forge(
        &pool,
        &format!("refs/fabro/wait/{other}"),
        &format!("wait\n\nFabro-Run: {other}\nFabro-Wait: answer\nFabro-Wait-Node: \x1b[2Jx"),
    );
    let shown = pool.repo.output(&["ps", "--remote", "origin"]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(!shown.contains('\x1b'), "{shown:?}");
    assert!(shown.contains("needs-answer  \\x1b[2Jx"), "{shown}");

    // A queue commit that answers the gate with a choice it does not have.
    forge(
        &pool,
        &format!("refs/fabro/queue/{id}"),
        &format!("queue {id}\n\nFabro-Run: {id}\nFabro-Answer: approve=launch-missiles"),
    );
    let worker = pool.machine("worker-1");
    let (code, stderr) = run_err(&mut pool.fabro_on(
        &worker,
        &["worker", "--remote", "origin", "--run", &id, "--trust"],
    ));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no choice of approve matches"), "{stderr}");
    assert_eq!(pool.subjects(&id), Vec::<String>::new(), "nothing ran");
    let listed: Value =
        serde_json::from_str(&pool.repo.ok(&["ps", "--remote", "origin", "--json"])).unwrap();
    assert_eq!(listed[0]["run_id"], id.as_str());
    assert_eq!(listed[0]["state"], "queued", "{listed}");
}
