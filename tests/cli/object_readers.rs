//! What reads a timeline's commits (`GIT_FABRO_OBJECT_READER`): gix's object store alone, or
//! the run's commit cache in front of it (the default). Every command that reads a timeline
//! prints the same with either, whether the run's commits are loose or packed, whether the
//! cache is new, warm or forged. `.ci/run` also runs the timeline tests with `gix`.

use crate::common::{OBJECT_READER, TestRepo, read_file, run_err, run_ok, write_file};

/// What the timeline commands print about `runs`, read through `reader`.
fn shown(repo: &TestRepo, reader: &str, runs: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for run in runs {
        for args in [
            vec!["log", run],
            vec!["log", run, "--json"],
            vec!["log", "--all", run, "--json"],
            vec!["status", run, "--json"],
            vec!["show", run, "@2", "--json"],
            vec!["show", run, "plan@2", "--json"],
            vec!["diff", run, "@1", "@3", "--stat"],
        ] {
            let printed = run_ok(repo.fabro().env(OBJECT_READER, reader).args(&args));
            out.push(format!("{args:?}\n{printed}"));
        }
    }
    out.push(run_ok(
        repo.fabro()
            .env(OBJECT_READER, reader)
            .args(["ps", "--json"]),
    ));
    out
}

/// Both readers agree, the cache read cold (just removed) and warm.
fn assert_readers_agree(repo: &TestRepo, runs: &[&str], what: &str) {
    let gix = shown(repo, "gix", runs);
    for run in runs {
        let _ = std::fs::remove_file(repo.commit_cache_path(run));
    }
    assert_eq!(shown(repo, "own", runs), gix, "{what}: a new cache");
    assert_eq!(shown(repo, "own", runs), gix, "{what}: a warm cache");
}

#[test]
fn both_readers_show_the_same_timelines_loose_packed_and_forked() {
    let repo = TestRepo::new();
    let source = repo.run_with_checkpoints(40);
    let fork = repo.ok(&["fork", &source, "@20"]).trim().to_owned();
    let resumed: serde_json::Value =
        serde_json::from_str(&repo.ok(&["resume", &fork, "--json"])).unwrap();
    let worktree = std::path::Path::new(resumed["worktree"].as_str().unwrap());
    for n in 0..20 {
        write_file(&worktree.join("fork.txt"), &n.to_string());
        repo.checkpoint(&fork, ["plan", "code"][n % 2]);
    }
    repo.ok(&["snapshot", "--run", &fork]);
    let runs = [source.as_str(), fork.as_str()];

    assert_readers_agree(&repo, &runs, "loose");
    repo.git(&["gc", "-q"]);
    assert_readers_agree(&repo, &runs, "after git gc");
    repo.git(&["repack", "-adfq", "--depth=1"]);
    assert_readers_agree(&repo, &runs, "repacked one delta deep");
}

#[test]
fn gix_alone_keeps_no_commit_cache_and_a_forged_cache_changes_nothing() {
    let repo = TestRepo::new();
    let id = repo.run_with_checkpoints(20);
    let cache = repo.commit_cache_path(&id);
    let gix = shown(&repo, "gix", &[&id]);
    assert!(!cache.exists(), "gix alone wrote {}", cache.display());

    shown(&repo, "own", &[&id]);
    let written = read_file(&cache);
    // Another node's name in a record, its id kept: believed, it would rename a checkpoint.
    let forged = written.replace("): plan (", "): clan (");
    assert_ne!(forged, written);
    std::fs::write(&cache, forged).unwrap();
    assert_eq!(shown(&repo, "own", &[&id]), gix);
}

#[test]
fn an_unknown_reader_is_a_usage_error() {
    let repo = TestRepo::new();
    let (code, stderr) = run_err(repo.fabro().env(OBJECT_READER, "git").args(["ps"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("GIT_FABRO_OBJECT_READER"), "{stderr}");
    assert!(stderr.contains("`gix` or `own`"), "{stderr}");
}
