//! What `run` and `resume` show on stderr while the engine works. On a terminal, one line per
//! stage: a spinner with the time so far while the node runs (`progress`), replaced by its
//! status, duration and exit code when it ends. Piped, plain lines stamped with the local
//! time, one when a stage starts and one when it ends, so logs read in order. A failure's
//! reason (the tail of a script's output) follows its line, indented.

use std::io::{IsTerminal, Write};

use super::output;
use super::progress::Spinner;
use crate::engine::execute::{Observer, StageReport};
use crate::engine::graph::Node;
use crate::engine::handler::Handler;
use crate::engine::outcome::Status;
use crate::run::active_time;

/// How many lines of a failure's reason are shown (the stage files hold all of it).
const REASON_LINES: usize = 20;

pub struct StageProgress {
    terminal: bool,
    spinner: Option<Spinner>,
}

impl StageProgress {
    pub fn new() -> Self {
        StageProgress {
            terminal: std::io::stderr().is_terminal(),
            spinner: None,
        }
    }
}

impl Observer for StageProgress {
    fn stage_started(&mut self, node: &Node, visit: u64) {
        if output::is_quiet() {
            return;
        }
        let stage = output::escape(&format!("{}@{visit}", node.id)).into_owned();
        // A human gate asks on this terminal: nothing may draw over its question.
        if self.terminal && Handler::of(node) != Handler::Human {
            self.spinner = Some(Spinner::start(stage));
        } else if !self.terminal {
            eprintln!("{} {stage} started", clock());
        }
    }

    fn stage_finished(&mut self, stage: &StageReport) {
        if let Some(spinner) = self.spinner.take() {
            spinner.stop();
        }
        if output::is_quiet() {
            return;
        }
        let mut line = format!(
            "{}@{}  {}  {}",
            stage.node_id,
            stage.visit,
            stage.status.as_str(),
            active_time::duration(stage.duration_ms)
        );
        if let Some(code) = stage.exit_code {
            line.push_str(&format!("  (exit {code})"));
        }
        let line = output::escape(&line);
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            writeln!(err, "{} {line}", mark(stage.status))
        } else {
            writeln!(err, "{} {line}", clock())
        };
        if let Some(reason) = &stage.failure {
            for text in reason.lines().take(REASON_LINES) {
                let _ = writeln!(err, "    {}", output::escape(text));
            }
        }
    }
}

fn mark(status: Status) -> String {
    let (mark, style) = match status {
        Status::Succeeded => ("✓", output::GREEN),
        Status::PartiallySucceeded => ("~", output::YELLOW),
        Status::Failed => ("✗", output::RED),
        Status::Skipped => ("-", output::BOLD),
    };
    if output::colour_on(&std::io::stderr()) {
        output::paint(mark, style)
    } else {
        mark.to_owned()
    }
}

/// The local time of day, as a log line's stamp.
fn clock() -> String {
    jiff::Zoned::now().strftime("%H:%M:%S").to_string()
}
