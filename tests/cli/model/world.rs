//! The real side of the model test: two clones of a bare remote on one machine, git-fabro run
//! in them (whole, dying at a failure point, or killed after a delay), and what plain git and
//! the file system say they hold.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::ops::Kill;
use super::state::{Entry, Files};
use crate::common::TestRepo;
use crate::common::failpoints::without_core_dumps;
use crate::common::workflow::{between, command, commands, parallel};

/// How a git-fabro command ended.
pub enum Outcome {
    Exited {
        code: i32,
        stdout: String,
        stderr: String,
    },
    Killed,
}

pub struct World {
    /// Clone A lives at `repo.path`; its temp root holds the remote, clone B and the workflows.
    pub repo: TestRepo,
    pub clones: [PathBuf; 2],
    pub remote: PathBuf,
    trees: HashMap<String, Files>,
    trailers: HashMap<String, bool>,
}

pub fn pipe() -> String {
    commands("pipe", &[("s1", "echo p1 > w1"), ("s2", "echo p2 > w2")])
}

pub fn fan() -> String {
    let branches = [("a", "echo fan > wf"), ("b", "echo fan > wf")];
    let fan = parallel(
        "fan [shape=component]",
        &branches,
        "join [shape=tripleoctagon]",
    );
    let after = command("after", "echo after > wa");
    between(
        "fan",
        &format!("{fan}\n{after}\nstart -> fan\njoin -> after -> exit"),
    )
}

impl World {
    pub fn new() -> World {
        let repo = TestRepo::new();
        let remote = repo.root.join("remote.git");
        let b = repo.root.join("b");
        repo.git_in(&repo.root, &["clone", "-q", "--bare", "repo", "remote.git"]);
        repo.git(&["remote", "add", "origin", remote.to_str().expect("UTF-8")]);
        repo.git_in(&repo.root, &["clone", "-q", "remote.git", "b"]);
        for setting in [["user.name", "Test User"], ["user.email", "t@example.com"]] {
            repo.git_in(&b, &["config", setting[0], setting[1]]);
        }
        repo.git_in(&b, &["config", "gc.auto", "0"]);
        std::fs::write(repo.root.join("pipe.fabro"), pipe()).expect("workflow");
        std::fs::write(repo.root.join("fan.fabro"), fan()).expect("workflow");
        let clones = [repo.path.clone(), b];
        World {
            repo,
            clones,
            remote,
            trees: HashMap::new(),
            trailers: HashMap::new(),
        }
    }

    /// Runs `git fabro ARGS` in a clone, cut short as `kill` says.
    pub fn fabro(&self, clone: usize, args: &[String], kill: Option<&Kill>) -> Outcome {
        let mut cmd = self.repo.fabro_in(&self.clones[clone]);
        cmd.args(args);
        match kill {
            None => finished(&mut cmd),
            Some(Kill::At(point)) => {
                cmd.env("FABRO_FAILPOINT", point);
                let mut cmd = without_core_dumps(&cmd);
                match cmd.output().expect("git-fabro runs") {
                    out if out.status.signal() == Some(6) => Outcome::Killed,
                    out => exited(&out),
                }
            }
            Some(Kill::After(micros)) => kill_after(&mut cmd, *micros),
        }
    }

    /// Runs git in `dir` and returns (success, stdout).
    pub fn git(&self, dir: &Path, args: &[&str]) -> (bool, String) {
        let out = self.repo.git_output(dir, args);
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }

    pub fn rev(&self, clone: usize, name: &str) -> Option<String> {
        let (ok, out) = self.git(&self.clones[clone], &["rev-parse", "-q", "--verify", name]);
        ok.then(|| out.trim().to_owned())
    }

    /// The run ids whose metadata branch exists in `dir`.
    pub fn run_ids(&self, dir: &Path) -> Vec<String> {
        let (_, out) = self.git(
            dir,
            &[
                "for-each-ref",
                "--format=%(refname:lstrip=4)",
                "refs/heads/fabro/meta/",
            ],
        );
        out.lines().map(str::to_owned).collect()
    }

    /// The checkpoint commits of a run branch, oldest first: its first-parent history kept to
    /// the commits whose trailers (as `git interpret-trailers --parse` reads them) name a
    /// metadata commit.
    pub fn checkpoint_commits(&mut self, clone: usize, id: &str) -> Result<Vec<String>, String> {
        let dir = self.clones[clone].clone();
        let (ok, out) = self.git(
            &dir,
            &[
                "rev-list",
                "--first-parent",
                "--reverse",
                &format!("refs/heads/fabro/run/{id}"),
            ],
        );
        if !ok {
            return Err(format!("run branch fabro/run/{id} is missing"));
        }
        let mut kept = Vec::new();
        for sha in out.lines() {
            if !self.trailers.contains_key(sha) {
                let (_, message) = self.git(&dir, &["log", "-1", "--format=%B", sha]);
                let parsed = self.interpret_trailers(&dir, &message);
                let checkpoint = parsed.lines().any(|l| l.starts_with("Fabro-Checkpoint: "))
                    && parsed.lines().any(|l| l.starts_with("Fabro-Completed: "));
                self.trailers.insert(sha.to_owned(), checkpoint);
            }
            if self.trailers[sha] {
                kept.push(sha.to_owned());
            }
        }
        Ok(kept)
    }

