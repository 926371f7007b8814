//! The conventions of a git command: -C, --json on read commands, colour only for a terminal
//! and never with NO_COLOR, --quiet, and no progress noise when piped. And the one of the
//! code: files and functions small enough to read at once.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{TestRepo, run_ok, write_file};

#[test]
fn every_read_command_speaks_json() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "a\n");
    repo.checkpoint(&run.id, "a");
    for args in [
        vec!["log", run.id.as_str(), "--json"],
        vec!["ps", "--json"],
        vec!["show", run.id.as_str(), "--json"],
        vec!["diff", run.id.as_str(), "--json"],
        vec!["hooks", "status", "--json"],
        vec!["agents", "--json"],
        vec!["fork", run.id.as_str(), "--list", "--json"],
        vec!["restore", "--run", run.id.as_str(), "--dry-run", "--json"],
    ] {
        let out = repo.ok(&args);
        assert!(
            serde_json::from_str::<Value>(&out).is_ok(),
            "{args:?}: {out}"
        );
    }
    let diff: Value = serde_json::from_str(&repo.ok(&["diff", &run.id, "--json"])).unwrap();
    assert_eq!(diff["files"][0]["path"], "a.txt");
    assert!(diff["patch"].as_str().unwrap().contains("+a"));
}

#[test]
fn dash_c_runs_as_if_started_elsewhere() {
    let (repo, run) = TestRepo::with_run();
    let elsewhere = repo.root.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let runs: Vec<Value> = serde_json::from_str(&run_ok(repo.fabro_in(&elsewhere).args([
        "-C",
        repo.path.to_str().unwrap(),
        "ps",
        "--json",
    ])))
    .unwrap();
    assert_eq!(runs[0]["run_id"], run.id.as_str());
    run_ok(repo.fabro_in(&elsewhere).args([
        "-C",
        run.worktree.to_str().unwrap(),
        "checkpoint",
        "--node",
        "n",
    ]));
    assert_eq!(repo.log_json(&run.id).len(), 1);
}

#[test]
fn quiet_silences_messages_but_not_data() {
    let repo = TestRepo::new();
    // A global option counts before the command and after it.
    for args in [["--quiet", "start"], ["start", "--quiet"]] {
        let out = repo.fabro().args(args).output().unwrap();
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim().len(), 26);
    }
    let loud = repo.output(&["start"]);
    assert!(String::from_utf8_lossy(&loud.stderr).contains("started run"));
}

#[test]
fn global_options_and_values_named_like_commands_parse_as_meant() {
    let repo = TestRepo::new();
    repo.start();
    // After a command's own command.
    let hooks: Value =
        serde_json::from_str(&repo.ok(&["hooks", "status", "-q", "--json"])).unwrap();
    assert!(hooks.is_array() || hooks.is_object(), "{hooks}");
    // A value that is also a command's name (a directory called `log`) leaves the command as
    // it is.
    std::fs::create_dir(repo.path.join("log")).unwrap();
    let runs: Value = serde_json::from_str(&repo.ok(&["-C", "log", "ps", "--json"])).unwrap();
    assert_eq!(runs.as_array().map(Vec::len), Some(1), "{runs}");
}

#[test]
fn piped_output_has_no_colour_or_progress() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "a");
    for args in [vec!["log", run.id.as_str()], vec!["ps"], vec!["start"]] {
        let out = repo.fabro().args(&args).output().unwrap();
        let all = [out.stdout, out.stderr].concat();
        assert!(
            !all.contains(&0x1b) && !all.contains(&b'\r'),
            "{args:?}: {}",
            String::from_utf8_lossy(&all)
        );
    }
}

/// CONTRIBUTING.md's size rules. A file (its tests included) a reader holds in mind; a
/// function (from `fn` to its closing brace) that fits on a screen and a half, past which
/// its steps want names of their own. Tests are left out of the function rule: a scenario
/// reads top to bottom.
const FILE_LINES: usize = 500;
const FUNCTION_LINES: usize = 100;

#[test]
fn files_and_functions_stay_small() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "fuzz/fuzz_targets"] {
        rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    let mut too_long = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("a source file");
        let rel = path.strip_prefix(root).expect("under the crate").display();
        let lines = text.lines().count();
        if lines > FILE_LINES {
            too_long.push(format!("{rel}: {lines} lines (files: {FILE_LINES})"));
        }
        for function in functions(&text) {
            if function.lines > FUNCTION_LINES {
                too_long.push(format!(
                    "{rel}:{}: fn {} is {} lines (functions: {FUNCTION_LINES})",
                    function.line, function.name, function.lines
                ));
            }
        }
    }
    assert!(too_long.is_empty(), "split these:\n{}", too_long.join("\n"));
}

