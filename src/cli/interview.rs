//! A person at the terminal answers a human gate: the question and its choices on stderr, the
//! answer from stdin. An answer that names no choice is asked again; an empty line or the end
//! of input is Fabro's interrupted interview. stdin is read on a thread of its own, so that
//! Ctrl-C stops the wait. That thread is one for the whole run and reads a line only when a
//! question wants one: a reader per question would leave the last one blocked in `read_line`,
//! and it would swallow the first answer typed at the next gate.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::{Mutex, OnceLock, mpsc};
use std::time::Duration;

use super::output;
use crate::engine::execute::{Asked, Interviewer, Question, interrupt};

struct Terminal;

/// The terminal's interviewer when stdin and stderr are both terminals, else nobody.
pub fn terminal() -> Option<Box<dyn Interviewer>> {
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    interactive.then(|| Box::new(Terminal) as Box<dyn Interviewer>)
}

impl Interviewer for Terminal {
    fn ask(&self, question: &Question) -> Asked {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "? {}", output::escape(&question.text));
        for line in question.listing() {
            let _ = writeln!(err, "  {}", output::escape(&line));
        }
        drop(err);
        let mut lines = stdin_lines().lock().unwrap_or_else(|e| e.into_inner());
        loop {
            eprint!("Select: ");
            let answer = loop {
                if interrupt::requested() {
                    eprintln!();
                    return Asked::Interrupted;
                }
                match lines.next_line(Duration::from_millis(50)) {
                    Ok(answer) => break answer,
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => break None,
                }
            };
            let Some(text) = answer.filter(|t| !t.is_empty()) else {
                return Asked::Nothing;
            };
            if question.answered(&text).is_some() {
                return Asked::Answer(text);
            }
            eprintln!(
                "  no choice matches {:?}: answer with a key, a number, a label or a node id",
                output::escape(&text)
            );
        }
    }
}

/// stdin's lines, trimmed, then `None` at its end, read one at a time on request.
struct Lines {
    want: mpsc::Sender<()>,
    lines: mpsc::Receiver<Option<String>>,
    /// A line was asked for and has not come yet (its question was interrupted): the next
    /// question takes it rather than ask for another.
    asked: bool,
}

impl Lines {
    fn next_line(&mut self, wait: Duration) -> Result<Option<String>, mpsc::RecvTimeoutError> {
        if !self.asked {
            self.asked = self.want.send(()).is_ok();
        }
        let line = self.lines.recv_timeout(wait)?;
        self.asked = false;
        Ok(line)
    }
}

fn stdin_lines() -> &'static Mutex<Lines> {
    static LINES: OnceLock<Mutex<Lines>> = OnceLock::new();
    LINES.get_or_init(|| Mutex::new(read_lines()))
}

fn read_lines() -> Lines {
    let (want, wanted) = mpsc::channel();
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut line = String::new();
        while wanted.recv().is_ok() {
            line.clear();
            let text = match stdin.lock().read_line(&mut line) {
                Ok(0) | Err(_) => None,
                Ok(_) => Some(line.trim().to_string()),
            };
            let last = text.is_none();
            if send.send(text).is_err() || last {
                return;
            }
        }
    });
    Lines {
        want,
        lines,
        asked: false,
    }
}
