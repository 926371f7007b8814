//! Runs on many machines: `submit` queues a run on a shared remote, `worker` runs it on another
//! clone with a home of its own (another machine's trust store and run directories) under a
//! lease, a worker that stops answering is taken over, and what it writes afterwards never
//! lands. Checked with plain git on the remote.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{TestRepo, run_err, run_ok};

/// A repository with a bare remote `origin`, and clones of it that act as worker machines.
struct Pool {
    repo: TestRepo,
    bare: PathBuf,
}

impl Pool {
    fn new() -> Pool {
        let repo = TestRepo::new();
        let bare = repo.root.join("remote.git");
        repo.git(&["clone", "-q", "--bare", path(&repo.path), path(&bare)]);
        repo.git(&["remote", "add", "origin", path(&bare)]);
        Pool { repo, bare }
    }

    /// A clone of the remote that works as machine `name`: its own fabro home.
    fn machine(&self, name: &str) -> PathBuf {
        let dir = self.repo.root.join(name);
        self.repo.git_in(
            &self.repo.root,
            &["clone", "-q", path(&self.bare), path(&dir)],
        );
        dir
    }

    /// The fabro home of machine `machine`.
    fn fabro_home(&self, machine: &Path) -> PathBuf {
        let name = machine.file_name().unwrap().to_str().unwrap();
        self.repo.root.join(format!("{name}-fabro-home"))
    }

    fn fabro_on(&self, machine: &Path, args: &[&str]) -> Command {
        let mut cmd = self.repo.fabro_in(machine);
        cmd.env("FABRO_HOME", self.fabro_home(machine));
        cmd.args(args);
        cmd
    }

    /// Queues `workflow` (its text) from the repository and returns the run id.
    fn submit(&self, workflow: &str) -> String {
        self.submit_with(workflow, &[])
    }

    /// [`Pool::submit`] with more flags.
    fn submit_with(&self, workflow: &str, flags: &[&str]) -> String {
        let file = self.repo.root.join("flow.fabro");
        std::fs::write(&file, workflow).unwrap();
        let mut args = vec!["submit", path(&file), "--remote", "origin", "--json"];
        args.extend_from_slice(flags);
        let submitted: Value = serde_json::from_str(&self.repo.ok(&args)).unwrap();
        submitted["run_id"].as_str().unwrap().to_owned()
    }

    /// `git` in the remote.
    fn remote_git(&self, args: &[&str]) -> String {
        self.repo.git_in(&self.bare, args)
    }

    fn subjects(&self, id: &str) -> Vec<String> {
        let log = self.remote_git(&["log", "--format=%s", &format!("fabro/run/{id}"), "^main"]);
        log.lines()
            .map(|l| l.replace(&format!("fabro({id}): "), ""))
            .collect()
    }

