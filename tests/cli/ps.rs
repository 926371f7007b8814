use serde_json::Value;

use crate::common::{TestRepo, read_file};

#[test]
fn ps_lists_runs_from_refs_alone() {
    let repo = TestRepo::new();
    let a = repo.start();
    let b = repo.ok(&["start", "--goal", "second"]).trim().to_owned();
    repo.checkpoint(&a.id, "one");
    repo.checkpoint(&a.id, "two");
    std::fs::remove_dir_all(repo.home.join("runs")).unwrap();
    repo.git(&["worktree", "prune"]);

    let runs: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    assert_eq!(runs.len(), 2);
    let find = |id: &str| runs.iter().find(|r| r["run_id"] == id).unwrap().clone();
    let first = find(&a.id);
    assert_eq!(first["completed"], 2);
    assert_eq!(first["status"], "running");
    assert_eq!(first["run_branch"], format!("fabro/run/{}", a.id));
    assert_eq!(first["meta_branch"], format!("fabro/meta/{}", a.id));
    assert!(
        first.get("worktree").is_none(),
        "the worktree is gone: {first}"
    );
    let second = find(&b);
    assert_eq!(second["goal"], "second");
    assert_eq!(second["completed"], 0);
    for key in [
        "run_id",
        "status",
        "workflow_name",
        "goal",
        "completed",
        "start_time",
        "run_branch",
        "meta_branch",
    ] {
        assert!(second.get(key).is_some(), "missing {key}");
    }
    let human = repo.ok(&["ps"]);
    assert!(
        human.contains(&a.id[..8]) && human.contains(&b[..8]),
        "{human}"
    );
}

#[test]
fn ps_shows_the_worktree_when_there_is_one() {
    let (repo, run) = TestRepo::with_run();
    let runs: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    assert_eq!(
        runs[0]["worktree"].as_str().unwrap(),
        run.worktree.to_str().unwrap()
    );
}

#[test]
fn ps_in_a_repository_without_runs_prints_an_empty_list() {
    let repo = TestRepo::new();
    assert_eq!(repo.ok(&["ps", "--json"]).trim(), "[]");
}

/// The path of the loose object `id` in the test repository.
fn loose_object(repo: &TestRepo, id: &str) -> std::path::PathBuf {
    repo.path.join(".git/objects").join(&id[..2]).join(&id[2..])
}

#[test]
fn ps_reads_a_run_again_only_when_its_tips_moved() {
    let repo = TestRepo::new();
    let run = repo.ok(&["start", "--goal", "cached"]).trim().to_owned();
    repo.checkpoint(&run, "one");
    let first = repo.ok(&["ps", "--json"]);
    let record = repo.git(&["rev-parse", &format!("fabro/meta/{run}:run.json")]);
    let object = loose_object(&repo, record.trim());
    let bytes = std::fs::read(&object).unwrap();

    // Neither tip moved: the row comes from the last listing, without reading run.json.
    std::fs::remove_file(&object).unwrap();
    assert_eq!(repo.ok(&["ps", "--json"]), first);
    std::fs::write(&object, bytes).unwrap();

    // A checkpoint moves both tips: the row is read from git again.
    repo.checkpoint(&run, "two");
    let runs: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    assert_eq!(runs[0]["goal"], "cached");
    assert_eq!(runs[0]["completed"], 2);
}

#[test]
fn ps_ignores_a_damaged_or_foreign_summary_file() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "one");
    let expected = repo.ok(&["ps", "--json"]);
    let cache = repo.path.join(".git/fabro/summaries");
    let written = read_file(&cache);
    let (header, rows) = written.split_once('\n').unwrap();
    let damaged = [
        format!("{header}\n{}\n", &rows[..rows.len() / 2]),
        format!(
            "{header}\nnot a row\n{}",
            rows.replace("\"running\"", "\"bogus\"")
        ),
        format!("another version\n{rows}").replace("\"completed\":1", "\"completed\":9"),
        "\0\u{1}binary".to_owned(),
    ];
    for text in damaged {
        std::fs::write(&cache, &text).unwrap();
        assert_eq!(repo.ok(&["ps", "--json"]), expected, "with {text:?}");
    }
}
