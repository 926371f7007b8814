//! `import="part.fabro"`: the part's nodes run in place of the placeholder under prefixed ids
//! (`validate.lint`), nested parts resolve beside the part that names them, and a cycle, a
//! path leading out of the workflow's places or a missing file is an `import_error` naming
//! the cause. A resumed run goes on from the graph it recorded, without the parts.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::failpoints::die_at;
use crate::common::{TestRepo, array, assert_success, read_file, run_err, write_file};
use crate::engine_run::{counted, run, run_json, the_only_run};

/// A part of two command nodes that append their (unprefixed) names to `log`.
fn part(name: &str, first: &str, second: &str, log: &Path) -> String {
    format!(
        "digraph {name} {{\n start [shape=Mdiamond]\n exit [shape=Msquare]\n {}\n {}\n \
         start -> {first} -> {second} -> exit\n}}\n",
        counted(log, first),
        counted(log, second)
    )
}

/// Writes a host workflow importing `val.fabro` as `validate` and `dep.fabro` as `deploy`,
/// both beside it in `dir`, and returns its path and the log its nodes append to.
fn release_pipeline(repo: &TestRepo, dir: &Path) -> (PathBuf, PathBuf) {
    let log = repo.root.join("ran.log");
    write_file(
        &dir.join("val.fabro"),
        &part("validate", "lint", "test", &log),
    );
    write_file(
        &dir.join("dep.fabro"),
        &part("deploy", "stage", "release", &log),
    );
    let host = dir.join("release.fabro");
    write_file(
        &host,
        "digraph Release {\n start [shape=Mdiamond]\n exit [shape=Msquare]\n \
         validate [import=\"./val.fabro\"]\n deploy [import=\"./dep.fabro\"]\n \
         start -> validate -> deploy -> exit\n}\n",
    );
    (host, log)
}

/// `validate --json` of `path`, run in the repository: (exit code, report, stderr).
fn validated(repo: &TestRepo, path: &Path) -> (i32, Value, String) {
    let out = repo
        .fabro()
        .arg("validate")
        .arg(path)
        .arg("--json")
        .output()
        .expect("runs");
    let report = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), report, stderr)
}

