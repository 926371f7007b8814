//! Whatever a run meets (a node that prints megabytes, a huge workflow, an agent's oversized
//! session id), the record a command writes is one the next command reads: large output stays
//! in stage files, and a record that would pass the read limit is refused before anything is
//! written.

use std::os::unix::fs::MetadataExt;

use serde_json::json;

use crate::agent_hooks::run_hook;
use crate::common::workflow::between;
use crate::common::{TestRepo, read_file, run_err, run_ok};
use crate::engine_retry::{run, workflow};
use crate::engine_run::run_dir;

/// The size in bytes of the object `rev` names.
fn size(repo: &TestRepo, rev: &str) -> u64 {
    repo.git(&["cat-file", "-s", rev]).trim().parse().unwrap()
}

/// A workflow whose node `loud` runs `script`, then routes on `PASS` in its output: `passed`
/// or `failed` writes the verdict.
fn routed_on_its_output(script: &str) -> String {
    format!(
        r#"digraph loud {{
  start [shape=Mdiamond]
  exit [shape=Msquare]
  loud [shape=parallelogram, script="{script}"]
  check [shape=diamond]
  passed [shape=parallelogram, script="echo passed > verdict.txt"]
  failed [shape=parallelogram, script="echo failed > verdict.txt"]
  start -> loud -> check
  check -> passed [condition="context.command.output contains PASS"]
  check -> failed
  passed -> exit
  failed -> exit
}}"#
    )
}

/// 8 MB of output, then the verdict.
const LOUD: &str = r"head -c 8000000 /dev/zero | tr '\\0' x; echo; echo PASS";

/// 64 MiB of output, then the verdict; the script notes which file its stdout is.
const HUGE: &str = r#"stat -L -c %i /proc/$$/fd/1 > \"$FABRO_RUN_DIR/stdout.inode\"; head -c 67108864 /dev/zero | tr '\\0' a; echo; echo PASS"#;

#[test]
fn a_node_that_prints_8_mb_leaves_a_run_that_reads_resumes_and_finishes() {
    let repo = TestRepo::new();
    let ran = run(&repo, &workflow(&repo, "loud", &routed_on_its_output(LOUD)));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let id = ran.id.clone();
    let meta = format!("fabro/meta/{id}");
    // The record stays small; the whole output is the stage's stdout.log.
    assert!(size(&repo, &format!("{meta}:run.json")) < 1 << 20);
    let stages = repo.git(&["ls-tree", "--name-only", &format!("{meta}:stages")]);
    let loud = stages.lines().find(|s| s.contains("loud@1")).unwrap();
    assert_eq!(
        size(&repo, &format!("{meta}:stages/{loud}/stdout.log")),
        8_000_006
    );
    // The condition saw the end of the output.
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{id}:verdict.txt")]),
        "passed\n"
    );
    for args in [
        vec!["log", &id],
        vec!["status", &id],
        vec!["fsck", &id],
        vec!["archive", &id],
        vec!["gc", "--older-than", "0"],
    ] {
        repo.ok(&args);
    }
    repo.git(&["fsck", "--strict"]);
}

/// The stage folder on the metadata branch whose name holds `stage`.
fn stage_path(repo: &TestRepo, id: &str, stage: &str) -> String {
    let meta = format!("fabro/meta/{id}");
    let stages = repo.git(&["ls-tree", "--name-only", &format!("{meta}:stages")]);
    let found = stages.lines().find(|s| s.contains(stage)).unwrap();
    format!("{meta}:stages/{found}")
}

/// The blob at `rev` is the file at `path`, byte for byte (same size, same id).
fn assert_blob_is_file(repo: &TestRepo, rev: &str, path: &std::path::Path) {
    let len = std::fs::metadata(path).unwrap().len();
    assert_eq!(size(repo, rev), len, "{rev}");
    let hashed = repo.git(&["hash-object", path.to_str().unwrap()]);
    assert_eq!(repo.git(&["rev-parse", rev]), hashed, "{rev}");
}

