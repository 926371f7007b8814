//! The format contract with Fabro, checked without Fabro's source: `tests/fixtures/fabro-types/
//! shapes.json` lists what Fabro's record types require (keys, JSON types, enum names), the
//! documents beside it were written by Fabro's own types, and every document git-fabro writes
//! must meet the same shapes. A change that would make Fabro's reader reject a document fails
//! here; the full check with Fabro's own code is `tests/compat/scenario` + fabro-compat.

use std::path::Path;

use serde_json::Value;

use crate::common::TestRepo;

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fabro-types")
        .join(name);
    serde_json::from_slice(&std::fs::read(&path).expect("fixture")).expect("fixture is JSON")
}

fn names(shapes: &Value, key: &str) -> Vec<String> {
    shapes[key]
        .as_array()
        .expect("a list of names")
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Follows `path` (`a.b?.c`); `None` when an optional (`?`) segment is absent or null.
fn lookup<'v>(doc: &'v Value, path: &str) -> Option<Option<&'v Value>> {
    let mut at = doc;
    for segment in path.split('.') {
        let (key, optional) = match segment.strip_suffix('?') {
            Some(key) => (key, true),
            None => (segment, false),
        };
        match at.get(key) {
            Some(Value::Null) | None if optional => return None,
            Some(next) => at = next,
            None => return Some(None),
        }
    }
    Some(Some(at))
}

fn one_of(errors: &mut Vec<String>, what: &str, value: Option<&Value>, allowed: &[String]) {
    match value.and_then(Value::as_str) {
        Some(v) if allowed.iter().any(|a| a == v) => {}
        other => errors.push(format!("{what} is {other:?}, not one of {allowed:?}")),
    }
}

/// Fabro's tagged `RunStatus` (or `TerminalStatus` when `terminal`).
fn check_status(shapes: &Value, status: &Value, terminal: bool, errors: &mut Vec<String>) {
    let kinds = if terminal {
        vec!["succeeded".into(), "failed".into(), "dead".into()]
    } else {
        names(shapes, "run_status_kinds")
    };
    one_of(errors, "status.kind", status.get("kind"), &kinds);
    match status.get("kind").and_then(Value::as_str) {
        Some("succeeded") => one_of(
            errors,
            "status.reason",
            status.get("reason"),
            &names(shapes, "success_reasons"),
        ),
        Some("failed") => one_of(
            errors,
            "status.reason",
            status.get("reason"),
            &names(shapes, "failure_reasons"),
        ),
        Some("blocked") => one_of(
            errors,
            "status.blocked_reason",
            status.get("blocked_reason"),
            &names(shapes, "blocked_reasons"),
        ),
        Some("archived") => match status.get("prior") {
            Some(prior @ Value::Object(_)) => check_status(shapes, prior, true, errors),
            other => errors.push(format!("archived status.prior is {other:?}, not an object")),
        },
        _ => {}
    }
}

/// Every key of Fabro's default settings is present, with the same type where Fabro's is set.
fn check_like(golden: &Value, ours: &Value, path: &str, errors: &mut Vec<String>) {
    let (Value::Object(golden), Value::Object(ours)) = (golden, ours) else {
        return;
    };
    for (key, value) in golden {
        let at = format!("{path}.{key}");
        match ours.get(key) {
            None => errors.push(format!("{at} is missing")),
            Some(mine) if !value.is_null() && type_of(mine) != type_of(value) => {
                errors.push(format!(
                    "{at} is {}, Fabro's is {}",
                    type_of(mine),
                    type_of(value)
                ));
            }
            Some(mine) => check_like(value, mine, &at, errors),
        }
    }
}

