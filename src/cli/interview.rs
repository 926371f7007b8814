//! A person at the terminal answers a human gate: the question and its choices on stderr, the
//! answer from stdin. An answer that names no choice is asked again; an empty line or the end
//! of input is Fabro's interrupted interview. stdin is read on a thread of its own, so that
//! Ctrl-C stops the wait.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::mpsc;
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
        let lines = read_lines();
        loop {
            eprint!("Select: ");
            let answer = loop {
                if interrupt::requested() {
                    eprintln!();
                    return Asked::Interrupted;
                }
                match lines.recv_timeout(Duration::from_millis(50)) {
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

/// stdin's lines, trimmed, then `None` at its end.
fn read_lines() -> mpsc::Receiver<Option<String>> {
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut line = String::new();
        loop {
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
    lines
}
