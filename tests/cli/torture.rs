//! Crash and concurrency torture. Commands are killed with SIGKILL at pseudo-random moments
//! (a fixed seed, so a failure reproduces); after every kill git must accept the repository,
//! `git fabro fsck` may report only what `--repair` fixes, no checkpoint whose command had
//! exited 0 may be lost, and running the command again must finish the job.
//!
//! Each kill of a command with failure points (src/failpoint.rs) is traced: the assertions
//! name the last write boundary it passed, and each test prints a tally of where its kills
//! landed (`cargo test -- --nocapture torture` shows it).
//!
//! `FABRO_TORTURE_TRIALS` (default 100 per test, 200 kills in all) scales it up by hand.

use std::collections::BTreeSet;
use std::process::Stdio;

use serde_json::Value;

use crate::common::failpoints::Tally;
use crate::common::{TestRepo, kill_after, read_file, rerun, run_ok, texts, write_file};

/// A small linear congruential generator: enough spread for kill delays, and reproducible.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }
}

pub fn trials() -> usize {
    std::env::var("FABRO_TORTURE_TRIALS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100)
}

/// git accepts the repository, and git-fabro finds nothing `--repair` cannot fix.
pub fn assert_consistent(repo: &TestRepo, context: &str) {
    if assert_repairable(repo, context) {
        run_ok(repo.fabro().args(["fsck", "--repair"]));
    }
}

pub fn timeline_commits(repo: &TestRepo, id: &str) -> BTreeSet<String> {
    texts(&repo.log_json(id), "run_commit")
        .into_iter()
        .collect()
}

#[test]
fn killed_checkpoints_lose_nothing_that_was_recorded() {
    let (repo, run) = TestRepo::with_run();
    let mut rng = Lcg(0x5eed_0001);
    let mut recorded = BTreeSet::new();
    let mut tally = Tally::default();
    for trial in 0..trials() {
        write_file(
            &run.worktree.join(format!("f{}.txt", trial % 7)),
            &format!("{trial}\n"),
        );
        let node = format!("n{trial}");
        let before = repo.git(&["rev-parse", &format!("fabro/run/{}", run.id)]);
        let (exited_ok, landed) = tally.kill_after(
            &repo,
            repo.fabro()
                .args(["checkpoint", "--run", &run.id, "--node", &node]),
            rng.next(25_000),
        );
        if exited_ok {
            let after = repo.git(&["rev-parse", &format!("fabro/run/{}", run.id)]);
            assert_ne!(before, after, "trial {trial}: exit 0 but nothing recorded");
            recorded.insert(after.trim().to_owned());
        }
        assert_consistent(&repo, &format!("checkpoint trial {trial} ({landed})"));
        let timeline = timeline_commits(&repo, &run.id);
        assert!(
            recorded.is_subset(&timeline),
            "trial {trial} ({landed}): a recorded checkpoint is gone"
        );
        if !exited_ok {
            recorded.insert(
                rerun(&repo, &["checkpoint", "--run", &run.id, "--node", &node])
                    .trim()
                    .to_owned(),
            );
        }
    }
    tally.report("killed checkpoints");
    assert_completed_one_more_each(&repo.log_json(&run.id));
}

/// Each entry of a timeline completed one node more than the one before it, from 1: no kill
/// lost a count or counted a checkpoint twice.
pub fn assert_completed_one_more_each(timeline: &[Value]) {
    let counts: Vec<u64> = timeline
        .iter()
        .map(|e| e["completed"].as_u64().expect("a count"))
        .collect();
    assert_eq!(counts, (1..=counts.len() as u64).collect::<Vec<_>>());
}

#[test]
fn killed_forks_rewinds_restores_and_finishes_are_finished_by_a_rerun() {
    let repo = TestRepo::new();
    let mut rng = Lcg(0x5eed_0002);
    let n = trials();
    let mut tally = Tally::default();
    for trial in 0..n {
        // A fresh source each time: rewind and finish change it.
        let run = repo.start();
        write_file(&run.worktree.join("a.txt"), "one\n");
        repo.checkpoint(&run.id, "one");
        write_file(&run.worktree.join("a.txt"), "two\n");
        write_file(&run.worktree.join("b.txt"), "two\n");
        repo.checkpoint(&run.id, "two");
        write_file(&run.worktree.join("c.txt"), "uncommitted\n");
        let delay = rng.next(30_000);
        let (args, check): (Vec<String>, &str) = match trial % 4 {
            0 => (vec!["fork".into(), run.id.clone(), "@1".into()], "fork"),
            1 => (
                vec![
                    "rewind".into(),
                    run.id.clone(),
                    "@1".into(),
                    "--force".into(),
                ],
                "rewind",
            ),
            2 => (
                vec![
                    "restore".into(),
                    "--run".into(),
                    run.id.clone(),
                    "@1".into(),
                ],
                "restore",
            ),
            _ => (
                vec![
                    "finish".into(),
                    "--run".into(),
                    run.id.clone(),
                    "--keep-worktree".into(),
                ],
                "finish",
            ),
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (_, landed) = tally.kill_after(&repo, repo.fabro().args(&args), delay);
        let context = format!("{check} trial {trial} ({delay}us, {landed})");
        assert_consistent(&repo, &context);
        let out = rerun(&repo, &args);
        match check {
            "rewind" => {
                let record: Value = serde_json::from_str(
                    &repo.git(&["show", &format!("fabro/meta/{}:run.json", run.id)]),
                )
                .unwrap();
                assert_eq!(
                    record["superseded_by"],
                    out.trim(),
                    "{context}: one replacement, named by the source"
                );
            }
            "restore" => {
                assert_eq!(read_file(run.worktree.join("a.txt")), "one\n");
                assert!(
                    !run.worktree.join("b.txt").exists() && !run.worktree.join("c.txt").exists()
                );
            }
            "finish" => {
                let record: Value = serde_json::from_str(
                    &repo.git(&["show", &format!("fabro/meta/{}:run.json", run.id)]),
                )
                .unwrap();
                assert_eq!(record["status"]["kind"], "succeeded");
                assert!(run.run_dir.join("conclusion.json").is_file(), "{context}");
            }
            _ => assert_eq!(repo.log_json(out.trim()).len(), 1),
        }
        assert_eq!(
            repo.log_json(&run.id).len(),
            2,
            "{context}: the source's checkpoints are intact"
        );
        assert_consistent(&repo, &format!("{context} after the rerun"));
    }
    tally.report("killed forks, rewinds, restores and finishes");
}

#[test]
fn many_processes_on_one_run_and_many_runs_at_once() {
    let repo = TestRepo::new();
    let runs: Vec<_> = (0..4).map(|_| repo.start()).collect();
    let children: Vec<(String, String, std::process::Child)> = runs
        .iter()
        .flat_map(|run| (0..6).map(move |i| (run.id.clone(), format!("n{i}"))))
        .map(|(id, node)| {
            let child = repo
                .fabro()
                .args(["checkpoint", "--run", &id, "--node", &node])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            (id, node, child)
        })
        .collect();
    let mut succeeded: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    for (id, node, child) in children {
        let out = child.wait_with_output().unwrap();
        match out.status.code() {
            Some(0) => {
                succeeded.entry(id).or_default().insert(node);
            }
            Some(3) => {}
            other => panic!(
                "{id} {node} exited {other:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        }
    }
    for run in &runs {
        let recorded: BTreeSet<String> = texts(&repo.log_json(&run.id), "node_id")
            .into_iter()
            .collect();
        assert_eq!(
            recorded,
            succeeded.remove(&run.id).unwrap_or_default(),
            "run {}",
            run.id
        );
    }
    assert_consistent(&repo, "after the crowd");
}

/// The hook's text and mode, for comparing whole files.
fn hook_state(path: &std::path::Path) -> Option<(String, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let text = std::fs::read_to_string(path).ok()?;
    let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o7777;
    Some((text, mode))
}

#[test]
fn killed_hook_installs_and_uninstalls_leave_the_old_hook_or_the_new_one_whole() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TestRepo::new();
    let hook = repo.path.join(".git/hooks/pre-push");
    let mut mine = "#!/bin/sh\n".to_owned();
    for i in 0..2_000 {
        mine.push_str(&format!("echo 'user check {i}' >/dev/null\n"));
    }
    write_file(&hook, &mine);
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o750)).unwrap();
    let without = hook_state(&hook).unwrap();
    repo.ok(&["hooks", "install", "--pre-push"]);
    let with = hook_state(&hook).unwrap();
    repo.ok(&["hooks", "uninstall", "--pre-push"]);
    assert_eq!(hook_state(&hook).unwrap(), without);

    let mut rng = Lcg(0x5eed_0004);
    for trial in 0..trials() {
        let (action, before, after) = if trial % 2 == 0 {
            ("install", &without, &with)
        } else {
            ("uninstall", &with, &without)
        };
        kill_after(
            repo.fabro().args(["hooks", action, "--pre-push"]),
            rng.next(4_000),
        );
        let state = hook_state(&hook).expect("the hook is still there");
        assert!(
            &state == before || &state == after,
            "trial {trial} ({action}): the hook is neither the old one nor the new one, whole \
             (mode {:o}, {} bytes)",
            state.1,
            state.0.len()
        );
        // Bring it to the state the next trial starts from.
        run_ok(repo.fabro().args(["hooks", action, "--pre-push"]));
        assert_eq!(&hook_state(&hook).unwrap(), after);
    }
}

/// git accepts the repository and `git fabro fsck` reports only what `--repair` fixes,
/// without repairing anything: the rerun that follows must finish the job by itself. Returns
/// whether it reported anything.
pub fn assert_repairable(repo: &TestRepo, context: &str) -> bool {
    let git = repo.git_output(&repo.path, &["fsck", "--strict", "--no-dangling"]);
    assert!(
        git.status.success(),
        "{context}: {}",
        String::from_utf8_lossy(&git.stderr)
    );
    let out = repo.output(&["fsck", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for problem in report["problems"].as_array().unwrap() {
        assert_eq!(problem["repairable"], true, "{context}: {problem}");
    }
    !out.status.success()
}

fn gone(repo: &TestRepo, id: &str) -> bool {
    !repo
        .git(&["for-each-ref", "--format=%(refname)"])
        .contains(id)
}

#[test]
fn killed_gcs_lose_no_work_and_a_rerun_collects() {
    let repo = TestRepo::new();
    let mut rng = Lcg(0x5eed_0003);
    // Never collected: a live run, and an archived one whose worktree holds unrecorded work.
    let live = repo.start();
    write_file(&live.worktree.join("live.txt"), "live\n");
    repo.checkpoint(&live.id, "live");
    let dirty = repo.start();
    repo.checkpoint(&dirty.id, "dirty");
    repo.ok(&["archive", &dirty.id]);
    write_file(&dirty.worktree.join("unsaved.txt"), "not recorded\n");
    let mut tally = Tally::default();
    for trial in 0..(trials() / 4).max(1) {
        let run = repo.start();
        write_file(&run.worktree.join("a.txt"), &format!("{trial}\n"));
        repo.checkpoint(&run.id, "a");
        repo.ok(&["finish", "--run", &run.id, "--keep-worktree"]);
        repo.ok(&["archive", &run.id]);
        let delay = rng.next(60_000);
        let args = ["gc", "--older-than", "0"];
        let (_, landed) = tally.kill_after(&repo, repo.fabro().args(args), delay);
        let context = format!("gc trial {trial} ({delay}us, {landed})");
        assert_repairable(&repo, &context);
        rerun(&repo, &args);
        assert!(gone(&repo, &run.id), "{context}: the run is collected");
        assert!(
            !run.worktree.exists() && !run.run_dir.exists(),
            "{context}: its worktree and run directory are gone"
        );
        assert!(
            !repo.git(&["worktree", "list"]).contains(&run.id),
            "{context}"
        );
        assert_eq!(repo.log_json(&live.id).len(), 1, "{context}");
        assert_eq!(repo.log_json(&dirty.id).len(), 1, "{context}");
        assert_eq!(
            read_file(dirty.worktree.join("unsaved.txt")),
            "not recorded\n",
            "{context}"
        );
        assert_consistent(&repo, &format!("{context} after the rerun"));
    }
    tally.report("killed gcs");
}

#[test]
fn killed_fsck_repairs_lose_no_work_and_a_rerun_repairs() {
    const ULID: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let repo = TestRepo::new();
    let mut rng = Lcg(0x5eed_0004);
    let live = repo.start();
    repo.checkpoint(&live.id, "live");
    write_file(&live.worktree.join("unsaved.txt"), "not recorded\n");
    repo.git(&["branch", "mine"]);
    let head = repo.git(&["rev-parse", "HEAD"]);
    for trial in 0..(trials() / 4).max(1) {
        let suffix: String = [trial / 32 % 32, trial % 32]
            .iter()
            .map(|&i| ULID[i] as char)
            .collect();
        // What killed commands leave: a run branch without a run, a removed worktree, a run
        // directory of a vanished run.
        let orphan = format!("01ARZ3NDEKTSV4RRFFQ69G5F{suffix}");
        repo.git(&[
            "update-ref",
            &format!("refs/heads/fabro/run/{orphan}"),
            head.trim(),
        ]);
        let removed = repo.start();
        std::fs::remove_dir_all(&removed.worktree).unwrap();
        let vanished = format!("01ARZ3NDEKTSV4RRFFQ69G6F{suffix}");
        write_file(
            &repo
                .home
                .join(format!("runs/20200101-{vanished}/manifest.json")),
            &format!(
                "{{\"run_id\":\"{vanished}\",\"start_time\":\"x\",\"run_branch\":\"x\",\"meta_branch\":\"x\",\"base_sha\":\"x\",\"repository\":{:?}}}",
                repo.path.to_str().unwrap()
            ),
        );
        let delay = rng.next(40_000);
        let args = ["fsck", "--repair"];
        kill_after(repo.fabro().args(args), delay);
        let context = format!("fsck --repair trial {trial} ({delay}us)");
        assert_repairable(&repo, &context);
        rerun(&repo, &args);
        run_ok(repo.fabro().arg("fsck"));
        assert!(gone(&repo, &orphan), "{context}");
        assert_eq!(repo.log_json(&live.id).len(), 1, "{context}");
        assert_eq!(repo.log_json(&removed.id).len(), 0, "{context}");
        assert_eq!(
            read_file(live.worktree.join("unsaved.txt")),
            "not recorded\n",
            "{context}"
        );
        assert_eq!(repo.git(&["rev-parse", "mine"]), head, "{context}");
    }
}

/// After a kill mid-checkout: git-fabro finds only what `--repair` fixes, the repair clears
/// every leftover of the checkout, and then git accepts the repository (git itself rejects a
/// registration killed before its HEAD was written). A ref lock the kill left is reported
/// only once it is old enough to count as stale, so it may turn up later.
fn assert_repaired_after_checkout(repo: &TestRepo, context: &str) {
    let problems = |repo: &TestRepo| -> Vec<Value> {
        let out = repo.output(&["fsck", "--json"]);
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        report["problems"].as_array().unwrap().clone()
    };
    for problem in problems(repo) {
        assert_eq!(problem["repairable"], true, "{context}: {problem}");
    }
    run_ok(repo.fabro().args(["fsck", "--repair"]));
    for problem in problems(repo) {
        assert_eq!(problem["kind"], "stale-lock", "{context}: {problem}");
    }
    assert_consistent(repo, context);
}

/// The run ids on the repository's metadata branches.
fn run_ids(repo: &TestRepo) -> BTreeSet<String> {
    repo.runs_with_metadata()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Resumes `id` and checks that its worktree is a whole, clean checkout of the run's tip.
fn assert_resumes_whole(repo: &TestRepo, id: &str, files: usize, context: &str) {
    let out = repo.output(&["resume", id]);
    assert!(
        out.status.success(),
        "{context}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        state["dirty"], false,
        "{context}: adopted an unfinished worktree"
    );
    let worktree = std::path::PathBuf::from(state["worktree"].as_str().unwrap());
    let checked_out = std::fs::read_dir(worktree.join("files")).unwrap().count();
    assert_eq!(checked_out, files, "{context}");
}

#[test]
fn killed_starts_and_resumes_leave_nothing_that_is_adopted_or_in_the_way() {
    let repo = TestRepo::new();
    let files = 150;
    for i in 0..files {
        repo.write(&format!("files/f{i:03}.txt"), &format!("{i}\n"));
    }
    repo.commit_all("many files");
    let mut rng = Lcg(0x5eed_0003);
    let mut tally = Tally::default();
    for trial in 0..trials() / 4 {
        let before = run_ids(&repo);
        let delay = rng.next(150_000);
        let (_, landed) = tally.kill_after(&repo, repo.fabro().arg("start"), delay);
        let context = format!("start trial {trial} ({delay}us, {landed})");
        assert_repaired_after_checkout(&repo, &context);
        let started: Vec<String> = run_ids(&repo).difference(&before).cloned().collect();
        for id in &started {
            assert_resumes_whole(&repo, id, files, &context);
        }
        let run = match started.first() {
            Some(id) => id.clone(),
            None => repo.start().id,
        };

        // A resume that has to check the worktree out again, killed on the way.
        let worktree = repo
            .git(&["worktree", "list", "--porcelain"])
            .lines()
            .filter_map(|l| l.strip_prefix("worktree "))
            .find(|path| path.contains(&run))
            .map(str::to_owned);
        if let Some(worktree) = worktree {
            repo.git(&["worktree", "remove", "--force", &worktree]);
        }
        let delay = rng.next(150_000);
        let (_, landed) = tally.kill_after(&repo, repo.fabro().args(["resume", &run]), delay);
        let context = format!("resume trial {trial} ({delay}us, {landed})");
        assert_repaired_after_checkout(&repo, &context);
        assert_resumes_whole(&repo, &run, files, &context);
        run_ok(
            repo.fabro()
                .args(["finish", "--run", &run, "--status", "failed"]),
        );
    }
    tally.report("killed starts and resumes");
}
