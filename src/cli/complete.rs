//! `git-fabro __complete WORDS...`: the candidates for the word under the cursor where they
//! come from the repository (run ids, and the checkpoints of the run the line names), for the
//! completion scripts of bash, zsh and fish. WORDS are the line's words after the command
//! name, the last being the word being completed (maybe empty). It prints one candidate a
//! line, a tab and a description after it, and exits 0; where the word is not a run or a
//! checkpoint it prints nothing and exits 1, and the script completes from the command line's
//! definition as before. The position is read from the clap definition itself, so a new
//! command with a RUN or TARGET argument completes without a change here.

use anyhow::Result;

use super::{Ctx, ExitWith};
use crate::format::run_id::RunId;
use crate::run::timeline::timeline;
use crate::run::{RunState, load_all};

/// Complete run ids and checkpoints for the shell scripts (not for people)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The words after `git-fabro`, the last being completed
    #[arg(allow_hyphen_values = true, trailing_var_arg = true)]
    words: Vec<String>,
}

/// What the word under the cursor is.
enum Wanted {
    Runs,
    Targets,
    /// A RUN slot of a command whose other slots are targets: either.
    RunsOrTargets,
}

pub fn run(ctx: impl FnOnce() -> Result<Ctx>, args: Args) -> Result<()> {
    let mut words = args.words;
    // bash splits `--run=X` at `=`: `--run`, `=`, `X`.
    let mut i = 1;
    while i < words.len() {
        if words[i] == "=" && words[i - 1].starts_with("--") {
            words.remove(i);
            if i == words.len() {
                words.push(String::new());
            }
        } else {
            i += 1;
        }
    }
    let Some((current, before)) = words.split_last() else {
        return Err(ExitWith(1).into());
    };
    let Some((wanted, run_word, prefix)) = position(before, current) else {
        return Err(ExitWith(1).into());
    };
    // Outside a repository there is nothing to offer, and nothing to fall back to either.
    let Ok(ctx) = ctx() else { return Ok(()) };
    let typed = current.strip_prefix(&prefix).unwrap_or(current);
    let mut out = String::new();
    if matches!(wanted, Wanted::Runs | Wanted::RunsOrTargets) {
        let (states, _) = load_all(&ctx.repo)?;
        for state in states.iter().rev() {
            let id = state.id.as_str();
            if id.starts_with(&typed.to_ascii_uppercase()) {
                let goal = state.record.spec.goal.as_deref().unwrap_or("");
                let status = state.record.status.kind.as_str();
                out.push_str(&format!("{prefix}{id}\t{}\n", describe(status, goal)));
            }
        }
    }
    if matches!(wanted, Wanted::Targets | Wanted::RunsOrTargets) {
        let id = match run_word.as_deref() {
            Some(word) => crate::run::resolve(&ctx.repo, word).ok(),
            None => ctx.run_id(None).ok(),
        };
        if let Some(id) = id {
            out.push_str(&targets(&ctx, &id, typed)?);
        }
    }
    super::output::line(out.trim_end_matches('\n')).map(|_| ())
}

fn describe(status: &str, text: &str) -> String {
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(60)
        .collect();
    if text.is_empty() {
        status.to_owned()
    } else {
        format!("{status}: {text}")
    }
}

/// `@N`, `NODE@V` and `NODE` of every checkpoint of the run, that start with `typed`.
fn targets(ctx: &Ctx, id: &RunId, typed: &str) -> Result<String> {
    let state = RunState::load(&ctx.repo, id)?;
    let entries = timeline(&ctx.repo, &state)?;
    let mut out = String::new();
    let mut nodes: Vec<&str> = Vec::new();
    let mut offer = |word: String, description: String| {
        if word.starts_with(typed) && !word.chars().any(char::is_control) {
            out.push_str(&format!("{word}\t{description}\n"));
        }
    };
    for e in entries.iter().rev() {
        let stage = format!("{}@{}", e.node_id, e.visit);
        offer(format!("@{}", e.ordinal), describe(&e.status, &stage));
        offer(stage, describe(&e.status, &format!("@{}", e.ordinal)));
        if !nodes.contains(&e.node_id.as_str()) {
            nodes.push(&e.node_id);
            offer(e.node_id.clone(), "its latest visit".into());
        }
    }
    Ok(out)
}