/// What Fabro's types would reject in `doc`, a document of `kind` (a file name of shapes.json).
pub fn violations(kind: &str, doc: &Value) -> Vec<String> {
    let shapes = fixture("shapes.json");
    let mut errors = Vec::new();
    let required = shapes["documents"][kind]
        .as_object()
        .unwrap_or_else(|| panic!("no shapes for {kind}"));
    for (path, expected) in required {
        match lookup(doc, path) {
            None => {}
            Some(None) => errors.push(format!("{path} is missing")),
            Some(Some(value)) if type_of(value) != expected.as_str().unwrap() => {
                errors.push(format!("{path} is {}, not {expected}", type_of(value)));
            }
            Some(Some(_)) => {}
        }
    }
    let outcomes = names(&shapes, "stage_outcomes");
    match kind {
        "run.json" => {
            if let Some(status) = doc.get("status") {
                check_status(&shapes, status, false, &mut errors);
            }
            check_run_parts(
                doc.get("checkpoint"),
                doc.get("conclusion"),
                &outcomes,
                &mut errors,
            );
            let golden = fixture("run.json");
            check_like(
                &golden["spec"]["settings"],
                &doc["spec"]["settings"],
                "spec.settings",
                &mut errors,
            );
        }
        "checkpoint.json" => check_run_parts(Some(doc), None, &outcomes, &mut errors),
        "conclusion.json" => check_run_parts(None, Some(doc), &outcomes, &mut errors),
        "status.json" => one_of(&mut errors, "outcome", doc.get("outcome"), &outcomes),
        "manifest.json" => {
            let golden = fixture("run.json");
            check_like(
                &golden["spec"]["settings"],
                &doc["settings"],
                "settings",
                &mut errors,
            );
        }
        _ => {}
    }
    errors
}

fn check_run_parts(
    checkpoint: Option<&Value>,
    conclusion: Option<&Value>,
    outcomes: &[String],
    errors: &mut Vec<String>,
) {
    if let Some(Value::Object(outs)) = checkpoint.and_then(|c| c.get("node_outcomes")) {
        for (node, outcome) in outs {
            one_of(
                errors,
                &format!("node_outcomes.{node}.status"),
                outcome.get("status"),
                outcomes,
            );
            if let Some(usage) = outcome.get("usage").filter(|u| !u.is_null()) {
                check_billed_usage(usage, &format!("node_outcomes.{node}.usage"), errors);
            }
        }
    }
    if let Some(conclusion) = conclusion.filter(|c| !c.is_null()) {
        one_of(
            errors,
            "conclusion.status",
            conclusion.get("status"),
            outcomes,
        );
    }
}

/// Fabro's `BilledModelUsage`: a `ModelRef`'s provider and the billing facts' tag are two
/// enums that spell the OpenAI providers differently.
fn check_billed_usage(usage: &Value, what: &str, errors: &mut Vec<String>) {
    let shapes = fixture("shapes.json");
    let model = &usage["input"]["usage"]["model"];
    one_of(
        errors,
        &format!("{what}.input.usage.model.provider"),
        model.get("provider"),
        &names(&shapes, "model_providers"),
    );
    one_of(
        errors,
        &format!("{what}.input.facts.provider"),
        usage["input"]["facts"].get("provider"),
        &names(&shapes, "billing_facts_providers"),
    );
    if !model["model_id"].is_string() {
        errors.push(format!("{what}.input.usage.model.model_id is not a string"));
    }
    for key in ["input_tokens", "output_tokens"] {
        if !usage["input"]["usage"]["tokens"][key].is_i64() {
            errors.push(format!("{what}.input.usage.tokens.{key} is not an integer"));
        }
    }
}

fn git_lines(repo: &TestRepo, args: &[&str]) -> Vec<String> {
    repo.git(args).lines().map(str::to_owned).collect()
}

fn assert_meets(kind: &str, doc: &[u8], origin: &str) {
    let value: Value = serde_json::from_slice(doc).unwrap_or_else(|e| panic!("{origin}: {e}"));
    let errors = violations(kind, &value);
    assert!(
        errors.is_empty(),
        "{origin} would be rejected by Fabro's types: {errors:#?}"
    );
}

