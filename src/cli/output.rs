//! Rendering shared by the commands: JSON documents, aligned tables, and messages on stderr.
//! Data goes to stdout, everything addressed to a person goes to stderr.

use std::io::Write;

use anstyle::{AnsiColor, Style};
use std::sync::atomic::Ordering;

use anyhow::Result;
use serde::Serialize;

/// Prints one pretty JSON document on stdout, in the form of the JSON files git-fabro writes.
pub(crate) fn json(value: &impl Serialize) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(&crate::format::record::pretty(value))?;
    out.flush()?;
    Ok(())
}

/// Prints `line` on stdout.
pub(crate) fn line(line: impl std::fmt::Display) -> Result<()> {
    writeln!(std::io::stdout().lock(), "{line}")?;
    Ok(())
}

/// Prints rows as columns separated by two spaces, the last column unpadded. The cells of
/// `status_column` are coloured by status on a terminal.
pub(crate) fn table(
    header: &[&str],
    rows: &[Vec<impl AsRef<str>>],
    status_column: Option<usize>,
) -> Result<()> {
    // Cells hold node ids, goals and messages from the repository: never raw control bytes.
    // They are escaped as they are measured and again as they are written, which copies none
    // of a long timeline's thousands of cells that need no escaping.
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(escape(cell.as_ref()).chars().count());
        }
    }
    // One write for many lines rather than one per line: a long timeline is thousands.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let colour = stdout_colour();
    let mut line = String::new();
    let header = header.iter().map(|h| std::borrow::Cow::Borrowed(*h));
    write_row(&mut out, &mut line, header, &widths, |_, _| {
        colour.then_some(BOLD)
    })?;
    for row in rows {
        let style =
            |i, cell: &str| (colour && status_column == Some(i)).then(|| status_style(cell));
        write_row(
            &mut out,
            &mut line,
            row.iter().map(|c| escape(c.as_ref())),
            &widths,
            style,
        )?;
    }
    out.flush()?;
    Ok(())
}

/// One line of a table: each cell padded to its column's width and two spaces, but the last,
/// painted in the style `style` gives it; trailing spaces trimmed.
fn write_row<'a>(
    out: &mut impl Write,
    line: &mut String,
    cells: impl ExactSizeIterator<Item = std::borrow::Cow<'a, str>>,
    widths: &[usize],
    style: impl Fn(usize, &str) -> Option<Style>,
) -> Result<()> {
    use std::fmt::Write as _;
    line.clear();
    let last = cells.len().saturating_sub(1);
    for (i, cell) in cells.enumerate() {
        let style = style(i, &cell);
        if let Some(style) = style {
            write!(line, "{style}")?;
        }
        line.push_str(&cell);
        if i != last {
            let padding = widths[i].saturating_sub(cell.chars().count()) + 2;
            line.extend(std::iter::repeat_n(' ', padding));
        }
        if let Some(style) = style {
            write!(line, "{style:#}")?;
        }
    }
    out.write_all(line.trim_end().as_bytes())?;
    out.write_all(b"\n")?;
    Ok(())
}

pub(crate) const BOLD: Style = Style::new().bold();
pub(crate) const RED: Style = AnsiColor::Red.on_default();
pub(crate) const GREEN: Style = AnsiColor::Green.on_default();
pub(crate) const YELLOW: Style = AnsiColor::Yellow.on_default();

/// 0: decide from the terminal; 1: colour; 2: none (a command's `--color`, decided before a
/// pager takes stdout away from the terminal).
static STDOUT_COLOUR: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Fixes whether tables on stdout are coloured, whatever stdout turns out to be.
pub(crate) fn set_stdout_colour(colour: bool) {
    STDOUT_COLOUR.store(if colour { 1 } else { 2 }, Ordering::Relaxed);
}

fn stdout_colour() -> bool {
    match STDOUT_COLOUR.load(Ordering::Relaxed) {
        0 => colour_on(&std::io::stdout()),
        fixed => fixed == 1,
    }
}

/// Colour as git decides it: on a terminal whose `TERM` can show it, never with `NO_COLOR`
/// (and `CLICOLOR`/`CLICOLOR_FORCE` as the convention says).
pub(crate) fn colour_on(stream: &impl anstream::stream::RawStream) -> bool {
    anstream::AutoStream::choice(stream) != anstream::ColorChoice::Never
}

pub(crate) fn paint(text: &str, style: Style) -> String {
    format!("{style}{text}{style:#}")
}

fn status_style(status: &str) -> Style {
    match status {
        "succeeded" => GREEN,
        "failed" | "dead" => RED,
        "partially_succeeded" | "skipped" | "archived" | "running (no process)" => YELLOW,
        _ => BOLD,
    }
}

/// The `error:`, `warning:` or `hint:` prefix of a message on stderr.
pub fn prefix(label: &str) -> String {
    format!("{}:", severity(label))
}

/// `error`, `warning` or another label, coloured for stderr when it is a terminal.
pub(crate) fn severity(label: &str) -> String {
    let style = match label {
        "error" => RED,
        "warning" => YELLOW,
        _ => BOLD,
    };
    if colour_on(&std::io::stderr()) {
        paint(label, style)
    } else {
        label.to_string()
    }
}

