use serde_json::Value;

use crate::common::{TestRepo, run_err};
use crate::fork::finished_run;

fn record(repo: &TestRepo, id: &str) -> Value {
    serde_json::from_str(&repo.git(&["show", &format!("fabro/meta/{id}:run.json")])).unwrap()
}

#[test]
fn rewind_forks_and_archives_the_source() {
    let repo = TestRepo::new();
    let source = finished_run(&repo);
    let id = repo.ok(&["rewind", &source, "@1"]).trim().to_owned();
    let old = record(&repo, &source);
    assert_eq!(old["status"]["kind"], "archived");
    assert_eq!(old["superseded_by"], id.as_str());
    let new = record(&repo, &id);
    assert_eq!(new["spec"]["fork_source"]["ordinal"], 1);
    let ps: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    assert_eq!(
        ps.iter()
            .map(|r| r["run_id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        [id.as_str()]
    );
    let all: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    assert_eq!(all.len(), 2);
}

#[test]
fn rewinding_again_names_the_existing_replacement() {
    let repo = TestRepo::new();
    let source = finished_run(&repo);
    let first = repo.ok(&["rewind", &source, "code"]).trim().to_owned();
    let again = repo.ok(&["rewind", &source, "code@1"]).trim().to_owned();
    assert_eq!(first, again);
    assert_eq!(
        repo.git(&["for-each-ref", "refs/heads/fabro/meta/"])
            .lines()
            .count(),
        2,
        "no second run"
    );
    let (code, err) = run_err(repo.fabro().args(["rewind", &source, "@1"]));
    assert_eq!(code, 1);
    assert!(
        err.contains("already rewound") && err.contains(&first),
        "{err}"
    );
}

#[test]
fn a_rewind_interrupted_after_archiving_is_finished_by_a_retry() {
    let repo = TestRepo::new();
    let source = finished_run(&repo);
    let replacement = repo.ok(&["rewind", &source, "@2"]).trim().to_owned();
    // Simulate a crash after the source's archive commit: the replacement's refs are missing.
    repo.git(&[
        "update-ref",
        "-d",
        &format!("refs/heads/fabro/run/{replacement}"),
    ]);
    repo.git(&[
        "update-ref",
        "-d",
        &format!("refs/heads/fabro/meta/{replacement}"),
    ]);
    let again = repo.ok(&["rewind", &source, "@2"]).trim().to_owned();
    assert_eq!(
        again, replacement,
        "the retry creates the run the source names"
    );
    assert_eq!(repo.log_json(&replacement).len(), 2);
}

#[test]
fn rewind_needs_an_ended_run_unless_forced() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "a");
    let (code, err) = run_err(repo.fabro().args(["rewind", &run.id]));
    assert_eq!(code, 1);
    assert!(err.contains("--force"), "{err}");
    assert_eq!(record(&repo, &run.id)["status"]["kind"], "running");
    let id = repo.ok(&["rewind", &run.id, "--force"]).trim().to_owned();
    assert_eq!(record(&repo, &run.id)["superseded_by"], id.as_str());
}

#[test]
fn rewind_list_shows_the_timeline() {
    let repo = TestRepo::new();
    let source = finished_run(&repo);
    let listed: Vec<Value> =
        serde_json::from_str(&repo.ok(&["rewind", &source, "--list", "--json"])).unwrap();
    assert_eq!(listed.len(), 3);
    assert_eq!(record(&repo, &source)["status"]["kind"], "succeeded");
}
