//! `git fabro diff --stat`: the summary `git diff --stat` prints, column for column, so that
//! people and scripts that know git's layout read ours the same way. The layout follows git's
//! `show_stats` (diff.c): a name column of at most 5/8 of the width, a graph scaled to fit,
//! `Bin OLD -> NEW bytes` for binary files and a summary line that names only what changed.

use anyhow::Result;

use super::output;
use crate::git::FileStat;

/// The width git lays a stat out in when `COLUMNS` does not say otherwise and no terminal
/// answers: 80, as in git's `term_columns`.
const DEFAULT_COLUMNS: usize = 80;

/// Prints `stats` as `git diff --stat` prints them; nothing at all when nothing changed. With
/// `colour`, the graph and binary sizes are green and red, as `--color` has git paint them.
pub fn print(stats: &[FileStat], colour: bool) -> Result<()> {
    let lines = render(stats, columns());
    let files = lines.len().saturating_sub(1);
    for (i, line) in lines.into_iter().enumerate() {
        if colour && i < files {
            output::line(paint(&line, &stats[i]))?;
        } else {
            output::line(line)?;
        }
    }
    Ok(())
}

/// One file's line with its `+` green and `-` red (its sizes, for a binary file).
fn paint(line: &str, stat: &FileStat) -> String {
    const GREEN: &str = "\x1b[32m";
    const RED: &str = "\x1b[31m";
    const RESET: &str = "\x1b[m";
    let coloured = |text: &str, colour: &str| {
        if text.is_empty() {
            String::new()
        } else {
            format!("{colour}{text}{RESET}")
        }
    };
    match stat.binary_sizes {
        Some((0, 0)) => line.to_owned(),
        Some((before, after)) => {
            let sizes = format!("{before} -> {after} bytes");
            match line.strip_suffix(&sizes) {
                Some(head) => format!(
                    "{head}{} -> {} bytes",
                    coloured(&before.to_string(), RED),
                    coloured(&after.to_string(), GREEN)
                ),
                None => line.to_owned(),
            }
        }
        None => {
            let graph = line.rsplit(' ').next().unwrap_or("");
            if graph.is_empty() || !graph.chars().all(|c| c == '+' || c == '-') {
                return line.to_owned();
            }
            let head = &line[..line.len() - graph.len()];
            let plus = graph.chars().take_while(|&c| c == '+').count();
            format!(
                "{head}{}{}",
                coloured(&graph[..plus], GREEN),
                coloured(&graph[plus..], RED)
            )
        }
    }
}

/// Git reads `COLUMNS` first and falls back to 80 when stdout is not a terminal; without a
/// terminal-size query we take the same 80 on a terminal that sets no `COLUMNS`.
fn columns() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|text| text.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(DEFAULT_COLUMNS)
}

