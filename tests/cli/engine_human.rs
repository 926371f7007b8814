//! Human gates in `git fabro run` and `resume`: `--answer`, `--auto-approve`, a person at a
//! terminal, and a run that blocks (exit 4) with its question recorded until
//! `resume --answer` goes on from the gate.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::Value;

use crate::common::workflow::between;
use crate::common::{TestRepo, run_ok};
use crate::engine_run::{committed_nodes, run_dir, run_json};
use crate::format_contract::assert_fabro_shapes;

/// A gate with two ways on: approve to ship, revise.
pub(crate) fn gate() -> String {
    between(
        "Gate",
        r#"build [shape=parallelogram, script="echo built > out.txt"]
  approve [shape=hexagon, label="Ship it?"]
  ship [shape=parallelogram, script="echo shipped >> out.txt"]
  revise [shape=parallelogram, script="echo revised >> out.txt"]
  start -> build -> approve
  approve -> ship [label="[A] Approve"]
  approve -> revise [label="[R] Revise"]
  ship -> exit
  revise -> exit"#,
    )
}

fn gate_workflow(repo: &TestRepo) -> PathBuf {
    repo.write_beside("gate.fabro", &gate())
}

/// `git fabro ARGS` with stdin closed (no terminal): (run id, exit code, stderr).
fn fabro(repo: &TestRepo, args: &[&str], workflow: Option<&Path>) -> (String, i32, String) {
    let mut cmd = repo.fabro();
    cmd.args(args);
    if let Some(path) = workflow {
        cmd.arg(path);
    }
    let out = cmd.stdin(Stdio::null()).output().expect("git-fabro runs");
    ended(&out)
}

fn ended(out: &Output) -> (String, i32, String) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    (
        stdout.lines().next().unwrap_or("").trim().to_owned(),
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn events(repo: &TestRepo, id: &str) -> Vec<String> {
    std::fs::read_to_string(run_dir(repo, id).join("progress.jsonl"))
        .expect("progress.jsonl")
        .lines()
        .map(|l| {
            let event: Value = serde_json::from_str(l).expect("an event is JSON");
            event["event"].as_str().unwrap_or("").to_owned()
        })
        .collect()
}

#[test]
fn a_gate_nobody_answers_blocks_the_run_and_resume_answer_goes_on() {
    let repo = TestRepo::new();
    let path = gate_workflow(&repo);
    let (id, code, stderr) = fabro(&repo, &["run"], Some(&path));
    assert_eq!(code, 4, "{stderr}");
    assert!(
        stderr.contains(&format!("git fabro resume {id} --answer approve=CHOICE")),
        "{stderr}"
    );
    assert!(
        stderr.contains("A - Approve") && stderr.contains("R - Revise"),
        "{stderr}"
    );

    let record = run_json(&repo, &id);
    let status = &record["status"];
    assert_eq!(status["kind"], "blocked");
    assert_eq!(status["blocked_reason"], "human_input_required");
    // The question, where Fabro's projection keeps it: `pending_interviews` by question id.
    let pending = record["pending_interviews"]
        .as_object()
        .expect("pending_interviews");
    assert_eq!(pending.len(), 1);
    let (question_id, interview) = pending.iter().next().unwrap();
    let question = &interview["question"];
    assert_eq!(&question["id"], question_id);
    assert_eq!(question["stage"], "approve");
    assert_eq!(question["text"], "Ship it?");
    assert_eq!(question["question_type"], "multiple_choice");
    assert!(interview["started_at"].is_string());
    let options: Vec<(&str, &str)> = question["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|c| (c["key"].as_str().unwrap(), c["target"].as_str().unwrap()))
        .collect();
    assert_eq!(options, [("A", "ship"), ("R", "revise")]);
    // The gate is not recorded: the last checkpoint is build's, and it points at the gate.
    assert_eq!(record["checkpoint"]["current_node"], "build");
    assert_eq!(record["checkpoint"]["next_node_id"], "approve");
    assert_eq!(committed_nodes(&repo, &id), ["build (succeeded)"]);

    let ps = repo.ok(&["ps"]);
    assert!(ps.lines().any(|l| l.contains("blocked")), "{ps}");
    let standing: Value =
        serde_json::from_str(&repo.ok(&["status", &id, "--json"])).expect("status --json");
    assert_eq!(standing["status"], "blocked");
    assert_eq!(standing["question"]["stage"], "approve");
    let listed = repo.ok(&["status"]);
    assert!(
        listed.contains(&id[..8]),
        "status lists blocked runs: {listed}"
    );

    // Asked again without an answer, it blocks again; then the answer takes the edge.
    let (_, again, _) = fabro(&repo, &["resume", &id], None);
    assert_eq!(again, 4);
    let (_, code, stderr) = fabro(&repo, &["resume", &id, "--answer", "approve=r"], None);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        committed_nodes(&repo, &id),
        [
            "build (succeeded)",
            "approve (succeeded)",
            "revise (succeeded)"
        ]
    );
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{id}:out.txt")]),
        "built\nrevised\n"
    );
    let record = run_json(&repo, &id);
    assert_eq!(record["status"]["kind"], "succeeded");
    assert!(record.get("pending_interviews").is_none());
    let checkpoint = &record["checkpoint"];
    assert_eq!(checkpoint["context_values"]["human.gate.selected"], "R");
    assert_eq!(
        checkpoint["context_values"]["human.gate.label"],
        "[R] Revise"
    );
    assert_eq!(
        checkpoint["node_outcomes"]["approve"]["preferred_label"],
        "[R] Revise"
    );
    let events = events(&repo, &id);
    for name in [
        "interview.started",
        "run.blocked",
        "run.unblocked",
        "interview.completed",
    ] {
        assert!(events.iter().any(|e| e == name), "{name} in {events:?}");
    }
    assert_fabro_shapes(&repo);
}

