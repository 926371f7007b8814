//! `git fabro run WORKFLOW`: the engine runs start, exit, conditional, wait and command nodes
//! (agent and prompt nodes: `engine_agent`),
//! checkpoints every node as Fabro counts them (the start node on the metadata branch only,
//! so the first run commit says `Fabro-Completed: 2`), follows Fabro's edges, finishes the
//! run, and `resume` continues a run it left without running a recorded node again.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::failpoints::die_at;
use crate::common::workflow::{between, chain, command, commands};
use crate::common::{TestRepo, assert_success, read_file, run_err};
use crate::format_contract::assert_fabro_shapes;

/// Writes `workflow` beside the repository (not in it) and returns its path.
pub fn workflow(repo: &TestRepo, name: &str, text: &str) -> PathBuf {
    repo.write_beside(format!("{name}.fabro"), text)
}

pub struct Ran {
    pub id: String,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run(repo: &TestRepo, path: &Path, extra: &[&str]) -> Ran {
    let out = repo
        .fabro()
        .arg("run")
        .arg(path)
        .args(extra)
        .output()
        .expect("git-fabro runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    Ran {
        id: run_id(&stdout),
        code: out.status.code().unwrap_or(-1),
        stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The run commits of `id`, oldest first: (subject, trailers as `git interpret-trailers` reads
/// them).
pub fn run_commits(repo: &TestRepo, id: &str) -> Vec<(String, String)> {
    let shas = repo.git(&[
        "rev-list",
        "--reverse",
        "--first-parent",
        &format!("fabro/run/{id}"),
        "^main",
    ]);
    shas.lines()
        .map(|sha| {
            let message = repo.git(&["log", "-1", "--format=%B", sha]);
            let subject = message.lines().next().unwrap_or("").to_owned();
            let trailers = repo
                .command("git")
                .args(["interpret-trailers", "--parse"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut child| {
                    use std::io::Write;
                    child
                        .stdin
                        .take()
                        .expect("stdin")
                        .write_all(message.as_bytes())?;
                    child.wait_with_output()
                })
                .expect("git interpret-trailers runs");
            (
                subject,
                String::from_utf8_lossy(&trailers.stdout).into_owned(),
            )
        })
        .collect()
}

pub fn completed_counts(repo: &TestRepo, id: &str) -> Vec<String> {
    run_commits(repo, id)
        .iter()
        .map(|(_, trailers)| {
            trailers
                .lines()
                .find_map(|l| l.strip_prefix("Fabro-Completed: "))
                .expect("a Fabro-Completed trailer")
                .to_owned()
        })
        .collect()
}

/// The nodes of the run commits of `id`, oldest first.
pub fn committed_nodes(repo: &TestRepo, id: &str) -> Vec<String> {
    repo.git(&[
        "log",
        "--reverse",
        "--first-parent",
        "--format=%s",
        &format!("fabro/run/{id}"),
        "^main",
    ])
    .lines()
    .map(|s| s.split(": ").nth(1).unwrap_or(s).to_owned())
    .collect()
}

pub fn meta_file(repo: &TestRepo, id: &str, path: &str) -> String {
    repo.git(&["show", &format!("fabro/meta/{id}:{path}")])
}

pub fn run_json(repo: &TestRepo, id: &str) -> Value {
    serde_json::from_str(&meta_file(repo, id, "run.json")).expect("run.json is JSON")
}

pub fn run_dir(repo: &TestRepo, id: &str) -> PathBuf {
    std::fs::read_dir(repo.home.join("runs"))
        .expect("runs dir")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(id))
        .expect("the run's directory")
}

/// `node@visit status` of each stage in the `--json` summary.
pub fn stages(summary: &Value) -> Vec<String> {
    summary["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .map(|s| {
            format!(
                "{}@{} {}",
                s["node_id"].as_str().unwrap(),
                s["visit"],
                s["status"].as_str().unwrap()
            )
        })
        .collect()
}

/// The run id `run` or `resume` printed: the first line of stdout, or with `--json` the
/// document's `run_id` (the document is all of stdout then).
pub fn run_id(stdout: &str) -> String {
    match serde_json::from_str::<Value>(stdout) {
        Ok(summary) => summary["run_id"].as_str().unwrap_or("").to_owned(),
        Err(_) => stdout.lines().next().unwrap_or("").to_owned(),
    }
}

pub fn summary(ran: &Ran) -> Value {
    serde_json::from_str(&ran.stdout).expect("--json prints one document, all of stdout")
}

fn pipeline() -> String {
    between(
        "pipeline",
        r#"graph [goal="Three commands"]
  make [shape=parallelogram, script="echo one > made.txt; echo made"]
  grow [shape=parallelogram, script="echo two >> made.txt; echo grown >&2"]
  show [shape=parallelogram, script="cat made.txt"]
  start -> make -> grow -> show -> exit"#,
    )
}

#[test]
fn a_pipeline_of_commands_is_checkpointed_node_by_node_and_finished() {
    let repo = TestRepo::new();
    let path = workflow(&repo, "pipeline", &pipeline());
    let ran = run(&repo, &path, &["--json", "--label", "team=core"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let id = ran.id.clone();
    assert_eq!(id.len(), 26, "the document names the run: {}", ran.stdout);
    let summary = summary(&ran);
    assert_eq!(summary["run_id"], id.as_str());
    assert_eq!(summary["status"], "succeeded");
    assert!(summary["duration_ms"].is_u64());
    assert_eq!(
        stages(&summary),
        [
            "start@1 succeeded",
            "make@1 succeeded",
            "grow@1 succeeded",
            "show@1 succeeded"
        ]
    );
    assert!(summary["stages"][1]["duration_ms"].is_u64());
    for line in ["make@1  succeeded", "(exit 0)", "show@1  succeeded"] {
        assert!(ran.stderr.contains(line), "{line}: {}", ran.stderr);
    }

    // One run commit per node but the start node, counted as Fabro counts.
    let commits = run_commits(&repo, &id);
    let subjects: Vec<&str> = commits.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        subjects,
        [
            format!("fabro({id}): make (succeeded)"),
            format!("fabro({id}): grow (succeeded)"),
            format!("fabro({id}): show (succeeded)"),
        ]
    );
    assert_eq!(completed_counts(&repo, &id), ["2", "3", "4"]);
    for (_, trailers) in &commits {
        assert!(trailers.contains(&format!("Fabro-Run: {id}")), "{trailers}");
        let meta = trailers
            .lines()
            .find_map(|l| l.strip_prefix("Fabro-Checkpoint: "))
            .expect("Fabro-Checkpoint");
        repo.git(&[
            "merge-base",
            "--is-ancestor",
            meta,
            &format!("fabro/meta/{id}"),
        ]);
    }
    let made = repo.git(&["show", &format!("fabro/run/{id}:made.txt")]);
    assert_eq!(made, "one\ntwo\n");

    // The start node is checkpointed on the metadata branch, with no run commit.
    let meta_log = repo.git(&["log", "--format=%s", &format!("fabro/meta/{id}")]);
    assert!(
        meta_log.contains("checkpoint start@1 (succeeded)"),
        "{meta_log}"
    );
    let record = run_json(&repo, &id);
    assert_eq!(record["spec"]["completed_offset"], 1);
    assert_eq!(record["spec"]["engine"], "git-fabro");
    assert_eq!(record["spec"]["labels"]["team"], "core");
    assert_eq!(record["status"]["kind"], "succeeded");
    let checkpoint = &record["checkpoint"];
    assert_eq!(
        checkpoint["completed_nodes"],
        serde_json::json!(["start", "make", "grow", "show"])
    );
    assert_eq!(checkpoint["next_node_id"], "exit");
    assert_eq!(checkpoint["node_outcomes"]["grow"]["status"], "succeeded");
    assert_eq!(checkpoint["context_values"]["command.output"], "one\ntwo\n");

    // Fabro's stage files, on the metadata branch.
    let start: Value =
        serde_json::from_str(&meta_file(&repo, &id, "stages/001-start@1/status.json")).unwrap();
    assert_eq!(start["next_node_id"], "make");
    let grow = "stages/003-grow@1";
    assert_eq!(
        meta_file(&repo, &id, &format!("{grow}/stderr.log")),
        "grown\n"
    );
    assert_eq!(meta_file(&repo, &id, &format!("{grow}/stdout.log")), "");
    let invocation: Value = serde_json::from_str(&meta_file(
        &repo,
        &id,
        &format!("{grow}/script_invocation.json"),
    ))
    .unwrap();
    assert_eq!(invocation["language"], "shell");
    assert_eq!(invocation["timeout_ms"], 600_000);
    let timing: Value = serde_json::from_str(&meta_file(
        &repo,
        &id,
        &format!("{grow}/script_timing.json"),
    ))
    .unwrap();
    assert_eq!(timing["exit_code"], 0);
    assert_eq!(timing["timed_out"], false);
    let status: Value =
        serde_json::from_str(&meta_file(&repo, &id, &format!("{grow}/status.json"))).unwrap();
    assert_eq!(status["outcome"], "succeeded");
    assert_eq!(status["next_node_id"], "show");
    assert!(
        status["notes"]
            .as_str()
            .unwrap()
            .starts_with("Script completed")
    );

    // Finished as `finish` does.
    let dir = run_dir(&repo, &id);
    let conclusion: Value =
        serde_json::from_slice(&std::fs::read(dir.join("conclusion.json")).unwrap()).unwrap();
    assert_eq!(conclusion["status"], "succeeded");
    let patch = read_file(dir.join("final.patch"));
    assert!(patch.contains("+two"), "{patch}");
    assert!(dir.join("nodes/grow/stdout.log").is_file());
    let log = repo.ok(&["log", &id]);
    assert!(log.contains("make@1") && log.contains("show@1"), "{log}");
    // fsck lists findings on stdout: none, not even a note on the start node's checkpoint.
    assert_eq!(repo.ok(&["fsck"]), "");
    assert_fabro_shapes(&repo);
}

#[test]
fn a_loop_follows_conditions_on_a_commands_output_and_outcome() {
    let repo = TestRepo::new();
    let path = workflow(
        &repo,
        "loop",
        &between(
            "loop",
            r#"count [shape=parallelogram, script="n=$(( $(cat n.txt 2>/dev/null || echo 0) + 1 )); echo $n > n.txt; if [ $n -ge 3 ]; then echo done; else echo again; fi"]
  check [shape=diamond]
  probe [shape=parallelogram, script="test -e never"]
  start -> count -> check
  check -> probe [condition="context.command.output contains done"]
  check -> count
  probe -> exit [condition="outcome=failed"]
  probe -> count"#,
        ),
    );
    let ran = run(&repo, &path, &["--json"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        stages(&summary(&ran)),
        [
            "start@1 succeeded",
            "count@1 succeeded",
            "check@1 succeeded",
            "count@2 succeeded",
            "check@2 succeeded",
            "count@3 succeeded",
            "check@3 succeeded",
            "probe@1 failed",
        ]
    );
    assert_eq!(
        completed_counts(&repo, &ran.id),
        ["2", "3", "4", "5", "6", "7", "8"]
    );
    assert_fabro_shapes(&repo);
}

#[test]
fn visit_limits_count_as_fabro_does() {
    let repo = TestRepo::new();
    let path = workflow(
        &repo,
        "cycle",
        &between(
            "cycle",
            r#"spin [shape=parallelogram, script="true", max_visits=3]
  start -> spin
  spin -> exit [condition="context.never=1"]
  spin -> spin"#,
        ),
    );
    let ran = run(&repo, &path, &["--json"]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("node \"spin\" visited 3 times (node limit 3)"),
        "{}",
        ran.stderr
    );
    // `>=`: a limit of 3 allows two executions.
    assert_eq!(
        stages(&summary(&ran)),
        ["start@1 succeeded", "spin@1 succeeded", "spin@2 succeeded"]
    );
    assert_eq!(run_json(&repo, &ran.id)["status"]["kind"], "failed");
}

#[test]
fn a_failed_command_follows_its_unconditional_edge_and_goal_gates_decide() {
    let repo = TestRepo::new();
    let plain = &chain(
        "checks",
        &[
            r#"lint [shape=parallelogram, script="echo lint says no; exit 3"GATE]"#,
            &command("after", "echo still ran"),
        ],
    );
    let path = workflow(&repo, "checks", &plain.replace("GATE", ""));
    let ran = run(&repo, &path, &["--json"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        stages(&summary(&ran)),
        ["start@1 succeeded", "lint@1 failed", "after@1 succeeded"]
    );
    assert!(ran.stderr.contains("lint@1  failed"), "{}", ran.stderr);
    assert!(ran.stderr.contains("(exit 3)"), "{}", ran.stderr);
    let checkpoint = &run_json(&repo, &ran.id)["checkpoint"];
    let failure = &checkpoint["node_outcomes"]["lint"]["failure"];
    assert!(
        failure["message"]
            .as_str()
            .unwrap()
            .starts_with("Script failed with exit code: 3"),
        "{failure}"
    );
    assert_eq!(failure["failure_class"], "deterministic");
    let subjects: Vec<String> = run_commits(&repo, &ran.id)
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    assert_eq!(subjects[0], format!("fabro({}): lint (failed)", ran.id));

    let gated = workflow(&repo, "gated", &plain.replace("GATE", ", goal_gate=true"));
    let ran = run(&repo, &gated, &[]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("goal gate unsatisfied for node lint and no retry target"),
        "{}",
        ran.stderr
    );
    let record = run_json(&repo, &ran.id);
    assert_eq!(record["status"]["kind"], "failed");
    assert!(
        record["conclusion"]["failure_reason"]
            .as_str()
            .unwrap()
            .contains("goal gate")
    );
    assert_fabro_shapes(&repo);
}

#[test]
fn a_command_past_its_timeout_is_stopped_with_its_process_group() {
    let repo = TestRepo::new();
    let marker = repo.root.join("survived");
    let script = format!(
        "(sleep 5; touch {}) & echo waiting; sleep 30",
        marker.display()
    );
    let path = workflow(
        &repo,
        "slow",
        &format!(
            r#"digraph slow {{
  start [shape=Mdiamond]
  exit [shape=Msquare]
  slow [shape=parallelogram, timeout="1s", goal_gate=true, script="{script}"]
  start -> slow -> exit
}}"#
        ),
    );
    let clock = Instant::now();
    let ran = run(&repo, &path, &["--json"]);
    assert!(
        clock.elapsed() < Duration::from_secs(4),
        "{:?}",
        clock.elapsed()
    );
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(
        stages(&summary(&ran)),
        ["start@1 succeeded", "slow@1 failed"]
    );
    assert!(
        ran.stderr.contains("goal gate unsatisfied for node slow"),
        "{}",
        ran.stderr
    );
    let timing: Value = serde_json::from_str(&meta_file(
        &repo,
        &ran.id,
        "stages/002-slow@1/script_timing.json",
    ))
    .unwrap();
    assert_eq!(timing["timed_out"], true);
    assert_eq!(timing["exit_code"], Value::Null);
    assert_eq!(
        meta_file(&repo, &ran.id, "stages/002-slow@1/stdout.log"),
        "waiting\n"
    );
    let status: Value =
        serde_json::from_str(&meta_file(&repo, &ran.id, "stages/002-slow@1/status.json")).unwrap();
    assert!(
        status["failure_reason"]
            .as_str()
            .unwrap()
            .starts_with("Script timed out after 1000ms"),
        "{status}"
    );
    std::thread::sleep(Duration::from_secs(5));
    assert!(!marker.exists(), "the script's background job outlived it");
}

#[test]
fn scripts_get_the_allowlisted_environment_and_fabros_variables() {
    let repo = TestRepo::new();
    let path = workflow(&repo, "env", &commands("env", &[("show", "env | sort")]));
    let out = repo
        .fabro()
        .arg("run")
        .arg(&path)
        .env("OPENAI_API_KEY", "sk-1")
        .env("GH_TOKEN", "t")
        .env("DB_PASSWORD", "p")
        .env("vault_secret", "s")
        .env("AWS_CREDENTIAL", "c")
        .env("KEEP_ME", "kept")
        .output()
        .unwrap();
    assert_success(&out);
    let id = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap()
        .to_owned();
    let env = meta_file(&repo, &id, "stages/002-show@1/stdout.log");
    for secret in [
        "OPENAI_API_KEY",
        "GH_TOKEN",
        "DB_PASSWORD",
        "vault_secret",
        "AWS_CREDENTIAL",
        "KEEP_ME",
    ] {
        assert!(!env.contains(secret), "{secret} reached the script:\n{env}");
    }
    let dir = run_dir(&repo, &id);
    for line in [
        "LC_ALL=C".to_owned(),
        format!("FABRO_RUN_ID={id}"),
        "FABRO_NODE_ID=show".to_owned(),
        "FABRO_VISIT=1".to_owned(),
        format!("FABRO_IDEMPOTENCY_KEY={id}:show@1"),
        format!("FABRO_RUN_DIR={}", dir.display()),
    ] {
        assert!(env.lines().any(|l| l == line), "{line} missing:\n{env}");
    }
}

#[test]
fn invalid_workflows_and_agents_without_a_command_are_refused_before_anything_is_written() {
    let repo = TestRepo::new();
    let invalid = workflow(
        &repo,
        "invalid",
        r#"digraph invalid { a [shape=parallelogram, script="true"] }"#,
    );
    let unsupported = workflow(
        &repo,
        "agentic",
        &chain(
            "agentic",
            &[
                r#"plan [label="Plan", prompt="Plan it"]"#,
                r#"ask [shape=hexagon, label="OK?"]"#,
            ],
        ),
    );
    let refs_before = repo.git(&["for-each-ref"]);
    let (code, err) = run_err(repo.fabro().arg("run").arg(&invalid));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("is not a valid workflow; nothing was run"),
        "{err}"
    );
    let (code, err) = run_err(repo.fabro().arg("run").arg(&unsupported));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("agent or prompt nodes (plan)"), "{err}");
    assert!(
        err.contains("no agent command to run them; nothing was run"),
        "{err}"
    );
    // A handler type Fabro does not know runs as an agent, as in Fabro: refused the same way.
    let custom = workflow(
        &repo,
        "custom",
        &chain("custom", &[r#"deploy [type="my.deployer"]"#]),
    );
    let (code, err) = run_err(repo.fabro().arg("run").arg(&custom));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("agent or prompt nodes (deploy)"), "{err}");
    assert_eq!(repo.git(&["for-each-ref"]), refs_before);
    assert!(!repo.home.join("runs").exists());
}

/// Appends the node's name to `log` each time it runs: how often each node ran.
pub fn counted(log: &Path, node: &str) -> String {
    format!(
        r#"{node} [shape=parallelogram, script="echo {node} >> {}; echo {node} > {node}.txt"]"#,
        log.display()
    )
}

pub fn counted_pipeline(repo: &TestRepo) -> (PathBuf, PathBuf) {
    let log = repo.root.join("ran.log");
    let path = workflow(
        repo,
        "counted",
        &format!(
            "digraph counted {{\n start [shape=Mdiamond]\n exit [shape=Msquare]\n {}\n {}\n {}\n start -> a -> b -> c -> exit\n}}",
            counted(&log, "a"),
            counted(&log, "b"),
            counted(&log, "c")
        ),
    );
    (path, log)
}

/// [`counted_pipeline`], run and killed at the failure point `point`: the workflow, the log
/// of the nodes that ran and the run's id.
pub fn counted_pipeline_killed_at(repo: &TestRepo, point: &str) -> (PathBuf, PathBuf, String) {
    let (path, log) = counted_pipeline(repo);
    die_at(repo.fabro().arg("run").arg(&path), point);
    (path, log, the_only_run(repo))
}

/// Run `id` of [`counted_pipeline`] succeeded with every node completed once, as an
/// uninterrupted run does.
pub fn assert_counted_pipeline_finished(repo: &TestRepo, id: &str, context: &str) {
    let record = run_json(repo, id);
    assert_eq!(record["status"]["kind"], "succeeded", "{context}");
    assert_eq!(
        record["checkpoint"]["completed_nodes"],
        serde_json::json!(["start", "a", "b", "c"]),
        "{context}"
    );
    assert_eq!(completed_counts(repo, id), ["2", "3", "4"], "{context}");
}

pub fn the_only_run(repo: &TestRepo) -> String {
    let refs = repo.runs_with_metadata();
    let ids: Vec<&str> = refs.lines().collect();
    assert_eq!(ids.len(), 1, "{refs}");
    ids[0].to_owned()
}

#[test]
fn resume_after_a_kill_between_two_nodes_runs_no_recorded_node_again() {
    for (point, ran_before) in [
        ("engine:checkpointed:start@1", ""),
        ("engine:checkpointed:a@1", "a\n"),
        ("engine:checkpointed:b@1", "a\nb\n"),
    ] {
        let repo = TestRepo::new();
        let (_, log, id) = counted_pipeline_killed_at(&repo, point);
        assert_eq!(
            std::fs::read_to_string(&log).unwrap_or_default(),
            ran_before,
            "{point}"
        );
        let out = repo.output(&["resume", &id, "--json"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{point}: {stderr}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(run_id(&stdout), id, "{point}");
        assert_eq!(read_file(&log), "a\nb\nc\n", "{point}");
        assert_counted_pipeline_finished(&repo, &id, point);
        assert_eq!(repo.ok(&["fsck"]), "", "{point}");
        assert_fabro_shapes(&repo);
    }
}

#[test]
fn resume_prepare_only_keeps_printing_the_state() {
    let repo = TestRepo::new();
    let (_, log, id) = counted_pipeline_killed_at(&repo, "engine:checkpointed:a@1");
    let out = repo.ok(&["resume", &id, "--prepare-only"]);
    let state: Value = serde_json::from_str(&out).expect("the state as JSON");
    assert_eq!(state["next_node_id"], "b");
    assert_eq!(state["completed_nodes"], serde_json::json!(["start", "a"]));
    assert_eq!(read_file(&log), "a\n");
}

#[test]
fn the_example_pipeline_runs() {
    let repo = TestRepo::new();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pipeline.fabro");
    let ran = run(&repo, &example, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(completed_counts(&repo, &ran.id), ["2", "3", "4"]);
    let report = repo.git(&["show", &format!("fabro/run/{}:fabro-report.txt", ran.id)]);
    assert!(report.contains(&format!("run {}", ran.id)), "{report}");
}

#[test]
fn a_wait_node_waits_its_duration_and_is_checkpointed() {
    let repo = TestRepo::new();
    let path = workflow(
        &repo,
        "pause",
        &chain("pause", &[r#"pause [shape=insulator, duration="300ms"]"#]),
    );
    let ran = run(&repo, &path, &["--json"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let summary = summary(&ran);
    assert_eq!(stages(&summary), ["start@1 succeeded", "pause@1 succeeded"]);
    assert!(summary["stages"][1]["duration_ms"].as_u64().unwrap() >= 300);
    assert_eq!(completed_counts(&repo, &ran.id), ["2"]);
    assert_fabro_shapes(&repo);
}

#[test]
fn resume_after_sigkill_inside_a_node_runs_that_node_once_more() {
    let repo = TestRepo::new();
    let log = repo.root.join("ran.log");
    let marker = repo.root.join("killed-once");
    // The script kills the engine (its parent) with SIGKILL the first time it runs.
    let b = format!(
        r#"b [shape=parallelogram, script="echo b >> {log}; if [ ! -e {marker} ]; then touch {marker}; kill -9 $PPID; sleep 1; fi; echo b > b.txt"]"#,
        log = log.display(),
        marker = marker.display()
    );
    let path = workflow(
        &repo,
        "killed",
        &format!(
            "digraph killed {{\n start [shape=Mdiamond]\n exit [shape=Msquare]\n {}\n {b}\n {}\n start -> a -> b -> c -> exit\n}}",
            counted(&log, "a"),
            counted(&log, "c")
        ),
    );
    let out = repo.fabro().arg("run").arg(&path).output().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&out.status),
        Some(9)
    );
    let id = the_only_run(&repo);
    assert_eq!(read_file(&log), "a\nb\n");
    repo.ok(&["resume", &id]);
    assert_eq!(read_file(&log), "a\nb\nb\nc\n");
    assert_eq!(completed_counts(&repo, &id), ["2", "3", "4"]);
    assert_eq!(run_json(&repo, &id)["status"]["kind"], "succeeded");
    assert_eq!(repo.ok(&["fsck"]), "");
}