    fn interpret_trailers(&self, dir: &Path, message: &str) -> String {
        let out = self.piped(dir, &["interpret-trailers", "--parse"], message);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Runs git in `dir` with `input` on its stdin; returns its stdout.
    fn piped(&self, dir: &Path, args: &[&str], input: &str) -> Vec<u8> {
        let mut child = self
            .repo
            .command("git")
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("git runs");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(input.as_bytes()).expect("write to git");
        drop(stdin);
        child.wait_with_output().expect("git runs").stdout
    }

    /// The files of a commit's tree, as `git ls-tree -r` and `git cat-file` show them.
    pub fn tree(&mut self, dir: &Path, commit: &str) -> Files {
        if let Some(files) = self.trees.get(commit) {
            return files.clone();
        }
        let (_, listing) = self.git(dir, &["ls-tree", "-r", "-z", commit]);
        let mut entries = Vec::new();
        for item in listing.split('\0').filter(|l| !l.is_empty()) {
            let (head, path) = item.split_once('\t').expect("ls-tree line");
            let words: Vec<&str> = head.split(' ').collect();
            entries.push((words[0] == "120000", words[2].to_owned(), path.to_owned()));
        }
        let shas: Vec<&str> = entries.iter().map(|(_, sha, _)| sha.as_str()).collect();
        let blobs = self.piped(
            dir,
            &["cat-file", "--batch"],
            &format!("{}\n", shas.join("\n")),
        );
        let mut rest = blobs.as_slice();
        let mut files = Files::new();
        for (link, _, path) in entries {
            // Each blob comes as "<sha> blob <size>\n<content>\n".
            let header_end = rest
                .iter()
                .position(|b| *b == b'\n')
                .expect("cat-file header");
            let header = String::from_utf8_lossy(&rest[..header_end]).into_owned();
            let size: usize = header
                .rsplit(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .expect("size");
            let body = &rest[header_end + 1..header_end + 1 + size];
            let text = String::from_utf8_lossy(body).into_owned();
            rest = &rest[header_end + 2 + size..];
            files.insert(
                path,
                if link {
                    Entry::Link(text)
                } else {
                    Entry::File(text)
                },
            );
        }
        self.trees.insert(commit.to_owned(), files.clone());
        files
    }
}

/// The files below `dir` as git would see them: regular files by content, symlinks by target,
/// the `.git` entry left out.
pub fn read_dir(dir: &Path) -> Files {
    fn walk(root: &Path, dir: &Path, out: &mut Files) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .expect("inside")
                .to_string_lossy()
                .into_owned();
            if rel == ".git" {
                continue;
            }
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap_or_default();
                out.insert(rel, Entry::Link(target.to_string_lossy().into_owned()));
            } else if meta.is_dir() {
                walk(root, &path, out);
            } else {
                let text = std::fs::read(&path).unwrap_or_default();
                out.insert(
                    rel,
                    Entry::File(String::from_utf8_lossy(&text).into_owned()),
                );
            }
        }
    }
    let mut files = Files::new();
    walk(dir, dir, &mut files);
    files
}

fn exited(out: &std::process::Output) -> Outcome {
    Outcome::Exited {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn finished(cmd: &mut Command) -> Outcome {
    exited(&cmd.output().expect("git-fabro runs"))
}

/// SIGKILL after `micros`, unless the command ended first (then it is an ordinary exit). The
/// command runs in a process group of its own and the whole group is killed, as a terminal
/// kills a job: a `git push` or a node's script it started dies with it instead of finishing
/// behind the next step's back.
fn kill_after(cmd: &mut Command, micros: u64) -> Outcome {
    use std::os::unix::process::CommandExt;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("git-fabro runs");
    std::thread::sleep(std::time::Duration::from_micros(micros));
    if let Ok(Some(_)) = child.try_wait() {
        return exited(&child.wait_with_output().expect("output"));
    }
    let group = format!("-{}", child.id());
    let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
    let out = child.wait_with_output().expect("output");
    if out.status.signal() == Some(9) {
        Outcome::Killed
    } else {
        exited(&out)
    }
}
