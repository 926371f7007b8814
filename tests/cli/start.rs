use serde_json::Value;

use crate::common::{TestRepo, read_file, run_err, write_file};

#[test]
fn start_creates_both_branches_the_run_dir_and_a_worktree() {
    let repo = TestRepo::new();
    let before = repo.user_state();
    write_file(
        &repo.root.join("flow.fabro"),
        "digraph flow { plan -> code }\n",
    );
    let out = repo.ok(&[
        "start",
        "--goal",
        "fix it",
        "--workflow",
        "../flow.fabro",
        "--label",
        "team=core",
        "--json",
    ]);
    let started: Value = serde_json::from_str(&out).unwrap();
    let id = started["run_id"].as_str().unwrap();
    assert_eq!(id.len(), 26);
    let head = repo.git(&["rev-parse", "HEAD"]);
    assert_eq!(repo.git(&["rev-parse", &format!("fabro/run/{id}")]), head);
    assert_eq!(started["base_sha"].as_str().unwrap(), head.trim());
    assert_eq!(started["run_branch"], format!("fabro/run/{id}"));
    assert_eq!(started["meta_branch"], format!("fabro/meta/{id}"));

    // The metadata branch is an orphan whose root commit is `init run`.
    let meta = format!("fabro/meta/{id}");
    assert_eq!(repo.git(&["rev-list", "--count", &meta]).trim(), "1");
    assert_eq!(repo.git(&["log", "-1", "--format=%P", &meta]).trim(), "");
    assert!(
        repo.git(&["log", "-1", "--format=%s", &meta])
            .starts_with("init run")
    );
    let files = repo.git(&["ls-tree", "--name-only", &meta]);
    assert_eq!(
        files.lines().collect::<Vec<_>>(),
        ["graph.fabro", "run.json"]
    );
    let run_json: Value =
        serde_json::from_str(&repo.git(&["show", &format!("{meta}:run.json")])).unwrap();
    assert_eq!(run_json["format"], 2);
    assert_eq!(run_json["run_id"], id);
    assert_eq!(run_json["spec"]["run_id"], id);
    assert_eq!(run_json["start"]["run_id"], id);
    assert_eq!(run_json["spec"]["goal"], "fix it");
    assert_eq!(run_json["spec"]["workflow_slug"], "flow");
    assert_eq!(run_json["spec"]["labels"]["team"], "core");
    assert_eq!(run_json["spec"]["graph_sha256"].as_str().unwrap().len(), 64);
    assert_eq!(run_json["status"]["kind"], "running");
    assert_eq!(run_json["start"]["base_sha"].as_str().unwrap(), head.trim());

    let run_dir = std::path::Path::new(started["run_dir"].as_str().unwrap());
    assert!(run_dir.starts_with(repo.home.join("runs")));
    assert!(run_dir.file_name().unwrap().to_string_lossy().ends_with(id));
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["run_id"], id);
    assert_eq!(
        manifest["host_repo_path"].as_str().unwrap(),
        repo.path.to_str().unwrap()
    );
    assert!(run_dir.join("graph.fabro").is_file());

    let worktree = started["worktree"].as_str().unwrap();
    assert_eq!(std::path::Path::new(worktree), run_dir.join("worktree"));
    let list = repo.git(&["worktree", "list", "--porcelain"]);
    assert!(list.contains(&format!("worktree {worktree}\n")), "{list}");
    assert!(
        list.contains(&format!("branch refs/heads/fabro/run/{id}")),
        "{list}"
    );
    assert_eq!(
        repo.git_in(std::path::Path::new(worktree), &["status", "--porcelain"]),
        ""
    );

    assert_eq!(
        repo.user_state(),
        before,
        "start must not touch the user's HEAD, refs, index or files"
    );
}

#[test]
fn start_prints_only_the_run_id_and_honours_base_and_run_dir() {
    let repo = TestRepo::new();
    let first = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    repo.write("second.txt", "2\n");
    repo.commit_all("second");
    let dir = repo.root.join("custom-run");
    let out = repo.ok(&[
        "start",
        "--base",
        "HEAD~1",
        "--run-dir",
        dir.to_str().unwrap(),
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "stdout is the run id alone: {out:?}");
    let id = lines[0];
    assert_eq!(
        repo.git(&["rev-parse", &format!("fabro/run/{id}")]).trim(),
        first
    );
    assert!(dir.join("manifest.json").is_file());
    assert!(dir.join("worktree/README.md").is_file());
    assert!(!dir.join("worktree/second.txt").exists());
}

#[test]
fn start_in_an_empty_repository_explains_what_is_missing() {
    let repo = TestRepo::new();
    let empty = repo.root.join("empty");
    std::fs::create_dir(&empty).unwrap();
    repo.git_in(&empty, &["init", "-q"]);
    let (code, err) = run_err(repo.fabro_in(&empty).arg("start"));
    assert_eq!(code, 2);
    assert!(err.contains("HEAD does not name a commit"), "{err}");
    assert_eq!(repo.git_in(&empty, &["for-each-ref"]), "");
}

#[test]
fn start_refuses_a_non_empty_run_dir_and_writes_no_refs() {
    let repo = TestRepo::new();
    let dir = repo.root.join("busy");
    write_file(&dir.join("keep.txt"), "mine\n");
    let (code, err) = run_err(
        repo.fabro()
            .args(["start", "--run-dir", dir.to_str().unwrap()]),
    );
    assert_eq!(code, 2);
    assert!(err.contains("not empty"), "{err}");
    assert_eq!(repo.git(&["for-each-ref", "refs/heads/fabro/"]), "");
    assert_eq!(read_file(dir.join("keep.txt")), "mine\n");
}

#[test]
fn start_records_the_workflow_as_fabros_graph_and_refuses_one_that_does_not_parse() {
    let repo = TestRepo::new();
    let flow = repo.write_beside("flow.fabro", "digraph Flow {\n  graph [goal=\"ship it\"]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  work [prompt=\"do\", max_retries=2]\n  start -> work -> exit\n}\n");
    let id = repo
        .ok(&["start", "--workflow", flow.to_str().unwrap()])
        .trim()
        .to_owned();
    let record: Value =
        serde_json::from_str(&repo.git(&["show", &format!("fabro/meta/{id}:run.json")])).unwrap();
    let graph = &record["spec"]["graph"];
    assert_eq!(graph["name"], "Flow");
    assert_eq!(graph["nodes"]["work"]["attrs"]["max_retries"]["Integer"], 2);
    assert_eq!(graph["edges"].as_array().unwrap().len(), 2);
    assert_eq!(
        record["spec"]["goal"],
        Value::Null,
        "no --goal: the workflow's goal is read from the graph"
    );
    assert!(repo.ok(&["ps"]).contains("ship it"));
    assert!(
        record["graph_source"]
            .as_str()
            .unwrap()
            .contains("digraph Flow")
    );

    let broken = repo.write_beside("broken.fabro", "digraph Broken {\n  a -> \n");
    let before = repo.git(&["for-each-ref"]);
    let (code, err) = run_err(
        repo.fabro()
            .args(["start", "--workflow", broken.to_str().unwrap()]),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("broken.fabro:") && err.contains(":"), "{err}");
    assert_eq!(repo.git(&["for-each-ref"]), before, "nothing was written");
}
