//! The docs stay runnable: every `git fabro` command shown in a `sh` or `console` block of
//! README.md, CONTRIBUTING.md and docs/ is run against the real binary in a scratch
//! repository, where clap must accept it (it may then fail for want of the run it names, but
//! never as a usage error), and the README's Quick start runs as shown, its output compared
//! line by line with ids, hashes and times masked.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::common::{TestRepo, path_with_fabro};

/// Every file of the docs a reader follows from the README, relative to the crate's root.
pub fn doc_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = [
        "README.md",
        "CONTRIBUTING.md",
        "CHANGELOG.md",
        "BENCHMARKS.md",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| Path::new("docs").join(e.file_name()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

pub fn read_doc(rel: &Path) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel))
        .unwrap_or_else(|e| panic!("{}: {e}", rel.display()))
}

/// A fenced code block: its language, its lines, and the line its fence opens on.
pub struct Block {
    pub lang: String,
    pub lines: Vec<String>,
    pub line: usize,
}

pub fn blocks(text: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<Block> = None;
    for (n, line) in text.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(lang)) => {
                open = Some(Block {
                    lang: lang.trim().to_string(),
                    lines: Vec::new(),
                    line: n + 1,
                });
            }
            (Some(_), Some(_)) => found.extend(open.take()),
            (Some(block), None) => block.lines.push(line.to_string()),
            (None, None) => {}
        }
    }
    found
}

/// The command lines of a block: a `console` block's `$ ` lines, every line of an `sh`
/// block, each joined with its `\` continuations.
fn command_lines(block: &Block) -> Vec<String> {
    let mut commands = Vec::new();
    let mut pending: Option<String> = None;
    for line in &block.lines {
        let text = match (&mut pending, block.lang.as_str()) {
            (Some(head), _) => format!("{head} {}", line.trim()),
            (None, "console") => match line.strip_prefix("$ ") {
                Some(command) => command.to_string(),
                None => continue,
            },
            (None, _) => line.clone(),
        };
        pending = None;
        match text.strip_suffix('\\') {
            Some(head) => pending = Some(head.to_string()),
            None => commands.push(text),
        }
    }
    commands
}

/// Shell words and operators, quotes removed; a word that takes a value from the shell
/// (`$run`, `"$(git fabro path "$run")"`) becomes `x`, and so does the command substitution
/// inside it, whose own `git fabro` words are returned too.
fn shell_words(line: &str, nested: &mut Vec<String>) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let (mut words, mut word, mut in_word) = (Vec::new(), String::new(), false);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' => {
                let end = find(&chars, i + 1, '\'');
                word.extend(&chars[i + 1..end]);
                (i, in_word) = (end + 1, true);
            }
            '"' | '$' => {
                let (end, text) = if c == '"' {
                    let end = find_closing_quote(&chars, i + 1);
                    (end + 1, chars[i + 1..end].iter().collect::<String>())
                } else {
                    let end = variable_end(&chars, i);
                    (end, chars[i..end].iter().collect::<String>())
                };
                if let Some(inner) = text.strip_prefix("$(").and_then(|t| t.strip_suffix(')')) {
                    nested.push(inner.to_string());
                }
                word.push_str(if text.contains('$') { "x" } else { &text });
                (i, in_word) = (end, true);
            }
            '#' if !in_word => break,
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                (i, in_word) = (i + 1, false);
            }
            ';' | '&' | '|' | '>' | '<' | '(' | ')' => {
                // `2>/dev/null`: the digits before a redirection name a file descriptor.
                if in_word && !word.chars().all(|d| d.is_ascii_digit()) {
                    words.push(std::mem::take(&mut word));
                }
                word.clear();
                words.push(c.to_string());
                (i, in_word) = (i + 1, false);
            }
            _ => {
                word.push(c);
                (i, in_word) = (i + 1, true);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

fn find(chars: &[char], from: usize, c: char) -> usize {
    (from..chars.len())
        .find(|&j| chars[j] == c)
        .unwrap_or(chars.len())
}

/// The closing `"` of a double-quoted word, skipping a `$(...)` inside it.
fn find_closing_quote(chars: &[char], from: usize) -> usize {
    let mut depth = 0;
    for (j, &c) in chars.iter().enumerate().skip(from) {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '"' if depth == 0 => return j,
            _ => {}
        }
    }
    chars.len()
}

/// The end of `$NAME`, `${NAME}` or `$(...)` starting at `from`.
fn variable_end(chars: &[char], from: usize) -> usize {
    match chars.get(from + 1) {
        Some('(') => find_paren(chars, from + 2) + 1,
        Some('{') => find(chars, from + 2, '}') + 1,
        _ => (from + 1..chars.len())
            .find(|&j| !(chars[j].is_ascii_alphanumeric() || chars[j] == '_'))
            .unwrap_or(chars.len()),
    }
}

