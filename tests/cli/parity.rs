//! Fabro's own engine tests, kept as workflows in `tests/parity/` (see its README): every case
//! runs through `git fabro run` and is compared with what Fabro asserts, so parity with Fabro
//! cannot regress silently. One test runs them all and names every disagreement at once; a
//! case marked `pending` (a feature still to come) is skipped with a printed note.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::common::TestRepo;

/// Keys a case may hold; any other key is reported, so a misspelt expectation cannot pass
/// unchecked.
const KNOWN_KEYS: &[&str] = &[
    "source",
    "notes",
    "args",
    "timeout",
    "pending",
    "status",
    "completed_nodes",
    "context",
    "context_contains",
    "context_absent",
    "context_array_len",
    "node_retries",
    "failure_contains",
    "stage_statuses",
    "events_first",
    "events_last",
    "events_include",
    "events_min_count",
    "event_props",
    "stage_attempts",
    "node_outcome_status",
    "node_outcome_notes_contains",
    "node_outcome_failure_contains",
    "node_outcome_context",
    "loop_failure_signatures",
    "loop_failure_signatures_total",
];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parity")
}

/// The case names (`<case>.expected.json`), sorted.
fn cases(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("tests/parity")
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".expected.json").map(ToOwned::to_owned)
        })
        .collect();
    names.sort();
    names
}

/// Cases run on two threads: most of a case's time is spent waiting on its processes.
const WORKERS: usize = 2;

#[test]
fn every_parity_case_agrees_with_fabro() {
    let dir = corpus();
    let names = cases(&dir);
    let next = AtomicUsize::new(0);
    let verdicts: Vec<(String, Verdict)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..WORKERS)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    while let Some(name) = names.get(next.fetch_add(1, Ordering::Relaxed)) {
                        done.push((name.clone(), judge(&dir, name)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a parity worker"))
            .collect()
    });
    let mut ran = 0;
    let mut disagreements = Vec::new();
    for (name, verdict) in verdicts {
        match verdict {
            Verdict::Pending(why) => eprintln!("parity: {name} skipped, pending: {why}"),
            Verdict::Ran(diffs) => {
                ran += 1;
                if !diffs.is_empty() {
                    disagreements.push(format!("{name}:\n    {}", diffs.join("\n    ")));
                }
            }
        }
    }
    disagreements.sort();
    assert!(ran >= 100, "only {ran} parity cases ran");
    assert!(
        disagreements.is_empty(),
        "{} of {ran} parity cases disagree with Fabro:\n  {}",
        disagreements.len(),
        disagreements.join("\n  ")
    );
}

enum Verdict {
    Pending(String),
    /// The disagreements found (none: the case agrees).
    Ran(Vec<String>),
}

fn judge(dir: &Path, name: &str) -> Verdict {
    let path = dir.join(format!("{name}.expected.json"));
    let text = std::fs::read_to_string(path).expect("expectation readable");
    let expected: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return Verdict::Ran(vec![format!("expectation is not JSON: {e}")]),
    };
    match expected.get("pending") {
        Some(why) => Verdict::Pending(text_of(why)),
        None => Verdict::Ran(run_case(dir, name, &expected)),
    }
}

/// What one run left: its `--json` summary, checkpoint and events.
struct Observed {
    code: i32,
    summary: Value,
    stderr: String,
    checkpoint: Value,
    events: Vec<Value>,
}

fn run_case(dir: &Path, name: &str, expected: &Value) -> Vec<String> {
    let mut diffs: Vec<String> = expected
        .as_object()
        .into_iter()
        .flat_map(Map::keys)
        .filter(|k| !KNOWN_KEYS.contains(&k.as_str()))
        .map(|k| format!("unknown expectation key {k:?}"))
        .collect();
    let repo = TestRepo::new();
    let args: Vec<String> = strings(&expected["args"]);
    let timeout = Duration::from_secs(expected["timeout"].as_u64().unwrap_or(60));
    let Some(seen) = observe(&repo, &dir.join(format!("{name}.fabro")), &args, timeout) else {
        diffs.push(format!("no answer within {timeout:?}"));
        return diffs;
    };
    compare_run(expected, &seen, &mut diffs);
    compare_events(expected, &seen.events, &mut diffs);
    compare_outcomes(expected, &seen.checkpoint, &mut diffs);
    diffs
}