    fn pool_refs(&self) -> String {
        self.remote_git(&["for-each-ref", "--format=%(refname)", "refs/fabro/"])
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn spawn(mut cmd: Command) -> Child {
    cmd.stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until `file` exists, and fails with the worker's errors should it end first.
fn wait_for(file: &Path, worker: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !file.exists() {
        if let Ok(Some(status)) = worker.try_wait() {
            let mut stderr = String::new();
            std::io::Read::read_to_string(worker.stderr.as_mut().unwrap(), &mut stderr).unwrap();
            panic!(
                "the worker ended ({status}) before {}: {stderr}",
                file.display()
            );
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([name, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Three command nodes; the second waits for the file `go` beside the repository after it
/// says it started, so that a test can stop its worker in the middle of it.
fn held_at_two(root: &Path) -> String {
    let (started, go) = (root.join("two-started"), root.join("go"));
    format!(
        r#"digraph held {{
  start [shape=Mdiamond]
  exit [shape=Msquare]
  one [shape=parallelogram, script="echo one > one.txt"]
  two [shape=parallelogram, script="touch {}; while [ ! -e {} ]; do sleep 0.02; done; echo two > two.txt"]
  three [shape=parallelogram, script="echo three > three.txt"]
  start -> one -> two -> three -> exit
}}"#,
        started.display(),
        go.display()
    )
}

/// A worker on machine `worker-1` with a lease of `ttl`, stopped with SIGSTOP once it runs the
/// node `two` of [`held_at_two`].
fn stopped_in_two(pool: &Pool, ttl: &str) -> Child {
    let first = pool.machine("worker-1");
    let worker = [
        "worker", "--remote", "origin", "--once", "--trust", "--ttl", ttl,
    ];
    let mut stalled = spawn(pool.fabro_on(&first, &worker));
    wait_for(&pool.repo.root.join("two-started"), &mut stalled);
    signal(&stalled, "-STOP");
    stalled
}

#[test]
fn a_queued_run_is_run_by_a_worker_on_another_machine_and_leaves_the_queue() {
    let pool = Pool::new();
    let id = pool.submit(&held_at_two(&pool.repo.root));
    std::fs::write(pool.repo.root.join("go"), "").unwrap();
    assert_eq!(pool.pool_refs(), format!("refs/fabro/queue/{id}\n"));
    let listed: Value =
        serde_json::from_str(&pool.repo.ok(&["ps", "--remote", "origin", "--json"])).unwrap();
    assert_eq!(
        listed,
        serde_json::json!([{ "run_id": id, "state": "queued" }])
    );
    // Submitting checked nothing out here, not even for a moment: the run works elsewhere.
    assert!(!pool.repo.git(&["worktree", "list"]).contains(&id));
    assert!(!pool.repo.root.join(".git/worktrees").exists());
    assert_eq!(pool.repo.output(&["path", &id]).status.code(), Some(1));

    let worker = pool.machine("worker-1");
    run_ok(&mut pool.fabro_on(
        &worker,
        &[
            "worker", "--remote", "origin", "--once", "--trust", "--ttl", "5s",
        ],
    ));
    assert_eq!(
        pool.subjects(&id),
        ["three (succeeded)", "two (succeeded)", "one (succeeded)"]
    );
    assert_eq!(
        pool.pool_refs(),
        "",
        "the lease and the queue ref went with the last push"
    );
    pool.remote_git(&["fsck", "--strict"]);

    // The submitter fetches the finished run and sees it as git does.
    pool.repo.ok(&["fetch", "origin", &id]);
    let ps: Value = serde_json::from_str(&pool.repo.ok(&["ps", "--json"])).unwrap();
    assert_eq!(ps[0]["status"], "succeeded", "{ps}");
    pool.repo.ok(&["fsck"]);
}

#[test]
fn a_worker_runs_no_workflow_its_machine_did_not_approve_and_the_run_stays_queued() {
    let pool = Pool::new();
    let id = pool.submit(&held_at_two(&pool.repo.root));
    let worker = pool.machine("worker-1");
    let (code, stderr) =
        run_err(&mut pool.fabro_on(&worker, &["worker", "--remote", "origin", "--run", &id]));
    assert_eq!(code, 5, "{stderr}");
    assert!(
        stderr.contains("was not written or approved on this machine"),
        "{stderr}"
    );
    assert_eq!(pool.pool_refs(), format!("refs/fabro/queue/{id}\n"));
    assert_eq!(pool.subjects(&id), Vec::<String>::new());
}

#[test]
fn a_worker_that_stops_answering_is_taken_over_and_nothing_it_writes_later_lands() {
    let pool = Pool::new();
    let root = pool.repo.root.clone();
    let id = pool.submit(&held_at_two(&root));
    let second = pool.machine("worker-2");
    // A lease of 6 s: renewals must get through within 3 s on a busy machine.
    let stalled = stopped_in_two(&pool, "6s");
    assert_eq!(pool.subjects(&id), ["one (succeeded)"]);

    // The second worker waits the stalled lease out on its own clock, then takes the run on
    // from its last published checkpoint, in the next epoch.
    std::fs::write(root.join("go"), "").unwrap();
    let took = Instant::now();
    let out = run_ok(&mut pool.fabro_on(
        &second,
        &[
            "worker", "--remote", "origin", "--run", &id, "--trust", "--ttl", "5s",
        ],
    ));
    assert!(out.contains(&id), "{out}");
    assert!(took.elapsed() >= Duration::from_secs(6));
    assert_eq!(
        pool.subjects(&id),
        ["three (succeeded)", "two (succeeded)", "one (succeeded)"]
    );
    let published = pool.remote_git(&["for-each-ref", "refs/heads/fabro/"]);

    // Woken, the first worker learns it lost the run, stops, and its checkpoint of `two`
    // never reaches the remote.
    signal(&stalled, "-CONT");
    let ended = stalled.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&ended.stderr);
    assert_eq!(ended.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.ends_with(&format!(
            "error: run {id}: another worker holds its lease now; this worker stopped, and nothing it wrote since its last push reached the remote\n"
        )),
        "{stderr}"
    );
    assert_eq!(
        pool.remote_git(&["for-each-ref", "refs/heads/fabro/"]),
        published
    );
    assert_eq!(pool.pool_refs(), "");
    pool.remote_git(&["fsck", "--strict"]);
}

/// A worker unheard for half its lease's life stops on its own clock, before any other worker
/// may take over: none did, so its error says why it stopped instead of naming a taker. (Seen
/// in bench/pool.py on a busy machine: a 2 s lease whose claim and fetch took over a second.)
#[test]
fn a_worker_that_could_not_renew_in_time_says_so_and_not_that_another_worker_took_the_run() {
    let pool = Pool::new();
    let root = pool.repo.root.clone();
    let id = pool.submit(&held_at_two(&root));
    let stalled = stopped_in_two(&pool, "4s");
    // Past half the lease's life and short of all of it: no taker may have begun.
    std::thread::sleep(Duration::from_secs(3));
    signal(&stalled, "-CONT");
    let ended = stalled.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&ended.stderr);
    assert_eq!(ended.status.code(), Some(3), "{stderr}");
    let epoch = pool.remote_git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Fabro-Lease-Epoch,valueonly)",
        &format!("refs/fabro/lease/{id}"),
    ]);
    assert_eq!(epoch.trim(), "1", "the lease is still the first worker's");
    assert!(
        stderr.ends_with(&format!(
            "error: run {id}: this worker could not renew its lease for half its life (2s) and stopped; nothing it wrote since its last push reached the remote, and another worker takes the run over once the lease has run out\n"
        )),
        "{stderr}"
    );
}

#[test]
fn a_killed_workers_side_effect_is_not_run_again_by_its_taker_without_a_decision() {
    let pool = Pool::new();
    let root = pool.repo.root.clone();
    let (count, started, go) = (root.join("paid"), root.join("pay-started"), root.join("go"));
    // The intent is on the remote before the side effect starts: the script checks.
    let workflow = format!(
        r#"digraph pay {{
  start [shape=Mdiamond]
  exit [shape=Msquare]
  pay [shape=parallelogram, side_effect=true, script="git --git-dir={bare} ls-tree -r --name-only refs/heads/fabro/meta/$FABRO_RUN_ID | grep -q '^intents/pay@1.json$' || exit 9; echo paid >> {count}; touch {started}; while [ ! -e {go} ]; do sleep 0.02; done"]
  start -> pay -> exit
}}"#,
        bare = pool.bare.display(),
        count = count.display(),
        started = started.display(),
        go = go.display()
    );
    let id = pool.submit(&workflow);
    let first = pool.machine("worker-1");
    let mut killed = spawn(pool.fabro_on(
        &first,
        &[
            "worker", "--remote", "origin", "--once", "--trust", "--ttl", "6s",
        ],
    ));
    wait_for(&started, &mut killed);
    killed.kill().unwrap();
    killed.wait().unwrap();
    std::fs::write(&go, "").unwrap();

    let second = pool.machine("worker-2");
    let (code, stderr) = run_err(&mut pool.fabro_on(
        &second,
        &[
            "worker", "--remote", "origin", "--run", &id, "--trust", "--ttl", "5s",
        ],
    ));
    assert_eq!(code, 1, "{stderr}");
    let intent = pool.remote_git(&["show", &format!("fabro/meta/{id}:intents/pay@1.json")]);
    let intent: Value = serde_json::from_str(&intent).unwrap();
    // The worker's name holds its host and process id.
    let owner = stderr.split(':').next().unwrap();
    let resume = format!("git fabro resume {id} --remote origin");
    assert_eq!(
        stderr,
        format!(
            "{owner}: running run {id} (epoch 2)\n\
             error: run {id} stopped while the side-effect node pay@1 ran (started {}, never recorded): it may have done its work or not\n\
             hint: check, then `{resume} --rerun pay` runs it again or `{resume} --assume-done pay` records it as succeeded and goes on\n",
            intent["started_at"].as_str().unwrap()
        )
    );
    assert_eq!(std::fs::read_to_string(&count).unwrap(), "paid\n");
    assert_eq!(pool.pool_refs(), format!("refs/fabro/wait/{id}\n"));
    let listed: Value =
        serde_json::from_str(&pool.repo.ok(&["ps", "--remote", "origin", "--json"])).unwrap();
    assert_eq!(
        listed,
        serde_json::json!([{ "run_id": id, "state": "needs-decision", "waits_at": ["pay"] }])
    );
    // No worker takes a run that waits for a person.
    let out = run_ok(&mut pool.fabro_on(
        &second,
        &[
            "worker",
            "--remote",
            "origin",
            "--exit-when-idle",
            "--trust",
        ],
    ));
    assert_eq!(out, "");

    // The decision the hint names, taken from the submitter's clone: the payment happened, so
    // the next worker goes on past it.
    let assume_done = &crate::next_steps::named_commands(&stderr)[1];
    let words: Vec<&str> = assume_done.split(' ').collect();
    pool.repo.ok(&words);
    assert_eq!(pool.pool_refs(), format!("refs/fabro/queue/{id}\n"));
    run_ok(&mut pool.fabro_on(
        &second,
        &["worker", "--remote", "origin", "--once", "--trust"],
    ));
    assert_eq!(std::fs::read_to_string(&count).unwrap(), "paid\n");
    assert_eq!(pool.subjects(&id), ["pay (succeeded)"]);
    assert_eq!(pool.pool_refs(), "");
}

