//! A pool run's fan-out across machines: the run's holder offers its parallel branches as
//! branch jobs, idle workers on other clones run them, and the holder joins their work; a
//! branch whose worker dies, stops or is interrupted is taken back and run by the holder, and
//! what that worker writes afterwards never lands; an offer not built on the run's branch is
//! run by no one, and work someone else recorded for a branch is not taken. Checked with plain
//! git on the remote.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use super::{Pool, spawn, wait_for};
use crate::common::run_ok;

/// start -> wait (for `go`) -> fan -> left, right -> join -> exit; each branch writes its
/// file and where it ran (`<branch>.where`, its working folder) beside the repository.
enum Shape<'p> {
    Plain,
    /// `left` waits for the file; the fan runs one branch at a time, and `right`, which the
    /// holder takes first, keeps its one thread busy until `left` started elsewhere.
    LeftWaitsFor(&'p Path),
    /// The fan runs one branch at a time and has a third branch, a side effect, which stays on
    /// the holder and keeps its one thread busy until the other two started elsewhere.
    Audit,
}

fn fan_out(root: &Path, shape: Shape) -> String {
    let (started, go) = (root.join("wait-started"), root.join("go"));
    // Waits up to a minute: on a loaded machine a helper's first look at the remote can take
    // seconds, and a branch that stops waiting lets the holder take the other one back.
    let until = |files: &[&str]| {
        let all: Vec<String> = (files.iter())
            .map(|f| format!("[ -e {}/{f}.where ]", root.display()))
            .collect();
        format!(
            "for i in $(seq 3000); do {} && break; sleep 0.02; done; ",
            all.join(" && ")
        )
    };
    let (mut left_wait, mut right_wait, mut more) = (String::new(), String::new(), String::new());
    match shape {
        Shape::Plain => {}
        Shape::LeftWaitsFor(file) => {
            left_wait = format!("while [ ! -e {} ]; do sleep 0.02; done; ", file.display());
            right_wait = until(&["left"]);
            more = "  fan [max_parallel=1]\n".into();
        }
        Shape::Audit => {
            let audit = format!(
                "pwd > {}/audit.where; {}",
                root.display(),
                until(&["left", "right"])
            );
            more = format!(
                "  fan [max_parallel=1]\n  audit [shape=parallelogram, side_effect=true, script=\"{audit}echo audit > audit.txt\"]\n  fan -> audit -> join\n"
            );
        }
    }
    format!(
        r#"digraph fan {{
  start [shape=Mdiamond]
  exit [shape=Msquare]
  wait [shape=parallelogram, script="touch {started}; while [ ! -e {go} ]; do sleep 0.02; done"]
  fan [shape=component]
  left [shape=parallelogram, script="pwd > {root}/left.where; {left_wait}echo left > left.txt"]
  right [shape=parallelogram, script="pwd > {root}/right.where; {right_wait}echo right > right.txt"]
  join [shape=tripleoctagon]
  start -> wait -> fan
  fan -> left -> join
  fan -> right -> join
{more}  join -> exit
}}"#,
        started = started.display(),
        go = go.display(),
        root = root.display(),
    )
}

/// A worker on machine `name` that takes whatever it may, until the run leaves the queue.
fn helper(pool: &Pool, name: &str, ttl: &str) -> Child {
    let machine = pool.machine(name);
    let args = [
        "worker",
        "--remote",
        "origin",
        "--exit-when-idle",
        "--trust",
        "--ttl",
        ttl,
    ];
    spawn(pool.fabro_on(&machine, &args))
}

/// The run's holder on machine `holder`, stopped at `wait` until the test says go.
fn holder(pool: &Pool, id: &str, ttl: &str) -> Child {
    let machine = pool.machine("holder");
    let args = [
        "worker", "--remote", "origin", "--run", id, "--trust", "--ttl", ttl,
    ];
    let mut holder = spawn(pool.fabro_on(&machine, &args));
    wait_for(&pool.repo.root.join("wait-started"), &mut holder);
    holder
}

fn ran_at(root: &Path, branch: &str) -> String {
    std::fs::read_to_string(root.join(format!("{branch}.where"))).unwrap()
}

