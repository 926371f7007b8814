use super::*;

/// The words of a shell line, up to a redirection or a pipe; quotes group words.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_default().push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_default();
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, '>' | '|') if word.is_none() => break,
            (None, c) => word.get_or_insert_default().push(c),
        }
    }
    words.extend(word);
    words
}

/// Whether `line` parses against the real clap definition as the command at `path`, or one of
/// its commands (the root's examples and `hooks`'s show their commands).
fn check(path: &str, line: &str) -> Result<(), String> {
    let words = words(line);
    let Some(args) = words.strip_prefix(&["git".to_owned(), "fabro".to_owned()]) else {
        return Err(format!("`{line}` does not start with `git fabro`"));
    };
    let argv = std::iter::once("git-fabro".to_owned()).chain(args.iter().cloned());
    let matches = crate::cli::command()
        .try_get_matches_from(argv)
        .map_err(|err| format!("`{line}`: {err}"))?;
    let mut names = Vec::new();
    let mut at = &matches;
    while let Some((name, sub)) = at.subcommand() {
        names.push(name);
        at = sub;
    }
    let parsed = names.join(" ");
    if path.is_empty() || parsed == path || parsed.starts_with(&format!("{path} ")) {
        Ok(())
    } else {
        Err(format!(
            "`{line}` is an example of `{path}` but runs `{parsed}`"
        ))
    }
}

#[test]
fn every_example_parses_as_the_command_it_shows() {
    let mut problems = Vec::new();
    for (path, examples) in EXAMPLES {
        for example in *examples {
            problems.extend(check(path, example.line).err());
        }
    }
    for (_, commands, example) in crate::cli::help::GROUPS {
        let first = example.split_whitespace().nth(2).unwrap_or_default();
        assert!(commands.contains(&first), "{example} is in the wrong group");
        problems.extend(check(first, example).err());
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_check_catches_a_wrong_flag_or_command() {
    assert!(check("show", "git fabro show RUN --nope").is_err());
    assert!(check("show", "git fabro log RUN").is_err());
    assert!(check("hooks install", "git fabro hooks status").is_err());
    assert!(check("show", "git fabr show").is_err());
    assert!(check("hooks status", "git fabro hooks status --json").is_ok());
    let quoted = words("git fabro start --goal \"Fix it\" --label 'a=b c' > out | x");
    assert_eq!(
        quoted,
        [
            "git", "fabro", "start", "--goal", "Fix it", "--label", "a=b c"
        ]
    );
}

/// Every visible command, by its words after `git fabro`, the root as `""`.
fn visible_paths(cmd: &Command, path: &str, paths: &mut Vec<String>) {
    paths.push(path.to_owned());
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name();
        if name != "help" {
            let sub_path = format!("{path} {name}");
            visible_paths(sub, sub_path.trim_start(), paths);
        }
    }
}

#[test]
fn every_visible_command_has_two_to_four_examples_and_no_other_has_any() {
    let mut paths = Vec::new();
    visible_paths(&crate::cli::command(), "", &mut paths);
    for path in &paths {
        let count = of(path).len();
        assert!((2..=4).contains(&count), "`{path}` has {count} examples");
    }
    for (path, _) in EXAMPLES {
        assert!(
            paths.iter().any(|p| p == path),
            "`{path}` is no visible command"
        );
    }
}
