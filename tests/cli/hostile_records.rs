//! Runs whose records another clone damaged or forged, planted with plumbing as a fetch would
//! leave them. Listings go on without them, with a warning naming the run; a command aimed at
//! one fails with exit 1 and a message naming the run; nothing panics, and nothing around the
//! repository changes.

use std::path::Path;

use serde_json::Value;

use crate::common::{TestRepo, array, run_err, run_ok, tree_digest};

/// Ids of planted runs: valid ULIDs, older than any run a test starts.
const MALFORMED: &str = "01M00000000000000000000001";
const UNKNOWN_STATUS: &str = "01M00000000000000000000002";
const NEWER_FORMAT: &str = "01M00000000000000000000003";
const WRONG_TYPES: &str = "01M00000000000000000000004";
const OVERSIZED: &str = "01M00000000000000000000005";
const NO_RUN_JSON: &str = "01M00000000000000000000006";
const META_IS_A_BLOB: &str = "01M00000000000000000000007";
const NO_RUN_BRANCH: &str = "01M00000000000000000000008";

/// A metadata branch whose root commit holds `run_json` (when given), and a run branch at
/// `HEAD` (when `with_run_branch`).
fn plant(repo: &TestRepo, id: &str, run_json: Option<&[u8]>, with_run_branch: bool) {
    let listing = match run_json {
        Some(bytes) => {
            let blob = repo.git_stdin_in(&repo.path, &["hash-object", "-w", "--stdin"], bytes);
            format!("100644 blob {blob}\trun.json\n")
        }
        None => String::new(),
    };
    let tree = repo.git_stdin_in(&repo.path, &["mktree"], listing.as_bytes());
    let commit = repo.git(&["commit-tree", &tree, "-m", "init run"]);
    repo.git(&[
        "update-ref",
        &format!("refs/heads/fabro/meta/{id}"),
        commit.trim(),
    ]);
    if with_run_branch {
        repo.git(&["update-ref", &format!("refs/heads/fabro/run/{id}"), "HEAD"]);
    }
}

/// A healthy run's record with `edit` applied, as another clone could have written it.
fn edited_record(repo: &TestRepo, healthy: &str, id: &str, edit: impl Fn(&mut Value)) -> Vec<u8> {
    let text = repo.git(&["show", &format!("fabro/meta/{healthy}:run.json")]);
    let mut record: Value = serde_json::from_str(&text).unwrap();
    record["run_id"] = Value::from(id);
    edit(&mut record);
    serde_json::to_vec(&record).unwrap()
}

/// A repository with one healthy run and every kind of unreadable one.
fn hostile_repository() -> (TestRepo, String) {
    let repo = TestRepo::new();
    let healthy = repo.start().id;
    repo.checkpoint(&healthy, "plan");
    plant(&repo, MALFORMED, Some(b"{\"format\": 1, not json"), true);
    let unknown = edited_record(&repo, &healthy, UNKNOWN_STATUS, |r| {
        r["status"]["kind"] = Value::from("hibernating");
    });
    plant(&repo, UNKNOWN_STATUS, Some(&unknown), true);
    let newer = edited_record(&repo, &healthy, NEWER_FORMAT, |r| {
        r["format"] = Value::from(7);
    });
    plant(&repo, NEWER_FORMAT, Some(&newer), true);
    let wrong = edited_record(&repo, &healthy, WRONG_TYPES, |r| {
        r["start"] = Value::from("yesterday");
        r["spec"]["labels"] = Value::from(5);
    });
    plant(&repo, WRONG_TYPES, Some(&wrong), true);
    let mut huge = b"{\"format\": 1, \"padding\": \"".to_vec();
    huge.resize(17 << 20, b'a');
    huge.extend_from_slice(b"\"}");
    plant(&repo, OVERSIZED, Some(&huge), true);
    plant(&repo, NO_RUN_JSON, None, true);
    let blob = repo.git_stdin_in(
        &repo.path,
        &["hash-object", "-w", "--stdin"],
        b"not a commit",
    );
    // git refuses to point a branch at a blob; a damaged clone has no such scruples.
    crate::common::write_file(
        &repo
            .path
            .join(format!(".git/refs/heads/fabro/meta/{META_IS_A_BLOB}")),
        &format!("{blob}\n"),
    );
    repo.git(&[
        "update-ref",
        &format!("refs/heads/fabro/run/{META_IS_A_BLOB}"),
        "HEAD",
    ]);
    let copy = edited_record(&repo, &healthy, NO_RUN_BRANCH, |_| {});
    plant(&repo, NO_RUN_BRANCH, Some(&copy), false);
    (repo, healthy)
}