static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `--quiet`: no messages for people on stderr (errors and warnings still show).
pub(crate) fn set_quiet(quiet: bool) {
    QUIET.store(quiet, std::sync::atomic::Ordering::Relaxed);
}

pub(crate) fn is_quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// A message for the person at the terminal.
pub(crate) fn note(message: impl std::fmt::Display) {
    if !is_quiet() {
        eprintln!("{message}");
    }
}

pub(crate) fn warn(message: impl std::fmt::Display) {
    eprintln!("{} {message}", prefix("warning"));
}

/// One warning per run a listing left out because its record cannot be read.
pub(crate) fn warn_unreadable(runs: &[crate::run::Unreadable]) {
    for run in runs {
        warn(format!(
            "{} (left out; check it with `git fabro fsck {}`)",
            run.reason, run.id
        ));
    }
}

/// `text` with every character that could steer a terminal shown visibly instead: control
/// characters (C0, DEL, C1, so ESC and CSI) as `\t`, `\n`, `\r` or `\x1b`, `\u{9b}`, and the
/// bidirectional overrides that reorder what a reader sees. Node ids, paths, messages and
/// reasons read from a repository go through it before reaching a person: another clone
/// chose those bytes.
pub fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    let steers =
        |c: char| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    // Printable ASCII, nearly all text, is settled without decoding characters.
    let printable_ascii = text.bytes().all(|b| (b' '..=b'~').contains(&b));
    if printable_ascii || !text.chars().any(steers) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' => shown.push_str("\\t"),
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            c if (c as u32) < 0x80 && steers(c) => shown.push_str(&format!("\\x{:02x}", c as u32)),
            c if steers(c) => shown.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => shown.push(c),
        }
    }
    std::borrow::Cow::Owned(shown)
}

/// `n` and the noun, singular for one: `1 run`, `2 runs`, `0 runs`.
pub(crate) fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A UTC RFC 3339 time as `git log --date=iso` shows one: local time with its offset
/// (`2026-11-21 06:49:12 +0100`). Text that is not such a time is shown as it is.
pub(crate) fn local_time(rfc3339: &str) -> String {
    let Ok(time) = rfc3339.parse::<jiff::Timestamp>() else {
        return rfc3339.to_owned();
    };
    // Written digit by digit: `strftime` took a log of a thousand checkpoints 1.6 ms.
    let offset = local_zone().to_offset(time);
    let local = offset.to_datetime(time);
    let mut shown = String::with_capacity(25);
    let year = i32::from(local.year());
    if year < 0 {
        shown.push('-');
    }
    push_digits(&mut shown, year.unsigned_abs(), 4);
    for (separator, value) in [
        ('-', local.month()),
        ('-', local.day()),
        (' ', local.hour()),
        (':', local.minute()),
        (':', local.second()),
    ] {
        shown.push(separator);
        push_digits(&mut shown, value.unsigned_abs().into(), 2);
    }
    let minutes = offset.seconds() / 60;
    shown.push_str(if minutes < 0 { " -" } else { " +" });
    push_digits(&mut shown, minutes.unsigned_abs() / 60, 2);
    push_digits(&mut shown, minutes.unsigned_abs() % 60, 2);
    shown
}

/// `value` in decimal, zero-padded to `width` digits.
fn push_digits(out: &mut String, value: u32, width: usize) {
    let mut digits = [b'0'; 10];
    let mut start = digits.len();
    let mut rest = value;
    while rest > 0 || start == digits.len() {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    let start = start.min(digits.len().saturating_sub(width));
    out.push_str(std::str::from_utf8(&digits[start..]).unwrap_or_default());
}

/// The local time zone, read once. jiff's `TimeZone::system()` first indexes the whole
/// zoneinfo directory to look the zone's name up (about a millisecond of every command that
/// shows a time), so the file the C library would read is read directly when there is one.
pub(super) fn local_zone() -> &'static jiff::tz::TimeZone {
    static ZONE: std::sync::OnceLock<jiff::tz::TimeZone> = std::sync::OnceLock::new();
    ZONE.get_or_init(|| zone_file().unwrap_or_else(jiff::tz::TimeZone::system))
}

/// The zone in `/etc/localtime`, or in the file `TZ` names (`Europe/Paris` under the zoneinfo
/// directory, or `:/a/path`); none for anything else, such as a POSIX rule, which jiff reads.
fn zone_file() -> Option<jiff::tz::TimeZone> {
    let path = match std::env::var_os("TZ") {
        None => std::path::PathBuf::from("/etc/localtime"),
        Some(tz) => {
            let name = tz.to_str()?.trim_start_matches(':');
            let named = !name.is_empty() && !name.split('/').any(|part| part == "..");
            match named.then_some(name)? {
                path if path.starts_with('/') => path.into(),
                name => std::env::var_os("TZDIR")
                    .map_or_else(|| "/usr/share/zoneinfo".into(), std::path::PathBuf::from)
                    .join(name),
            }
        }
    };
    jiff::tz::TimeZone::tzif("Local", &std::fs::read(path).ok()?).ok()
}
