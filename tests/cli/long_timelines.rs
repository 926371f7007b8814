//! Long timelines, loose and packed: what `log` shows and what its commit cache keeps must not
//! depend on where a commit was read.

use crate::common::{TestRepo, ordinals, without_commit_cache};

const CHECKPOINTS: usize = 150;

/// The ids of the records in the commit cache of run `id`, in file order.
fn cached_commits(repo: &TestRepo, id: &str) -> Vec<String> {
    let file = std::fs::read(repo.commit_cache_path(id)).unwrap();
    let mut rest = file.splitn(2, |b| *b == b'\n').nth(1).unwrap();
    let mut ids = Vec::new();
    while !rest.is_empty() {
        let line_end = rest.iter().position(|b| *b == b'\n').unwrap();
        let line = std::str::from_utf8(&rest[..line_end]).unwrap();
        let (commit, len) = line.split_once(' ').unwrap();
        ids.push(commit.to_owned());
        rest = &rest[line_end + 1 + len.parse::<usize>().unwrap() + 1..];
    }
    ids
}

#[test]
fn a_long_timeline_reads_whole_and_in_order_loose_and_packed() {
    let repo = TestRepo::new();
    let id = repo.run_with_checkpoints(CHECKPOINTS);
    let walked = repo.git(&["rev-list", "--first-parent", &format!("fabro/run/{id}")]);
    let run_commits: Vec<&str> = walked.lines().take(CHECKPOINTS).collect();

    let loose = repo.log_json(&id);
    let shown: Vec<&str> = loose
        .iter()
        .rev()
        .map(|e| e["run_commit"].as_str().unwrap())
        .collect();
    assert_eq!(shown, run_commits);
    assert_eq!(
        ordinals(&loose),
        (1..=CHECKPOINTS as u64).collect::<Vec<_>>()
    );
    // The cache keeps the commits the timeline used, newest first: not the base commit.
    let cached = !without_commit_cache();
    if cached {
        assert_eq!(cached_commits(&repo, &id), run_commits);
    }

    repo.git(&["gc", "-q"]);
    let _ = std::fs::remove_file(repo.commit_cache_path(&id));
    assert_eq!(repo.log_json(&id), loose, "first log after gc");
    if cached {
        assert_eq!(cached_commits(&repo, &id), run_commits);
    }
    assert_eq!(repo.log_json(&id), loose, "log from the cache");
    assert_eq!(repo.ok(&["log", &id]).lines().count(), CHECKPOINTS + 1);
}

#[test]
fn a_fork_of_a_long_run_lists_what_it_inherited_then_its_own() {
    let repo = TestRepo::new();
    let source = repo.run_with_checkpoints(CHECKPOINTS);
    repo.git(&["gc", "-q"]);
    let source_entries = repo.log_json(&source);
    let fork = repo.ok(&["fork", &source, "@100"]).trim().to_owned();
    let state: serde_json::Value = serde_json::from_str(&repo.ok(&["resume", &fork])).unwrap();
    let worktree = std::path::Path::new(state["worktree"].as_str().unwrap());
    crate::common::write_file(&worktree.join("fork.txt"), "fork");
    repo.checkpoint(&fork, "fork");

    let entries = repo.log_json(&fork);
    assert_eq!(entries.len(), 101);
    for (inherited, original) in entries[..100].iter().zip(&source_entries) {
        assert_eq!(inherited["run_commit"], original["run_commit"]);
        assert_eq!(inherited["ordinal"], original["ordinal"]);
    }
    assert_eq!(entries[100]["node_id"], "fork");
    assert_eq!(entries[100]["run_id"].as_str(), Some(fork.as_str()));
    // The fork's cache holds the 101 commits its timeline used, and gives the same timeline.
    if !without_commit_cache() {
        assert_eq!(cached_commits(&repo, &fork).len(), 101);
    }
    assert_eq!(repo.log_json(&fork), entries);
}
