//! Parallel nodes and fan-ins, as Fabro runs them: every branch in a linked worktree of its
//! own on `fabro/run/parallel/<run>/<node>/pass<visit>/<branch>`, its work committed there, the
//! first succeeded branch fast-forwarded into the run branch, the worktrees removed after the
//! join, and the branches removed by `gc` with their run. Checked with plain git.

use serde_json::{Value, json};

use crate::common::failpoints::die_at;
use crate::common::workflow::{MERGE, between, command, parallel};
use crate::common::{TestRepo, read_file, texts};
use crate::engine_retry::{events, run, run_json, stages, workflow};
use crate::format_contract::assert_fabro_shapes;

fn parallel_refs(repo: &TestRepo) -> Vec<String> {
    repo.git(&[
        "for-each-ref",
        "--format=%(refname)",
        "refs/heads/fabro/run/parallel",
    ])
    .lines()
    .map(str::to_owned)
    .collect()
}

fn fan() -> String {
    // The edges name c first: the branch that joins the run is the first succeeded by id.
    let branches = [
        ("c", "echo C > c.txt; echo from c"),
        ("b", "echo B > b.txt; exit 1"),
        ("a", "echo A > a.txt"),
    ];
    let fork = parallel("fork [shape=component]", &branches, MERGE);
    let after = command("after", "ls *.txt > seen.txt");
    between(
        "fan",
        &format!("{fork}\n{after}\nstart -> fork\nmerge -> after -> exit"),
    )
}