#[test]
fn answers_name_a_key_a_number_a_label_or_a_target() {
    for (answer, taken) in [
        ("approve=a", "ship"),
        ("approve=2", "revise"),
        ("approve=Approve", "ship"),
        ("approve=[R] Revise", "revise"),
        ("approve=revise", "revise"),
    ] {
        let repo = TestRepo::new();
        let path = gate_workflow(&repo);
        let (id, code, stderr) = fabro(&repo, &["run", "--answer", answer], Some(&path));
        assert_eq!(code, 0, "{answer}: {stderr}");
        let nodes = committed_nodes(&repo, &id);
        assert_eq!(
            nodes.last().map(String::as_str),
            Some(format!("{taken} (succeeded)").as_str()),
            "{answer}"
        );
    }
}

#[test]
fn auto_approve_takes_the_first_choice() {
    let repo = TestRepo::new();
    let path = gate_workflow(&repo);
    let (id, code, stderr) = fabro(&repo, &["run", "--auto-approve"], Some(&path));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        committed_nodes(&repo, &id),
        [
            "build (succeeded)",
            "approve (succeeded)",
            "ship (succeeded)"
        ]
    );
    let record = run_json(&repo, &id);
    assert_eq!(
        record["checkpoint"]["context_values"]["human.gate.selected"],
        "A"
    );
}

#[test]
fn an_answer_that_names_nothing_is_refused_before_anything_is_written() {
    let repo = TestRepo::new();
    let path = gate_workflow(&repo);
    for answer in ["approve=Z", "build=A", "nowhere=A", "approve"] {
        let (_, code, stderr) = fabro(&repo, &["run", "--answer", answer], Some(&path));
        assert_eq!(code, 2, "{answer}: {stderr}");
    }
    assert_eq!(repo.git(&["for-each-ref", "refs/heads/fabro/"]), "");

    // On resume too, and the blocked run stays blocked.
    let (id, code, _) = fabro(&repo, &["run"], Some(&path));
    assert_eq!(code, 4);
    let (_, code, stderr) = fabro(&repo, &["resume", &id, "--answer", "approve=Z"], None);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("A, R"), "{stderr}");
    assert_eq!(run_json(&repo, &id)["status"]["kind"], "blocked");
}

/// `git fabro run WORKFLOW` started on a pseudo-terminal, its keyboard and screen piped.
fn run_on_terminal(repo: &TestRepo, path: &Path) -> std::process::Child {
    repo.fabro_on_terminal(&format!("run {}", path.display()))
        .env("TERM", "dumb")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("util-linux `script` runs")
}

/// `git fabro run WORKFLOW` on a pseudo-terminal whose keyboard types `typed`.
fn on_terminal_typing(repo: &TestRepo, path: &Path, typed: &str) -> (i32, String) {
    let mut child = run_on_terminal(repo, path);
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(typed.as_bytes())
        .expect("typed");
    let out = child.wait_with_output().expect("script ends");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_person_at_the_terminal_answers_the_gate() {
    let repo = TestRepo::new();
    let path = gate_workflow(&repo);
    let (code, screen) = on_terminal_typing(&repo, &path, "r\n");
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("? Ship it?"), "{screen}");
    assert!(screen.contains("[2] R - Revise"), "{screen}");
    let id = repo.runs_with_metadata();
    let id = id.trim();
    assert_eq!(
        committed_nodes(&repo, id).last().map(String::as_str),
        Some("revise (succeeded)")
    );
}

#[test]
fn an_empty_answer_at_the_terminal_fails_the_gate_closed() {
    let repo = TestRepo::new();
    let path = gate_workflow(&repo);
    let (code, screen) = on_terminal_typing(&repo, &path, "\n");
    assert_eq!(code, 1, "{screen}");
    assert!(screen.contains("interrupted before an answer"), "{screen}");
    let id = repo.runs_with_metadata();
    let id = id.trim();
    // Fabro's rule: an unanswered gate fails and selects no edge.
    assert_eq!(
        committed_nodes(&repo, id),
        ["build (succeeded)", "approve (failed)"]
    );
    assert_eq!(run_json(&repo, id)["status"]["kind"], "failed");
}