#[test]
fn a_node_that_prints_64_mb_is_stored_from_its_log_file_which_stays_the_file_it_wrote() {
    let repo = TestRepo::new();
    let ran = run(
        &repo,
        &workflow(&repo, "huge_output", &routed_on_its_output(HUGE)),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let id = ran.id.clone();
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{id}:verdict.txt")]),
        "passed\n"
    );
    let dir = run_dir(&repo, &id);
    let log = dir.join("nodes/loud/stdout.log");
    assert_eq!(std::fs::metadata(&log).unwrap().len(), (64 << 20) + 6);
    let stage = stage_path(&repo, &id, "loud@1");
    assert_blob_is_file(&repo, &format!("{stage}/stdout.log"), &log);
    // The run directory's stdout.log is the file the script streamed into, not a copy of it.
    let inode = read_file(dir.join("stdout.inode"));
    assert_eq!(
        inode.trim(),
        std::fs::metadata(&log).unwrap().ino().to_string()
    );
    assert!(size(&repo, &format!("fabro/meta/{id}:run.json")) < 1 << 20);
    repo.git(&["fsck", "--strict"]);
}

/// An agent whose response is 64 MiB of text, then its routing object.
const VERBOSE_AGENT: &str = r#"cat > /dev/null
head -c 67108864 /dev/zero | tr '\0' a
echo
echo '{"preferred_next_label": "Ship"}'
"#;

fn routed() -> String {
    between(
        "routed",
        r#"review [shape=box, prompt="Review it"]
  ship [shape=parallelogram, script="echo shipped > verdict.txt"]
  hold [shape=parallelogram, script="echo held > verdict.txt"]
  start -> review
  review -> hold [label="Hold"]
  review -> ship [label="Ship"]
  ship -> exit
  hold -> exit"#,
    )
}

#[test]
fn an_agent_that_answers_64_mb_is_routed_by_the_end_of_its_response() {
    let repo = TestRepo::new();
    let agent = repo.write_beside("verbose-agent.sh", VERBOSE_AGENT);
    let agent = format!("bash {}", agent.display());
    let ran = crate::engine_run::run(
        &repo,
        &workflow(&repo, "routed", &routed()),
        &["--json", "--agent", &agent],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let id = ran.id.clone();
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{id}:verdict.txt")]),
        "shipped\n"
    );
    let response = run_dir(&repo, &id).join("nodes/review/response.md");
    let stage = stage_path(&repo, &id, "review@1");
    assert_blob_is_file(&repo, &format!("{stage}/response.md"), &response);
    assert!(size(&repo, &format!("fabro/meta/{id}:run.json")) < 1 << 20);
    repo.git(&["fsck", "--strict"]);
}

#[test]
fn a_workflow_too_large_to_record_is_refused_before_anything_is_written() {
    let repo = TestRepo::new();
    let mut text =
        String::from("digraph huge {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n");
    let mut previous = "start".to_owned();
    let mut n = 0;
    while text.len() < 3_400_000 {
        let node = format!("n{n}");
        text.push_str(&format!(
            "  {node} [shape=parallelogram, script=\"true\", label=\"step {n}\"]\n  {previous} -> {node}\n"
        ));
        previous = node;
        n += 1;
    }
    text.push_str(&format!("  {previous} -> exit\n}}\n"));
    let path = workflow(&repo, "huge", &text);
    let (code, err) = run_err(repo.fabro().arg("run").arg(&path));
    // Either the run is refused whole, or what it wrote reads back.
    let metas = repo.git(&["for-each-ref", "--format=%(refname)", "refs/heads/fabro/"]);
    if code == 0 {
        let id = metas.lines().next().unwrap().rsplit('/').next().unwrap();
        repo.ok(&["status", id]);
    } else {
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("over the 16 MiB"), "{err}");
        assert_eq!(metas, "", "{err}");
    }
}

#[test]
fn an_agent_hook_with_a_20_mb_session_id_still_checkpoints_a_readable_run() {
    let repo = TestRepo::new();
    let started = repo.start();
    let wt = &started.worktree;
    std::fs::write(wt.join("work.txt"), "work\n").unwrap();
    let stop = json!({
        "session_id": "s".repeat(20 << 20),
        "cwd": wt,
        "hook_event_name": "Stop",
        "stop_hook_active": false
    });
    let out = run_hook(&repo, wt, "git fabro hooks run agent-turn claude", &stop);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("session id"), "{stderr}");
    assert_eq!(repo.log_json(&started.id).len(), 1);
    assert!(size(&repo, &format!("fabro/meta/{}:run.json", started.id)) < 1 << 20);
    run_ok(repo.fabro().args(["finish", &started.id]));
}