/// The `import_error` diagnostics of a report, as (node, message).
fn import_errors(report: &Value) -> Vec<(String, String)> {
    let all = report["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    all.iter()
        .filter(|d| d["rule"] == "import_error")
        .map(|d| {
            let text = |k: &str| d[k].as_str().unwrap_or("").to_owned();
            (text("node_id"), text("message"))
        })
        .collect()
}

#[test]
fn imported_workflows_run_in_order_under_prefixed_ids() {
    let repo = TestRepo::new();
    let (host, log) = release_pipeline(&repo, &repo.root);
    let (code, report, err) = validated(&repo, &host);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        (report["nodes"].clone(), report["edges"].clone()),
        (6.into(), 5.into())
    );

    let ran = run(&repo, &host, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(read_file(&log), "lint\ntest\nstage\nrelease\n");
    let record = run_json(&repo, &ran.id);
    assert_eq!(
        record["checkpoint"]["completed_nodes"],
        serde_json::json!([
            "start",
            "validate.lint",
            "validate.test",
            "deploy.stage",
            "deploy.release"
        ])
    );
    let graph = &record["spec"]["graph"];
    assert!(graph["nodes"].get("validate").is_none(), "{graph}");
    assert_eq!(
        graph["nodes"]["deploy.stage"]["classes"],
        serde_json::json!(["deploy"])
    );
    let edges: Vec<(&str, &str)> = array(&graph["edges"])
        .iter()
        .map(|e| (e["from"].as_str().unwrap(), e["to"].as_str().unwrap()))
        .collect();
    assert!(
        edges.contains(&("validate.test", "deploy.stage")),
        "{edges:?}"
    );
    assert!(edges.contains(&("deploy.release", "exit")), "{edges:?}");
}

#[test]
fn nested_imports_resolve_beside_the_file_that_names_them() {
    let repo = TestRepo::new();
    let log = repo.root.join("ran.log");
    let sub = repo.root.join("parts");
    write_file(&sub.join("inner.fabro"), &part("inner", "one", "two", &log));
    write_file(
        &sub.join("outer.fabro"),
        "digraph outer {\n start [shape=Mdiamond]\n exit [shape=Msquare]\n \
         nested [import=\"./inner.fabro\"]\n start -> nested -> exit\n}\n",
    );
    let host = repo.write_beside(
        "host.fabro",
        "digraph host {\n start [shape=Mdiamond]\n exit [shape=Msquare]\n \
         part [import=\"parts/outer.fabro\"]\n start -> part -> exit\n}\n",
    );
    let ran = run(&repo, &host, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(read_file(&log), "one\ntwo\n");
    assert_eq!(
        run_json(&repo, &ran.id)["checkpoint"]["completed_nodes"],
        serde_json::json!(["start", "part.nested.one", "part.nested.two"])
    );
}

#[test]
fn an_import_cycle_is_refused_naming_the_chain() {
    let repo = TestRepo::new();
    let importing = |name: &str, other: &str| {
        format!(
            "digraph {name} {{\n start [shape=Mdiamond]\n exit [shape=Msquare]\n \
             {other} [import=\"./{other}.fabro\"]\n start -> {other} -> exit\n}}\n"
        )
    };
    write_file(&repo.root.join("a.fabro"), &importing("a", "b"));
    write_file(&repo.root.join("b.fabro"), &importing("b", "a"));
    let host = repo.write_beside("host.fabro", &importing("host", "a"));
    let (code, report, _) = validated(&repo, &host);
    assert_eq!(code, 1);
    let errors = import_errors(&report);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let (node, message) = &errors[0];
    assert_eq!(node, "a.b.a");
    let a = repo.root.join("a.fabro").display().to_string();
    let b = repo.root.join("b.fabro").display().to_string();
    assert_eq!(message, &format!("circular import: {a} -> {b} -> {a}"));

    let (code, err) = run_err(repo.fabro().arg("run").arg(&host));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("circular import"), "{err}");
    assert_eq!(repo.git(&["branch", "--list", "fabro/*"]), "");
}

#[test]
fn an_import_leading_out_of_the_workflow_and_repository_is_refused() {
    let repo = TestRepo::new();
    let log = repo.root.join("ran.log");
    write_file(&repo.root.join("outside.fabro"), &part("x", "a", "b", &log));
    std::os::unix::fs::symlink(
        repo.root.join("outside.fabro"),
        repo.path.join("link.fabro"),
    )
    .unwrap();
    let host = repo.path.join("flows/host.fabro");
    write_file(
        &host,
        "digraph host {\n start [shape=Mdiamond]\n exit [shape=Msquare]\n \
         up [import=\"../../outside.fabro\"]\n linked [import=\"../link.fabro\"]\n \
         rooted [import=\"/etc/hostname\"]\n start -> up -> linked -> rooted -> exit\n}\n",
    );
    let (code, report, _) = validated(&repo, &host);
    assert_eq!(code, 1);
    let errors = import_errors(&report);
    let outside = "leads outside the workflow's directory and the repository";
    assert_eq!(
        errors,
        [
            ("up".into(), format!("import ../../outside.fabro {outside}")),
            ("linked".into(), format!("import ../link.fabro {outside}")),
            (
                "rooted".into(),
                "import /etc/hostname is not a relative path beside the workflow".into()
            ),
        ]
    );
    assert!(!log.exists());
}

#[test]
fn a_missing_import_names_the_file_and_runs_nothing() {
    let repo = TestRepo::new();
    let host = repo.write_beside(
        "host.fabro",
        "digraph host {\n start [shape=Mdiamond]\n exit [shape=Msquare]\n \
         checks [import=\"./checks.fabro\"]\n start -> checks -> exit\n}\n",
    );
    let (code, report, _) = validated(&repo, &host);
    assert_eq!(code, 1);
    assert_eq!(
        import_errors(&report),
        [("checks".into(), "file not found: ./checks.fabro".into())]
    );
    let out = repo.fabro().arg("validate").arg(&host).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error [node: checks]: file not found: ./checks.fabro (import_error)"),
        "{err}"
    );
    let (code, err) = run_err(repo.fabro().arg("run").arg(&host));
    assert_eq!(code, 2, "{err}");
    assert_eq!(repo.git(&["branch", "--list", "fabro/*"]), "");
}

