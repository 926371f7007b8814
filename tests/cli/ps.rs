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

#[test]
fn ps_reads_a_run_again_only_when_its_tips_moved() {
    let repo = TestRepo::new();
    let run = repo.ok(&["start", "--goal", "cached"]).trim().to_owned();
    repo.checkpoint(&run, "one");
    let first = repo.ok(&["ps", "--json"]);
    let record = repo.git(&["rev-parse", &format!("fabro/meta/{run}:run.json")]);
    let object = repo.loose_object(record.trim());
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

/// `2026-12-02T02:35:48.000Z` as the tables show it (the tests run with TZ=UTC).
fn shown_time(timestamp: &str) -> String {
    format!("{} {} +0000", &timestamp[..10], &timestamp[11..19])
}

/// Each line of a table with its runs of spaces as one.
fn rows(table: &str) -> Vec<String> {
    table
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// DONE counts the same in both tables for a run the engine executed, whose Fabro count
/// (`Fabro-Completed`, `log --json`'s `completed`) takes in the start node: `ps`'s DONE is the
/// DONE of `log`'s last row.
#[test]
fn done_means_the_same_in_ps_and_log() {
    let repo = TestRepo::new();
    let text = "digraph two { start [shape=Mdiamond]\n exit [shape=Msquare]\n \
                one [shape=parallelogram, script=\"true\"]\n \
                two [shape=parallelogram, script=\"true\"]\n start -> one -> two -> exit }";
    let path = crate::engine_run::workflow(&repo, "two", text);
    let ran = crate::engine_run::run(&repo, &path, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let id = ran.id;

    let entries = repo.log_json(&id);
    assert_eq!(entries[0]["completed"], 2, "Fabro's count: start, then one");
    let row = |e: &Value, done: u64| {
        let sha = |key: &str| e[key].as_str().unwrap()[..7].to_owned();
        format!(
            "@{done} {}@1 succeeded {done} {} {} {}",
            e["node_id"].as_str().unwrap(),
            sha("run_commit"),
            sha("meta_commit"),
            shown_time(e["timestamp"].as_str().unwrap())
        )
    };
    assert_eq!(
        rows(&repo.ok(&["log", &id])),
        [
            "# STAGE STATUS DONE COMMIT META TIME".to_owned(),
            row(&entries[0], 1),
            row(&entries[1], 2),
        ]
    );

    let listed: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    let started = shown_time(listed[0]["start_time"].as_str().unwrap());
    assert_eq!(
        rows(&repo.ok(&["ps"])),
        [
            "RUN STATUS DONE STARTED WORKFLOW GOAL".to_owned(),
            format!("{} succeeded 2 {started} two", &id[..8]),
        ]
    );
}