const LISTED_AS_UNREADABLE: [&str; 8] = [
    MALFORMED,
    UNKNOWN_STATUS,
    NEWER_FORMAT,
    WRONG_TYPES,
    OVERSIZED,
    NO_RUN_JSON,
    META_IS_A_BLOB,
    NO_RUN_BRANCH,
];

fn stderr_of(repo: &TestRepo, args: &[&str]) -> (String, String) {
    let out = repo.fabro().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Everything under the test's root but the cache of `ps` rows, which holds no record (only
/// rows of runs git could read, keyed by their tips) and which any listing may rewrite.
fn around(repo: &TestRepo) -> std::collections::BTreeMap<std::path::PathBuf, String> {
    let mut digest = tree_digest(&repo.root);
    digest.retain(|path, _| !path.ends_with(".git/fabro/summaries"));
    digest
}

#[test]
fn ps_lists_every_readable_run_and_warns_about_the_others() {
    let (repo, healthy) = hostile_repository();
    let before = around(&repo);
    let (stdout, stderr) = stderr_of(&repo, &["ps", "--all", "--json"]);
    let runs: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    let ids: Vec<&str> = runs.iter().map(|r| r["run_id"].as_str().unwrap()).collect();
    assert_eq!(ids, [healthy.as_str()]);
    for id in [
        MALFORMED,
        UNKNOWN_STATUS,
        NEWER_FORMAT,
        WRONG_TYPES,
        OVERSIZED,
    ] {
        assert!(
            stderr.contains(&format!("run {id} cannot be read"))
                && stderr.contains(&format!("git fabro fsck {id}")),
            "{id}: {stderr}"
        );
    }
    assert!(stderr.contains("over the 16 MiB"), "{stderr}");
    assert!(stderr.contains("format 7"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let (table, _) = stderr_of(&repo, &["ps"]);
    assert!(table.contains(&healthy[..8]), "{table}");
    assert_eq!(around(&repo), before, "ps changed nothing");
}

#[test]
fn gc_and_fsck_go_on_past_unreadable_runs_and_leave_them_alone() {
    let (repo, healthy) = hostile_repository();
    repo.ok(&["finish", "--run", &healthy]);
    repo.ok(&["archive", &healthy]);
    let (_, stderr) = stderr_of(&repo, &["gc", "--older-than", "0"]);
    assert!(
        stderr.contains(&format!("run {MALFORMED} cannot be read")),
        "{stderr}"
    );
    assert!(
        repo.git(&["for-each-ref", "refs/heads/fabro/meta/"])
            .lines()
            .count()
            == LISTED_AS_UNREADABLE.len(),
        "the archived run is collected and no unreadable run is touched"
    );
    for id in LISTED_AS_UNREADABLE {
        assert!(
            !repo
                .git(&["for-each-ref", &format!("refs/heads/fabro/meta/{id}")])
                .is_empty(),
            "{id} kept"
        );
    }

    let out = repo.output(&["fsck", "--json"]);
    assert_eq!(out.status.code(), Some(1), "problems remain");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["runs_checked"], LISTED_AS_UNREADABLE.len());
    let named: Vec<&str> = array(&report["problems"])
        .iter()
        .filter_map(|p| p["run_id"].as_str())
        .collect();
    for id in LISTED_AS_UNREADABLE {
        assert!(named.contains(&id), "{id}: {report}");
    }
    let out = repo.output(&["fsck", "--repair"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        repo.git(&["for-each-ref", "refs/heads/fabro/meta/"])
            .lines()
            .count(),
        LISTED_AS_UNREADABLE.len(),
        "repair deletes no unreadable run"
    );
}

#[test]
fn commands_aimed_at_an_unreadable_run_fail_with_exit_1_naming_it() {
    let (repo, _) = hostile_repository();
    let before = around(&repo);
    for id in LISTED_AS_UNREADABLE {
        for args in [
            vec!["log", id],
            vec!["show", id],
            vec!["resume", id],
            vec!["checkpoint", "--run", id, "--node", "n"],
            vec!["finish", "--run", id],
            vec!["archive", id],
        ] {
            let (code, err) = run_err(repo.fabro().args(&args));
            assert_eq!(code, 1, "{args:?}: {err}");
            assert!(err.contains(id), "{args:?} names the run: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
    assert_eq!(around(&repo), before, "nothing changed");
}

#[test]
fn push_all_pushes_the_readable_runs_and_warns_about_the_others() {
    let (repo, healthy) = hostile_repository();
    let bare = repo.add_bare_remote("origin", "remote.git");
    let (_, stderr) = stderr_of(&repo, &["push", "--all"]);
    assert!(
        stderr.contains(&format!(
            "run {NO_RUN_BRANCH} has a metadata branch but no run branch"
        )),
        "{stderr}"
    );
    let pushed = repo.git_in(Path::new(&bare), &["for-each-ref", "--format=%(refname)"]);
    assert_eq!(
        pushed,
        format!("refs/heads/fabro/meta/{healthy}\nrefs/heads/fabro/run/{healthy}\n")
    );
}

#[test]
fn malformed_trailers_on_a_run_branch_are_refused_or_skipped_without_panicking() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    let branch = format!("refs/heads/fabro/run/{}", run.id);
    let tree = repo.git(&["rev-parse", &format!("{branch}^{{tree}}")]);
    for trailers in [
        format!(
            "Fabro-Run: {}\nFabro-Completed: -3\nFabro-Checkpoint: nothex",
            run.id
        ),
        format!(
            "Fabro-Run: {}\nFabro-Completed: 99999999999999999999999\nFabro-Checkpoint: {}",
            run.id,
            "0".repeat(40)
        ),
        "Fabro-Run: ../../etc\nFabro-Completed: 2\nFabro-Checkpoint: 1234".to_owned(),
    ] {
        let message = format!("checkpoint forged@1 (succeeded)\n\n{trailers}\n");
        let commit = repo.git(&["commit-tree", tree.trim(), "-p", &branch, "-m", &message]);
        repo.git(&["update-ref", &branch, commit.trim()]);
        for args in [
            vec!["log", run.id.as_str()],
            vec!["log", run.id.as_str(), "--all", "--json"],
            vec!["show", run.id.as_str()],
            vec!["ps", "--json"],
            vec!["fsck", run.id.as_str()],
        ] {
            let out = repo.fabro().args(&args).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !err.contains("panicked") && out.status.code().is_some_and(|c| c <= 2),
                "{args:?}: {err}"
            );
        }
        run_ok(repo.fabro().args(["ps"]));
    }
}

#[test]
fn an_oversized_run_toml_on_a_fetched_run_is_refused_unread() {
    let repo = TestRepo::new();
    let source = repo.start();
    repo.checkpoint(&source.id, "plan");
    let fork = repo.ok(&["fork", &source.id]).trim().to_owned();
    let meta = format!("refs/heads/fabro/meta/{fork}");
    // A comment is valid TOML: read whole, it would be accepted.
    let mut toml = b"# ".to_vec();
    toml.resize(17 << 20, b'a');
    toml.push(b'\n');
    let blob = repo.git_stdin_in(&repo.path, &["hash-object", "-w", "--stdin"], &toml);
    let mut listing = repo.git(&["ls-tree", &meta]);
    listing.push_str(&format!("100644 blob {blob}\trun.toml\n"));
    let tree = repo.git_stdin_in(&repo.path, &["mktree"], listing.as_bytes());
    let commit = repo.git(&["commit-tree", &tree, "-p", &meta, "-m", "planted"]);
    repo.git(&["update-ref", &meta, commit.trim()]);
    let before = around(&repo);
    let (code, err) = run_err(repo.fabro().args(["resume", &fork]));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("run.toml") && err.contains("over the 16 MiB"),
        "{err}"
    );
    assert_eq!(around(&repo), before, "no run directory or worktree made");
}

/// A checkpoint whose trailers were lost (its message rewritten by hand, say): the timeline
/// cannot be counted past it, so log, fsck and the next checkpoint say so instead of
/// continuing from an older record.
#[test]
fn a_checkpoint_without_readable_trailers_is_named_not_skipped() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    repo.checkpoint(&run.id, "code");
    let branch = format!("refs/heads/fabro/run/{}", run.id);
    let tip = repo.git(&["rev-parse", &branch]).trim().to_owned();
    let rewritten = repo
        .git(&[
            "commit-tree",
            &format!("{tip}^{{tree}}"),
            "-p",
            &format!("{tip}^"),
            "-m",
            &format!("fabro({}): code (succeeded)", run.id),
        ])
        .trim()
        .to_owned();
    repo.git(&["update-ref", &branch, &rewritten, &tip]);

    let (code, err) = run_err(repo.fabro().args(["log", &run.id]));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&rewritten) && err.contains("trailers"),
        "{err}"
    );
    let (code, out) = run_err(repo.fabro().args(["fsck", "--json"]));
    assert_eq!(code, 1, "{out}");
    let (code, err) =
        run_err(
            repo.fabro()
                .args(["checkpoint", "--run", &run.id, "--node", "next"]),
        );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&rewritten), "{err}");
    let (code, err) = run_err(repo.fabro().args(["resume", &run.id, "--", "true"]));
    assert_eq!(code, 1, "{err}");
}