#[test]
fn branches_run_in_worktrees_of_their_own_and_the_winner_joins_the_run() {
    let repo = TestRepo::new();
    let ran = run(&repo, &workflow(&repo, "fan", &fan()));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let id = ran.id.clone();
    // wait_all with a failed branch: partially succeeded, then the join node.
    assert_eq!(
        stages(&ran),
        [
            "start@1 succeeded",
            "fork@1 partially_succeeded",
            "merge@1 succeeded",
            "after@1 succeeded"
        ]
    );

    let prefix = format!("refs/heads/fabro/run/parallel/{id}/fork/pass1");
    assert_eq!(
        parallel_refs(&repo),
        [
            format!("{prefix}/a"),
            format!("{prefix}/b"),
            format!("{prefix}/c")
        ]
    );
    for (branch, status, file) in [
        ("a", "succeeded", "a.txt"),
        ("b", "failed", "b.txt"),
        ("c", "succeeded", "c.txt"),
    ] {
        let name = format!("{prefix}/{branch}");
        let subject = repo.git(&["log", "-1", "--format=%s", &name]);
        assert_eq!(subject.trim(), format!("fabro({id}): {branch} ({status})"));
        let trailer = repo.git(&[
            "log",
            "-1",
            "--format=%(trailers:key=Fabro-Run,valueonly)",
            &name,
        ]);
        assert_eq!(trailer.trim(), id);
        repo.git(&["cat-file", "-e", &format!("{name}:{file}")]);
        // Each branch starts from the parallel base on the run branch.
        let parent = repo.git(&["rev-parse", &format!("{name}^")]);
        let base = repo.git(&["rev-parse", &format!("fabro/run/{id}~4")]);
        assert_eq!(parent, base, "{branch}");
    }
    // The base is Fabro's: the run's work so far, completing no node and linking no checkpoint.
    let base = format!("fabro/run/{id}~4");
    assert_eq!(
        repo.git(&["log", "-1", "--format=%B", &base]),
        format!("fabro({id}): fork (parallel_base)\n\nFabro-Run: {id}\nFabro-Completed: 0\n\n")
    );
    let message = repo.root.join("base-message");
    std::fs::write(&message, repo.git(&["log", "-1", "--format=%B", &base])).unwrap();
    let parsed = repo.git(&["interpret-trailers", "--parse", message.to_str().unwrap()]);
    assert_eq!(parsed, format!("Fabro-Run: {id}\nFabro-Completed: 0\n"));
    assert_eq!(
        repo.git(&["rev-parse", &format!("{base}^{{tree}}")]),
        repo.git(&["rev-parse", &format!("{base}^^{{tree}}")])
    );

    // The first succeeded branch by id (a) was fast-forwarded into the run branch.
    let run_branch = format!("fabro/run/{id}");
    let a_head = repo.git(&["rev-parse", &format!("{prefix}/a")]);
    assert_eq!(repo.git(&["rev-parse", &format!("{run_branch}~3")]), a_head);
    assert_eq!(
        repo.git(&["show", &format!("{run_branch}:seen.txt")]),
        "a.txt\n"
    );
    let log = repo.git(&["log", "--format=%s", "--first-parent", &run_branch, "^main"]);
    assert_eq!(
        log.lines().collect::<Vec<_>>(),
        [
            format!("fabro({id}): after (succeeded)"),
            format!("fabro({id}): merge (succeeded)"),
            format!("fabro({id}): fork (partially_succeeded)"),
            format!("fabro({id}): a (succeeded)"),
            format!("fabro({id}): fork (parallel_base)"),
        ]
    );
    // The timeline reads past the branch commit.
    assert_eq!(
        texts(&repo.log_json(&id), "node_id"),
        ["fork", "merge", "after"]
    );

    let checkpoint = &run_json(&repo, &id)["checkpoint"];
    let context = &checkpoint["context_values"];
    let c_head = repo.git(&["rev-parse", &format!("{prefix}/c")]);
    let b_head = repo.git(&["rev-parse", &format!("{prefix}/b")]);
    assert_eq!(
        context["parallel.results"],
        json!([
            { "id": "c", "status": "succeeded", "head_sha": c_head.trim() },
            { "id": "b", "status": "failed", "head_sha": b_head.trim() },
            { "id": "a", "status": "succeeded", "head_sha": a_head.trim() },
        ])
    );
    assert_eq!(context["parallel.branch_count"], 3);
    assert_eq!(context["parallel.fan_in.best_id"], "a");
    assert_eq!(context["parallel.fan_in.best_outcome"], "succeeded");
    assert_eq!(context["parallel.fan_in.best_head_sha"], a_head.trim());
    // Branch nodes are not stages of the run; their context changes are dropped.
    assert_eq!(
        checkpoint["completed_nodes"],
        json!(["start", "fork", "merge", "after"])
    );
    let fork_notes = &checkpoint["node_outcomes"]["fork"]["notes"];
    assert_eq!(
        fork_notes,
        "Parallel node dispatched 3 branches (2 succeeded, 1 failed)"
    );
    // A branch's stage files are kept with the parallel node's stage.
    let stdout = repo.git(&[
        "show",
        &format!("fabro/meta/{id}:stages/002-fork@1/c/stdout.log"),
    ]);
    assert_eq!(stdout, "from c\n");
    // Why a branch failed is kept where people look: its outcome beside its files, and its
    // branch commit's body.
    let outcome: Value = serde_json::from_str(&repo.git(&[
        "show",
        &format!("fabro/meta/{id}:stages/002-fork@1/b/outcome.json"),
    ]))
    .expect("outcome.json is JSON");
    assert_eq!(outcome["status"], "failed");
    let notes = outcome["notes"].as_str().unwrap_or_default();
    assert!(notes.contains("exit code: 1"), "{notes}");
    let body = repo.git(&["log", "-1", "--format=%b", &format!("{prefix}/b")]);
    assert!(body.contains("exit code: 1"), "{body}");

    let names = |name: &str| events(&repo, &id, name).len();
    assert_eq!(names("parallel.started"), 1);
    assert_eq!(names("parallel.branch.started"), 3);
    assert_eq!(names("parallel.branch.completed"), 3);
    let completed = events(&repo, &id, "parallel.completed");
    assert_eq!(completed[0]["properties"]["success_count"], 2);
    assert_eq!(completed[0]["properties"]["failure_count"], 1);

    // No worktree is left: the branches' went after the join, the run's at its end.
    let worktrees = repo.git(&["worktree", "list", "--porcelain"]);
    assert!(!worktrees.contains("fabro/run/"), "{worktrees}");
    repo.git(&["fsck", "--strict"]);
    repo.ok(&["fsck"]);
    assert_fabro_shapes(&repo);

    // gc removes the branches with their run.
    repo.ok(&["gc", "--finished-older-than", "0"]);
    assert!(parallel_refs(&repo).is_empty());
    assert_eq!(repo.git(&["for-each-ref", "refs/heads/fabro"]), "");
    repo.git(&["fsck", "--strict"]);
}