#[test]
fn a_fan_outs_branches_run_on_idle_workers_of_other_machines_and_the_holder_joins_them() {
    let pool = Pool::new();
    let root = pool.repo.root.clone();
    let id = pool.submit(&fan_out(&root, Shape::Audit));
    // A 20 s lease: branches stay on offer for 3 s before the holder runs them itself, and its
    // one thread runs the side effect meanwhile.
    let holder = holder(&pool, &id, "20s");
    let helpers = [
        helper(&pool, "worker-2", "20s"),
        helper(&pool, "worker-3", "20s"),
    ];
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::fs::write(root.join("go"), "").unwrap();

    let held = holder.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&held.stderr);
    assert!(held.status.success(), "{stderr}");
    let mut machines = Vec::new();
    for helper in helpers {
        let out = helper.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        machines.push(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    for branch in ["left", "right"] {
        let at = ran_at(&root, branch);
        assert!(
            at.contains("-fabro-home/branch-jobs/"),
            "{branch} ran at {at}"
        );
        assert!(!at.contains("holder"), "{branch} ran at {at}");
    }
    let told: Vec<&String> = machines
        .iter()
        .filter(|e| e.contains("running branch"))
        .collect();
    assert_eq!(told.len(), 2, "one branch each: {machines:?}");

    assert_eq!(
        pool.subjects(&id),
        [
            "join (succeeded)",
            "fan (succeeded)",
            "audit (succeeded)",
            "fan (parallel_base)",
            "wait (succeeded)"
        ]
    );
    // The branches' work is on their branches of the run, as a fan-out on one machine has
    // it, and no branch job is left on the remote.
    let branch = |target: &str| format!("fabro/run/parallel/{id}/fan/pass1/{target}:{target}.txt");
    assert_eq!(pool.remote_git(&["show", &branch("left")]), "left\n");
    assert_eq!(pool.remote_git(&["show", &branch("right")]), "right\n");
    assert_eq!(pool.pool_refs(), "");
    pool.remote_git(&["fsck", "--strict"]);
    // The branches' stage files are in the fan's stage, as when they run on the holder.
    let meta = format!("fabro/meta/{id}");
    let files = pool.remote_git(&["ls-tree", "-r", "--name-only", &meta, "stages/"]);
    let right: Vec<&str> = files
        .lines()
        .filter(|f| f.contains("fan@1/right/"))
        .collect();
    assert_eq!(
        right,
        [
            "stages/003-fan@1/right/outcome.json",
            "stages/003-fan@1/right/script_invocation.json",
            "stages/003-fan@1/right/script_timing.json",
            "stages/003-fan@1/right/stderr.log",
            "stages/003-fan@1/right/stdout.log"
        ]
    );
    let outcome = format!("{meta}:stages/003-fan@1/right/outcome.json");
    assert!(pool.remote_git(&["show", &outcome]).contains("succeeded"));

    pool.repo.ok(&["fetch", "origin", &id]);
    pool.repo.ok(&["fsck"]);
}

/// Runs [`fan_out`] with a holder and one helper under leases of `ttl`; the helper takes
/// `left` and is then stopped in the middle of it with `signal` (the kill, SIGSTOP, Ctrl-C).
/// Returns the helper for the test to see what became of it, once the holder ended the run
/// having taken `left` back, and the time from the signal to the run's end.
fn left_taken_back_from(pool: &Pool, signal: &str, ttl: &str) -> (String, Child, Duration) {
    let root = pool.repo.root.clone();
    let go_left = root.join("go-left");
    let id = pool.submit(&fan_out(&root, Shape::LeftWaitsFor(&go_left)));
    let holder = holder(pool, &id, ttl);
    let mut helper = helper(pool, "worker-2", ttl);
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::fs::write(root.join("go"), "").unwrap();
    // The helper takes `left` (the first job on offer) and is stopped in the middle of it;
    // `right`, which nobody else claimed, the holder runs itself meanwhile.
    wait_for(&root.join("left.where"), &mut helper);
    assert!(ran_at(&root, "left").contains("worker-2-fabro-home/branch-jobs/"));
    // `ps --remote` shows where the run's branch runs, under the run.
    let listed = pool.repo.ok(&["ps", "--remote", "origin", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let branches = &listed[0]["branches"];
    assert_eq!(branches[0]["branch"], "fan@1/left", "{listed}");
    assert_eq!(branches[0]["state"], "running", "{listed}");
    assert_ne!(branches[0]["owner"], listed[0]["owner"], "{listed}");
    assert_eq!(branches.as_array().unwrap().len(), 1, "{listed}");
    let shown = pool.repo.ok(&["ps", "--remote", "origin"]);
    let row = shown.lines().nth(2).unwrap_or_default();
    let cells: Vec<&str> = row.split_whitespace().collect();
    let owner = branches[0]["owner"].as_str().unwrap();
    assert!(row.starts_with("  fan@1/left "), "{shown}");
    assert_eq!(
        cells[..5],
        ["fan@1/left", "running", "-", owner, "-"],
        "{shown}"
    );
    super::signal(&helper, signal);
    let signalled = Instant::now();
    std::fs::remove_file(root.join("left.where")).unwrap();
    std::fs::write(&go_left, "").unwrap();

    let held = holder.wait_with_output().unwrap();
    let took = signalled.elapsed();
    let stderr = String::from_utf8_lossy(&held.stderr);
    assert!(held.status.success(), "{stderr}");
    for branch in ["left", "right"] {
        let at = ran_at(&root, branch);
        assert!(!at.contains("branch-jobs"), "{branch} ran at {at}");
    }
    let branch = |target: &str| format!("fabro/run/parallel/{id}/fan/pass1/{target}:{target}.txt");
    assert_eq!(pool.remote_git(&["show", &branch("left")]), "left\n");
    assert_eq!(pool.remote_git(&["show", &branch("right")]), "right\n");
    assert_eq!(pool.pool_refs(), "");
    pool.remote_git(&["fsck", "--strict"]);
    (id, helper, took)
}

#[test]
fn a_branch_whose_worker_was_killed_is_taken_back_and_run_by_the_holder() {
    let pool = Pool::new();
    // A 4 s lease: a claim unrenewed that long is the holder's to take back.
    let (_, mut killed, _) = left_taken_back_from(&pool, "-KILL", "4s");
    killed.wait().unwrap();
    // The killed worker's machine, when a worker starts there again, removes what the job
    // left: its worktree, its branch and its run directory.
    let machine = pool.repo.root.join("worker-2");
    assert!(
        pool.repo
            .git_in(&machine, &["worktree", "list"])
            .contains("branch-jobs")
    );
    let args = [
        "worker",
        "--remote",
        "origin",
        "--exit-when-idle",
        "--trust",
    ];
    run_ok(&mut pool.fabro_on(&machine, &args));
    let worktrees = pool
        .repo
        .git_in(&machine, &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
    let branches = pool
        .repo
        .git_in(&machine, &["for-each-ref", "refs/heads/fabro/job/"]);
    assert_eq!(branches, "");
    let places = pool.fabro_home(&machine).join("branch-jobs");
    assert_eq!(std::fs::read_dir(places).unwrap().count(), 0);
}

#[test]
fn a_branch_worker_woken_after_its_branch_was_taken_back_writes_nothing_that_lands() {
    let pool = Pool::new();
    let (id, stopped, _) = left_taken_back_from(&pool, "-STOP", "4s");
    let published = pool.remote_git(&["for-each-ref"]);
    super::signal(&stopped, "-CONT");
    let out = stopped.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "run {id} (branch left): another worker holds its lease now"
        )),
        "{stderr}"
    );
    assert_eq!(pool.remote_git(&["for-each-ref"]), published);
    pool.remote_git(&["fsck", "--strict"]);
}

#[test]
fn a_branch_worker_stopped_with_ctrl_c_gives_its_branch_back_at_once() {
    let pool = Pool::new();
    // A 30 s lease, which the holder does not wait out: the helper gives the branch back.
    let (id, interrupted, took) = left_taken_back_from(&pool, "-INT", "30s");
    assert!(took < Duration::from_secs(15), "{took:?}");
    let out = interrupted.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.ends_with(&format!(
            "branch left of run {id} was interrupted; its run's worker runs it\n"
        )),
        "{stderr}"
    );
}