#[test]
fn fsck_names_refs_in_the_run_namespaces_that_name_no_run_and_keeps_them() {
    let repo = TestRepo::new();
    let healthy = repo.start().id;
    let head = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let foreign = [
        "refs/heads/fabro/run/NOTAULID",
        "refs/heads/fabro/meta/NOTAULID",
        "refs/heads/fabro/run/parallel/NOTAULID/fork/pass1/a",
        "refs/heads/fabro/meta/parallel/01M00000000000000000000001/x",
    ];
    for name in foreign {
        repo.git(&["update-ref", name, &head]);
    }
    let out = repo.output(&["fsck", "--json"]);
    assert_eq!(out.status.code(), Some(1), "problems found");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let named: Vec<&str> = array(&report["problems"])
        .iter()
        .filter(|p| p["kind"] == "foreign-ref")
        .filter_map(|p| p["message"].as_str())
        .collect();
    assert_eq!(named.len(), foreign.len(), "{report}");
    for name in foreign {
        assert!(
            named.iter().any(|m| m.starts_with(name)),
            "{name}: {report}"
        );
    }
    let out = repo.output(&["fsck", "--repair"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stdout.contains(
            "problem   foreign-ref: refs/heads/fabro/run/NOTAULID is in git-fabro's namespace"
        ),
        "{stdout}"
    );
    assert!(stderr.contains("checked 1 run: 4 problems"), "{stderr}");
    for name in foreign {
        assert_eq!(repo.git(&["rev-parse", name]).trim(), head, "{name} kept");
    }
    assert!(
        !report.to_string().contains(&healthy),
        "the run is fine: {report}"
    );
}