/// Every document of every metadata commit and run directory of `repo` meets the contract.
pub fn assert_fabro_shapes(repo: &TestRepo) {
    let mut checked = 0;
    for branch in git_lines(
        repo,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/heads/fabro/meta/",
        ],
    ) {
        for commit in git_lines(repo, &["rev-list", &branch]) {
            for path in git_lines(repo, &["ls-tree", "-r", "--name-only", &commit]) {
                let kind = if path == "run.json" {
                    "run.json"
                } else if path.starts_with("stages/") && path.ends_with("/status.json") {
                    "status.json"
                } else {
                    continue;
                };
                let doc = repo.git(&["show", &format!("{commit}:{path}")]);
                assert_meets(kind, doc.as_bytes(), &format!("{commit}:{path}"));
                checked += 1;
            }
        }
    }
    let runs = repo.home.join("runs");
    for dir in std::fs::read_dir(&runs).into_iter().flatten().flatten() {
        for name in ["checkpoint.json", "conclusion.json", "manifest.json"] {
            if let Ok(doc) = std::fs::read(dir.path().join(name)) {
                assert_meets(name, &doc, &dir.path().join(name).display().to_string());
                checked += 1;
            }
        }
        for node in std::fs::read_dir(dir.path().join("nodes"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if let Ok(doc) = std::fs::read(node.path().join("status.json")) {
                assert_meets("status.json", &doc, &node.path().display().to_string());
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no documents found to check");
}

#[test]
fn fabros_own_documents_meet_the_contract() {
    for (kind, file) in [
        ("run.json", "run.json"),
        ("checkpoint.json", "checkpoint.json"),
        ("conclusion.json", "conclusion.json"),
        ("status.json", "stage-status.json"),
    ] {
        let errors = violations(kind, &fixture(file));
        assert!(errors.is_empty(), "{file}: {errors:#?}");
    }
}

#[test]
fn a_document_fabro_would_reject_fails_the_contract() {
    let mut run = fixture("run.json");
    run["status"] = serde_json::json!({ "kind": "failed", "reason": "tests do not pass" });
    run["spec"].as_object_mut().unwrap().remove("settings");
    run["checkpoint"]["node_outcomes"]["plan"]["status"] = "success".into();
    let errors = violations("run.json", &run);
    for expected in [
        "status.reason",
        "spec.settings is missing",
        "node_outcomes.plan.status",
    ] {
        assert!(
            errors.iter().any(|e| e.contains(expected)),
            "{expected}: {errors:#?}"
        );
    }
    let mut archived = fixture("run.json");
    archived["status"] = serde_json::json!({ "kind": "archived", "prior": "succeeded" });
    assert!(!violations("run.json", &archived).is_empty());
    let stage = serde_json::json!({ "status": "succeeded", "timestamp": "2026-01-01T00:00:00Z" });
    assert!(
        !violations("status.json", &stage).is_empty(),
        "format 1's stage record"
    );
}

#[test]
fn every_document_git_fabro_writes_meets_the_contract() {
    let repo = TestRepo::new();
    repo.git(&[
        "remote",
        "add",
        "origin",
        "https://user:secret@example.com/acme/app.git",
    ]);
    let flow = repo.write_beside("flow.fabro", "digraph Demo {\n  graph [goal=\"add a greeting\"]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  plan [prompt=\"Plan\"]\n  start -> plan -> exit\n}\n");
    let attachment = repo.write_beside("prompt.md", "the prompt\n");
    let a = repo
        .ok(&[
            "start",
            "--workflow",
            flow.to_str().unwrap(),
            "--label",
            "ticket=ENG-1",
        ])
        .trim()
        .to_owned();
    repo.ok(&["snapshot", "--run", &a]);
    let attach = format!("prompt.md={}", attachment.display());
    repo.checkpoint_with(
        &a,
        "plan",
        &[
            "--next",
            "code",
            "--context",
            "k=\"v\"",
            "--attach",
            &attach,
        ],
    );
    for status in ["failed", "partially_succeeded", "skipped", "succeeded"] {
        repo.checkpoint_with(&a, "code", &["--status", status]);
    }
    repo.ok(&["fork", &a, "@2"]);
    repo.ok(&["finish", "--run", &a]);
    repo.ok(&["rewind", &a, "@3"]);
    let b = repo.start().id;
    repo.checkpoint(&b, "only");
    repo.ok(&[
        "finish",
        "--run",
        &b,
        "--status",
        "failed",
        "--reason",
        "tests do not pass",
    ]);
    repo.ok(&["archive", &b]);
    repo.ok(&["unarchive", &b]);
    let c = repo.start().id;
    repo.ok(&["archive", &c]);
    let d = repo.ok(&["start", "--in-place"]).trim().to_owned();
    repo.checkpoint(&d, "here");
    assert_fabro_shapes(&repo);
    let record: Value =
        serde_json::from_str(&repo.git(&["show", &format!("fabro/meta/{b}:run.json")])).unwrap();
    assert_eq!(record["status"]["kind"], "failed");
    assert_eq!(record["status"]["reason"], "workflow_error");
    assert_eq!(record["conclusion"]["failure_reason"], "tests do not pass");
    let spec: Value =
        serde_json::from_str(&repo.git(&["show", &format!("fabro/meta/{a}:run.json")])).unwrap();
    assert_eq!(
        spec["spec"]["git"]["origin_url"], "https://example.com/acme/app.git",
        "credentials removed"
    );
    assert_eq!(spec["spec"]["workflow_slug"], "flow");
}