#[test]
fn an_offer_not_built_on_the_runs_branch_is_run_by_no_worker_and_goes_with_the_run() {
    let pool = Pool::new();
    let root = pool.repo.root.clone();
    let id = pool.submit(&fan_out(&root, Shape::Plain));
    let holder = holder(&pool, &id, "20s");
    // Someone who may push to the remote offers a branch of the run built on work of their
    // own, for a pass the run never reaches.
    let empty = pool
        .repo
        .git(&["hash-object", "-t", "tree", "-w", "/dev/null"]);
    let empty = empty.trim();
    let theirs = pool.repo.git(&["commit-tree", empty, "-m", "their work"]);
    let trailers = format!("Fabro-Run: {id}\nFabro-Branch-Job: offer");
    let offer = pool.repo.git(&[
        "commit-tree",
        empty,
        "-p",
        theirs.trim(),
        "-m",
        "branch left offered",
        "-m",
        &trailers,
    ]);
    let forged = format!("refs/fabro/branch/{id}/fan/pass7/left");
    pool.repo.git(&[
        "push",
        "-q",
        "origin",
        &format!("{}:{forged}", offer.trim()),
    ]);

    let helper = helper(&pool, "worker-2", "20s");
    std::thread::sleep(std::time::Duration::from_secs(1));
    std::fs::write(root.join("go"), "").unwrap();
    let held = holder.wait_with_output().unwrap();
    assert!(
        held.status.success(),
        "{}",
        String::from_utf8_lossy(&held.stderr)
    );
    let out = helper.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "branch job {forged} is not built on run {id}'s branch; this worker leaves it"
        )),
        "{stderr}"
    );
    assert_eq!(pool.remote_git(&["rev-parse", &forged]), offer);
    // The run's holder took only its own jobs off the remote; the forged one goes when the
    // finished run leaves it.
    assert_eq!(pool.pool_refs(), format!("{forged}\n"));
    pool.repo.ok(&["gc", "--remote", "origin"]);
    assert_eq!(pool.pool_refs(), "");
}

