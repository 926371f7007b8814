//! Rendering shared by the commands: JSON documents, aligned tables, and messages on stderr.
//! Data goes to stdout, everything addressed to a person goes to stderr.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;

/// Prints one pretty JSON document on stdout.
pub fn json(value: &impl Serialize) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// Prints `line` on stdout.
pub fn line(line: impl std::fmt::Display) -> Result<()> {
    writeln!(std::io::stdout().lock(), "{line}")?;
    Ok(())
}

/// Prints rows as columns separated by two spaces, the last column unpadded.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> Result<()> {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = std::io::stdout().lock();
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut text = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                text.push_str(cell);
            } else {
                text.push_str(&format!("{cell:<width$}  ", width = widths[i]));
            }
        }
        writeln!(out, "{}", text.trim_end())?;
    }
    Ok(())
}

static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `--quiet`: no messages for people on stderr (errors and warnings still show).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, std::sync::atomic::Ordering::Relaxed);
}

pub fn is_quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// A message for the person at the terminal.
pub fn note(message: impl std::fmt::Display) {
    if !is_quiet() {
        eprintln!("{message}");
    }
}

pub fn warn(message: impl std::fmt::Display) {
    eprintln!("warning: {message}");
}

/// The first seven hex digits, as git abbreviates.
pub fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}
