//! The commit cache a timeline keeps in `.git/fabro/commits/<run>`: it holds commits exactly as
//! git stores them, grows by what changed, is believed only where a commit hashes to its id,
//! and goes with its run.

use crate::common::{TestRepo, without_commit_cache, write_file};

/// The cache's records as (id, content), in file order, checked for shape.
fn records(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut rest = bytes
        .strip_prefix(b"git-fabro commits 1\n".as_slice())
        .expect("the header");
    let mut out = Vec::new();
    while !rest.is_empty() {
        let line_end = rest.iter().position(|b| *b == b'\n').unwrap();
        let line = std::str::from_utf8(&rest[..line_end]).unwrap();
        let (id, len) = line.split_once(' ').unwrap();
        let len: usize = len.parse().unwrap();
        let content = rest[line_end + 1..line_end + 1 + len].to_vec();
        assert_eq!(rest[line_end + 1 + len], b'\n');
        out.push((id.to_owned(), content));
        rest = &rest[line_end + 2 + len..];
    }
    out
}

/// These tests are about the cache, which `GIT_FABRO_OBJECT_READER=gix` turns off.
fn skipped() -> bool {
    let skip = without_commit_cache();
    if skip {
        eprintln!("skipped: GIT_FABRO_OBJECT_READER=gix keeps no commit cache");
    }
    skip
}

/// A walk of fewer commits makes no cache file.
const WORTH_A_FILE: usize = 16;

#[test]
fn log_keeps_the_run_commits_as_git_stores_them_and_appends_only_new_ones() {
    if skipped() {
        return;
    }
    let repo = TestRepo::new();
    let id = repo.run_with_checkpoints(WORTH_A_FILE);
    let first = repo.log_json(&id);
    let written = std::fs::read(repo.commit_cache_path(&id)).unwrap();
    let stored = records(&written);
    let walked = repo.git(&["rev-list", "--first-parent", &format!("fabro/run/{id}")]);
    for (commit, content) in &stored {
        assert!(
            walked.contains(commit.as_str()),
            "{commit} is on the run branch"
        );
        let raw = repo.git_output(&repo.path, &["cat-file", "commit", commit]);
        assert_eq!(&raw.stdout, content, "{commit} as git stores it");
    }
    assert_eq!(stored.len(), WORTH_A_FILE);

    // Another checkpoint: the next log appends its commit and rewrites nothing.
    let run_worktree = std::path::PathBuf::from(repo.ok(&["path", &id]).trim());
    write_file(&run_worktree.join("test.txt"), "test");
    repo.checkpoint(&id, "test");
    let second = repo.log_json(&id);
    assert_eq!(second[..WORTH_A_FILE], first[..]);
    let grown = std::fs::read(repo.commit_cache_path(&id)).unwrap();
    assert!(grown.starts_with(&written), "appended, not rewritten");
    let added = records(&grown[..]).len() - stored.len();
    assert_eq!(added, 1, "only the new run commit is added");

    // Nothing new: the file is left as it is.
    assert_eq!(repo.log_json(&id), second);
    assert_eq!(std::fs::read(repo.commit_cache_path(&id)).unwrap(), grown);
}

#[test]
fn a_damaged_or_forged_commit_cache_changes_no_output_and_is_written_again() {
    if skipped() {
        return;
    }
    let repo = TestRepo::new();
    let id = repo.run_with_checkpoints(WORTH_A_FILE);
    let expected = repo.log_json(&id);
    let expected_show = repo.ok(&["show", &id, "@1", "--json"]);
    let path = repo.commit_cache_path(&id);
    let written = std::fs::read(&path).unwrap();
    let header_len = b"git-fabro commits 1\n".len();

    // A forged record: a commit's content changed (another node name, same length), its id
    // kept. Believed, it would rename a checkpoint in the timeline.
    let forged: Vec<u8> = String::from_utf8(written.clone())
        .unwrap()
        .replace("): code (", "): kode (")
        .into_bytes();
    assert_ne!(forged, written, "the forgery changed a record");
    let damaged: Vec<(&str, Vec<u8>)> = vec![
        ("forged", forged),
        ("cut in a record", written[..written.len() - 30].to_vec()),
        (
            "another header",
            [b"git-fabro commits 9\n".as_slice(), &written[header_len..]].concat(),
        ),
        ("a bad length", longer_first_record(&written)),
        ("binary", b"\0\x01\xff".to_vec()),
        ("empty", Vec::new()),
    ];
    for (what, bytes) in damaged {
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(repo.log_json(&id), expected, "log with a cache {what}");
        // Every record of the file written again is git's own.
        for (commit, content) in records(&std::fs::read(&path).unwrap()) {
            let raw = repo.git_output(&repo.path, &["cat-file", "commit", &commit]);
            assert_eq!(raw.stdout, content, "{commit} after a cache {what}");
        }
        std::fs::write(&path, &bytes).unwrap();
        let show = repo.ok(&["show", &id, "@1", "--json"]);
        assert_eq!(show, expected_show, "show with a cache {what}");
    }
}