#[test]
fn a_done_job_whose_work_is_not_built_on_the_pass_is_not_taken_and_the_branch_runs_on_the_holder() {
    let pool = Pool::new();
    let root = pool.repo.root.clone();
    let go_left = root.join("go-left");
    std::fs::write(&go_left, "").unwrap();
    let id = pool.submit(&fan_out(&root, Shape::LeftWaitsFor(&go_left)));
    let holder = holder(&pool, &id, "20s");
    std::fs::write(root.join("go"), "").unwrap();
    // `left` is on offer while the holder's one thread runs `right`; someone who may push to
    // the remote ends the job with work of their own.
    let job = format!("refs/fabro/branch/{id}/fan/pass1/left");
    let deadline = Instant::now() + Duration::from_secs(30);
    let offer = loop {
        let tip = pool.remote_git(&["for-each-ref", "--format=%(objectname)", &job]);
        if !tip.trim().is_empty() {
            break tip.trim().to_owned();
        }
        assert!(Instant::now() < deadline, "left was never offered");
        std::thread::sleep(Duration::from_millis(20));
    };
    let git = |args: &[&str]| {
        let who = [
            "-c",
            "user.name=someone",
            "-c",
            "user.email=someone@example.invalid",
        ];
        pool.remote_git(&[&who[..], args].concat())
            .trim()
            .to_owned()
    };
    let tree_of = |name: &str, data: &[u8]| {
        let blob = pool
            .repo
            .git_stdin_in(&pool.bare, &["hash-object", "-w", "--stdin"], data);
        let entry = format!("100644 blob {blob}\t{name}\n");
        pool.repo
            .git_stdin_in(&pool.bare, &["mktree"], entry.as_bytes())
    };
    let theirs = git(&[
        "commit-tree",
        &tree_of("left.txt", b"evil\n"),
        "-m",
        "their work",
    ]);
    let outcome_tree = tree_of("outcome.json", b"{\"status\": \"succeeded\"}");
    let trailers = format!("Fabro-Run: {id}\nFabro-Branch-Job: done");
    let done = git(&[
        "commit-tree",
        &outcome_tree,
        "-p",
        &offer,
        "-p",
        &theirs,
        "-m",
        "branch left done",
        "-m",
        &trailers,
    ]);
    git(&["update-ref", &job, &done, &offer]);
    std::fs::write(root.join("left.where"), "").unwrap();

    let held = holder.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&held.stderr);
    assert!(held.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "the branch job of parallel branch left ended with work not built on the pass's base"
        ),
        "{stderr}"
    );
    let branch = format!("fabro/run/parallel/{id}/fan/pass1/left:left.txt");
    assert_eq!(pool.remote_git(&["show", &branch]), "left\n");
    assert!(!ran_at(&root, "left").contains("branch-jobs"));
    assert_eq!(pool.pool_refs(), "");
    pool.remote_git(&["fsck", "--strict"]);
}