fn find_paren(chars: &[char], from: usize) -> usize {
    let mut depth = 1;
    for (j, &c) in chars.iter().enumerate().skip(from) {
        match c {
            '(' => depth += 1,
            ')' if depth == 1 => return j,
            ')' => depth -= 1,
            _ => {}
        }
    }
    chars.len()
}

/// The arguments of each `git fabro ...` in a command line, up to its first operator.
fn invocations(line: &str) -> Vec<Vec<String>> {
    let mut nested = Vec::new();
    let words = shell_words(line, &mut nested);
    let operator = |w: &String| [";", "&", "|", ">", "<", "(", ")"].contains(&w.as_str());
    let mut found = Vec::new();
    for (i, pair) in words.windows(2).enumerate() {
        if pair[0] == "git" && pair[1] == "fabro" {
            let args = words[i + 2..].iter().take_while(|w| !operator(w));
            found.push(args.cloned().collect());
        }
    }
    for inner in nested {
        found.extend(invocations(&inner));
    }
    found
}

#[test]
fn every_command_the_docs_show_parses() {
    let repo = TestRepo::new();
    let mut checked = 0;
    for file in doc_files() {
        for block in blocks(&read_doc(&file)) {
            if block.lang != "sh" && block.lang != "console" {
                continue;
            }
            for line in command_lines(&block) {
                for args in invocations(&line) {
                    let out = repo
                        .fabro()
                        .args(&args)
                        .stdin(Stdio::null())
                        .output()
                        .unwrap();
                    let stderr = String::from_utf8_lossy(&out.stderr);
                    assert!(
                        !stderr.contains("For more information, try '--help'"),
                        "{}:{}: `{line}` is not a command git-fabro takes:\n{stderr}",
                        file.display(),
                        block.line
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 40, "only {checked} commands found in the docs");
}

#[test]
fn the_words_of_a_command_line_are_read_as_the_shell_reads_them() {
    assert_eq!(
        invocations(r#"cd "$(git fabro path "$run")" && git fabro log --all # a comment"#),
        [vec!["log", "--all"], vec!["path", "x"]]
    );
    assert_eq!(
        invocations("git fabro resume 01M7YB0Q >/dev/null && git fabro ps 2>&1 | head"),
        [vec!["resume", "01M7YB0Q"], vec!["ps"]]
    );
    assert_eq!(
        invocations(r#"git fabro resume "$run" -- sh -c 'my-engine --from "$X"'"#),
        [vec![
            "resume",
            "x",
            "--",
            "sh",
            "-c",
            r#"my-engine --from "$X""#
        ]]
    );
}

/// The first `console` block of the README's section `heading`.
fn readme_block(heading: &str) -> Block {
    let readme = read_doc(Path::new("README.md"));
    let at = readme
        .find(&format!("\n## {heading}\n"))
        .unwrap_or_else(|| panic!("a section {heading} in README.md"));
    let mut block = blocks(&readme[at + 1..])
        .into_iter()
        .find(|b| b.lang == "console")
        .unwrap_or_else(|| panic!("a console block in {heading}"));
    block.line += readme[..=at].lines().count();
    block
}

/// Runs a console block's `$ ` lines in one shell in `dir`, stderr on stdout, with the
/// binary on `PATH` as `git fabro` and a git identity, and compares what it prints with the
/// block, line by line, what differs from run to run masked.
fn runs_as_shown(repo: &TestRepo, dir: &Path, block: &Block) {
    let config = repo.root.join("gitconfig");
    std::fs::write(&config, "[user]\n\tname = You\n\temail = you@example.com\n").unwrap();
    let mut script = String::from("exec 2>&1\nset -e\n");
    for line in command_lines(block) {
        script.push_str(&format!(
            "printf '%s\\n' '$ {}'\n",
            line.replace('\'', r"'\''")
        ));
        script.push_str(&line);
        script.push('\n');
    }
    let path = path_with_fabro();
    let out = repo
        .command("bash")
        .args(["-c", &script])
        .current_dir(dir)
        .env("PATH", path)
        .env("GIT_CONFIG_GLOBAL", &config)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let shown: Vec<String> = block.lines.iter().map(|l| masked(l)).collect();
    let printed = String::from_utf8_lossy(&out.stdout);
    let got: Vec<String> = printed.lines().map(masked).collect();
    for (n, (got, shown)) in got.iter().zip(&shown).enumerate() {
        assert_eq!(
            got, shown,
            "line {n} of the block at README.md:{} differs:\n{printed}",
            block.line
        );
    }
    assert_eq!(got.len(), shown.len(), "{printed}");
    assert!(out.status.success(), "{printed}");
}

/// The Quick start, run as a reader runs it: from a clone of git-fabro (here, a repository
/// holding `examples/`).
#[test]
fn the_quick_start_runs_as_shown() {
    let repo = TestRepo::new();
    copy_examples(&repo);
    runs_as_shown(&repo, &repo.path, &readme_block("Quick start"));
}

/// A repository holding the workflows of `examples/`, as a clone of git-fabro does.
fn copy_examples(repo: &TestRepo) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    std::fs::create_dir(repo.path.join("examples")).unwrap();
    let files = std::fs::read_dir(examples).unwrap().flatten();
    for entry in files.filter(|e| e.path().is_file()) {
        let copy = repo.path.join("examples").join(entry.file_name());
        std::fs::copy(entry.path(), copy).unwrap();
    }
}

/// The crash guide, killing the engine during the shipped loop's slow `fix`, as a reader
/// replays it in a checkout of git-fabro.
#[test]
fn the_crash_guide_runs_as_shown() {
    let repo = TestRepo::new();
    copy_examples(&repo);
    runs_as_shown(&repo, &repo.path, &readme_block("Recover from a crash"));
}

/// docs/write-a-workflow.md: its workflow saved as the guide says, then its commands run.
#[test]
fn the_first_workflow_runs_as_shown() {
    let guide = read_doc(Path::new("docs/write-a-workflow.md"));
    let found = blocks(&guide);
    let first = |lang: &str| found.iter().find(|b| b.lang == lang).expect(lang);
    let repo = TestRepo::new();
    let workflow = first("dot").lines.join("\n");
    crate::common::write_file(&repo.path.join("first.fabro"), &workflow);
    runs_as_shown(&repo, &repo.path, first("console"));
}

/// The agent's run of the README, in the repository `~/app` it names.
#[test]
fn recording_an_agents_run_runs_as_shown() {
    let repo = TestRepo::new();
    let app = repo.root.join("app");
    std::fs::create_dir(&app).unwrap();
    crate::common::write_file(&app.join("main.rs"), "fn main() {}\n");
    repo.git_in(&app, &["init", "-q", "-b", "main"]);
    repo.git_in(&app, &["add", "-A"]);
    repo.git_in(
        &app,
        &[
            "-c",
            "user.name=You",
            "-c",
            "user.email=you@example.com",
            "commit",
            "-qm",
            "init",
        ],
    );
    runs_as_shown(&repo, &app, &readme_block("Record an agent's run"));
}

/// A line with what differs from run to run masked: absolute paths, run ids (and their
/// prefixes), hashes, times, dates, offsets and durations; runs of spaces count as one.
fn masked(line: &str) -> String {
    line.split_whitespace()
        .map(|word| {
            let core = word.trim_matches(|c: char| "()`',;".contains(c));
            let mask = if core.starts_with('/') {
                "<path>"
            } else if is_time(core) {
                "<time>"
            } else if is_date(core) {
                "<date>"
            } else if is_duration(core) {
                "<duration>"
            } else if is_run_id(core) {
                "<run>"
            } else if is_hash(core) {
                "<hash>"
            } else {
                return word.to_string();
            };
            word.replace(core, mask)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn shaped(word: &str, shape: &str) -> bool {
    word.len() == shape.len()
        && word
            .chars()
            .zip(shape.chars())
            .all(|(c, s)| if s == 'd' { c.is_ascii_digit() } else { c == s })
}

fn is_time(word: &str) -> bool {
    shaped(word, "dd:dd:dd")
}

fn is_date(word: &str) -> bool {
    shaped(word, "dddd-dd-dd") || shaped(word, "+dddd") || shaped(word, "-dddd")
}

fn is_duration(word: &str) -> bool {
    let number = word
        .strip_suffix("ms")
        .or_else(|| word.strip_suffix('s'))
        .unwrap_or("");
    !number.is_empty()
        && number.starts_with(|c: char| c.is_ascii_digit())
        && number.chars().all(|c| c.is_ascii_digit() || c == '.')
}

fn is_run_id(word: &str) -> bool {
    (8..=26).contains(&word.len())
        && word.starts_with("01")
        && word.chars().any(|c| c.is_ascii_uppercase())
        && word
            .chars()
            .all(|c| c.is_ascii_digit() || (c.is_ascii_uppercase() && !"ILOU".contains(c)))
}

/// An object id, whole or abbreviated. No digit is asked for: about one short id in a thousand
/// is letters only (`dcfabfa`), and no word the docs show is seven or more of `a` to `f`.
fn is_hash(word: &str) -> bool {
    (7..=40).contains(&word.len()) && word.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f'))
}