/// Runs the workflow with stdout and stderr in files (no pipe to fill), killing it past
/// `timeout`.
fn observe(
    repo: &TestRepo,
    workflow: &Path,
    args: &[String],
    timeout: Duration,
) -> Option<Observed> {
    let out_path = repo.root.join("parity.out");
    let err_path = repo.root.join("parity.err");
    let mut child: Child = repo
        .fabro()
        .arg("run")
        .arg(workflow)
        .args(args)
        .arg("--json")
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).expect("stdout file"))
        .stderr(File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("git-fabro runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let summary: Value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    let run_dir = summary["run_id"]
        .as_str()
        .and_then(|id| find_run_dir(repo, id));
    let read = |file: &str| {
        run_dir
            .as_ref()
            .and_then(|d| std::fs::read_to_string(d.join(file)).ok())
    };
    Some(Observed {
        code: status.code().unwrap_or(-1),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
        checkpoint: read("checkpoint.json")
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null),
        events: read("progress.jsonl")
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        summary,
    })
}

fn find_run_dir(repo: &TestRepo, id: &str) -> Option<PathBuf> {
    std::fs::read_dir(repo.home.join("runs"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(&format!("-{id}")))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|s| s.as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A `--dry-run` writes no run directory: its stages come from the summary.
fn completed_nodes(expected: &Value, seen: &Observed) -> Value {
    if strings(&expected["args"]).iter().any(|a| a == "--dry-run") {
        let stages = seen.summary["stages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        return stages.iter().map(|s| s["node_id"].clone()).collect();
    }
    seen.checkpoint["completed_nodes"].clone()
}

/// Status, completed nodes, failure text, context values, retries and stage statuses.
fn compare_run(expected: &Value, seen: &Observed, diffs: &mut Vec<String>) {
    let status = match &seen.summary["status"] {
        Value::Null => json!(format!("rc={}", seen.code)),
        s => s.clone(),
    };
    if expected["status"].is_string() && status != expected["status"] {
        diffs.push(format!("status: got {status} want {}", expected["status"]));
        diffs.push(format!("stderr: {}", tail(&seen.stderr)));
    }
    let nodes = completed_nodes(expected, seen);
    if !expected["completed_nodes"].is_null() && nodes != expected["completed_nodes"] {
        diffs.push(format!(
            "completed_nodes: got {nodes} want {}",
            expected["completed_nodes"]
        ));
    }
    let failure = format!("{}{}", seen.summary["failure"], seen.stderr);
    for text in strings(&expected["failure_contains"]) {
        if !failure.contains(&text) {
            diffs.push(format!("failure lacks {text:?}: {}", tail(&failure)));
        }
    }
    let context = &seen.checkpoint["context_values"];
    for (key, want) in entries(&expected["context"]) {
        let got = context.get(key);
        if got != Some(want) {
            let got = got.map_or("<absent>".to_owned(), Value::to_string);
            diffs.push(format!("context[{key}]: got {got} want {want}"));
        }
    }
    for (key, want) in entries(&expected["context_contains"]) {
        let got = text_of(context.get(key).unwrap_or(&Value::Null));
        if !got.contains(want.as_str().unwrap_or_default()) {
            diffs.push(format!("context[{key}] lacks {want}: {}", tail(&got)));
        }
    }
    for key in strings(&expected["context_absent"]) {
        if context.get(&key).is_some() {
            diffs.push(format!("context has {key}"));
        }
    }
    for (key, want) in entries(&expected["context_array_len"]) {
        let got = match context.get(key) {
            Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::Null),
            Some(v) => v.clone(),
            None => Value::Null,
        };
        let len = got.as_array().map(|a| a.len() as u64);
        if len != want.as_u64() {
            diffs.push(format!("context[{key}] length: got {got} want {want}"));
        }
    }
    for (node, want) in entries(&expected["node_retries"]) {
        let got = &seen.checkpoint["node_retries"][node];
        if got != want {
            diffs.push(format!("node_retries[{node}]: got {got} want {want}"));
        }
    }
    for (stage, want) in entries(&expected["stage_statuses"]) {
        let got: Vec<&Value> = seen.summary["stages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|s| format!("{}@{}", text_of(&s["node_id"]), s["visit"]) == *stage)
            .map(|s| &s["status"])
            .collect();
        if got != [want] {
            diffs.push(format!("stage {stage}: got {got:?} want {want}"));
        }
    }
}

/// First and last events, events that must occur, counts, properties and attempts.
fn compare_events(expected: &Value, events: &[Value], diffs: &mut Vec<String>) {
    let names: Vec<String> = events.iter().map(|e| text_of(&e["event"])).collect();
    if let Some(want) = expected["events_first"].as_str()
        && names.first().map(String::as_str) != Some(want)
    {
        diffs.push(format!("first event: got {:?} want {want}", names.first()));
    }
    if let Some(want) = expected["events_last"].as_str()
        && names.last().map(String::as_str) != Some(want)
    {
        diffs.push(format!("last event: got {:?} want {want}", names.last()));
    }
    let at = |e: &Value, node: &Value| node.is_null() || e["node_id"] == *node;
    for pair in expected["events_include"].as_array().into_iter().flatten() {
        if !events
            .iter()
            .any(|e| e["event"] == pair[0] && at(e, &pair[1]))
        {
            diffs.push(format!("no event {} at {}", pair[0], pair[1]));
        }
    }
    for (key, want) in entries(&expected["events_min_count"]) {
        let (kinds, node) = key.split_once('@').unwrap_or((key, ""));
        let count = events
            .iter()
            .filter(|e| kinds.split('|').any(|k| e["event"] == k) && e["node_id"] == node)
            .count() as u64;
        if count < want.as_u64().unwrap_or(0) {
            diffs.push(format!("events {key}: {count} < {want}"));
        }
    }
    for prop in expected["event_props"].as_array().into_iter().flatten() {
        let got = events
            .iter()
            .find(|e| e["event"] == prop[0] && e["node_id"] == prop[1])
            .map(|e| {
                let key = text_of(&prop[2]);
                e["properties"]
                    .get(&key)
                    .unwrap_or(&e[key.as_str()])
                    .clone()
            });
        if got.as_ref() != Some(&prop[3]) {
            diffs.push(format!(
                "event {} {} {}: got {got:?} want {}",
                prop[0], prop[1], prop[2], prop[3]
            ));
        }
    }
    for (node, want) in entries(&expected["stage_attempts"]) {
        let got: Vec<Value> = events
            .iter()
            .filter(|e| e["event"] == "stage.started" && e["node_id"] == node.as_str())
            .map(|e| e["properties"]["attempt"].clone())
            .collect();
        if Value::Array(got.clone()) != *want {
            diffs.push(format!(
                "stage.started attempts of {node}: got {got:?} want {want}"
            ));
        }
    }
}

/// Per-node outcomes and the loop breaker's failure signatures in the checkpoint.
fn compare_outcomes(expected: &Value, checkpoint: &Value, diffs: &mut Vec<String>) {
    let outcome = |node: &str| &checkpoint["node_outcomes"][node];
    for (node, want) in entries(&expected["node_outcome_status"]) {
        let got = &outcome(node)["status"];
        if got != want {
            diffs.push(format!("{node} outcome status: got {got} want {want}"));
        }
    }
    for (node, want) in entries(&expected["node_outcome_notes_contains"]) {
        let notes = text_of(&outcome(node)["notes"]);
        if !notes.contains(want.as_str().unwrap_or_default()) {
            diffs.push(format!("{node} notes lack {want}: {}", tail(&notes)));
        }
    }
    for (node, want) in entries(&expected["node_outcome_failure_contains"]) {
        let text = format!(
            "{}{}",
            outcome(node)["failure"],
            text_of(&outcome(node)["notes"])
        );
        if !text.contains(want.as_str().unwrap_or_default()) {
            diffs.push(format!("{node} failure lacks {want}: {}", tail(&text)));
        }
    }
    for (node, updates) in entries(&expected["node_outcome_context"]) {
        for (key, want) in entries(updates) {
            let got = &outcome(node)["context_updates"][key];
            if got != want {
                diffs.push(format!(
                    "{node} context_updates[{key}]: got {got} want {want}"
                ));
            }
        }
    }
    let signatures = &checkpoint["loop_failure_signatures"];
    if !expected["loop_failure_signatures"].is_null()
        && *signatures != expected["loop_failure_signatures"]
    {
        diffs.push(format!(
            "loop_failure_signatures: got {signatures} want {}",
            expected["loop_failure_signatures"]
        ));
    }
    if let Some(want) = expected["loop_failure_signatures_total"].as_u64() {
        let total: u64 = entries(signatures).filter_map(|(_, n)| n.as_u64()).sum();
        if total != want {
            diffs.push(format!(
                "loop_failure_signatures total: got {signatures} want {want}"
            ));
        }
    }
}

fn entries(v: &Value) -> impl Iterator<Item = (&String, &Value)> {
    v.as_object().into_iter().flatten()
}

/// A string as itself, anything else as JSON.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The end of a long text, enough to see why a case failed.
fn tail(text: &str) -> String {
    let start = text.char_indices().rev().nth(300).map_or(0, |(i, _)| i);
    text[start..].trim().replace('\n', " | ")
}
