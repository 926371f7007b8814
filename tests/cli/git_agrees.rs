//! Plain git agrees with everything git-fabro writes, and git-fabro leaves the user's state,
//! hooks and signing configuration alone.

use crate::common::{TestRepo, assert_success, write_file};

#[test]
fn plain_git_reads_the_trailers_and_fsck_is_clean() {
    let (repo, run) = TestRepo::with_run();
    for node in ["plan", "code", "plan"] {
        write_file(&run.worktree.join(format!("{node}.txt")), node);
        repo.checkpoint(&run.id, node);
    }
    let branch = format!("fabro/run/{}", run.id);
    let meta = format!("fabro/meta/{}", run.id);
    let commits = repo.git(&["rev-list", &format!("main..{branch}")]);
    for (i, sha) in commits.lines().enumerate() {
        let message = repo.git(&["log", "-1", "--format=%B", sha]);
        let path = repo.root.join("msg.txt");
        std::fs::write(&path, message).unwrap();
        let parsed = repo.git(&["interpret-trailers", "--parse", path.to_str().unwrap()]);
        assert!(
            parsed.contains(&format!("Fabro-Run: {}", run.id)),
            "{parsed}"
        );
        assert!(
            parsed.contains(&format!("Fabro-Completed: {}", 3 - i)),
            "{parsed}"
        );
        let checkpoint = repo.git(&[
            "log",
            "-1",
            "--format=%(trailers:key=Fabro-Checkpoint,valueonly)",
            sha,
        ]);
        let checkpoint = checkpoint.trim();
        assert_eq!(checkpoint.len(), 40);
        // Every Fabro-Checkpoint names a commit of this run's metadata branch.
        let ancestor = repo.git_output(
            &repo.path,
            &["merge-base", "--is-ancestor", checkpoint, &meta],
        );
        assert!(ancestor.status.success(), "{checkpoint} is not on {meta}");
        assert_eq!(repo.git(&["cat-file", "-t", checkpoint]).trim(), "commit");
    }
    let fsck = repo.git_output(&repo.path, &["fsck", "--strict"]);
    assert_success(&fsck);
    assert!(
        repo.git(&["worktree", "list"])
            .contains(run.worktree.to_str().unwrap())
    );
}

