//! A test repository in a temporary directory, the real binary, and plain `git` to check what
//! it wrote. Every process runs with an isolated HOME, fabro home and git config.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;
use tempfile::TempDir;

pub mod failpoints;
pub mod snapshot;
pub mod workflow;

pub struct TestRepo {
    _dir: TempDir,
    pub root: PathBuf,
    pub path: PathBuf,
    pub home: PathBuf,
}

/// When the commits a test makes with git were made. git-fabro's own commits take the time
/// now whatever the environment says (`Identity::signature_now`), and name a random run id.
pub const GIT_DATE: &str = "2026-01-01T12:00:00Z";

/// What reads timelines: `gix`, or unset for the default, the commit cache in front of gix.
pub const OBJECT_READER: &str = "GIT_FABRO_OBJECT_READER";

/// Whether this test run reads timelines through gix alone, without the commit cache.
pub fn without_commit_cache() -> bool {
    std::env::var_os(OBJECT_READER).is_some_and(|reader| reader == "gix")
}

/// Environment shared by git and git-fabro in tests.
fn isolate(cmd: &mut Command, root: &Path) {
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if key.starts_with("GIT_") || key.starts_with("FABRO_") {
            cmd.env_remove(key);
        }
    }
    // Colour is decided from the terminal alone: a CI system's `CI` (which turns colour on
    // for a terminal whatever its `TERM` says) or a user's CLICOLOR must not change it.
    for key in ["CI", "CLICOLOR", "CLICOLOR_FORCE"] {
        cmd.env_remove(key);
    }
    // The one variable a test run hands on: what reads timelines, so that the suite runs
    // with the commit cache (the default) and without it (`GIT_FABRO_OBJECT_READER=gix`).
    if let Some(reader) = std::env::var_os(OBJECT_READER) {
        cmd.env(OBJECT_READER, reader);
    }
    cmd.env("HOME", root)
        .env("FABRO_HOME", root.join("fabro-home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("TZ", "UTC")
        .env("LC_ALL", "C");
}

impl TestRepo {
    /// A repository on `main` with one commit holding `README.md` and `src/lib.rs`.
    pub fn new() -> TestRepo {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical temp dir");
        let path = root.join("repo");
        std::fs::create_dir(&path).expect("repo dir");
        let repo = TestRepo {
            home: root.join("fabro-home"),
            root,
            path,
            _dir: dir,
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test User"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo.git(&["config", "gc.auto", "0"]);
        repo.write("README.md", "hello\n");
        repo.write("src/lib.rs", "pub fn f() {}\n");
        repo.commit_all("initial");
        repo
    }

    /// A clone of the bundle `tests/fixtures/<rel>` with every branch it holds (the runs'
    /// branches included) as a local branch.
    pub fn from_bundle(rel: &str) -> TestRepo {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical temp dir");
        let repo = TestRepo {
            home: root.join("fabro-home"),
            path: root.join("repo"),
            root,
            _dir: dir,
        };
        let bundle = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(rel);
        let bundle = bundle.to_str().expect("UTF-8 path");
        let repo_path = repo.path.to_str().expect("UTF-8 path").to_owned();
        repo.git_in(&repo.root, &["clone", "-q", bundle, &repo_path]);
        repo.git(&[
            "fetch",
            "-q",
            "origin",
            "refs/heads/fabro/*:refs/heads/fabro/*",
        ]);
        repo.git(&["remote", "remove", "origin"]);
        repo.git(&["config", "user.name", "Test User"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo.git(&["config", "gc.auto", "0"]);
        repo
    }

    /// A new repository whose committed `.gitignore` holds `patterns`.
    pub fn ignoring(patterns: &str) -> TestRepo {
        let repo = TestRepo::new();
        repo.write(".gitignore", patterns);
        repo.commit_all("ignore");
        repo
    }

    /// A new repository with one run started in it, the start of most tests.
    pub fn with_run() -> (TestRepo, Started) {
        let repo = TestRepo::new();
        let run = repo.start();
        (repo, run)
    }

    pub fn write(&self, rel: &str, content: &str) {
        write_file(&self.path.join(rel), content);
    }

    /// Commits everything in the work tree with `git add -A` and `git commit -m message`.
    pub fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    /// Writes `rel` beside the repository, not in it (a workflow, a script, a settings file
    /// passed by path), and returns its path.
    pub fn write_beside(&self, rel: impl AsRef<Path>, content: &str) -> PathBuf {
        let path = self.root.join(rel);
        write_file(&path, content);
        path
    }

    /// Writes the user's settings (`settings.toml` in the fabro home).
    pub fn write_settings(&self, toml: &str) {
        write_file(&self.home.join("settings.toml"), toml);
    }

    /// A bare repository `dir` beside this one, added as the remote `name`; returns its path.
    pub fn add_bare_remote(&self, name: &str, dir: &str) -> PathBuf {
        let bare = self.root.join(dir);
        let url = bare.to_str().expect("UTF-8 path");
        self.git(&["init", "-q", "--bare", url]);
        self.git(&["remote", "add", name, url]);
        bare
    }

    /// Runs git in the repository and returns its stdout, failing the test if git fails.
    pub fn git(&self, args: &[&str]) -> String {
        self.git_in(&self.path, args)
    }

    /// The ids of the runs that have a metadata branch, one a line, as git lists them.
    pub fn runs_with_metadata(&self) -> String {
        self.git(&[
            "for-each-ref",
            "--format=%(refname:lstrip=4)",
            "refs/heads/fabro/meta/",
        ])
    }

    /// The paths of the files in `rev`'s tree, one a line, as git lists them.
    pub fn files_in(&self, rev: &str) -> String {
        self.git(&["ls-tree", "-r", "--name-only", rev])
    }

    pub fn git_in(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.git_output(dir, args);
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// git's own commits are dated [`GIT_DATE`], so that their ids are the same in every run.
    pub fn git_output(&self, dir: &Path, args: &[&str]) -> Output {
        self.command("git")
            .env("GIT_AUTHOR_DATE", GIT_DATE)
            .env("GIT_COMMITTER_DATE", GIT_DATE)
            .args(args)
            .current_dir(dir)
            .output()
            .expect("git runs")
    }

    /// Any program, in the repository, with the isolated environment.
    /// `git ARGS` in `dir` with `input` on its stdin; its stdout, trimmed.
    pub fn git_stdin_in(&self, dir: &Path, args: &[&str], input: &[u8]) -> String {
        use std::io::Write;
        let mut child = self
            .command("git")
            .current_dir(dir)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        isolate(&mut cmd, &self.root);
        cmd.current_dir(&self.path);
        cmd
    }

    /// `git-fabro ARGS` (shell words) on a pseudo-terminal of util-linux `script`, as a person
    /// types it at a shell prompt: git-fabro itself leads the terminal's foreground. `exec`
    /// keeps the shell `script` starts out of the way whichever shell it is (dash, unlike
    /// bash, stays as git-fabro's parent and would die of the Ctrl-C meant for git-fabro).
    pub fn fabro_on_terminal(&self, args: &str) -> Command {
        let bin = assert_cmd::cargo::cargo_bin("git-fabro");
        let mut cmd = self.command("script");
        cmd.args([
            "-qec",
            &format!("exec {} {args}", bin.display()),
            "/dev/null",
        ])
        .env("SHELL", "/bin/sh");
        cmd
    }

    /// The git-fabro binary, in the repository, with the isolated environment.
    pub fn fabro(&self) -> Command {
        self.fabro_in(&self.path)
    }

    pub fn fabro_in(&self, dir: &Path) -> Command {
        let mut cmd = Command::cargo_bin("git-fabro").expect("binary built");
        isolate(&mut cmd, &self.root);
        cmd.current_dir(dir);
        cmd
    }

    /// Runs git-fabro with `args`, whatever its exit: for a test that looks at how it ended.
    pub fn output(&self, args: &[&str]) -> Output {
        self.fabro().args(args).output().expect("git-fabro runs")
    }

    /// Runs git-fabro with `args` and asserts it succeeds; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        run_ok(self.fabro().args(args))
    }

    pub fn start(&self) -> Started {
        let out = self.ok(&["start", "--json"]);
        let v: Value = serde_json::from_str(&out).expect("start --json is JSON");
        Started {
            id: v["run_id"].as_str().expect("run_id").to_owned(),
            worktree: PathBuf::from(v["worktree"].as_str().expect("worktree")),
            run_dir: PathBuf::from(v["run_dir"].as_str().expect("run_dir")),
        }
    }

    pub fn checkpoint(&self, id: &str, node: &str) -> String {
        self.checkpoint_with(id, node, &[])
    }

    /// `checkpoint` with more flags (`&["--next", "code"]`); returns what it printed, trimmed.
    pub fn checkpoint_with(&self, id: &str, node: &str, flags: &[&str]) -> String {
        let mut args = vec!["checkpoint", "--run", id, "--node", node];
        args.extend_from_slice(flags);
        self.ok(&args).trim().to_owned()
    }

    /// A run with `count` checkpoints, of the nodes plan, code and review in turn.
    pub fn run_with_checkpoints(&self, count: usize) -> String {
        let run = self.start();
        for n in 0..count {
            let node = ["plan", "code", "review"][n % 3];
            write_file(&run.worktree.join(format!("{node}.txt")), &n.to_string());
            self.checkpoint(&run.id, node);
        }
        run.id
    }

    /// Where git keeps the object `id` (its full hex name) while it is loose.
    pub fn loose_object(&self, id: &str) -> PathBuf {
        self.path.join(".git/objects").join(&id[..2]).join(&id[2..])
    }

    /// Where timelines keep the commits of run `id` they read (`.git/fabro/commits/<run>`).
    pub fn commit_cache_path(&self, id: &str) -> PathBuf {
        self.path.join(".git/fabro/commits").join(id)
    }

    pub fn log_json(&self, id: &str) -> Vec<Value> {
        serde_json::from_str(&self.ok(&["log", id, "--json"])).expect("log --json is JSON")
    }

    /// What a process killed between the two ref moves of a checkpoint leaves: a checkpoint
    /// commit on the run's metadata branch that no run commit names.
    pub fn leave_dangling_metadata(&self, id: &str) {
        let meta = format!("refs/heads/fabro/meta/{id}");
        let tree = self.git(&["rev-parse", &format!("{meta}^{{tree}}")]);
        let lost = self.git(&[
            "commit-tree",
            tree.trim(),
            "-p",
            &meta,
            "-m",
            "checkpoint lost@1 (succeeded)",
        ]);
        self.git(&["update-ref", &meta, lost.trim()]);
    }

    /// Everything of the user's that git-fabro must never touch.
    pub fn user_state(&self) -> UserState {
        let refs = self
            .git(&["for-each-ref", "--format=%(refname) %(objectname)"])
            .lines()
            .filter(|l| !l.starts_with("refs/heads/fabro/") && !l.starts_with("refs/fabro/"))
            .map(ToOwned::to_owned)
            .collect();
        let mut files = BTreeMap::new();
        collect_files(&self.path, &self.path, &mut files);
        UserState {
            head: std::fs::read_to_string(self.path.join(".git/HEAD")).expect("HEAD"),
            refs,
            index: std::fs::read(self.path.join(".git/index")).expect("index"),
            files,
        }
    }
}

pub struct Started {
    pub id: String,
    pub worktree: PathBuf,
    pub run_dir: PathBuf,
}

#[derive(Debug, PartialEq, Eq)]
pub struct UserState {
    head: String,
    refs: Vec<String>,
    index: Vec<u8>,
    files: BTreeMap<PathBuf, Vec<u8>>,
}

fn collect_files(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).expect("readable dir").flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        if path.is_dir() {
            collect_files(root, &path, out);
        } else {
            out.insert(
                path.strip_prefix(root).expect("inside").to_owned(),
                std::fs::read(&path).unwrap_or_default(),
            );
        }
    }
}

/// The elements of the JSON array `value`, failing the test if it is none.
pub fn array(value: &Value) -> &[Value] {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
}

/// The text under `key` of each JSON object in `objects`, in their order: the ids, kinds or
/// paths a test compares whole.
pub fn texts(objects: &[Value], key: &str) -> Vec<String> {
    objects
        .iter()
        .map(|object| match object[key].as_str() {
            Some(text) => text.to_owned(),
            None => panic!("no text {key:?} in {object}"),
        })
        .collect()
}

/// The ordinals of `log --json` entries, in their order.
pub fn ordinals(entries: &[Value]) -> Vec<u64> {
    entries
        .iter()
        .map(|e| e["ordinal"].as_u64().unwrap())
        .collect()
}

/// The text of the file at `path`, failing the test if there is none.
pub fn read_file(path: impl AsRef<Path>) -> String {
    let path = path.as_ref();
    std::fs::read_to_string(path).unwrap_or_else(|err| panic!("read {}: {err}", path.display()))
}

pub fn write_file(path: &Path, content: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("parent dir");
    }
    std::fs::write(path, content).expect("write file");
}

pub fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().expect("git-fabro runs");
    assert!(
        out.status.success(),
        "git-fabro failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `PATH` with the git-fabro under test first, so that `git fabro` in a script or a hook
/// runs it.
pub fn path_with_fabro() -> String {
    let bin = assert_cmd::cargo::cargo_bin("git-fabro");
    format!(
        "{}:{}",
        bin.parent().expect("a folder").display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Fails the test, showing the command's stderr, unless it exited 0.
pub fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs a command expected to fail; returns (exit code, stderr).
pub fn run_err(cmd: &mut Command) -> (i32, String) {
    let out = cmd.output().expect("git-fabro runs");
    assert!(
        !out.status.success(),
        "expected failure, got: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Starts `cmd`, waits `micros` microseconds, then kills it with SIGKILL. Returns whether it had
/// already exited 0 (a command that returned 0 must have recorded what it said it recorded).
pub fn kill_after(cmd: &mut Command, micros: u64) -> bool {
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_micros(micros));
    let finished = matches!(child.try_wait(), Ok(Some(status)) if status.success());
    let _ = child.kill();
    let status = child.wait().unwrap();
    finished || status.success()
}

/// Runs `args` again after a kill, which must just work: a lock file the killed git-fabro
/// process left is cleared by the next writer (no `fsck`, no waiting).
pub fn rerun(repo: &TestRepo, args: &[&str]) -> String {
    run_ok(repo.fabro().args(args))
}

/// How a command ended on a pseudo-terminal, and what it painted there.
pub struct OnTerminal {
    /// The exit code, or None when it had to be killed at the deadline.
    pub code: Option<i32>,
    /// Everything it printed (stdout and stderr share the terminal), up to `TERMINAL_KEEP` bytes.
    pub output: String,
    /// How many bytes it printed in all.
    pub printed: usize,
}

/// A command that has not exited by then is taken to hang.
const TERMINAL_DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);
const TERMINAL_KEEP: usize = 1 << 20;

impl TestRepo {
    /// Runs `git-fabro ARGS` (shell words) in `dir` on a pseudo-terminal, as a person at a
    /// terminal would, through util-linux `script`; kills it if it runs past the deadline.
    pub fn on_terminal(&self, dir: &Path, args: &str, env: &[(&str, &str)]) -> OnTerminal {
        use std::io::Read;
        use std::os::unix::process::CommandExt;

        let mut cmd = self.fabro_on_terminal(args);
        cmd.current_dir(dir)
            .env_remove("NO_COLOR")
            .env("TERM", "xterm-256color")
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .process_group(0);
        let mut child = cmd
            .spawn()
            .expect("util-linux `script` runs (.ci/run installs it)");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let reader = std::thread::spawn(move || {
            let (mut kept, mut printed, mut buf) = (Vec::new(), 0, [0u8; 8192]);
            while let Ok(n @ 1..) = stdout.read(&mut buf) {
                printed += n;
                if kept.len() < TERMINAL_KEEP {
                    kept.extend_from_slice(&buf[..n]);
                }
            }
            (kept, printed)
        });
        let started = std::time::Instant::now();
        let code = loop {
            if let Some(status) = child.try_wait().expect("wait for script") {
                break status.code();
            }
            if started.elapsed() > TERMINAL_DEADLINE {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let (kept, printed) = reader.join().expect("reader thread");
        OnTerminal {
            code,
            output: String::from_utf8_lossy(&kept).into_owned(),
            printed,
        }
    }
}

/// Every entry below `dir` (files by content, symlinks by target, directories, modes), for
/// checking that a command changed nothing around a run. Does not follow symlinks.
pub fn tree_digest(dir: &Path) -> BTreeMap<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).expect("inside").to_owned();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let mode = meta.permissions().mode();
            let what = if meta.file_type().is_symlink() {
                format!("link -> {:?}", std::fs::read_link(&path).ok())
            } else if meta.is_dir() {
                walk(root, &path, out);
                format!("dir {mode:o}")
            } else {
                let data = std::fs::read(&path).unwrap_or_default();
                format!("file {mode:o} {}", String::from_utf8_lossy(&data))
            };
            out.insert(rel, what);
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Where `agent` keeps the transcript `name` in the isolated HOME `home`: its transcript
/// folder (Claude Code's `projects/`, Codex's `sessions/`, Gemini CLI's `tmp/`), which the
/// folder is made in. A turn hook reads a transcript nowhere else.
pub fn agent_transcript(home: &Path, agent: &str, name: &str) -> PathBuf {
    let folder = match agent {
        "claude" => home.join(".claude/projects/-repo"),
        "codex" => home.join(".codex/sessions/2026/12/01"),
        "gemini" => home.join(".gemini/tmp/project/chats"),
        "opencode" => home.join(".local/share/opencode/git-fabro/turn-1"),
        other => home.join(format!(".{other}")),
    };
    std::fs::create_dir_all(&folder).expect("transcript folder");
    folder.join(name)
}
