use crate::common::{TestRepo, run_ok, write_file};

#[test]
fn diff_between_checkpoints_and_against_the_worktree() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "one\n");
    let first = repo.checkpoint(&run.id, "one");
    write_file(&run.worktree.join("a.txt"), "one\ntwo\n");
    write_file(&run.worktree.join("b.txt"), "b\n");
    let second = repo.checkpoint(&run.id, "two");

    assert_eq!(
        repo.ok(&["diff", &run.id]),
        repo.git(&["diff", "main", &second])
    );
    assert_eq!(
        repo.ok(&["diff", &run.id, "@1"]),
        repo.git(&["diff", &first, &second])
    );
    assert_eq!(
        repo.ok(&["diff", &run.id, "@2", "@1"]),
        repo.git(&["diff", &second, &first])
    );

    write_file(&run.worktree.join("c.txt"), "uncommitted\n");
    let worktree = repo.ok(&["diff", &run.id, "--worktree"]);
    assert!(
        worktree.contains("+++ b/c.txt") && worktree.contains("+uncommitted"),
        "{worktree}"
    );
    assert_eq!(
        repo.ok(&["diff", &run.id, "@1", "--stat"]),
        repo.git(&["diff", "--stat", &first, &second])
    );
}

/// One way of changing the worktree, named for the assertion that fails after it.
type Step<'a> = Box<dyn Fn() + 'a>;

/// Each step changes the worktree one way and checkpoints it; the stat of every checkpoint
/// against the one before must be git's own `git diff --stat`, byte for byte, piped.
#[test]
fn the_stat_is_what_git_diff_stat_prints() {
    let (repo, run) = TestRepo::with_run();
    let at = |rel: &str| run.worktree.join(rel);
    let numbered = |n: usize| (1..=n).map(|i| format!("line {i}\n")).collect::<String>();
    let steps: Vec<(&str, Step)> = vec![
        (
            "a small change",
            Box::new(|| write_file(&at("a.txt"), "one\n")),
        ),
        (
            "many files",
            Box::new(|| {
                for i in 0..40 {
                    write_file(&at(&format!("many/file{i:02}.txt")), &numbered(i));
                }
            }),
        ),
        (
            "a change too wide for the graph",
            Box::new(|| write_file(&at("a.txt"), &numbered(300))),
        ),
        (
            "a long path",
            Box::new(|| {
                let deep = "a/very/long/directory/name/that/keeps/going/and/going/and/going/on";
                write_file(&at(&format!("{deep}/file.txt")), "x\n");
            }),
        ),
        (
            "a binary file",
            Box::new(|| {
                std::fs::write(at("blob.bin"), b"\0\x01\x02binary").expect("write");
            }),
        ),
        (
            "a binary file changed, beside text",
            Box::new(|| {
                std::fs::write(at("blob.bin"), b"\0longer binary content").expect("write");
                write_file(&at("a.txt"), &numbered(301));
            }),
        ),
        (
            "additions only",
            Box::new(|| write_file(&at("b.txt"), "1\n2\n3\n")),
        ),
        (
            "deletions only",
            Box::new(|| {
                std::fs::remove_dir_all(at("many")).expect("remove");
                std::fs::remove_file(at("blob.bin")).expect("remove");
            }),
        ),
        (
            "names git quotes",
            Box::new(|| {
                write_file(&at("tab\there.txt"), "t\n");
                write_file(&at("caf\u{e9}.txt"), "c\n");
                write_file(&at("quote\"d.txt"), "q\n");
            }),
        ),
    ];
    let mut previous = repo.git(&["rev-parse", "main"]).trim().to_owned();
    for (i, (what, change)) in steps.iter().enumerate() {
        change();
        let commit = repo.checkpoint(&run.id, &format!("step{i}"));
        // FROM alone is compared with the latest checkpoint; without targets the first one
        // is compared with the base (the run's whole change, so far one checkpoint).
        let from = format!("@{i}");
        let mut args = vec!["diff", run.id.as_str(), "--stat"];
        if i > 0 {
            args.push(&from);
        }
        let latest = repo.ok(&args);
        let theirs = repo.git(&["diff", "--stat", &previous, &commit]);
        assert_eq!(latest, theirs, "{what}");
        if i > 0 {
            let named = repo.ok(&[
                "diff",
                &run.id,
                &format!("@{i}"),
                &format!("@{}", i + 1),
                "--stat",
            ]);
            assert_eq!(named, theirs, "{what}, named");
        }
        // Git reads COLUMNS for the width before it asks a terminal; so do we.
        for columns in ["40", "132"] {
            let ours = run_ok(repo.fabro().env("COLUMNS", columns).args(&args));
            let theirs = run_ok(
                repo.command("git")
                    .env("COLUMNS", columns)
                    .args(["diff", "--stat", &previous, &commit]),
            );
            assert_eq!(ours, theirs, "{what}, COLUMNS={columns}");
        }
        previous = commit;
    }
}

