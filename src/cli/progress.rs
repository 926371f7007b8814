//! The one way git-fabro shows that something is under way: a line on stderr that redraws
//! itself, a spinner and the time so far, until the work ends. The long operations of the
//! commands (checking out a worktree, collecting runs) and each stage of `run` and `resume` use
//! it. It draws only when stderr is a terminal and `--quiet` is off, and only once the work has
//! taken a moment: piped output and quick work show nothing animated. It redraws with a
//! carriage return and spaces, never an escape sequence, so that a terminal that knows none
//! (`TERM=dumb`, an editor's shell buffer) shows it too.

use std::io::{IsTerminal, Write};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::output;

const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(100);
/// Work that ends sooner draws nothing, so that it does not flicker.
const DELAY: Duration = Duration::from_millis(200);

/// The line that shows `label` under way, drawn by a thread of its own. Dropping it clears
/// the line, so an error that ends the work early leaves nothing claiming it went on.
pub struct Spinner {
    drawing: Option<(mpsc::Sender<Ending>, JoinHandle<()>)>,
}

enum Ending {
    /// The caller says how it went (a stage's status line).
    Clear,
    /// `label... done in 1.2s` stays.
    Done,
}

impl Spinner {
    pub fn start(label: impl Into<String>) -> Spinner {
        if !std::io::stderr().is_terminal() || output::is_quiet() {
            return Spinner { drawing: None };
        }
        let label = label.into();
        let (stop, stopped) = mpsc::channel();
        // A machine out of threads shows no spinner rather than fail the work.
        let thread = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || draw(&label, &stopped));
        Spinner {
            drawing: thread.ok().map(|thread| (stop, thread)),
        }
    }

    /// Ends it and clears its line.
    pub fn stop(mut self) {
        self.end(Ending::Clear);
    }

    /// Ends it, leaving `label... done in 1.2s` when it was drawn.
    pub fn done(mut self) {
        self.end(Ending::Done);
    }

    fn end(&mut self, ending: Ending) {
        if let Some((stop, thread)) = self.drawing.take() {
            // The thread may have stopped already (stderr went away): then nobody listens.
            let _ = stop.send(ending);
            let _ = thread.join();
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.end(Ending::Clear);
    }
}

/// Redraws the line every tick until told how it ended. Only a timeout redraws: a message or
/// a dropped sender both mean the work is over, so the thread never outlives its spinner. A
/// write that fails (the terminal closed) stops the drawing for good.
fn draw(label: &str, stopped: &mpsc::Receiver<Ending>) {
    let started = Instant::now();
    let seconds = || started.elapsed().as_secs_f64();
    let mut line = Line::default();
    let mut wait = DELAY;
    let ending = loop {
        match stopped.recv_timeout(wait) {
            Ok(ending) => break ending,
            Err(mpsc::RecvTimeoutError::Disconnected) => break Ending::Clear,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let frame = FRAMES[line.redraws % FRAMES.len()];
        if !line.show(&format!("{frame} {label}  {:.1}s", seconds()), "") {
            return;
        }
        wait = TICK;
    };
    match ending {
        Ending::Done if line.redraws > 0 => {
            line.show(&format!("{label}... done in {:.1}s", seconds()), "\n");
        }
        _ => line.clear(),
    }
}

/// What the spinner's line holds now, so that a shorter text covers all of the longer one.
#[derive(Default)]
struct Line {
    width: usize,
    redraws: usize,
}

impl Line {
    /// Draws `text` over the line in one write, then `end` (a newline keeps it there).
    fn show(&mut self, text: &str, end: &str) -> bool {
        let width = text.chars().count();
        let cover = self.width.saturating_sub(width);
        self.width = width;
        self.redraws += 1;
        let shown = format!("\r{text}{:cover$}{end}", "");
        std::io::stderr().lock().write_all(shown.as_bytes()).is_ok()
    }

    fn clear(&mut self) {
        if self.width > 0 {
            let blank = format!("\r{:width$}\r", "", width = self.width);
            let _ = std::io::stderr().lock().write_all(blank.as_bytes());
            self.width = 0;
        }
    }
}