#[test]
fn the_size_scanner_sees_what_rustc_sees() {
    let text = "fn short() {\n    let s = \"}}}\"; let c = '}';\n    /* } */ // }\n}\n\
        fn lifetime<'a>(x: &'a str) -> &'a str {\n    let r = (r#\"{\"#, b'\"', br\"{\");\n    x\n}\n\
        trait T { fn declared(&self); }\n\
        #[cfg(test)]\nmod tests {\n    fn hidden() {}\n}\n";
    let found: Vec<_> = functions(text)
        .into_iter()
        .map(|f| (f.line, f.name, f.lines))
        .collect();
    assert_eq!(
        found,
        [(1, "short".to_string(), 4), (5, "lifetime".to_string(), 4)]
    );
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

struct Function {
    line: usize,
    name: String,
    lines: usize,
}

/// Every `fn` with a body, outside items marked `#[cfg(test)]`.
fn functions(text: &str) -> Vec<Function> {
    let code: Vec<char> = code_only(text).chars().collect();
    let line_at = |at: usize| code[..at].iter().filter(|&&c| c == '\n').count() + 1;
    let next_of =
        |from: usize, stops: &[char]| (from..code.len()).find(|&k| stops.contains(&code[k]));
    let cfg_test: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < code.len() {
        if code[at..].starts_with(&cfg_test) {
            // The item it marks ends at its `;` or where its block closes.
            match next_of(at, &[';', '{']) {
                Some(k) if code[k] == '{' => at = block_end(&code, k),
                Some(k) => at = k,
                None => break,
            }
        } else if is_word_at(&code, at, "fn") {
            let name: String = code[at + 2..]
                .iter()
                .skip_while(|c| c.is_whitespace())
                .take_while(|&&c| is_ident(c))
                .collect();
            let body = next_of(at, &[';', '{']).filter(|&k| code[k] == '{');
            if let (false, Some(open)) = (name.is_empty(), body) {
                let line = line_at(at);
                let lines = line_at(block_end(&code, open)) - line + 1;
                found.push(Function { line, name, lines });
            }
        }
        at += 1;
    }
    found
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn is_word_at(code: &[char], at: usize, word: &str) -> bool {
    let end = at + word.len();
    code.get(at..end)
        .is_some_and(|here| here.iter().copied().eq(word.chars()))
        && (at == 0 || !is_ident(code[at - 1]))
        && code.get(end).is_none_or(|&c| !is_ident(c))
}

/// Where the block that opens at `open` closes.
fn block_end(code: &[char], open: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => return k,
            '}' => depth -= 1,
            _ => {}
        }
    }
    code.len() - 1
}

/// The text with comments, strings and character literals blanked (newlines kept), so that a
/// brace or a `fn` inside one is not taken for code.
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < c.len() {
        let end = literal_end(&c, at);
        if end > at {
            out.extend(c[at..end].iter().map(|&x| if x == '\n' { x } else { ' ' }));
            at = end;
        } else {
            out.push(c[at]);
            at += 1;
        }
    }
    out
}

/// Where a comment or literal that starts at `at` ends (`at` itself when none starts there).
fn literal_end(c: &[char], at: usize) -> usize {
    // `b'x'`, `b"x"` and `br"x"` are literals too: a lone `b` before them is their prefix.
    let prefix_b = at > 0 && c[at - 1] == 'b' && (at < 2 || !is_ident(c[at - 2]));
    let after_ident = at > 0 && is_ident(c[at - 1]) && !prefix_b;
    let find = |from: usize, pred: &dyn Fn(usize) -> bool| (from..c.len()).find(|&k| pred(k));
    match (c[at], c.get(at + 1).copied()) {
        ('/', Some('/')) => find(at, &|k| c[k] == '\n').unwrap_or(c.len()),
        ('/', Some('*')) => {
            let mut depth = 0;
            let mut k = at;
            while k + 1 < c.len() {
                match (c[k], c[k + 1]) {
                    ('/', '*') => (depth, k) = (depth + 1, k + 2),
                    ('*', '/') if depth == 1 => return k + 2,
                    ('*', '/') => (depth, k) = (depth - 1, k + 2),
                    _ => k += 1,
                }
            }
            c.len()
        }
        ('r', Some('#' | '"')) if !after_ident => {
            let quote = find(at + 1, &|k| c[k] != '#').filter(|&k| c[k] == '"');
            let Some(quote) = quote else { return at };
            let hashes = quote - at - 1;
            let closes = |k: usize| c[k] == '"' && (1..=hashes).all(|h| c.get(k + h) == Some(&'#'));
            find(quote + 1, &closes).map_or(c.len(), |k| k + 1 + hashes)
        }
        ('"', _) => {
            let mut k = at + 1;
            while k < c.len() && c[k] != '"' {
                k += if c[k] == '\\' { 2 } else { 1 };
            }
            (k + 1).min(c.len())
        }
        // A character literal ('x', '\n', '\u{7b}'); else a lifetime, which is code.
        ('\'', Some('\\')) if !after_ident => find(at + 2, &|k| c[k] == '\'').map_or(at, |k| k + 1),
        ('\'', Some(_)) if !after_ident && c.get(at + 2) == Some(&'\'') => at + 3,
        _ => at,
    }
}
