//! A run's timeline read out of packs: git stores checkpoint commits as deltas on each other,
//! in chains whose order and depth depend on how it repacked. Whatever the packing, the first
//! `log` after it (no commit cache) shows what it showed while the commits were loose, and
//! rebuilds every commit byte for byte as `git cat-file` gives it.

use crate::common::{TestRepo, ordinals, run_err, without_commit_cache, write_file};

/// The commits `log` kept in its cache, each as `git cat-file commit` gives it: all 45
/// checkpoints at least.
fn assert_cache_holds_what_git_stores(repo: &TestRepo, id: &str) {
    if without_commit_cache() {
        return;
    }
    let cache = std::fs::read(repo.commit_cache_path(id)).unwrap();
    let walked = repo.git(&["rev-list", "--first-parent", &format!("fabro/run/{id}")]);
    let mut checked = 0;
    for commit in walked.lines() {
        let raw = repo
            .git_output(&repo.path, &["cat-file", "commit", commit])
            .stdout;
        let record = [format!("{commit} {}\n", raw.len()).into_bytes(), raw].concat();
        if cache.windows(record.len()).any(|w| w == record.as_slice()) {
            checked += 1;
        }
    }
    assert!(
        checked >= 45,
        "{checked} commits rebuilt as git stores them"
    );
}

#[test]
fn every_way_git_packs_a_run_gives_the_timeline_it_had_loose() {
    let repo = TestRepo::new();
    let id = repo.run_with_checkpoints(45);
    let loose = repo.log_json(&id);
    assert_eq!(loose.len(), 45);
    let packings: [&[&str]; 4] = [
        &["gc", "-q"],
        &["repack", "-adfq", "--depth=50", "--window=250"],
        &["repack", "-adfq", "--depth=1"],
        &["repack", "-adfq", "--window=0"],
    ];
    for packing in packings {
        repo.git(packing);
        let _ = std::fs::remove_file(repo.commit_cache_path(&id));
        assert_eq!(repo.log_json(&id), loose, "after git {packing:?}");
        assert_cache_holds_what_git_stores(&repo, &id);
        repo.ok(&["fsck"]);
    }
}

#[test]
fn a_timeline_across_two_packs_and_loose_commits_reads_whole() {
    let (repo, run) = TestRepo::with_run();
    for n in 0..60 {
        write_file(&run.worktree.join("work.txt"), &n.to_string());
        repo.checkpoint(&run.id, "code");
        // Two packs of history (the second made by an incremental repack), then loose commits.
        if n == 20 {
            repo.git(&["repack", "-adq"]);
        }
        if n == 40 {
            repo.git(&["repack", "-dq"]);
        }
    }
    let packs = std::fs::read_dir(repo.path.join(".git/objects/pack"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "pack")
        })
        .count();
    assert_eq!(packs, 2);
    let entries = repo.log_json(&run.id);
    assert_eq!(ordinals(&entries), (1..=60).collect::<Vec<_>>());
    let commits: Vec<String> = entries
        .iter()
        .rev()
        .map(|e| e["run_commit"].as_str().unwrap().to_owned())
        .collect();
    let walked = repo.git(&[
        "rev-list",
        "--first-parent",
        &format!("fabro/run/{}", run.id),
    ]);
    assert_eq!(commits, walked.lines().take(60).collect::<Vec<_>>());
}

#[test]
fn a_damaged_pack_is_reported_as_git_reports_it() {
    for checkpoints in [30, 100] {
        damaged_oldest_commit_fails_log(checkpoints);
    }
}

fn damaged_oldest_commit_fails_log(checkpoints: usize) {
    let repo = TestRepo::new();
    let id = repo.run_with_checkpoints(checkpoints);
    repo.git(&["gc", "-q"]);
    assert!(
        !repo.commit_cache_path(&id).exists(),
        "no log made a commit cache"
    );
    // Damage the compressed data of the oldest checkpoint commit's pack entry.
    let oldest = repo
        .git(&["rev-list", "--first-parent", &format!("fabro/run/{id}")])
        .lines()
        .nth(checkpoints - 1)
        .unwrap()
        .to_owned();
    let pack_dir = repo.path.join(".git/objects/pack");
    let idx = std::fs::read_dir(&pack_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "idx"))
        .unwrap();
    let listing = repo.git(&["verify-pack", "-v", idx.to_str().unwrap()]);
    let offset: usize = listing
        .lines()
        .find(|line| line.starts_with(&oldest))
        .and_then(|line| line.split_whitespace().nth(4))
        .unwrap()
        .parse()
        .unwrap();
    let pack = idx.with_extension("pack");
    let mut bytes = std::fs::read(&pack).unwrap();
    for byte in &mut bytes[offset + 4..offset + 12] {
        *byte ^= 0x5a;
    }
    let mut permissions = std::fs::metadata(&pack).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    permissions.set_readonly(false);
    std::fs::set_permissions(&pack, permissions).unwrap();
    std::fs::write(&pack, bytes).unwrap();

    let git_read = repo.git_output(&repo.path, &["cat-file", "commit", &oldest]);
    assert!(!git_read.status.success(), "git finds the damage too");
    let (code, stderr) = run_err(repo.fabro().args(["log", &id]));
    assert_ne!(code, 0);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains(&oldest[..7]) || stderr.to_lowercase().contains("pack"),
        "{stderr}"
    );
}
