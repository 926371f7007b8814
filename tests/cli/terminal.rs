//! Every command as a person at a terminal runs it: on a pseudo-terminal, where progress and
//! colour switch on. Each must exit, with its documented code, within a deadline, and print a
//! bounded amount. Piped tests never see this path: the progress line once repainted forever.

use crate::common::{OnTerminal, TestRepo};

/// More than any command here prints on a terminal; a repainting loop passes it in a moment.
const BOUNDED: usize = 64 * 1024;

fn expect(run: &OnTerminal, args: &str, code: i32) {
    assert_eq!(
        run.code,
        Some(code),
        "`git fabro {args}` on a terminal (None: still running at the deadline), ending: {}",
        tail(&run.output)
    );
    assert!(
        run.printed < BOUNDED,
        "`git fabro {args}` printed {} bytes on a terminal",
        run.printed
    );
}

/// The last lines of a terminal's output, enough to see what it was doing.
fn tail(output: &str) -> &str {
    let cut = output.len().saturating_sub(2000);
    let cut = (cut..=output.len())
        .find(|&i| output.is_char_boundary(i))
        .unwrap_or(output.len());
    &output[cut..]
}

fn on_terminal(repo: &TestRepo, args: &str, code: i32) -> OnTerminal {
    let run = repo.on_terminal(&repo.path, args, &[]);
    expect(&run, args, code);
    run
}

#[test]
fn start_resume_and_gc_exit_on_a_terminal() {
    let repo = TestRepo::new();
    let started = on_terminal(&repo, "start", 0);
    let id = started
        .output
        .lines()
        .map(str::trim)
        .find(|l| l.len() == 26 && l.chars().all(|c| c.is_ascii_alphanumeric()))
        .unwrap_or_else(|| panic!("a run id in {:?}", started.output))
        .to_owned();
    repo.checkpoint(&id, "plan");
    on_terminal(&repo, &format!("resume {id}"), 0);
    on_terminal(&repo, &format!("resume {id} -- true"), 0);
    on_terminal(&repo, &format!("resume {id} -- false"), 1);
    on_terminal(&repo, &format!("archive {id}"), 0);
    on_terminal(&repo, "gc --older-than 0 --dry-run", 0);
    on_terminal(&repo, "gc --older-than 0", 0);
}

#[test]
fn every_command_on_one_run_exits_on_a_terminal() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    crate::common::write_file(&run.worktree.join("src/lib.rs"), "pub fn g() {}\n");
    repo.checkpoint(&run.id, "code");
    let id = run.id.as_str();
    for (args, code) in [
        (format!("log {id}"), 0),
        ("ps".to_owned(), 0),
        (format!("show {id} @2"), 0),
        (format!("diff {id} @1 @2"), 0),
        (format!("diff {id} @1 @2 --stat"), 0),
        (format!("restore --run {id} @1 --dry-run"), 0),
        (format!("fork {id} @1"), 0),
        (format!("fsck {id}"), 0),
        (format!("show {id} @9"), 2),
        ("no-such-command".to_owned(), 2),
    ] {
        on_terminal(&repo, &args, code);
    }
    let in_worktree = repo.on_terminal(&run.worktree, "snapshot", &[]);
    expect(&in_worktree, "snapshot", 0);
    on_terminal(&repo, &format!("rewind {id} @1 --force"), 0);
}

#[test]
fn push_and_fetch_exit_on_a_terminal() {
    let repo = TestRepo::new();
    repo.add_bare_remote("origin", "remote.git");
    let run = repo.start();
    repo.checkpoint(&run.id, "plan");
    on_terminal(&repo, &format!("push origin {}", run.id), 0);
    on_terminal(&repo, "fetch origin", 0);
    on_terminal(&repo, &format!("finish --run {}", run.id), 0);
}

#[test]
fn colour_only_on_a_terminal_and_never_with_no_color() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "a");
    let args = format!("log {}", run.id);
    let coloured = on_terminal(&repo, &args, 0);
    assert!(
        coloured.output.contains("\x1b[32msucceeded"),
        "{:?}",
        coloured.output
    );
    // Without the pager: less itself may send the terminal control sequences of its own.
    let args = format!("{args} --no-pager");
    let plain = repo.on_terminal(&repo.path, &args, &[("NO_COLOR", "1")]);
    expect(&plain, &args, 0);
    assert!(!plain.output.contains('\x1b'), "{:?}", plain.output);
    assert!(plain.output.contains("succeeded"));
}
