//! `run.pid`: of several `resume RUN -- COMMAND` at once exactly one runs its command, and the
//! commands that would pull a run from under its holder refuse (exit 3, naming the pid) unless
//! `--force`, except when the holder's own command runs them.

use std::process::{Child, Command, Stdio};

use crate::common::{TestRepo, path_with_fabro, read_file, run_err, run_ok};

/// A live process to name in run.pid; killed when dropped.
struct Sleeper(Child);

impl Sleeper {
    fn new() -> Sleeper {
        Sleeper(Command::new("sleep").arg("60").spawn().unwrap())
    }

    fn hold(&self, run_dir: &std::path::Path) -> u32 {
        std::fs::write(run_dir.join("run.pid"), format!("{}\n", self.0.id())).unwrap();
        self.0.id()
    }
}

impl Drop for Sleeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn of_three_concurrent_resumes_exactly_one_runs_its_command() {
    let (repo, run) = TestRepo::with_run();
    let ran = repo.root.join("ran.txt");
    let script = format!("echo ran >> '{}'; sleep 2", ran.display());
    let children: Vec<Child> = (0..3)
        .map(|_| {
            repo.fabro()
                .args(["resume", &run.id, "--", "sh", "-c", &script])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let pids: Vec<u32> = children.iter().map(Child::id).collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let runs = std::fs::read_to_string(&ran).unwrap_or_default();
    assert_eq!(runs.lines().count(), 1, "commands that ran: {runs:?}");
    let winners: Vec<usize> = (0..3).filter(|i| outputs[*i].status.success()).collect();
    assert_eq!(winners.len(), 1, "{outputs:?}");
    let winner = pids[winners[0]];
    for (i, out) in outputs.iter().enumerate().filter(|(i, _)| *i != winners[0]) {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "resume {i}: {err}");
        assert!(
            err.contains(&format!("process {winner}")),
            "resume {i}: {err}"
        );
    }
    assert!(!run.run_dir.join("run.pid").exists(), "run.pid is released");
}

#[test]
fn a_run_pid_left_by_a_dead_process_is_taken_over() {
    let (repo, run) = TestRepo::with_run();
    std::fs::write(run.run_dir.join("run.pid"), "999999999\n").unwrap();
    run_ok(repo.fabro().args(["resume", &run.id, "--", "true"]));
    assert!(!run.run_dir.join("run.pid").exists());
}

/// A run.pid naming a live process that started after the file was written: the pid was
/// reused by an unrelated process, which holds nothing.
#[test]
fn a_run_pid_whose_pid_was_reused_is_taken_over() {
    let (repo, run) = TestRepo::with_run();
    let sleeper = Sleeper::new();
    let pid_file = run.run_dir.join("run.pid");
    sleeper.hold(&run.run_dir);
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&pid_file)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
    let runs: serde_json::Value = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    assert_eq!(runs[0]["process_alive"], false, "{runs}");
    run_ok(repo.fabro().args(["resume", &run.id, "--", "true"]));
    assert!(!pid_file.exists());
}

/// While `resume -- COMMAND` runs, its run.pid is held, and another resume names its pid.
#[test]
fn a_live_holder_is_named_by_its_pid() {
    let (repo, run) = TestRepo::with_run();
    let marker = repo.root.join("started");
    let script = format!("touch '{}'; sleep 5", marker.display());
    let mut holder = repo
        .fabro()
        .args(["resume", &run.id, "--", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    while !marker.exists() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let (code, err) = run_err(repo.fabro().args(["resume", &run.id, "--", "true"]));
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(&format!("process {}", holder.id())), "{err}");
    let _ = holder.kill();
    let _ = holder.wait();
    // Killed: its lock on run.pid is gone with it, and the run is taken over at once.
    run_ok(repo.fabro().args(["resume", &run.id, "--", "true"]));
}

#[test]
fn finish_archive_gc_and_restore_refuse_a_held_run_unless_forced() {
    let (repo, run) = TestRepo::with_run();
    std::fs::write(run.worktree.join("a.txt"), "a\n").unwrap();
    repo.checkpoint(&run.id, "build");
    let sleeper = Sleeper::new();
    let pid = sleeper.hold(&run.run_dir);
    let refused: [&[&str]; 3] = [
        &["finish", "--run", &run.id],
        &["archive", &run.id],
        &["restore", "--run", &run.id, "@1"],
    ];
    for args in refused {
        let (code, err) = run_err(repo.fabro().args(args));
        assert_eq!(code, 3, "{args:?}: {err}");
        assert!(err.contains(&format!("process {pid}")), "{args:?}: {err}");
        assert!(err.contains("--force"), "{args:?}: {err}");
    }
    assert_eq!(repo.log_json(&run.id).len(), 1);
    repo.ok(&["restore", "--run", &run.id, "@1", "--force"]);
    repo.ok(&["archive", &run.id, "--force"]);

    let (code, err) = run_err(repo.fabro().args(["gc", "--older-than", "0"]));
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(&format!("process {pid}")), "{err}");
    assert!(run.run_dir.exists());
    repo.ok(&["gc", "--older-than", "0", "--force"]);
    assert!(!run.run_dir.exists());
}

#[test]
fn the_held_runs_own_command_may_finish_it() {
    let (repo, run) = TestRepo::with_run();
    std::fs::write(run.worktree.join("a.txt"), "a\n").unwrap();
    repo.checkpoint(&run.id, "build");
    let script = "git-fabro finish --run \"$FABRO_RUN_ID\" --keep-worktree";
    run_ok(
        repo.fabro()
            .env("PATH", path_with_fabro())
            .args(["resume", &run.id, "--", "sh", "-c", script]),
    );
    let out = repo.ok(&["show", &run.id, "--json"]);
    assert!(out.contains("succeeded"), "{out}");
}

