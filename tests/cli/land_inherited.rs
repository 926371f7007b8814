//! A fork or a rewound run changed what it inherited too: `land`, `final.patch` and `diff`
//! count from the base of the run at the root of its fork chain, never from the fork point.

use crate::common::{TestRepo, read_file, run_ok, write_file};

/// A run with `one.txt` checkpointed at `a` and `two.txt` at `b`; returns its id.
fn two_checkpoints(repo: &TestRepo) -> String {
    let run = repo.start();
    write_file(&run.worktree.join("one.txt"), "one\n");
    repo.checkpoint(&run.id, "a");
    write_file(&run.worktree.join("two.txt"), "two\n");
    repo.checkpoint(&run.id, "b");
    run.id
}

/// Resumes `id` (which gives it a worktree), adds `name` and checkpoints it at `node`.
fn add_in(repo: &TestRepo, id: &str, name: &str, node: &str) {
    repo.ok(&["resume", id]);
    let wt = repo.ok(&["path", id]).trim().to_owned();
    write_file(&std::path::Path::new(&wt).join(name), &format!("{name}\n"));
    repo.checkpoint(id, node);
}

/// The names of the files the commit `rev` changed against its first parent.
fn landed_files(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["diff", "--name-only", &format!("{rev}^"), rev])
}

fn final_patch(repo: &TestRepo, id: &str) -> String {
    let runs = std::fs::read_dir(repo.home.join("runs")).unwrap();
    let dir = runs
        .map(|entry| entry.unwrap().path())
        .find(|dir| dir.to_string_lossy().ends_with(id))
        .expect("the run's directory");
    read_file(dir.join("final.patch"))
}

#[test]
fn landing_a_fork_brings_what_it_inherited() {
    let repo = TestRepo::new();
    let source = two_checkpoints(&repo);
    let fork = repo.ok(&["fork", &source, "a@1"]).trim().to_owned();
    add_in(&repo, &fork, "three.txt", "c");
    repo.ok(&["finish", &fork]);
    let patch = final_patch(&repo, &fork);
    assert!(
        patch.contains("b/one.txt") && patch.contains("b/three.txt") && !patch.contains("two.txt"),
        "{patch}"
    );
    repo.ok(&["land", &fork]);
    assert_eq!(landed_files(&repo, "main"), "one.txt\nthree.txt\n");
    assert!(
        repo.git_output(&repo.path, &["fsck", "--strict"])
            .status
            .success()
    );
}

#[test]
fn landing_a_rewound_run_brings_what_it_kept() {
    let repo = TestRepo::new();
    let source = two_checkpoints(&repo);
    let rewound = repo
        .ok(&["rewind", &source, "a@1", "--force"])
        .trim()
        .to_owned();
    add_in(&repo, &rewound, "three.txt", "c");
    repo.ok(&["finish", &rewound]);
    repo.ok(&["land", &rewound]);
    assert_eq!(landed_files(&repo, "main"), "one.txt\nthree.txt\n");
}

#[test]
fn a_fork_of_a_fork_counts_from_the_first_runs_base() {
    let repo = TestRepo::new();
    let source = two_checkpoints(&repo);
    let first = repo.ok(&["fork", &source, "a@1"]).trim().to_owned();
    add_in(&repo, &first, "three.txt", "c");
    let second = repo.ok(&["fork", &first]).trim().to_owned();
    add_in(&repo, &second, "four.txt", "d");
    repo.ok(&["finish", &second]);
    repo.ok(&["land", &second]);
    assert_eq!(
        landed_files(&repo, "main"),
        "four.txt\none.txt\nthree.txt\n"
    );
}

#[test]
fn diff_of_a_fork_at_its_first_checkpoint_shows_the_inherited_change() {
    let repo = TestRepo::new();
    let source = two_checkpoints(&repo);
    let fork = repo.ok(&["fork", &source, "a@1"]).trim().to_owned();
    assert_eq!(repo.ok(&["diff", &fork, "--name-only"]), "one.txt\n");
}

#[test]
fn a_fork_whose_source_is_gone_still_lands_from_the_origin_base() {
    let repo = TestRepo::new();
    let source = two_checkpoints(&repo);
    let fork = repo.ok(&["fork", &source, "a@1"]).trim().to_owned();
    add_in(&repo, &fork, "three.txt", "c");
    repo.ok(&["finish", &fork]);
    for kind in ["run", "meta"] {
        repo.git(&[
            "update-ref",
            "-d",
            &format!("refs/heads/fabro/{kind}/{source}"),
        ]);
    }
    repo.git(&["reflog", "expire", "--expire=now", "--all"]);
    repo.git(&["gc", "-q", "--prune=now"]);
    run_ok(repo.fabro().args(["land", &fork]));
    assert_eq!(landed_files(&repo, "main"), "one.txt\nthree.txt\n");
}

#[test]
fn landing_a_git_fabro_fork_of_a_fabro_fork_counts_from_fabros_base() {
    let repo = TestRepo::from_bundle("fabro-written/fabro-runs.bundle");
    // Fabro's own fork records its fork point as its base; its origin started on `initial`.
    let fork = repo
        .ok(&["fork", "01M81KAXFFF0EW3SBN6H7C7EHD"])
        .trim()
        .to_owned();
    repo.ok(&["land", &fork, "--force"]);
    let expected = repo.git(&[
        "diff",
        "--name-only",
        "fabro/run/01M81KAWS9G3B7EB9N3A2NKYK2~3",
        "fabro/run/01M81KAXFFF0EW3SBN6H7C7EHD",
    ]);
    assert!(!expected.is_empty());
    assert_eq!(landed_files(&repo, "main"), expected);
}
