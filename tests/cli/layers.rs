//! The architecture as a test: each layer of `src/` uses only the layers below it, gix stays
//! behind `src/git/`, only the command line parses arguments or prints, and the domain
//! (format, run, ops) reads no environment variable. A module that breaks a rule fails here
//! with the line that does it.

use std::path::{Path, PathBuf};

/// From the bottom up; a module may name its own layer and those before it.
const LAYERS: &[&str] = &[
    "process", "git", "format", "config", "run", "ops", "engine", "cli",
];

/// Shared by every layer but `git`, which has an error type of its own: the domain's errors,
/// the reading of files a user names on the command line, and the failure points the crash
/// tests arm (the one place outside the command line that reads the environment).
const SHARED: &[&str] = &["error", "input", "failpoint"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, with its layer: the first folder under `src/`, or the file's
/// own name for a top-level module.
fn modules(dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    for entry in std::fs::read_dir(dir).expect("src is readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            modules(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(src()).expect("under src");
            let first = rel.components().next().expect("a component");
            let layer = Path::new(first.as_os_str())
                .file_stem()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            out.push((layer, path));
        }
    }
}

/// The code of a file without comments and string literals, line by line, so that a word in
/// a doc comment or a message is not taken for a use.
fn code_lines(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).expect("a source file");
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let code = line.split("//").next().unwrap_or("");
            let mut kept = String::new();
            let mut in_string = false;
            let mut escaped = false;
            for c in code.chars() {
                match (in_string, escaped, c) {
                    (true, false, '\\') => escaped = true,
                    (true, false, '"') => in_string = false,
                    (true, _, _) => escaped = false,
                    (false, _, '"') => in_string = true,
                    (false, _, c) => kept.push(c),
                }
            }
            (i + 1, kept)
        })
        .collect()
}

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

/// The top-level modules a line names through `crate::`.
fn crate_uses(line: &str) -> Vec<String> {
    line.match_indices("crate::")
        .filter(|(at, _)| !line[..*at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        .map(|(at, _)| {
            line[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

fn violations() -> Vec<String> {
    let mut files = Vec::new();
    modules(&src(), &mut files);
    let mut found = Vec::new();
    for (layer, path) in &files {
        let rel = path.strip_prefix(src()).expect("under src").display();
        let is_cli = layer == "cli" || layer == "main";
        for (n, line) in code_lines(path) {
            let mut say =
                |why: String| found.push(format!("src/{rel}:{n}: {why}: {}", line.trim()));
            for used in crate_uses(&line) {
                let allowed = match (rank(layer), rank(&used)) {
                    (Some(own), Some(other)) => other <= own,
                    // The failure points (a leaf with no dependencies) mark write boundaries,
                    // and a ref transaction has one inside the git layer.
                    _ if layer == "git" => used == "failpoint",
                    _ if layer == "lib" => true,
                    // The shared modules sit just above git and use nothing but it.
                    _ if SHARED.contains(&layer.as_str()) => {
                        used == "git" || SHARED.contains(&used.as_str())
                    }
                    _ => SHARED.contains(&used.as_str()),
                };
                if !allowed && used != *layer {
                    say(format!("the {layer} layer names crate::{used}"));
                }
            }
            if layer != "git" && (line.contains("gix::") || line.contains("use gix")) {
                say("gix outside src/git".into());
            }
            if !is_cli {
                let printing = ["clap::", "print!", "println!", "eprint!", "eprintln!"];
                if let Some(word) = printing.iter().find(|w| line.contains(**w)) {
                    say(format!("{word} outside the command line"));
                }
                let domain = ["format", "run", "ops"].contains(&layer.as_str());
                if domain
                    && ["env::var(", "env::var_os("]
                        .iter()
                        .any(|w| line.contains(w))
                {
                    say("an environment read in the domain (the command line passes it in)".into());
                }
            }
        }
    }
    found
}

#[test]
fn each_layer_uses_only_the_layers_below_it() {
    let found = violations();
    assert!(found.is_empty(), "{}", found.join("\n"));
}