#[test]
fn the_first_checkpoint_is_compared_with_the_base() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "a\n");
    let first = repo.checkpoint(&run.id, "one");
    assert_eq!(
        repo.ok(&["diff", &run.id]),
        repo.git(&["diff", "main", &first])
    );
}

/// With `core.quotePath=false` git leaves non-ASCII names alone but still quotes control
/// characters; the stat follows the repository's setting the same way.
#[test]
fn the_stat_follows_core_quote_path() {
    let repo = TestRepo::new();
    repo.git(&["config", "core.quotePath", "false"]);
    let run = repo.start();
    write_file(&run.worktree.join("caf\u{e9}.txt"), "c\n");
    write_file(&run.worktree.join("tab\there.txt"), "t\n");
    let commit = repo.checkpoint(&run.id, "names");
    let ours = repo.ok(&["diff", &run.id, "--stat"]);
    assert_eq!(ours, repo.git(&["diff", "--stat", "main", &commit]));
    assert!(
        ours.contains(" caf\u{e9}.txt ") && ours.contains("\"tab\\there.txt\""),
        "{ours}"
    );
}

/// Without targets, `diff` shows the run's whole change, byte for byte what `git diff` prints
/// between its base and its tip, however many checkpoints it took.
#[test]
fn without_targets_the_whole_run_is_compared_with_its_base() {
    let repo = TestRepo::new();
    let base = repo.git(&["rev-parse", "main"]).trim().to_owned();
    let run = repo.start();
    write_file(&run.worktree.join("a.txt"), "one\n");
    repo.checkpoint(&run.id, "plan");
    write_file(&run.worktree.join("a.txt"), "one\ntwo\n");
    write_file(&run.worktree.join("b.txt"), "b\n");
    repo.checkpoint(&run.id, "code");
    write_file(&run.worktree.join("c.txt"), "c\n");
    std::fs::remove_file(run.worktree.join("b.txt")).expect("remove");
    let tip = repo.checkpoint(&run.id, "test");

    for flags in [&[][..], &["--stat"], &["--name-only"], &["--name-status"]] {
        let ours = repo.ok(&[&["diff", run.id.as_str()][..], flags].concat());
        let theirs = repo.git(&[&["diff"][..], flags, &[&base, &tip]].concat());
        assert_eq!(ours, theirs, "{flags:?}");
    }
    assert!(repo.ok(&["diff", &run.id]).contains("+two"));
}

/// A fork's whole change counts from the base its line of work started on, not its fork point.
#[test]
fn without_targets_a_fork_is_compared_with_its_origins_base() {
    let repo = TestRepo::new();
    let base = repo.git(&["rev-parse", "main"]).trim().to_owned();
    let run = repo.start();
    write_file(&run.worktree.join("a.txt"), "one\n");
    repo.checkpoint(&run.id, "plan");
    write_file(&run.worktree.join("b.txt"), "b\n");
    repo.checkpoint(&run.id, "code");
    let fork = repo.ok(&["fork", &run.id, "plan@1"]).trim().to_owned();
    repo.ok(&["resume", &fork]);
    let worktree = std::path::PathBuf::from(repo.ok(&["path", &fork]).trim());
    write_file(&worktree.join("c.txt"), "c\n");
    let tip = repo.checkpoint(&fork, "code");

    for flags in [&[][..], &["--stat"], &["--name-only"]] {
        let ours = repo.ok(&[&["diff", fork.as_str()][..], flags].concat());
        let theirs = repo.git(&[&["diff"][..], flags, &[&base, &tip]].concat());
        assert_eq!(ours, theirs, "{flags:?}");
    }
    assert_eq!(repo.ok(&["diff", &fork, "--name-only"]), "a.txt\nc.txt\n");
}