/// What the word after `before` is, which earlier word names the run (for targets), and the
/// text before the value in the word itself (`--run=`). None: not a run or a checkpoint.
fn position(before: &[String], current: &str) -> Option<(Wanted, Option<String>, String)> {
    let mut root = super::command();
    root.build();
    let mut words = before.iter();
    // The command word, past the global options.
    let sub = loop {
        let word = words.next()?;
        match word.as_str() {
            "-C" => {
                words.next()?;
            }
            w if w.starts_with('-') => {}
            name => break root.find_subcommand(name)?.clone(),
        }
    };
    let Typed {
        positionals,
        run_flag,
        pending,
    } = typed(&sub, words)?;
    if pending.as_deref() == Some("run") {
        return Some((Wanted::Runs, None, String::new()));
    }
    if pending.is_some() {
        return None;
    }
    if current.starts_with("--run=") {
        return Some((Wanted::Runs, None, "--run=".into()));
    }
    if current.starts_with('-') {
        return None;
    }
    let slots: Vec<String> = sub
        .get_positionals()
        .map(|arg| {
            arg.get_value_names()
                .and_then(|names| names.first())
                .map_or_else(String::new, ToString::to_string)
        })
        .collect();
    let has_targets = slots.iter().any(|s| is_target(s));
    let first_is_run = slots.first().is_some_and(|s| s == "RUN");
    // The first word is the RUN when it names a run (as the commands read it); else it is a
    // target and the run is --run's or the current one.
    let run_word = if first_is_run && has_targets {
        positionals
            .first()
            .filter(|w| looks_like_run(w))
            .map(|w| (*w).clone())
    } else if first_is_run {
        positionals.first().map(|w| (*w).clone())
    } else {
        None
    };
    let mut slot = positionals.len();
    if first_is_run
        && has_targets
        && run_word.is_none()
        && (!positionals.is_empty() || run_flag.is_some())
    {
        slot += 1;
    }
    let name = slots.get(slot).or_else(|| {
        slots.last().filter(|_| {
            sub.get_positionals()
                .last()
                .is_some_and(|a| a.get_num_args().is_some_and(|n| n.max_values() > 1))
        })
    })?;
    let run = run_word.or(run_flag);
    match name.as_str() {
        "RUN" if has_targets && slot == 0 && run.is_none() => {
            Some((Wanted::RunsOrTargets, None, String::new()))
        }
        "RUN" => Some((Wanted::Runs, None, String::new())),
        n if is_target(n) => Some((Wanted::Targets, run, String::new())),
        _ => None,
    }
}

/// The words typed after the command: its positionals, the value of `--run`, and the flag
/// whose value comes next, if the last word was one.
struct Typed<'w> {
    positionals: Vec<&'w String>,
    run_flag: Option<String>,
    pending: Option<String>,
}

/// None after `--`: what follows is a command to run (`resume -- COMMAND`), never a run.
fn typed<'w>(sub: &clap::Command, words: impl Iterator<Item = &'w String>) -> Option<Typed<'w>> {
    let mut positionals: Vec<&String> = Vec::new();
    let mut run_flag: Option<String> = None;
    let mut pending: Option<String> = None;
    for word in words {
        if let Some(flag) = pending.take() {
            if flag == "run" {
                run_flag = Some(word.clone());
            }
            continue;
        }
        if word == "--" {
            return None; // a command to run (`resume -- COMMAND`), never a run
        }
        if let Some(long) = word.strip_prefix("--") {
            if let Some(("run", value)) = long.split_once('=') {
                run_flag = Some(value.to_owned());
            } else if takes_value(sub, long, None) {
                pending = Some(long.to_owned());
            }
        } else if let Some(short) = word.strip_prefix('-').filter(|s| s.len() == 1) {
            if takes_value(sub, "", short.chars().next()) || short == "C" {
                pending = Some(short.to_owned());
            }
        } else if !word.starts_with('-') {
            positionals.push(word);
        }
    }
    Some(Typed {
        positionals,
        run_flag,
        pending,
    })
}

fn is_target(value_name: &str) -> bool {
    matches!(value_name, "TARGET" | "FROM" | "TO")
}

/// A run id or a prefix of one as typed: a target holds an `@` or is a node or sha, and run
/// ids begin with their timestamp's digits.
fn looks_like_run(word: &str) -> bool {
    RunId::prefix(word).is_ok() && word.starts_with(|c: char| c.is_ascii_digit())
}

fn takes_value(cmd: &clap::Command, long: &str, short: Option<char>) -> bool {
    cmd.get_arguments()
        .find(|arg| match short {
            Some(c) => arg.get_short() == Some(c),
            None => arg.get_long() == Some(long),
        })
        .is_some_and(|arg| arg.get_action().takes_values())
}