#[test]
fn a_run_blocked_at_a_gate_waits_on_the_remote_for_an_answer_given_from_another_clone() {
    let pool = Pool::new();
    let id = pool.submit(&crate::engine_human::gate());
    let worker = pool.machine("worker-1");
    let worker_once = ["worker", "--remote", "origin", "--once", "--trust"];
    let (code, stderr) = run_err(&mut pool.fabro_on(&worker, &worker_once));
    assert_eq!(code, 4, "blocked, as `resume` exits at a gate");
    assert!(
        stderr.ends_with(&format!(
            "hint: answer it with `git fabro resume {id} --remote origin --answer approve=CHOICE` (a key, number, label or node id)\n"
        )),
        "{stderr}"
    );
    assert_eq!(pool.pool_refs(), format!("refs/fabro/wait/{id}\n"));
    let message = |rev: &str| pool.remote_git(&["log", "-1", "--format=%B", rev]);
    let wait = format!("refs/fabro/wait/{id}");
    assert_eq!(
        message(&wait),
        format!(
            "wait {id} for answer at approve\n\nFabro-Run: {id}\nFabro-Wait: answer\nFabro-Wait-Node: approve\n\n"
        )
    );
    // What it replaced: the submission, with what the submitter's machine approved.
    let submission = message(&format!("{wait}^"));
    assert!(
        submission.starts_with(&format!("queue {id}\n\nFabro-Run: {id}\nFabro-Approved: ")),
        "{submission}"
    );

    // Another clone answers: the run comes there to be looked at, and an answer that names
    // no choice of the gate is refused before anything moves.
    let reviewer = pool.machine("reviewer");
    let answer = |choice: &str| {
        let answer = format!("approve={choice}");
        pool.fabro_on(
            &reviewer,
            &["resume", &id, "--remote", "origin", "--answer", &answer],
        )
    };
    let (code, stderr) = run_err(&mut answer("maybe"));
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(pool.pool_refs(), format!("refs/fabro/wait/{id}\n"));
    let (code, stderr) = run_err(&mut pool.fabro_on(
        &reviewer,
        &["resume", &id, "--remote", "origin", "--rerun", "build"],
    ));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: run {id} waits for answer at approve: give --answer NODE=CHOICE (it waits at approve) or --auto-approve\n"
        )),
        "{stderr}"
    );
    run_ok(&mut answer("A"));
    assert_eq!(pool.pool_refs(), format!("refs/fabro/queue/{id}\n"));

    // The next worker goes on with the answer; a second answer finds nothing waiting.
    run_ok(&mut pool.fabro_on(&worker, &worker_once));
    assert_eq!(
        pool.subjects(&id),
        [
            "ship (succeeded)",
            "approve (succeeded)",
            "build (succeeded)"
        ]
    );
    assert_eq!(pool.pool_refs(), "");
    let (code, stderr) = run_err(&mut answer("A"));
    assert_eq!(
        (code, stderr),
        (
            1,
            format!(
                "error: run {id} waits for no answer or decision on origin: it is not queued there\n\
                 hint: it ended or was never queued there: `git fabro fetch origin {id}` brings it here, where `git fabro resume {id}` goes on with it\n"
            )
        )
    );
    pool.remote_git(&["fsck", "--strict"]);
}

mod executors;
mod fan_out;
mod gc_remote;
mod hostile;
mod manager;
mod signed;