/// Branch `wait` succeeds only if `signal` runs while it waits: only when both run at once.
fn meeting(repo: &TestRepo, max_parallel: u32) -> String {
    let marker = repo.root.join("signal.ready");
    let marker = marker.display();
    let fork = format!(
        r#"fork [shape=component, max_parallel={max_parallel}, join_policy="first_success"]"#
    );
    let wait =
        format!("for i in $(seq 120); do [ -f {marker} ] && exit 0; sleep 0.05; done; exit 1");
    let signal = format!("touch {marker}");
    let body = parallel(&fork, &[("wait", &wait), ("signal", &signal)], MERGE);
    between("meet", &format!("{body}\nstart -> fork\nmerge -> exit"))
}

fn branch_statuses(repo: &TestRepo, id: &str) -> Value {
    run_json(repo, id)["checkpoint"]["context_values"]["parallel.results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!([r["id"], r["status"]]))
        .collect()
}

#[test]
fn max_parallel_bounds_how_many_branches_run_at_once() {
    let repo = TestRepo::new();
    let together = run(&repo, &workflow(&repo, "together", &meeting(&repo, 2)));
    assert_eq!(together.code, 0, "{}", together.stderr);
    assert_eq!(
        branch_statuses(&repo, &together.id),
        json!([["wait", "succeeded"], ["signal", "succeeded"]])
    );
    std::fs::remove_file(repo.root.join("signal.ready")).unwrap();

    // One at a time, in edge order: `wait` gives up before `signal` starts. first_success
    // still succeeds, and the winner is the branch that succeeded.
    let alone = run(&repo, &workflow(&repo, "alone", &meeting(&repo, 1)));
    assert_eq!(alone.code, 0, "{}", alone.stderr);
    assert_eq!(
        branch_statuses(&repo, &alone.id),
        json!([["wait", "failed"], ["signal", "succeeded"]])
    );
    let context = &run_json(&repo, &alone.id)["checkpoint"]["context_values"];
    assert_eq!(context["parallel.fan_in.best_id"], "signal");
    repo.git(&["fsck", "--strict"]);
}

#[test]
fn a_join_nobody_satisfied_fails_as_fabro_does() {
    let repo = TestRepo::new();
    let branches = [("x", "exit 2"), ("y", "exit 3")];
    let gate = "merge [shape=tripleoctagon, goal_gate=true]";
    let body = parallel("fork [shape=component]", &branches, gate);
    let text = &between("none", &format!("{body}\nstart -> fork\nmerge -> exit"));
    let ran = run(&repo, &workflow(&repo, "none", text));
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(
        stages(&ran),
        [
            "start@1 succeeded",
            "fork@1 partially_succeeded",
            "merge@1 failed"
        ]
    );
    assert!(
        ran.stderr.contains("all candidates failed"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("goal gate unsatisfied for node merge and no retry target"),
        "{}",
        ran.stderr
    );
    // Nothing succeeded, so the run branch stays at the fork's commit.
    let id = &ran.id;
    let subject = repo.git(&["log", "-2", "--format=%s", &format!("fabro/run/{id}")]);
    assert_eq!(
        subject.lines().collect::<Vec<_>>(),
        [
            format!("fabro({id}): merge (failed)"),
            format!("fabro({id}): fork (partially_succeeded)"),
        ]
    );

    // first_success with no success fails the parallel node, whose own (branch) edges then
    // apply: Fabro's quirk, kept.
    let text = text
        .replace(
            "fork [shape=component]",
            "fork [shape=component, join_policy=\"first_success\"]",
        )
        .replace("digraph none", "digraph first");
    let ran = run(&repo, &workflow(&repo, "first", &text));
    assert_eq!(
        stages(&ran)[..3],
        ["start@1 succeeded", "fork@1 failed", "x@1 failed"]
    );
    let outcome = &run_json(&repo, &ran.id)["checkpoint"]["node_outcomes"]["fork"];
    assert_eq!(
        outcome["failure"]["message"],
        "Join policy not satisfied: 0/2 succeeded"
    );
    let worktrees = repo.git(&["worktree", "list", "--porcelain"]);
    assert!(!worktrees.contains("parallel"), "{worktrees}");
    repo.git(&["fsck", "--strict"]);
}

#[test]
fn a_run_killed_during_a_parallel_node_resumes_with_the_work_its_branches_committed() {
    for point in [
        "engine:parallel-base:fork",
        "engine:parallel-branches-ran:fork@1",
        "engine:parallel-joined:fork@1",
    ] {
        let repo = TestRepo::new();
        let count = repo.root.join("branches.count");
        let counted = &fan().replace(
            "echo A > a.txt",
            &format!("echo A > a.txt; echo a >> {}", count.display()),
        );
        let counted = counted.replace(
            "echo B > b.txt",
            &format!("echo B > b.txt; echo b >> {}", count.display()),
        );
        let path = workflow(&repo, "fan", &counted);
        die_at(repo.fabro().arg("run").arg(&path), point);
        let ids = repo.runs_with_metadata();
        let id = ids.trim().to_owned();
        // The kill left the parallel base, the branches' worktrees, or the joined run branch
        // behind; fsck knows them for the run's.
        let made = if point.starts_with("engine:parallel-base") {
            0
        } else {
            3
        };
        assert_eq!(parallel_refs(&repo).len(), made, "{point}");
        let fsck = repo.output(&["fsck", "--json"]);
        let fsck = String::from_utf8_lossy(&fsck.stdout);
        assert!(!fsck.contains("stale-worktree"), "{point}: {fsck}");

        let out = repo.output(&["resume", &id]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{point}: {stderr}");
        let checkpoint = &run_json(&repo, &id)["checkpoint"];
        assert_eq!(
            checkpoint["completed_nodes"],
            json!(["start", "fork", "merge", "after"]),
            "{point}"
        );
        // The branches' committed work was taken, not done again.
        let mut counted: Vec<String> = read_file(&count).lines().map(str::to_owned).collect();
        counted.sort();
        assert_eq!(counted, ["a", "b"], "{point}");
        let results = &checkpoint["context_values"]["parallel.results"];
        assert_eq!(
            results[1],
            json!({ "id": "b", "status": "failed", "head_sha": results[1]["head_sha"] })
        );
        let log = repo.git(&[
            "log",
            "--format=%s",
            "--first-parent",
            &format!("fabro/run/{id}"),
            "^main",
        ]);
        // One parallel base, written again by no resume.
        assert_eq!(log.lines().count(), 5, "{point}: {log}");
        assert_eq!(log.matches("(parallel_base)").count(), 1, "{point}: {log}");
        let run_branch = format!("fabro/run/{id}");
        assert_eq!(
            repo.git(&["show", &format!("{run_branch}:seen.txt")]),
            "a.txt\n",
            "{point}"
        );
        assert_eq!(parallel_refs(&repo).len(), 3, "{point}");
        let worktrees = repo.git(&["worktree", "list", "--porcelain"]);
        assert!(!worktrees.contains("fabro/run/"), "{point}: {worktrees}");
        repo.git(&["fsck", "--strict"]);
        repo.ok(&["fsck"]);
    }
}

#[test]
fn a_run_in_place_refuses_parallel_branches() {
    let repo = TestRepo::new();
    let path = workflow(&repo, "fan", &fan());
    let out = repo
        .fabro_in(&repo.path)
        .arg("run")
        .arg(&path)
        .arg("--in-place")
        .output()
        .unwrap();
    let id = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap()
        .to_owned();
    let outcome = &run_json(&repo, &id)["checkpoint"]["node_outcomes"]["fork"];
    assert_eq!(outcome["status"], "failed");
    assert_eq!(
        outcome["failure"]["message"],
        "parallel branches need the run's own worktree; this run works in place"
    );
    assert!(parallel_refs(&repo).is_empty());
    let worktrees = repo.git(&["worktree", "list", "--porcelain"]);
    assert!(!worktrees.contains("parallel"), "{worktrees}");
}

#[test]
fn a_run_killed_at_its_parallel_base_counts_the_nodes_before_it_and_resumes_on_that_base() {
    let repo = TestRepo::new();
    let prepared = &fan().replace(
        "start -> fork",
        "prep [shape=parallelogram, script=\"echo base > base.txt\"]\n  start -> prep -> fork",
    );
    let path = workflow(&repo, "fan", prepared);
    die_at(
        repo.fabro().arg("run").arg(&path),
        "engine:parallel-base:fork",
    );
    let ps: Value = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    let run = &ps.as_array().unwrap()[0];
    let id = run["run_id"].as_str().unwrap().to_owned();
    // The base completes no node: the run has done prep, as its timeline says.
    assert_eq!(run["completed"], 1, "{ps}");
    assert_eq!(texts(&repo.log_json(&id), "node_id"), ["prep"]);

    repo.ok(&["resume", &id]);
    let log = repo.git(&[
        "log",
        "--format=%s",
        "--first-parent",
        &format!("fabro/run/{id}"),
    ]);
    assert_eq!(log.matches("fork (parallel_base)").count(), 1, "{log}");
    repo.git(&["fsck", "--strict"]);
}