#[test]
fn fsck_reads_the_timeline_from_the_objects_not_the_cache() {
    if skipped() {
        return;
    }
    let repo = TestRepo::new();
    let id = repo.run_with_checkpoints(WORTH_A_FILE);
    repo.log_json(&id);
    // A checkpoint commit is lost from the object store (a damaged disk); the
    // cache still holds it, so the timeline still lists it, but fsck must not be told so.
    let lost = repo.git(&["rev-parse", &format!("fabro/run/{id}~1")]);
    let object = repo.loose_object(lost.trim());
    std::fs::remove_file(&object).expect("checkpoint commits are written loose");
    let out = repo.output(&["fsck", "--json"]);
    assert!(!out.status.success());
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("unreadable-timeline"), "{report}");
}

#[test]
fn gc_takes_the_cache_of_every_run_that_is_gone() {
    if skipped() {
        return;
    }
    let repo = TestRepo::new();
    let kept = repo.run_with_checkpoints(WORTH_A_FILE);
    let archived = repo.run_with_checkpoints(WORTH_A_FILE);
    let deleted = repo.run_with_checkpoints(WORTH_A_FILE);
    for id in [&kept, &archived, &deleted] {
        repo.log_json(id);
        assert!(repo.commit_cache_path(id).exists());
    }
    repo.ok(&["finish", &archived, "--status", "succeeded"]);
    repo.ok(&["archive", &archived]);
    // A run deleted with plain git leaves its cache behind until gc.
    repo.ok(&["finish", &deleted, "--status", "succeeded"]);
    repo.git(&[
        "branch",
        "-D",
        &format!("fabro/run/{deleted}"),
        &format!("fabro/meta/{deleted}"),
    ]);
    let stray = repo.path.join(".git/fabro/commits/not-a-run.123.tmp");
    std::fs::write(&stray, "left by a killed log").unwrap();

    repo.ok(&["gc", "--older-than", "0", "--dry-run"]);
    assert!(
        repo.commit_cache_path(&archived).exists(),
        "a dry run removes nothing"
    );
    repo.ok(&["gc", "--older-than", "0"]);
    assert!(repo.commit_cache_path(&kept).exists());
    assert!(!repo.commit_cache_path(&archived).exists());
    assert!(!repo.commit_cache_path(&deleted).exists());
    assert!(!stray.exists());
}

/// `written` with its first record's length one more than its content.
fn longer_first_record(written: &[u8]) -> Vec<u8> {
    let text = String::from_utf8(written.to_vec()).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    let (line, rest) = rest.split_once('\n').unwrap();
    let (id, len) = line.split_once(' ').unwrap();
    let len: usize = len.parse().unwrap();
    format!("{header}\n{id} {}\n{rest}", len + 1).into_bytes()
}

#[test]
fn a_short_walk_makes_no_cache_file_but_extends_one_there_is() {
    if skipped() {
        return;
    }
    let repo = TestRepo::new();
    let id = repo.run_with_checkpoints(WORTH_A_FILE - 1);
    let short = repo.log_json(&id);
    assert_eq!(short.len(), WORTH_A_FILE - 1);
    assert!(!repo.commit_cache_path(&id).exists());
    let worktree = std::path::PathBuf::from(repo.ok(&["path", &id]).trim());
    write_file(&worktree.join("last.txt"), "last");
    repo.checkpoint(&id, "last");
    repo.log_json(&id);
    assert_eq!(
        records(&std::fs::read(repo.commit_cache_path(&id)).unwrap()).len(),
        WORTH_A_FILE
    );
}