/// The lines of the stat for a layout `width` columns wide.
pub fn render(stats: &[FileStat], width: usize) -> Vec<String> {
    if stats.is_empty() {
        return Vec::new();
    }
    // The quoted name is what git shows; escaping it again only matters when
    // core.quotePath=false lets bidirectional overrides or C1 controls through.
    let names: Vec<String> = stats
        .iter()
        .map(|s| output::escape(&s.quoted_path).into_owned())
        .collect();
    let max_len = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut max_change = 0;
    let mut bin_width = 0;
    let mut number_width = 0;
    for s in stats {
        match s.binary_sizes {
            Some((before, after)) => {
                // "Bin XXX -> YYY bytes"; the counts of the other lines align with "Bin".
                bin_width = bin_width.max(14 + decimal_width(before) + decimal_width(after));
                number_width = 3;
            }
            None => max_change = max_change.max(changed(s)),
        }
    }
    number_width = number_width.max(decimal_width(max_change));
    // Git guarantees at least 6 columns of graph and 10 of name.
    let width = width.max(16 + 6 + number_width);
    let mut graph_width = if max_change + 4 > bin_width {
        max_change
    } else {
        bin_width - 4
    };
    let mut name_width = max_len;
    if name_width + number_width + 6 + graph_width > width {
        let graph_share = (width * 3 / 8).saturating_sub(number_width + 6);
        if graph_width > graph_share {
            graph_width = graph_share.max(6);
        }
        let rest = width.saturating_sub(number_width + 6 + graph_width);
        if name_width > rest {
            name_width = rest;
        } else {
            graph_width = width - number_width - 6 - name_width;
        }
    }

    let mut lines = Vec::with_capacity(stats.len() + 1);
    for (s, name) in stats.iter().zip(&names) {
        let (prefix, name, len) = fit_name(name, name_width);
        let padding = len.saturating_sub(name.chars().count());
        let head = format!(" {prefix}{name}{:padding$} | ", "");
        lines.push(match s.binary_sizes {
            Some((0, 0)) => format!("{head}{:>number_width$}", "Bin"),
            Some((before, after)) => {
                format!("{head}{:>number_width$} {before} -> {after} bytes", "Bin")
            }
            None => {
                let (add, del) = graph(s, graph_width, max_change);
                let total = changed(s);
                let gap = if total > 0 { " " } else { "" };
                format!(
                    "{head}{total:>number_width$}{gap}{}{}",
                    "+".repeat(add),
                    "-".repeat(del)
                )
            }
        });
    }
    lines.push(summary(stats));
    lines
}

/// The name cut to `width` the way git cuts it: `...` and the tail, starting at a `/` where
/// the tail holds one. Returns the prefix, the name and the width the name is padded to.
fn fit_name(name: &str, width: usize) -> (&'static str, &str, usize) {
    let count = name.chars().count();
    if count <= width {
        return ("", name, width);
    }
    let len = width.saturating_sub(3);
    let start = name
        .char_indices()
        .nth(count - len)
        .map_or(name.len(), |(at, _)| at);
    let tail = &name[start..];
    let tail = tail.find('/').map_or(tail, |slash| &tail[slash..]);
    ("...", tail, len)
}

/// The `+` and `-` of one line, scaled like git's `scale_linear` when the changes do not fit.
fn graph(s: &FileStat, graph_width: usize, max_change: usize) -> (usize, usize) {
    let (add, del) = (s.added.unwrap_or(0), s.removed.unwrap_or(0));
    if graph_width > max_change {
        return (add, del);
    }
    let mut total = scale_linear(add + del, graph_width, max_change);
    if total < 2 && add > 0 && del > 0 {
        total = 2;
    }
    if add < del {
        let add = scale_linear(add, graph_width, max_change);
        (add, total - add)
    } else {
        let del = scale_linear(del, graph_width, max_change);
        (total - del, del)
    }
}

/// At least one mark for any change: scaled as if one column shorter, plus one.
fn scale_linear(it: usize, width: usize, max_change: usize) -> usize {
    if it == 0 {
        0
    } else {
        1 + it * (width - 1) / max_change
    }
}

/// " N files changed, N insertions(+), N deletions(-)", leaving out a zero count unless both
/// are zero, as git does.
fn summary(stats: &[FileStat]) -> String {
    let added: usize = stats.iter().filter_map(|s| s.added).sum();
    let removed: usize = stats.iter().filter_map(|s| s.removed).sum();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut line = format!(" {}", plural(stats.len(), "file changed", "files changed"));
    if added > 0 || removed == 0 {
        line += &format!(", {}", plural(added, "insertion(+)", "insertions(+)"));
    }
    if removed > 0 || added == 0 {
        line += &format!(", {}", plural(removed, "deletion(-)", "deletions(-)"));
    }
    line
}

fn changed(s: &FileStat) -> usize {
    s.added.unwrap_or(0) + s.removed.unwrap_or(0)
}

fn decimal_width(n: usize) -> usize {
    n.to_string().len()
}
