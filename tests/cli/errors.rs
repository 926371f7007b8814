use crate::common::{TestRepo, run_err, snapshot};

/// The refs and object count, to show a refused command wrote nothing.
fn written(repo: &TestRepo) -> (String, String) {
    (repo.git(&["for-each-ref"]), repo.git(&["count-objects"]))
}

#[test]
fn bad_node_ids_exit_2_and_write_nothing() {
    let (repo, run) = TestRepo::with_run();
    let before = written(&repo);
    let long = "n".repeat(129);
    let refusals: String = [
        "../x",
        "a/b",
        "a b",
        "a\nb",
        "",
        "a@1",
        ".hidden",
        "a..b",
        long.as_str(),
    ]
    .iter()
    .map(|node| snapshot::refused(&repo, &["checkpoint", "--run", &run.id, "--node", node]))
    .collect();
    let _filters = snapshot::filters(&repo).bind_to_scope();
    insta::assert_snapshot!(refusals);
    let (code, _) = run_err(repo.fabro().args([
        "checkpoint",
        "--run",
        &run.id,
        "--node",
        "a",
        "--next",
        "x/y",
    ]));
    assert_eq!(code, 2);
    assert_eq!(written(&repo), before);
}

#[test]
fn unknown_statuses_list_the_valid_ones() {
    let (repo, run) = TestRepo::with_run();
    let before = written(&repo);
    let _filters = snapshot::filters(&repo).bind_to_scope();
    insta::assert_snapshot!(snapshot::refused(
        &repo,
        &[
            "checkpoint",
            "--run",
            &run.id,
            "--node",
            "a",
            "--status",
            "done"
        ]
    ));
    assert_eq!(written(&repo), before);
}

#[test]
fn malformed_context_and_attachments_exit_2() {
    let (repo, run) = TestRepo::with_run();
    let before = written(&repo);
    for args in [
        vec!["--context", "k={not json"],
        vec!["--context", "novalue"],
        vec!["--context", "=1"],
        vec!["--attach", "x.md=/does/not/exist"],
        vec!["--attach", "../x=Cargo.toml"],
        vec!["--attach", "status.json=Cargo.toml"],
    ] {
        let mut cmd = repo.fabro();
        cmd.args(["checkpoint", "--run", &run.id, "--node", "a"])
            .args(&args);
        let (code, err) = run_err(&mut cmd);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
    assert_eq!(written(&repo), before);
}

#[test]
fn unknown_and_ambiguous_run_prefixes() {
    let repo = TestRepo::new();
    let a = repo.start();
    let b = repo.start();
    let common: String =
        a.id.chars()
            .zip(b.id.chars())
            .take_while(|(x, y)| x == y)
            .map(|(x, _)| x)
            .collect();
    assert!(
        common.len() >= 4,
        "runs minted in the same second share a prefix"
    );
    let refusals = [
        snapshot::refused(&repo, &["log", "ZZZZZZ"]),
        snapshot::refused(&repo, &["log", &common[..4].to_ascii_lowercase()]),
        snapshot::refused(&repo, &["log", "abc"]),
    ]
    .concat();
    // The ambiguous prefix, lower case, and the two runs in the order they were started.
    let prefix = common[..4].to_ascii_lowercase();
    let names = [
        (prefix.as_str(), "[PREFIX]"),
        (&a.id, "[FIRST]"),
        (&b.id, "[SECOND]"),
    ];
    let _filters = snapshot::filters_naming(&repo, &names).bind_to_scope();
    insta::assert_snapshot!(refusals);
}

#[test]
fn outside_a_repository_is_a_usage_error() {
    let repo = TestRepo::new();
    let outside = repo.root.join("plain");
    std::fs::create_dir(&outside).unwrap();
    // (`start` there keeps the run in a shadow repository instead; see shadow.rs.)
    let refusals: String = [vec!["ps"], vec!["log"], vec!["show"]]
        .iter()
        .map(|args| snapshot::refused_in(&repo, &outside, args))
        .chain([snapshot::refused(
            &repo,
            &["-C", outside.to_str().unwrap(), "ps"],
        )])
        .collect();
    let _filters = snapshot::filters(&repo).bind_to_scope();
    insta::assert_snapshot!(refusals);
}

#[test]
fn a_corrupt_run_json_is_reported_not_trusted() {
    let (repo, run) = TestRepo::with_run();
    let meta = format!("refs/heads/fabro/meta/{}", run.id);
    for bad in ["{ not json", "{\"format\": 99, \"run_id\": \"x\"}", "[]"] {
        let path = repo.root.join("bad.json");
        std::fs::write(&path, bad).unwrap();
        let blob = repo.git(&["hash-object", "-w", path.to_str().unwrap()]);
        let listing = format!("100644 blob {}\trun.json\n", blob.trim());
        let tree_path = repo.root.join("tree.txt");
        std::fs::write(&tree_path, listing).unwrap();
        let tree = String::from_utf8(
            std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("git mktree < {}", tree_path.display()))
                .current_dir(&repo.path)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        let commit = repo.git(&["commit-tree", tree.trim(), "-p", &meta, "-m", "corrupt"]);
        repo.git(&["update-ref", &meta, commit.trim()]);
        let before = written(&repo);
        for args in [
            vec!["checkpoint", "--run", &run.id, "--node", "a"],
            vec!["show", &run.id],
        ] {
            // A record that cannot be read is a failure, not a usage error.
            let (code, err) = run_err(repo.fabro().args(&args));
            assert_eq!(code, 1, "{bad} {args:?}: {err}");
            assert!(err.contains("run.json"), "{err}");
            assert!(!err.contains("panicked"), "{err}");
        }
        // A listing leaves the run out and says why.
        let listed = repo.output(&["ps"]);
        let err = String::from_utf8_lossy(&listed.stderr);
        assert!(listed.status.success(), "{err}");
        assert!(err.contains("run.json") && err.contains(&run.id), "{err}");
        assert_eq!(written(&repo), before);
    }
}

#[test]
fn clap_usage_errors_exit_2() {
    let repo = TestRepo::new();
    let (code, _) = run_err(repo.fabro().args(["checkpoint"]));
    assert_eq!(code, 2);
    let (code, _) = run_err(repo.fabro().args(["no-such-command"]));
    assert_eq!(code, 2);
}

/// A node in a target, a run id and a command that match nothing are refused (exit 2) with
/// the closest name that exists, when one is a likely typo; nothing close, no guess.
#[test]
fn typos_are_answered_with_the_name_most_likely_meant() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    repo.checkpoint(&run.id, "code");
    // The last character of the id's first eight, changed.
    let mut typo = run.id[..8].to_owned();
    let last = if typo.ends_with('0') { '1' } else { '0' };
    typo.replace_range(7.., &last.to_string());
    let refusals = [
        snapshot::refused(&repo, &["show", &run.id, "plann@1"]),
        snapshot::refused(&repo, &["show", &run.id, "cdoe"]),
        snapshot::refused(&repo, &["show", &run.id, "deploy"]),
        snapshot::refused(&repo, &["show", &typo]),
        snapshot::refused(&repo, &["show", "ZZZZZZZZ"]),
        snapshot::refused(&repo, &["lgo"]),
    ]
    .concat();
    let _filters = snapshot::filters_naming(&repo, &[(&typo, "[TYPO]")]).bind_to_scope();
    insta::assert_snapshot!(refusals);
}