#[test]
fn a_resumed_run_goes_on_from_the_recorded_graph_without_the_files() {
    let repo = TestRepo::new();
    let dir = repo.root.join("flows");
    let (host, log) = release_pipeline(&repo, &dir);
    die_at(
        repo.fabro().arg("run").arg(&host),
        "engine:checkpointed:validate.test@1",
    );
    assert_eq!(read_file(&log), "lint\ntest\n");
    std::fs::remove_file(dir.join("val.fabro")).unwrap();
    std::fs::remove_file(dir.join("dep.fabro")).unwrap();
    let id = the_only_run(&repo);
    let out = repo.output(&["resume", &id]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(read_file(&log), "lint\ntest\nstage\nrelease\n");
    let record = run_json(&repo, &id);
    assert_eq!(record["status"]["kind"], "succeeded");
}

#[test]
fn a_recorded_graph_rewritten_behind_the_run_does_not_run_without_trust() {
    let repo = TestRepo::new();
    let dir = repo.root.join("flows");
    let (host, _) = release_pipeline(&repo, &dir);
    die_at(
        repo.fabro().arg("run").arg(&host),
        "engine:checkpointed:validate.test@1",
    );
    let id = the_only_run(&repo);
    // The source, and its hash, stay as they were; only the spliced graph changes.
    let marker = repo.root.join("PWNED");
    let meta = format!("fabro/meta/{id}");
    let edit = repo.root.join("meta-edit");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "--detach",
        edit.to_str().unwrap(),
        &meta,
    ]);
    let record_path = edit.join("run.json");
    let mut record: Value = serde_json::from_str(&read_file(&record_path)).unwrap();
    let script = format!("touch {}", marker.display());
    record["spec"]["graph"]["nodes"]["deploy.stage"]["attrs"]["script"] =
        serde_json::json!({ "String": script });
    write_file(
        &record_path,
        &serde_json::to_string_pretty(&record).unwrap(),
    );
    repo.git_in(&edit, &["commit", "-q", "-am", "rewrite the graph"]);
    let rewritten = repo.git_in(&edit, &["rev-parse", "HEAD"]);
    repo.git(&[
        "update-ref",
        &format!("refs/heads/{meta}"),
        rewritten.trim(),
    ]);

    let (code, err) = run_err(repo.fabro().args(["resume", &id]));
    assert_eq!(code, 5, "{err}");
    assert!(!marker.exists(), "the rewritten graph ran");
    // The review shows the change against the graph approved when the run started.
    assert!(
        err.contains("Changes since the version approved here"),
        "{err}"
    );
    let added: Vec<&str> = err.lines().filter(|l| l.starts_with('+')).collect();
    assert!(
        added.iter().any(|l| l.contains(&script)) && added.len() == 2,
        "{err}"
    );
    let out = repo.output(&["resume", &id, "--trust"]);
    assert_success(&out);
    assert!(marker.exists());
}

#[test]
fn a_workflow_importing_parts_twice_at_every_level_is_bounded() {
    let repo = TestRepo::new();
    let levels = 9;
    for level in 0..levels {
        let text = if level + 1 == levels {
            "digraph leaf { start [shape=Mdiamond]; exit [shape=Msquare]; w [shape=parallelogram, script=\"true\"]; start -> w -> exit }\n".to_owned()
        } else {
            let next = level + 1;
            format!(
                "digraph l{level} {{ start [shape=Mdiamond]; exit [shape=Msquare]\n \
                 a [import=\"l{next}.fabro\"]; b [import=\"l{next}.fabro\"]\n \
                 start -> a -> b -> exit }}\n"
            )
        };
        write_file(&repo.root.join(format!("l{level}.fabro")), &text);
    }
    let (code, report, _) = validated(&repo, &repo.root.join("l0.fabro"));
    assert_eq!(code, 1, "{report}");
    let errors = import_errors(&report);
    assert!(
        errors
            .iter()
            .any(|(_, m)| m
                .starts_with("too many imports: the workflow imports more than 256 files")),
        "{errors:?}"
    );
}

/// Fabro's `transform_imports_before_variable_expansion_and_stylesheet`: the imported nodes
/// take the stylesheet's rules for the placeholder's class, and their inlined prompts are
/// rendered with the run's inputs.
#[test]
fn imported_nodes_are_styled_and_rendered_with_the_host() {
    let repo = TestRepo::new();
    let dir = repo.root.join("flows");
    write_file(
        &dir.join("prompts/lint.md"),
        "Run checks for {{ inputs.task }}",
    );
    write_file(
        &dir.join("validate.fabro"),
        "digraph validate { start [shape=Mdiamond]; exit [shape=Msquare]\n \
         lint [prompt=\"@prompts/lint.md\"]; start -> lint -> exit }\n",
    );
    let host = dir.join("host.fabro");
    write_file(
        &host,
        "digraph Test {\n graph [goal=\"Launch\", model_stylesheet=\".validate { model: sonnet; }\"]\n \
         start [shape=Mdiamond]; exit [shape=Msquare]\n validate [import=\"./validate.fabro\"]\n \
         start -> validate -> exit\n}\n",
    );
    let log = repo.root.join("agent.log");
    let agent = format!(
        "echo \"$FABRO_NODE_ID|$FABRO_MODEL|$(cat \"$FABRO_PROMPT_FILE\")\" >> {}",
        log.display()
    );
    let ran = run(&repo, &host, &["--agent", &agent, "--input", "task=Launch"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let seen = read_file(&log);
    let (node, rest) = seen.split_once('|').unwrap();
    let (model, prompt) = rest.split_once('|').unwrap();
    assert_eq!(node, "validate.lint");
    assert!(model.contains("sonnet"), "{seen}");
    assert!(prompt.contains("Run checks for Launch"), "{seen}");
}
