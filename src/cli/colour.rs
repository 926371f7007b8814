//! Colour decided as git decides it, and a patch painted as `git diff --color` paints one.
//! `--color[=WHEN]` wins; else the command's `color.<cmd>` setting, else `color.ui`; `auto`
//! (the default) means a terminal whose `TERM` shows colour and no `NO_COLOR`.

use crate::git::Repo;

/// `--color[=WHEN]`, as git takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum When {
    Always,
    Never,
    Auto,
}

/// Whether stdout gets colour, for a command whose own setting is `key` (`color.diff`).
pub fn decide(repo: &Repo, flag: Option<When>, key: &str) -> bool {
    let when = flag.unwrap_or_else(|| {
        repo.config_string(key)
            .or_else(|| repo.config_string("color.ui"))
            .map_or(When::Auto, |value| parse_setting(&value))
    });
    match when {
        When::Always => true,
        When::Never => false,
        When::Auto => super::output::colour_on(&std::io::stdout()),
    }
}

/// A `color.*` value: git reads `true` as `auto` (since git 1.8.4).
fn parse_setting(value: &str) -> When {
    match value.to_ascii_lowercase().as_str() {
        "always" => When::Always,
        "never" | "false" | "no" | "off" | "0" => When::Never,
        _ => When::Auto,
    }
}

const RESET: &[u8] = b"\x1b[m";
const META: &[u8] = b"\x1b[1m";
const FRAG: &[u8] = b"\x1b[36m";
const OLD: &[u8] = b"\x1b[31m";
const NEW: &[u8] = b"\x1b[32m";
const WHITESPACE: &[u8] = b"\x1b[41m";

/// `patch` (the text `git diff` prints) with git's default colours: headers bold, hunk
/// headers cyan, removed lines red, added lines green with trailing whitespace on a red
/// background. Other whitespace errors git highlights are left plain.
pub fn paint_patch(patch: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(patch.len() + patch.len() / 4);
    let mut in_hunk = false;
    for line in patch.split_inclusive(|&b| b == b'\n') {
        let (text, newline) = match line.strip_suffix(b"\n") {
            Some(text) => (text, &b"\n"[..]),
            None => (line, &b""[..]),
        };
        if text.starts_with(b"diff ") {
            in_hunk = false;
        }
        if text.starts_with(b"@@") {
            in_hunk = true;
            hunk_header(&mut out, text);
        } else if !in_hunk {
            if text.starts_with(b"Binary files ") {
                out.extend_from_slice(text);
            } else if let Some(name) = text
                .strip_suffix(b"\t")
                .filter(|_| text.starts_with(b"--- ") || text.starts_with(b"+++ "))
            {
                // git ends the colour before the tab it adds after a name with a space.
                wrap(&mut out, META, name);
                out.push(b'\t');
            } else {
                wrap(&mut out, META, text);
            }
        } else {
            match text.first() {
                Some(b'-') => wrap(&mut out, OLD, text),
                Some(b'+') => added(&mut out, &text[1..]),
                _ => {
                    out.extend_from_slice(text);
                    out.extend_from_slice(RESET);
                }
            }
        }
        out.extend_from_slice(newline);
    }
    out
}

fn wrap(out: &mut Vec<u8>, colour: &[u8], text: &[u8]) {
    out.extend_from_slice(colour);
    out.extend_from_slice(text);
    out.extend_from_slice(RESET);
}

/// `@@ -a,b +c,d @@` in cyan, and the function name after it plain.
fn hunk_header(out: &mut Vec<u8>, text: &[u8]) {
    let end = text[2..]
        .windows(2)
        .position(|w| w == b"@@")
        .map_or(text.len(), |i| i + 4);
    wrap(out, FRAG, &text[..end]);
    if let Some(rest) = text.get(end + 1..).filter(|_| text.get(end) == Some(&b' ')) {
        out.push(b' ');
        out.extend_from_slice(RESET);
        out.extend_from_slice(rest);
        out.extend_from_slice(RESET);
    } else if end < text.len() {
        out.extend_from_slice(&text[end..]);
    }
}

/// An added line: the sign and the text each in green, trailing blanks on red.
fn added(out: &mut Vec<u8>, content: &[u8]) {
    wrap(out, NEW, b"+");
    let kept = content
        .iter()
        .rposition(|&b| b != b' ' && b != b'\t')
        .map_or(0, |i| i + 1);
    let (text, blanks) = content.split_at(kept);
    if !text.is_empty() {
        wrap(out, NEW, text);
    }
    if !blanks.is_empty() {
        wrap(out, WHITESPACE, blanks);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_is_painted_as_git_paints_it() {
        let patch = b"diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@ fn main\n ctx\n-old\n+new  \n\\ No newline at end of file\n";
        let painted = String::from_utf8(paint_patch(patch)).unwrap();
        assert_eq!(
            painted,
            "\x1b[1mdiff --git a/x b/x\x1b[m\n\x1b[1mindex 1..2 100644\x1b[m\n\x1b[1m--- a/x\x1b[m\n\x1b[1m+++ b/x\x1b[m\n\x1b[36m@@ -1,2 +1,2 @@\x1b[m \x1b[mfn main\x1b[m\n ctx\x1b[m\n\x1b[31m-old\x1b[m\n\x1b[32m+\x1b[m\x1b[32mnew\x1b[m\x1b[41m  \x1b[m\n\\ No newline at end of file\x1b[m\n"
        );
    }
}
