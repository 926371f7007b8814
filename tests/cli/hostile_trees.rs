//! Runs that arrive from another clone with checkpoint trees git's checkout refuses: `..`,
//! `.git` and its aliases, absolute names, `/` inside a name, a symlink with a directory of
//! the same name, a name twice. The other clone builds them with plumbing and pushes them
//! with plain git to a bare remote; this clone takes them with plain git, as an older
//! git-fabro or a user's `git fetch` would. Every command that reads a run then either exits
//! non-zero or does nothing harmful, and nothing outside the run's worktree and run
//! directory changes.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::Value;

use crate::common::{TestRepo, run_err, run_ok, tree_digest, write_file};

/// One entry of a hand-built tree: mode as git writes it in a tree object, name, object id.
pub(crate) type Entry = (&'static str, Vec<u8>, String);

/// The test repository, the run planted in it and the clone that planted it.
struct Hostile {
    repo: TestRepo,
    id: String,
    other: PathBuf,
}

fn git_with_input(repo: &TestRepo, dir: &Path, args: &[&str], input: &[u8]) -> String {
    let mut child = repo
        .command("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git runs");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input)
        .expect("git reads its input");
    let out = child.wait_with_output().expect("git finishes");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

pub(crate) fn blob(repo: &TestRepo, dir: &Path, content: &[u8]) -> String {
    git_with_input(repo, dir, &["hash-object", "-w", "--stdin"], content)
}

/// A tree object holding exactly `entries`, in git's order, whatever their names: `git
/// mktree` refuses most of what these tests need.
pub(crate) fn tree(repo: &TestRepo, dir: &Path, mut entries: Vec<Entry>) -> String {
    let sort_key = |(mode, name, _): &Entry| {
        let mut key = name.clone();
        if *mode == "40000" {
            key.push(b'/');
        }
        key
    };
    entries.sort_by_key(sort_key);
    let mut data = Vec::new();
    for (mode, name, id) in entries {
        data.extend_from_slice(mode.as_bytes());
        data.push(b' ');
        data.extend_from_slice(&name);
        data.push(0);
        data.extend(
            (0..id.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&id[i..i + 2], 16).expect("a hex object id")),
        );
    }
    git_with_input(
        repo,
        dir,
        &["hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
        &data,
    )
}

/// The entries of an existing tree, to build a hostile one on top of it.
pub(crate) fn entries_of(repo: &TestRepo, dir: &Path, treeish: &str) -> Vec<Entry> {
    repo.git_in(dir, &["ls-tree", "-z", treeish])
        .split_terminator('\0')
        .map(|line| {
            let (meta, name) = line.split_once('\t').expect("an ls-tree line");
            let fields: Vec<&str> = meta.split(' ').collect();
            let mode = match fields[0] {
                "040000" => "40000",
                "100755" => "100755",
                "120000" => "120000",
                _ => "100644",
            };
            (mode, name.as_bytes().to_vec(), fields[2].to_owned())
        })
        .collect()
}

/// A commit with `tree`, `parent` and the message of `like`, byte for byte.
fn commit_like(repo: &TestRepo, dir: &Path, like: &str, tree: &str, parent: &str) -> String {
    let raw = repo.git_in(dir, &["cat-file", "commit", like]);
    let message = raw.split_once("\n\n").map_or("", |(_, m)| m);
    git_with_input(
        repo,
        dir,
        &["commit-tree", tree, "-p", parent],
        message.as_bytes(),
    )
}

/// A run with checkpoints @1 `plan` and @2 `code`, made in another clone, whose @1 tree also
/// holds what `extra` builds, taken into this clone with plain git.
fn hostile_run(extra: impl Fn(&TestRepo, &Path) -> Vec<Entry>) -> Hostile {
    hostile_run_at(1, extra)
}

/// The same, with what `extra` builds in the tree of checkpoint @`ordinal` (1 or 2).
fn hostile_run_at(ordinal: usize, extra: impl Fn(&TestRepo, &Path) -> Vec<Entry>) -> Hostile {
    let repo = TestRepo::new();
    let bare = repo.root.join("remote.git");
    let bare_arg = bare.to_str().expect("utf-8 path");
    repo.git(&[
        "clone",
        "-q",
        "--bare",
        repo.path.to_str().unwrap(),
        bare_arg,
    ]);
    repo.git(&["remote", "add", "origin", bare_arg]);
    let other = repo.root.join("other");
    repo.git(&["clone", "-q", bare_arg, other.to_str().unwrap()]);
    repo.git_in(&other, &["config", "user.name", "Other"]);
    repo.git_in(&other, &["config", "user.email", "other@example.com"]);
    let in_other = |args: &[&str]| {
        run_ok(
            repo.fabro_in(&other)
                .env("FABRO_HOME", repo.root.join("other-home"))
                .args(args),
        )
    };
    let started: Value = serde_json::from_str(&in_other(&["start", "--json"])).unwrap();
    let id = started["run_id"].as_str().unwrap().to_owned();
    let worktree = PathBuf::from(started["worktree"].as_str().unwrap());
    write_file(&worktree.join("plan.md"), "the plan\n");
    in_other(&["checkpoint", "--run", &id, "--node", "plan"]);
    write_file(&worktree.join("code.rs"), "fn main() {}\n");
    in_other(&["checkpoint", "--run", &id, "--node", "code"]);

    let branch = format!("refs/heads/fabro/run/{id}");
    let checkpoints = [format!("{branch}~1"), branch.clone()];
    let mut parent = repo
        .git_in(&other, &["rev-parse", &format!("{branch}~2")])
        .trim()
        .to_owned();
    for (at, checkpoint) in (1..).zip(&checkpoints) {
        let mut entries = entries_of(&repo, &other, checkpoint);
        if at == ordinal {
            entries.extend(extra(&repo, &other));
        }
        let rewritten = tree(&repo, &other, entries);
        parent = commit_like(&repo, &other, checkpoint, &rewritten, &parent);
    }
    let second_commit = parent;
    repo.git_in(&other, &["update-ref", &branch, &second_commit]);
    let meta = format!("refs/heads/fabro/meta/{id}");
    repo.git_in(&other, &["push", "-q", "origin", &branch, &meta]);
    repo.git(&[
        "fetch",
        "-q",
        "origin",
        "+refs/heads/fabro/*:refs/heads/fabro/*",
    ]);
    Hostile { repo, id, other }
}

impl Hostile {
    fn fabro(&self, args: &[&str]) -> std::process::Output {
        self.repo
            .fabro()
            .args(args)
            .output()
            .expect("git-fabro runs")
    }

    /// Everything under the test's root except this clone's `.git` (refs and objects move)
    /// and the run directories of the hostile run and of runs made from it.
    fn outside(&self) -> BTreeMap<PathBuf, String> {
        let runs = Path::new("fabro-home/runs");
        tree_digest(&self.repo.root)
            .into_iter()
            .filter(|(path, _)| !path.starts_with("repo/.git"))
            .filter(|(path, _)| {
                path.strip_prefix(runs)
                    .ok()
                    .and_then(|inside| inside.components().next())
                    .is_none_or(|dir| !self.own_run_dir(dir.as_os_str()))
            })
            .collect()
    }

    fn own_run_dir(&self, name: &std::ffi::OsStr) -> bool {
        let name = name.to_string_lossy();
        let runs = self.repo.runs_with_metadata();
        runs.lines().any(|id| name.ends_with(id))
    }

    fn worktree(&self) -> PathBuf {
        let worktrees = self.repo.git(&["worktree", "list", "--porcelain"]);
        let branch = format!("branch refs/heads/fabro/run/{}", self.id);
        let mut path = None;
        for line in worktrees.lines() {
            if let Some(p) = line.strip_prefix("worktree ") {
                path = Some(PathBuf::from(p));
            }
            if line == branch {
                return path.expect("a worktree line first");
            }
        }
        panic!("run {} has no worktree", self.id)
    }

    /// Runs every command that reads the run; none may change anything outside the run's
    /// worktree and run directory, and those that would write or show the unsafe path
    /// must refuse, naming it.
    fn assert_every_command_is_harmless(&self, unsafe_path: &str) {
        let id = self.id.as_str();
        run_ok(self.repo.fabro().args(["resume", id]));
        let worktree = self.worktree();
        let git_file = std::fs::read(worktree.join(".git")).expect("the worktree's .git file");
        let before = self.outside();
        let must_refuse: &[&[&str]] = &[
            &["restore", "--run", id, "@1", "--dry-run"],
            &["restore", "--run", id, "@1"],
            &["diff", id, "@1", "@2"],
            &["diff", id, "@1", "--stat"],
            &["diff", id, "@1", "--json"],
            &["diff", id, "@1", "--worktree"],
        ];
        for args in must_refuse {
            let (code, stderr) = run_err(self.repo.fabro().args(*args));
            assert_eq!(code, 1, "{args:?}: {stderr}");
            assert!(stderr.contains("unsafe path"), "{args:?}: {stderr}");
            assert!(
                stderr.contains(unsafe_path),
                "{args:?} names the path: {stderr}"
            );
            assert_unchanged(&before, &self.outside(), args);
        }
        let fsck = self.fabro(&["fsck", id]);
        assert_eq!(fsck.status.code(), Some(1), "fsck reports the run");
        let report = String::from_utf8_lossy(&fsck.stdout);
        assert!(report.contains("unsafe-path"), "{report}");
        assert!(report.contains("@1 plan@1"), "{report}");
        let harmless: &[&[&str]] = &[
            &["show", id, "@1"],
            // The whole run's change compares the base with the tip, neither holding the path.
            &["diff", id],
            &["log", id],
            &["ps", "--all"],
            &["fork", id, "@1"],
            &["rewind", id, "@1", "--force"],
            &["archive", id],
            &["gc", "--older-than", "0"],
        ];
        for args in harmless {
            let _ = self.fabro(args);
            assert_unchanged(&before, &self.outside(), args);
        }
        // The worktree itself still belongs to this clone: no `.git` was planted in it.
        if worktree.exists() {
            assert_eq!(std::fs::read(worktree.join(".git")).unwrap(), git_file);
            assert!(!worktree.join("sub/.git").exists());
        }
    }
}

/// Fails naming only the entries that differ: a whole digest is too long to read.
fn assert_unchanged(
    before: &BTreeMap<PathBuf, String>,
    after: &BTreeMap<PathBuf, String>,
    args: &[&str],
) {
    let changed: Vec<&PathBuf> = before
        .keys()
        .chain(after.keys())
        .filter(|path| before.get(*path) != after.get(*path))
        .collect();
    assert!(
        changed.is_empty(),
        "{args:?} changed outside the run: {changed:?}"
    );
}

fn dotdot_chain(repo: &TestRepo, dir: &Path, depth: usize, leaf: &str) -> Entry {
    let file = blob(repo, dir, b"pwned\n");
    let outside = tree(repo, dir, vec![("100644", leaf.as_bytes().to_vec(), file)]);
    let mut entry: Entry = ("40000", b"outside".to_vec(), outside);
    for _ in 0..depth {
        let up = tree(repo, dir, vec![entry]);
        entry = ("40000", b"..".to_vec(), up);
    }
    entry
}

#[test]
fn a_fetched_tree_climbing_out_with_dotdot_is_refused_everywhere() {
    // The worktree is <root>/fabro-home/runs/<dir>/worktree: four `..` reach the root.
    let hostile = hostile_run(|repo, dir| vec![dotdot_chain(repo, dir, 4, "pwned")]);
    hostile.assert_every_command_is_harmless("..");
    assert!(!hostile.repo.root.join("outside").exists());
}

#[test]
fn a_fetched_tree_planting_dot_git_is_refused_everywhere() {
    let hostile = hostile_run(|repo, dir| {
        let gitdir = blob(repo, dir, b"gitdir: evil\n");
        vec![("100644", b".git".to_vec(), gitdir)]
    });
    hostile.assert_every_command_is_harmless(".git");
}

#[test]
fn a_fetched_tree_with_a_dot_git_config_below_a_directory_is_refused_everywhere() {
    let hostile = hostile_run(|repo, dir| {
        let config = blob(
            repo,
            dir,
            b"[core]\n\tfsmonitor = \"touch ../../../../../../pwned\"\n",
        );
        let dot_git = tree(repo, dir, vec![("100644", b"config".to_vec(), config)]);
        let sub = tree(repo, dir, vec![("40000", b".git".to_vec(), dot_git)]);
        vec![("40000", b"sub".to_vec(), sub)]
    });
    hostile.assert_every_command_is_harmless("sub/.git");
}

#[test]
fn fetched_trees_with_aliases_of_dot_git_are_refused_everywhere() {
    for alias in [".GIT", ".git.", "git~1", ".Git "] {
        let hostile = hostile_run(|repo, dir| {
            let config = blob(repo, dir, b"[core]\n\tbare = false\n");
            let aliased = tree(repo, dir, vec![("100644", b"config".to_vec(), config)]);
            vec![("40000", alias.as_bytes().to_vec(), aliased)]
        });
        hostile.assert_every_command_is_harmless(alias.trim_end());
    }
}

#[test]
fn a_fetched_tree_with_an_absolute_name_is_refused_everywhere() {
    let target = tempfile::tempdir().unwrap();
    let absolute = target.path().join("pwned");
    let name = absolute.to_str().unwrap().as_bytes().to_vec();
    let hostile = hostile_run(move |repo, dir| {
        let file = blob(repo, dir, b"pwned\n");
        vec![("100644", name.clone(), file)]
    });
    hostile.assert_every_command_is_harmless("pwned");
    assert!(!absolute.exists());
}

#[test]
fn a_fetched_tree_with_a_slash_inside_a_name_is_refused_everywhere() {
    let hostile = hostile_run(|repo, dir| {
        let file = blob(repo, dir, b"pwned\n");
        vec![("100644", b"../../../../outside-slash".to_vec(), file)]
    });
    hostile.assert_every_command_is_harmless("outside-slash");
    assert!(!hostile.repo.root.join("outside-slash").exists());
}

#[test]
fn a_fetched_tree_with_a_symlink_and_a_directory_of_the_same_name_is_refused_everywhere() {
    let elsewhere = tempfile::tempdir().unwrap();
    let link_target = elsewhere.path().to_str().unwrap().as_bytes().to_vec();
    let hostile = hostile_run(move |repo, dir| {
        let link = blob(repo, dir, &link_target);
        let file = blob(repo, dir, b"pwned\n");
        let below = tree(repo, dir, vec![("100644", b"pwned".to_vec(), file)]);
        vec![
            ("120000", b"evil".to_vec(), link),
            ("40000", b"evil".to_vec(), below),
        ]
    });
    hostile.assert_every_command_is_harmless("evil");
    assert!(!elsewhere.path().join("pwned").exists());
}

#[test]
fn a_fetched_tree_holding_a_name_twice_is_refused_everywhere() {
    let hostile = hostile_run(|repo, dir| {
        let one = blob(repo, dir, b"one\n");
        let two = blob(repo, dir, b"two\n");
        vec![
            ("100644", b"twice.txt".to_vec(), one),
            ("100644", b"twice.txt".to_vec(), two),
        ]
    });
    hostile.assert_every_command_is_harmless("twice.txt");
}

#[test]
fn git_fabro_fetch_refuses_the_objects_of_a_hostile_run() {
    let hostile = hostile_run(|repo, dir| vec![dotdot_chain(repo, dir, 4, "pwned")]);
    // A repository that has never seen the run's objects (a clone would already hold them).
    let clean = hostile.repo.root.join("clean");
    let bare = hostile.repo.root.join("remote.git");
    hostile.repo.git(&["init", "-q", clean.to_str().unwrap()]);
    hostile
        .repo
        .git_in(&clean, &["remote", "add", "origin", bare.to_str().unwrap()]);
    let (code, stderr) = run_err(hostile.repo.fabro_in(&clean).args(["fetch", "origin"]));
    assert_ne!(code, 0);
    assert!(
        stderr.contains("fsck"),
        "git's object check refused it: {stderr}"
    );
    let refs = hostile
        .repo
        .git_in(&clean, &["for-each-ref", "refs/heads/fabro/"]);
    assert_eq!(refs, "", "no ref of the run arrived");
    assert!(hostile.other.exists());
}

#[test]
fn resume_refuses_a_fetched_run_whose_latest_checkpoint_climbs_out() {
    let hostile = hostile_run_at(2, |repo, dir| vec![dotdot_chain(repo, dir, 4, "pwned")]);
    // Where run directories go exists on any machine that has resumed a run before.
    std::fs::create_dir_all(hostile.repo.home.join("runs")).unwrap();
    let before = hostile.outside();
    let (code, stderr) = run_err(hostile.repo.fabro().args(["resume", &hostile.id]));
    assert_ne!(code, 0, "{stderr}");
    assert_unchanged(&before, &hostile.outside(), &["resume"]);
    assert!(!hostile.repo.root.join("outside").exists());
    let fsck = hostile.fabro(&["fsck", &hostile.id]);
    assert_eq!(fsck.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&fsck.stdout).contains("@2 code@1"));
}
