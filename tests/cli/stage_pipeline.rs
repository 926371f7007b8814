//! One stage pipeline: a node behaves the same as a parallel branch and inside a manager
//! loop's child as it does at the top of a run. For each place: a side effect is never run
//! twice after a kill, a human gate takes the run's answers (or stops the run until given
//! one), retries and their policy apply, and Ctrl-C during a backoff stops the run at once.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::failpoints::die_at;
use crate::common::{TestRepo, write_file};
use crate::engine_run::run_json;

/// Where the node `x` under test runs.
#[derive(Clone, Copy)]
enum Place {
    /// One of two branches of a parallel node.
    Branch,
    /// In the child workflow of a manager loop.
    Child,
}

/// A workflow that runs `x` (declared by `node`, with `edge` leading out of it) at `place`;
/// returns the path of the workflow to run.
fn workflow(repo: &TestRepo, place: Place, node: &str) -> PathBuf {
    let dir = repo.root.join("flows");
    let parent = dir.join("parent.fabro");
    match place {
        Place::Branch => write_file(
            &parent,
            &format!(
                "digraph B {{ start [shape=Mdiamond]; exit [shape=Msquare]\n  \
                 fork [shape=component]\n  \
                 other [shape=parallelogram, script=\"echo other > other.txt\"]\n  \
                 {node}\n  merge [shape=tripleoctagon]\n  \
                 start -> fork; fork -> other; fork -> x; other -> merge\n  \
                 x -> merge [label=\"[A] Approve\"]\n  merge -> exit }}\n"
            ),
        ),
        Place::Child => {
            write_file(
                &dir.join("child.fabro"),
                &format!(
                    "digraph C {{ start [shape=Mdiamond]; exit [shape=Msquare]\n  {node}\n  \
                     start -> x\n  x -> exit [label=\"[A] Approve\"] }}\n"
                ),
            );
            write_file(
                &parent,
                "digraph P { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
                 manage [shape=house, stack.child_workflow=\"child.fabro\"]\n  \
                 start -> manage -> exit }\n",
            );
        }
    }
    parent
}

/// Every run's id, the parent (the run with no `parent_run_id`) first.
fn runs(repo: &TestRepo) -> Vec<String> {
    let refs = repo.runs_with_metadata();
    let mut ids: Vec<String> = refs.lines().map(str::to_owned).collect();
    ids.sort_by_key(|id| !run_json(repo, id)["spec"]["parent_run_id"].is_null());
    ids
}

/// The run that holds `x`'s record: the child for `Place::Child`, else the parent.
fn holder(repo: &TestRepo, place: Place) -> String {
    let ids = runs(repo);
    match place {
        Place::Branch => ids[0].clone(),
        Place::Child => ids.last().expect("a child run").clone(),
    }
}

/// The subject of `x`'s parallel branch's tip: `fabro(<run>): x (<status>)`.
fn branch_subject(repo: &TestRepo) -> String {
    let refs = repo.git(&["for-each-ref", "--format=%(refname) %(subject)"]);
    refs.lines()
        .find(|l| l.contains("/parallel/") && l.contains("/x "))
        .unwrap_or_else(|| panic!("no parallel branch for x in\n{refs}"))
        .to_owned()
}

/// What `x` came to where it ran: its branch commit's status, or its checkpoint's in the child.
fn x_status(repo: &TestRepo, place: Place) -> String {
    match place {
        Place::Branch => {
            let subject = branch_subject(repo);
            let status = subject
                .rsplit_once('(')
                .map(|(_, s)| s.trim_end_matches(')'));
            status.unwrap_or_default().to_owned()
        }
        Place::Child => {
            let record = run_json(repo, &holder(repo, place));
            let outcome = &record["checkpoint"]["node_outcomes"]["x"]["status"];
            outcome.as_str().unwrap_or_default().to_owned()
        }
    }
}

fn fabro(repo: &TestRepo, args: &[&str]) -> (i32, String) {
    let out = repo
        .fabro()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("git-fabro runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), stderr)
}

fn meta_paths(repo: &TestRepo, id: &str) -> String {
    repo.files_in(&format!("fabro/meta/{id}"))
}

// --- side effects ---

fn side_effect_is_never_run_twice(place: Place) {
    let repo = TestRepo::new();
    let log = repo.root.join("deploys.log");
    let node = format!(
        "x [shape=parallelogram, side_effect=true, script=\"echo $FABRO_IDEMPOTENCY_KEY >> {}\"]",
        log.display()
    );
    let path = workflow(&repo, place, &node);
    let path = path.to_str().expect("a UTF-8 path");
    // Killed once the intent is committed, before the script ran.
    die_at(
        repo.fabro().args(["run", path]),
        "engine:intent-written:x@1",
    );
    let parent = runs(&repo)[0].clone();
    let intents = meta_paths(&repo, &holder(&repo, place));
    assert!(intents.contains("intents/x@1.json"), "{intents}");

    let (code, stderr) = fabro(&repo, &["resume", &parent]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("x@1"), "{stderr}");
    assert!(
        stderr.contains(&format!("git fabro resume {parent} --assume-done x")),
        "{stderr}"
    );
    assert!(!log.exists(), "the side effect ran again");

    let (code, stderr) = fabro(&repo, &["resume", &parent, "--assume-done", "x"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!log.exists(), "the side effect ran again");
    assert_eq!(x_status(&repo, place), "succeeded");
    assert_eq!(
        runs(&repo).len(),
        1 + matches!(place, Place::Child) as usize
    );
    for id in runs(&repo) {
        assert!(!meta_paths(&repo, &id).contains("intents/"), "{id}");
    }
    assert_eq!(repo.ok(&["fsck"]), "");
}

#[test]
fn a_side_effect_branch_killed_after_its_intent_is_never_run_twice() {
    side_effect_is_never_run_twice(Place::Branch);
}

#[test]
fn a_side_effect_in_a_manager_child_killed_after_its_intent_is_never_run_twice() {
    side_effect_is_never_run_twice(Place::Child);
}

// --- human gates ---

fn gate_takes_the_runs_answers(place: Place) {
    let repo = TestRepo::new();
    let path = workflow(&repo, place, "x [shape=hexagon, label=\"Ship?\"]");
    let path = path.to_str().expect("a UTF-8 path");
    let (code, stderr) = fabro(&repo, &["run", path, "--auto-approve"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(x_status(&repo, place), "succeeded");

    // Nobody to ask: the run stops blocked, resumable with an answer.
    let repo = TestRepo::new();
    let path = workflow(&repo, place, "x [shape=hexagon, label=\"Ship?\"]");
    let path = path.to_str().expect("a UTF-8 path");
    let (code, stderr) = fabro(&repo, &["run", path]);
    assert_eq!(code, 4, "{stderr}");
    let parent = runs(&repo)[0].clone();
    assert_eq!(run_json(&repo, &parent)["status"]["kind"], "blocked");
    let (code, stderr) = fabro(&repo, &["resume", &parent, "--answer", "x=A"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(run_json(&repo, &parent)["status"]["kind"], "succeeded");
    assert_eq!(x_status(&repo, place), "succeeded");
    assert_eq!(
        runs(&repo).len(),
        1 + matches!(place, Place::Child) as usize
    );
}

#[test]
fn a_human_gate_branch_takes_the_runs_answers_or_blocks_the_run() {
    gate_takes_the_runs_answers(Place::Branch);
}

#[test]
fn a_human_gate_in_a_manager_child_takes_the_runs_answers_or_blocks_the_run() {
    gate_takes_the_runs_answers(Place::Child);
}

// --- retries ---

/// `x`: a script that counts its attempts in `counter` and times out on the first.
fn flaky(counter: &Path, policy: &str, sleeps_until: u32) -> String {
    let counter = counter.display();
    format!(
        "x [shape=parallelogram, timeout=300ms, retry_policy=\"{policy}\", script=\"echo x >> {counter}; \
         n=$(wc -l < {counter}); if [ $n -lt {sleeps_until} ]; then sleep 5; fi\"]"
    )
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

fn retries_apply(place: Place) {
    let repo = TestRepo::new();
    let counter = repo.root.join("attempts");
    let path = workflow(&repo, place, &flaky(&counter, "linear", 2));
    let path = path.to_str().expect("a UTF-8 path");
    let (code, stderr) = fabro(&repo, &["run", path]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(lines(&counter), 2);
    assert_eq!(x_status(&repo, place), "succeeded");
}

#[test]
fn a_branch_node_gets_its_retry_policy() {
    retries_apply(Place::Branch);
}

#[test]
fn a_manager_child_node_gets_its_retry_policy() {
    retries_apply(Place::Child);
}

// --- Ctrl-C during a backoff ---

/// The `progress.jsonl` lines of every run directory.
fn all_events(repo: &TestRepo) -> Vec<Value> {
    let Ok(dirs) = std::fs::read_dir(repo.home.join("runs")) else {
        return Vec::new();
    };
    dirs.flatten()
        .filter_map(|d| std::fs::read_to_string(d.path().join("progress.jsonl")).ok())
        .flat_map(|text| {
            let events: Vec<Value> = text
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            events
        })
        .collect()
}

fn x_events(repo: &TestRepo, name: &str) -> usize {
    all_events(repo)
        .iter()
        .filter(|e| e["event"] == name && e["node_id"] == "x")
        .count()
}

fn ctrl_c_during_backoff_stops_at_once(place: Place) {
    let repo = TestRepo::new();
    let counter = repo.root.join("attempts");
    // Five attempts, each timing out, with seconds of backoff between them.
    let path = workflow(&repo, place, &flaky(&counter, "standard", 99));
    let mut engine = repo
        .fabro()
        .arg("run")
        .arg(&path)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("git-fabro starts");
    let patience = Instant::now();
    while x_events(&repo, "stage.retrying") == 0 {
        assert!(
            patience.elapsed() < Duration::from_secs(60),
            "no retry came"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = engine.id().to_string();
    let signalled = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill runs");
    assert!(signalled.success());
    let status = engine.wait().expect("git-fabro ends");
    assert_eq!(status.code(), Some(130));
    // No attempt started after Ctrl-C, and nothing of the stage was recorded.
    assert_eq!(x_events(&repo, "stage.started"), 1);
    assert_eq!(lines(&counter), 1);
    for id in runs(&repo) {
        assert_eq!(run_json(&repo, &id)["status"]["kind"], "paused", "{id}");
    }
}

#[test]
fn ctrl_c_during_a_branch_backoff_stops_the_run_at_once() {
    ctrl_c_during_backoff_stops_at_once(Place::Branch);
}

#[test]
fn ctrl_c_during_a_manager_child_backoff_stops_the_run_at_once() {
    ctrl_c_during_backoff_stops_at_once(Place::Child);
}

// --- engine failures inside a manager child ---

#[test]
fn a_ref_lock_inside_a_manager_child_leaves_both_runs_resumable() {
    let repo = TestRepo::new();
    // The child's node leaves a lock on its own metadata branch, as a process killed while
    // moving that ref would: the checkpoint cannot record the node.
    // Only once: the node that runs again on resume leaves none.
    let once = repo.root.join("locked-once");
    let lock = format!(
        "[ -e {once} ] || {{ touch {once}; touch \\\"$(git rev-parse --git-common-dir)/refs/heads/fabro/meta/$FABRO_RUN_ID.lock\\\"; }}",
        once = once.display()
    );
    let path = workflow(
        &repo,
        Place::Child,
        &format!("x [shape=parallelogram, script=\"echo work > work.txt; {lock}\"]"),
    );
    let path = path.to_str().expect("a UTF-8 path");
    let (code, stderr) = fabro(&repo, &["run", path]);
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains(".lock"), "{stderr}");
    let ids = runs(&repo);
    assert_eq!(ids.len(), 2);
    // Not a recorded failure of the manager node: both runs are still running.
    for id in &ids {
        assert_eq!(run_json(&repo, id)["status"]["kind"], "running", "{id}");
    }
    let parent = &ids[0];
    let parent_record = run_json(&repo, parent);
    let outcomes = &parent_record["checkpoint"]["node_outcomes"];
    assert!(outcomes.get("manage").is_none(), "{outcomes}");

    // Once the lock is gone, resume takes the same child up and both finish.
    let child = &ids[1];
    let git_dir = repo.git(&["rev-parse", "--git-common-dir"]);
    let lock = repo
        .path
        .join(git_dir.trim())
        .join(format!("refs/heads/fabro/meta/{child}.lock"));
    std::fs::remove_file(&lock).expect("the lock is there");
    let (code, stderr) = fabro(&repo, &["resume", parent]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(runs(&repo).len(), 2);
    assert_eq!(run_json(&repo, parent)["status"]["kind"], "succeeded");
    assert_eq!(run_json(&repo, child)["status"]["kind"], "succeeded");
}