#[test]
fn the_users_state_is_untouched_by_every_command() {
    let repo = TestRepo::new();
    // A dirty, partly staged main worktree.
    repo.write("README.md", "edited but not staged\n");
    repo.write("staged.txt", "staged\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("untracked.txt", "untracked\n");
    let status = repo.git(&["status", "--porcelain"]);
    let before = repo.user_state();
    let run = repo.start();
    write_file(&run.worktree.join("work.txt"), "w\n");
    repo.checkpoint(&run.id, "a");
    repo.ok(&["log", &run.id]);
    repo.ok(&["ps"]);
    repo.ok(&["show", &run.id]);
    repo.ok(&["finish", "--run", &run.id]);
    assert_eq!(repo.user_state(), before);
    assert_eq!(repo.git(&["status", "--porcelain"]), status);
}

#[test]
fn no_hook_runs_and_nothing_is_signed() {
    let repo = TestRepo::new();
    let marker = repo.root.join("hook-ran");
    for hook in [
        "pre-commit",
        "commit-msg",
        "post-commit",
        "reference-transaction",
        "post-checkout",
    ] {
        let path = repo.path.join(".git/hooks").join(hook);
        write_file(
            &path,
            &format!("#!/bin/sh\necho {hook} >> {}\n", marker.display()),
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    repo.git(&["config", "commit.gpgSign", "true"]);
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingKey", "/nonexistent/key"]);
    let run = repo.start();
    write_file(&run.worktree.join("x.txt"), "x\n");
    let sha = repo.checkpoint(&run.id, "a");
    repo.ok(&["finish", "--run", &run.id]);
    assert!(
        !marker.exists(),
        "hooks ran: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
    for rev in [
        sha,
        repo.git(&["rev-parse", &format!("fabro/meta/{}", run.id)])
            .trim()
            .to_owned(),
    ] {
        let raw = repo.git(&["cat-file", "commit", &rev]);
        assert!(!raw.contains("gpgsig"), "{raw}");
    }
}

#[test]
fn identity_comes_from_git_config_fabro_author() {
    let repo = TestRepo::new();
    repo.git(&["config", "fabro.author.name", "Agent Smith"]);
    repo.git(&["config", "fabro.author.email", "agent@example.com"]);
    let run = repo.start();
    let sha = repo.checkpoint(&run.id, "a");
    assert_eq!(
        repo.git(&["log", "-1", "--format=%an <%ae>|%cn <%ce>", &sha])
            .trim(),
        "Agent Smith <agent@example.com>|Agent Smith <agent@example.com>"
    );
}

#[test]
fn loose_objects_are_compressed_as_git_config_says_and_read_only() {
    let (repo, run) = TestRepo::with_run();
    let content = "the same line again\n".repeat(2000);
    let len = content.len();
    // The files are named in their lines, so that each is a new blob.
    let loose_size = |file: &str, node: &str| {
        let written = content.replace("same", file);
        write_file(&run.worktree.join(file), &written);
        repo.checkpoint(&run.id, node);
        let blob = repo.git(&["rev-parse", &format!("fabro/run/{}:{file}", run.id)]);
        let blob = blob.trim();
        let meta = std::fs::metadata(repo.loose_object(blob)).expect("the blob is a loose object");
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
            0o444
        );
        assert_eq!(repo.git(&["cat-file", "-p", blob]), written);
        meta.len() as usize
    };
    // Unset, git's level 1: a repetitive file shrinks to a small fraction.
    assert!(loose_size("default.txt", "a") < len / 10);
    // `core.compression 0` applies to loose objects too, and `core.looseCompression` wins.
    repo.git(&["config", "core.compression", "0"]);
    assert!(loose_size("stored.txt", "b") > len);
    repo.git(&["config", "core.looseCompression", "9"]);
    assert!(loose_size("best.txt", "c") < len / 10);
    let fsck = repo.git_output(&repo.path, &["fsck", "--strict"]);
    assert_success(&fsck);
}

#[test]
fn files_are_stored_through_the_filters_git_add_applies() {
    let repo = TestRepo::new();
    // Attributes committed at the top and in a subdirectory, and one file's attributes only
    // in the run's work tree, as a node would write them.
    repo.write(".gitattributes", "*.txt text eol=lf\n");
    repo.write("docs/.gitattributes", "*.md text\n");
    repo.git(&["add", "."]);
    repo.git(&["commit", "-qm", "attributes"]);
    repo.git(&["config", "core.autocrlf", "true"]);
    let run = repo.start();
    let files = [
        ("a.txt", "one\r\ntwo\r\n"),
        ("docs/b.md", "three\r\nfour\r\n"),
        ("raw.bin", "five\r\nsix\r\n"),
        ("late/c.cfg", "seven\r\n"),
    ];
    write_file(&run.worktree.join("late/.gitattributes"), "*.cfg -text\n");
    for (path, content) in files {
        write_file(&run.worktree.join(path), content);
    }
    repo.checkpoint(&run.id, "a");
    for (path, _) in files {
        let stored = repo.git(&["rev-parse", &format!("fabro/run/{}:{path}", run.id)]);
        let git_would = repo.git_in(&run.worktree, &["hash-object", "--path", path, path]);
        assert_eq!(stored.trim(), git_would.trim(), "{path}");
    }
    let stored = |path: &str| repo.git(&["show", &format!("fabro/run/{}:{path}", run.id)]);
    assert_eq!(stored("a.txt"), "one\ntwo\n");
    assert_eq!(stored("late/c.cfg"), "seven\r\n");
}
