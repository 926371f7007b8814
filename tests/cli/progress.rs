//! The progress line on a pseudo-terminal: one spinner for the long operations of the commands
//! and for the stages of `run`, drawn without escape sequences (a `TERM=dumb` terminal shows
//! it as it is), ended with the command. Piped, nothing animated (see `engine_records`).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::TestRepo;
use crate::engine_run::workflow;

/// Long enough for any machine; the test never waits for it to pass.
const PATIENCE: Duration = Duration::from_secs(60);
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// What a command painted on a pseudo-terminal, and its exit code.
struct Screen {
    code: Option<i32>,
    text: String,
}

/// Runs `git-fabro ARGS` on a pseudo-terminal with every failure point it reaches held (the
/// trace file is a FIFO nobody reads yet), until `shown` is on the screen: an operation that
/// takes as long as a person needs to see its progress. Then lets it finish.
fn held_on_terminal(repo: &TestRepo, args: &str, shown: &str) -> Screen {
    let fifo = repo.root.join("trace.fifo");
    let made = repo.command("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let mut child = repo
        .fabro_on_terminal(args)
        .env("TERM", "xterm-256color")
        .env("FABRO_FAILPOINT_TRACE", &fifo)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("util-linux `script` runs (.ci/run installs it)");
    let screen = Arc::new(Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().expect("piped stdout");
    let painted = Arc::clone(&screen);
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = stdout.read(&mut buf) {
            painted.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let text = || String::from_utf8_lossy(&screen.lock().unwrap()).into_owned();
    let started = Instant::now();
    while !text().contains(shown) && started.elapsed() < PATIENCE {
        std::thread::sleep(Duration::from_millis(20));
    }
    // A reader on the FIFO lets every failure point through from now on.
    let release = rustix::fs::open(
        &fifo,
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NONBLOCK,
        rustix::fs::Mode::empty(),
    )
    .expect("the FIFO opens");
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait for script") {
            break status.code();
        }
        if started.elapsed() > 2 * PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(release);
    reader.join().expect("reader thread");
    Screen { code, text: text() }
}

#[test]
fn a_long_operation_shows_the_spinner_then_says_it_is_done() {
    let repo = TestRepo::new();
    let label = "checking out the run's worktree";
    let screen = held_on_terminal(&repo, "start", label);
    assert_eq!(screen.code, Some(0), "{:?}", screen.text);
    // The spinner every stage of `run` shows, with the time so far...
    let spun = FRAMES
        .iter()
        .any(|frame| screen.text.contains(&format!("{frame} {label}  0.")));
    assert!(spun, "{:?}", screen.text);
    // ...replaced by how long it took.
    assert!(
        screen.text.contains(&format!("\r{label}... done in ")),
        "{:?}",
        screen.text
    );
    assert!(!screen.text.contains('\x1b'), "{:?}", screen.text);
}

#[test]
fn stages_spin_on_a_dumb_terminal_without_escape_sequences() {
    let repo = TestRepo::new();
    let path = workflow(
        &repo,
        "slow",
        "digraph s { start [shape=Mdiamond]\n exit [shape=Msquare]\n \
         slow [shape=parallelogram, script=\"sleep 0.6\"]\n start -> slow -> exit }",
    );
    let args = format!("run {}", path.display());
    let shown = repo.on_terminal(Path::new(&repo.path), &args, &[("TERM", "dumb")]);
    assert_eq!(shown.code, Some(0), "{:?}", shown.output);
    assert!(shown.output.contains(" slow@1  0."), "{:?}", shown.output);
    assert!(
        shown.output.contains("slow@1  succeeded"),
        "{:?}",
        shown.output
    );
    assert!(!shown.output.contains('\x1b'), "{:?}", shown.output);
}