/// A run.pid naming a process that has ended but that its parent has not collected yet:
/// the system still answers for its pid, yet it holds nothing.
#[test]
fn a_run_pid_left_by_a_zombie_is_taken_over() {
    let (repo, run) = TestRepo::with_run();
    let mut ended = Command::new("true").spawn().unwrap();
    let stat = format!("/proc/{}/stat", ended.id());
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&stat).is_ok_and(|s| s.contains(") Z")) {
        assert!(started.elapsed() < PATIENCE, "`true` never ended");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::fs::write(run.run_dir.join("run.pid"), format!("{}\n", ended.id())).unwrap();
    run_ok(repo.fabro().args(["resume", &run.id, "--", "true"]));
    assert!(!run.run_dir.join("run.pid").exists());
    ended.wait().unwrap();
}

/// A command for `resume -- sh FILE` that writes its pid to `command.pid`, and on `signal`
/// writes `caught` and exits 7; it runs until a signal ends it.
fn signalled_command(repo: &TestRepo, signal: &str) -> std::path::PathBuf {
    let root = repo.root.display();
    let script = repo.root.join("command.sh");
    std::fs::write(
        &script,
        format!(
            "trap 'echo {signal} > {root}/caught; exit 7' {signal}\n\
             echo $$ > {root}/command.pid.tmp && mv {root}/command.pid.tmp {root}/command.pid\n\
             while :; do sleep 0.1; done\n"
        ),
    )
    .unwrap();
    script
}

/// Long enough for any machine; no test waits for it to pass.
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

fn wait_for_command(repo: &TestRepo) -> String {
    let pid = repo.root.join("command.pid");
    let started = std::time::Instant::now();
    while !pid.exists() {
        assert!(started.elapsed() < PATIENCE, "the command never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    read_file(pid).trim().to_owned()
}

/// How `child` ended; killed, and the test failed, if it runs past [`PATIENCE`].
fn wait_ended(child: &mut Child) -> std::process::ExitStatus {
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > PATIENCE {
            let _ = child.kill();
            panic!("git-fabro did not end with its command");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Kills what a failed test left running.
fn end_command(pid: &str) {
    let _ = Command::new("kill")
        .args(["-KILL", pid])
        .stderr(Stdio::null())
        .status();
}

/// Ctrl-C on the terminal reaches the command, which shares git-fabro's terminal; git-fabro
/// does not die under it but holds the run until the command ends, and exits as it did.
#[test]
fn ctrl_c_reaches_the_resumed_command_and_git_fabro_ends_with_it() {
    use std::io::Write;
    let (repo, run) = TestRepo::with_run();
    let script = signalled_command(&repo, "INT");
    let mut terminal = repo
        .fabro_on_terminal(&format!("resume {} -- sh {}", run.id, script.display()))
        .env("TERM", "dumb")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("util-linux `script` runs (.ci/run installs it)");
    let mut keyboard = terminal.stdin.take().unwrap();
    let pid = wait_for_command(&repo);
    keyboard.write_all(b"\x03").unwrap();
    keyboard.flush().unwrap();
    let status = wait_ended(&mut terminal);
    end_command(&pid);
    drop(keyboard);
    assert_eq!(status.code(), Some(7), "git-fabro exits as its command did");
    let caught = std::fs::read_to_string(repo.root.join("caught")).unwrap_or_default();
    assert_eq!(caught.trim(), "INT", "the command got Ctrl-C");
    assert!(!run.run_dir.join("run.pid").exists(), "run.pid is released");
}

/// `kill PID` of git-fabro alone is passed on to its command, which would otherwise go on
/// working on a run nobody holds.
#[test]
fn sigterm_to_resume_is_passed_on_to_its_command() {
    let (repo, run) = TestRepo::with_run();
    let script = signalled_command(&repo, "TERM");
    let mut holder = repo
        .fabro()
        .args(["resume", &run.id, "--", "sh"])
        .arg(&script)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = wait_for_command(&repo);
    let sent = Command::new("kill")
        .args(["-TERM", &holder.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = wait_ended(&mut holder);
    let caught = std::fs::read_to_string(repo.root.join("caught")).unwrap_or_default();
    end_command(&pid);
    assert_eq!(caught.trim(), "TERM", "the command got the SIGTERM");
    assert_eq!(status.code(), Some(7), "git-fabro exits as its command did");
    assert!(!run.run_dir.join("run.pid").exists(), "run.pid is released");
}

/// Under `nohup` (a hangup ignored), the command inherits the ignored hangup as it would
/// started from the shell; Ctrl-C stays its to handle.
#[test]
fn the_resumed_command_inherits_the_signals_git_fabro_ignores() {
    let (repo, run) = TestRepo::with_run();
    let bin = assert_cmd::cargo::cargo_bin("git-fabro");
    let mask = repo.root.join("mask");
    let line = format!(
        "trap '' HUP; exec '{}' resume {} -- sh -c 'grep SigIgn /proc/self/status > \"{}\"'",
        bin.display(),
        run.id,
        mask.display()
    );
    run_ok(repo.command("sh").args(["-c", &line]));
    let mask = read_file(mask);
    let bits = u64::from_str_radix(mask.trim_start_matches("SigIgn:").trim(), 16).unwrap();
    assert_eq!(bits & 1, 1, "SIGHUP stays ignored: {mask}");
    assert_eq!(bits & 2, 0, "SIGINT is the command's to handle: {mask}");
}
