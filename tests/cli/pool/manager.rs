//! A manager loop's child run on a pool: its writes are published under the parent's lease,
//! so a worker that takes the parent over takes the child up where it was, and no node of the
//! child runs twice; the child workflows it names by file travel with it.

use std::time::Duration;

use serde_json::Value;

use super::{Pool, path, signal, spawn, wait_for};
use crate::common::run_ok;

#[test]
fn a_taker_goes_on_with_the_child_run_of_a_killed_worker_where_it_was() {
    let pool = Pool::new();
    let root = pool.repo.root.clone();
    let (count, started, go) = (
        root.join("count"),
        root.join("two-started"),
        root.join("go"),
    );
    let child = format!(
        "digraph C {{ s [shape=Mdiamond]; e [shape=Msquare]; \
         one [shape=parallelogram, script=\\\"echo one >> {count}\\\"]; \
         two [shape=parallelogram, script=\\\"touch {started}; while [ ! -e {go} ]; do sleep 0.02; done; echo two > two.txt\\\"]; \
         s -> one -> two -> e }}",
        count = count.display(),
        started = started.display(),
        go = go.display()
    );
    let id = pool.submit(&format!(
        "digraph parent {{\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  \
         manage [shape=house, stack.child_dot_source=\"{child}\"]\n  \
         after [shape=parallelogram, script=\"cat two.txt > after.txt\"]\n  \
         start -> manage -> after -> exit\n}}\n"
    ));
    let first = pool.machine("worker-1");
    let mut killed = spawn(pool.fabro_on(
        &first,
        &[
            "worker", "--remote", "origin", "--once", "--trust", "--ttl", "3s",
        ],
    ));
    wait_for(&started, &mut killed);
    signal(&killed, "-KILL");
    killed.wait().unwrap();
    std::fs::write(&go, "").unwrap();
    // The child's first node is on the remote, under the parent's lease, which names the child.
    let metas = pool.remote_git(&[
        "for-each-ref",
        "--format=%(refname)",
        "refs/heads/fabro/meta/",
    ]);
    assert_eq!(metas.lines().count(), 2, "{metas}");
    let lease = pool.remote_git(&[
        "log",
        "-1",
        "--format=%B",
        &format!("refs/fabro/lease/{id}"),
    ]);
    let child_id = metas
        .lines()
        .map(|l| l.trim_start_matches("refs/heads/fabro/meta/"))
        .find(|c| *c != id)
        .unwrap()
        .to_owned();
    assert!(
        lease.contains(&format!("Fabro-Lease-Child: {child_id}\n")),
        "{lease}"
    );

    let second = pool.machine("worker-2");
    run_ok(&mut pool.fabro_on(
        &second,
        &[
            "worker", "--remote", "origin", "--run", &id, "--trust", "--ttl", "3s",
        ],
    ));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        std::fs::read_to_string(&count).unwrap(),
        "one\n",
        "the child's first node ran once"
    );
    assert_eq!(
        pool.subjects(&id),
        ["after (succeeded)", "manage (succeeded)"]
    );
    let child_log = pool.remote_git(&[
        "log",
        "--format=%s",
        &format!("fabro/run/{child_id}"),
        "^main",
    ]);
    assert_eq!(
        child_log,
        format!("fabro({child_id}): two (succeeded)\nfabro({child_id}): one (succeeded)\n")
    );
    assert_eq!(pool.pool_refs(), "");
    pool.remote_git(&["fsck", "--strict"]);
}

#[test]
fn child_workflows_named_by_file_travel_with_the_run_and_its_approvals() {
    let pool = Pool::new();
    let root = pool.repo.root.clone();
    let grandchild = "digraph G { s [shape=Mdiamond]; e [shape=Msquare]; \
                      deep [shape=parallelogram, script=\"echo deep > deep.txt\"]; s -> deep -> e }";
    let child = "digraph C { s [shape=Mdiamond]; e [shape=Msquare]; \
                 one [shape=parallelogram, script=\"echo one > one.txt\"]; \
                 nest [shape=house, stack.child_workflow=\"nested/grandchild.fabro\"]; \
                 s -> one -> nest -> e }";
    std::fs::create_dir_all(root.join("nested")).unwrap();
    std::fs::write(root.join("child.fabro"), child).unwrap();
    std::fs::write(root.join("nested/grandchild.fabro"), grandchild).unwrap();
    let file = root.join("flow.fabro");
    std::fs::write(
        &file,
        "digraph parent {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  \
         manage [shape=house, stack.child_workflow=\"child.fabro\"]\n  \
         start -> manage -> exit\n}\n",
    )
    .unwrap();
    let submitted: Value = serde_json::from_str(&pool.repo.ok(&[
        "submit",
        path(&file),
        "--remote",
        "origin",
        "--json",
    ]))
    .unwrap();
    let id = submitted["run_id"].as_str().unwrap();
    // The worker's machine has none of the submitter's files: only the run, from the remote.
    std::fs::remove_file(root.join("child.fabro")).unwrap();
    std::fs::remove_dir_all(root.join("nested")).unwrap();

    // What the submitter approved covers the children: no --trust is needed.
    let approved = submitted["approved"].as_array().unwrap();
    let mut args = vec!["worker", "--remote", "origin", "--run", id, "--ttl", "5s"];
    for sha in approved {
        args.extend(["--approved", sha.as_str().unwrap()]);
    }
    let worker = pool.machine("worker-1");
    run_ok(&mut pool.fabro_on(&worker, &args));
    assert_eq!(pool.subjects(id), ["manage (succeeded)"]);
    let tree = pool.remote_git(&["ls-tree", "--name-only", &format!("fabro/run/{id}")]);
    assert!(
        tree.lines().any(|f| f == "one.txt") && tree.lines().any(|f| f == "deep.txt"),
        "{tree}"
    );
    pool.remote_git(&["fsck", "--strict"]);
}