#[test]
fn a_blocked_run_finished_by_hand_waits_for_nothing() {
    let repo = TestRepo::new();
    let path = gate_workflow(&repo);
    let (id, code, _) = fabro(&repo, &["run"], Some(&path));
    assert_eq!(code, 4);
    assert!(run_json(&repo, &id).get("pending_interviews").is_some());
    repo.ok(&["finish", &id, "--status", "failed"]);
    let record = run_json(&repo, &id);
    assert_eq!(record["status"]["kind"], "failed");
    assert!(record.get("pending_interviews").is_none());
    assert_fabro_shapes(&repo);
}

/// The line `run ID succeeded in ...` on stderr.
fn succeeded_line(stderr: &str) -> &str {
    stderr
        .lines()
        .find(|line| line.contains(" succeeded in "))
        .unwrap_or_else(|| panic!("no `succeeded in` line:\n{stderr}"))
}

#[test]
fn a_run_held_at_a_gate_says_its_active_time_and_its_time_in_all() {
    let repo = TestRepo::new();
    let path = gate_workflow(&repo);
    let (id, code, _) = fabro(&repo, &["run"], Some(&path));
    assert_eq!(code, 4);
    // Held at the gate: a wait the run's commit times (whole seconds) cannot miss.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let (_, code, stderr) = fabro(&repo, &["resume", &id, "--answer", "approve=A"], None);
    assert_eq!(code, 0, "{stderr}");
    let line = succeeded_line(&stderr);
    assert!(
        line.contains(" active, ") && line.ends_with(" in all"),
        "{line}"
    );
    let conclusion = &run_json(&repo, &id)["conclusion"];
    let (active, total) = (&conclusion["active_ms"], &conclusion["duration_ms"]);
    assert!(active.as_u64() < total.as_u64(), "{conclusion}");
    let shown = run_ok(repo.fabro().args(["status", &id]));
    assert!(shown.contains(" active, "), "{shown}");
    assert_fabro_shapes(&repo);

    // Never held: one time, the same in the record.
    let (id, code, stderr) = fabro(&repo, &["run", "--answer", "approve=A"], Some(&path));
    assert_eq!(code, 0, "{stderr}");
    assert!(!succeeded_line(&stderr).contains("active"), "{stderr}");
    let conclusion = &run_json(&repo, &id)["conclusion"];
    assert_eq!(conclusion["active_ms"], conclusion["duration_ms"]);
}

/// A gate in a loop: "Revise" goes back through `revise` to the same gate.
const GATE_LOOP: &str = r#"digraph GateLoop {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  approve [shape=hexagon, label="Ship it?"]
  revise [shape=parallelogram, script="echo revised >> out.txt"]
  ship [shape=parallelogram, script="echo shipped >> out.txt"]
  start -> approve
  approve -> ship [label="[A] Approve"]
  approve -> revise [label="[R] Revise"]
  revise -> approve
  ship -> exit
}
"#;

/// Types each answer on the terminal only once the question before it has been printed, as
/// a person does; returns the exit code and the screen.
fn on_terminal_answering(repo: &TestRepo, path: &Path, answers: &[&str]) -> (i32, String) {
    use std::io::Read;
    let mut child = run_on_terminal(repo, path);
    let mut keyboard = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let (shown, screen) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = stdout.read(&mut buf) {
            let _ = shown.send(buf[..n].to_vec());
        }
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut printed = Vec::new();
    let questions_shown =
        |printed: &[u8]| String::from_utf8_lossy(printed).matches("Select: ").count();
    for (asked, answer) in answers.iter().enumerate() {
        while questions_shown(&printed) <= asked {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match screen.recv_timeout(left) {
                Ok(bytes) => printed.extend(bytes),
                Err(_) => {
                    let _ = child.kill();
                    panic!(
                        "question {} never came:\n{}",
                        asked + 1,
                        String::from_utf8_lossy(&printed)
                    );
                }
            }
        }
        writeln!(keyboard, "{answer}").expect("typed");
    }
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "the run hung after the answers:\n{}",
                String::from_utf8_lossy(&printed)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    drop(keyboard);
    printed.extend(screen.iter().flatten());
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&printed).into_owned(),
    )
}

#[test]
fn a_gate_visited_twice_takes_the_first_answer_typed_each_time() {
    let repo = TestRepo::new();
    let path = repo.write_beside("loop.fabro", GATE_LOOP);
    let (code, screen) = on_terminal_answering(&repo, &path, &["r", "a"]);
    assert_eq!(code, 0, "{screen}");
    assert_eq!(screen.matches("? Ship it?").count(), 2, "{screen}");
    let id = repo.git(&[
        "for-each-ref",
        "--format=%(refname:lstrip=4)",
        "refs/heads/fabro/meta/",
    ]);
    assert_eq!(
        committed_nodes(&repo, id.trim()),
        [
            "approve (succeeded)",
            "revise (succeeded)",
            "approve (succeeded)",
            "ship (succeeded)"
        ]
    );
}
