use std::process::ExitCode;

use git_fabro::cli::{self, output};
use git_fabro::error::{Error, exit};

fn main() -> ExitCode {
    let cli = match cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() { exit::USAGE } else { 0 });
        }
    };
    match cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => report(&in_domain_terms(err)),
    }
}

/// A repository error that a command passed up as it was becomes the domain's error, which
/// knows its exit code and hint (a ref another process moved is a conflict, exit 3).
fn in_domain_terms(err: anyhow::Error) -> anyhow::Error {
    match err.downcast::<git_fabro::git::Error>() {
        Ok(git) => Error::from(git).into(),
        Err(other) => other,
    }
}

/// Prints `error: ...` and a `hint: ...` where one helps, and picks FORMAT.md's exit code.
fn report(err: &anyhow::Error) -> ExitCode {
    // `git fabro log | head -1` closes the pipe early; that is not a failure.
    if err.chain().any(is_broken_pipe) {
        return ExitCode::SUCCESS;
    }
    if let Some(cli::ExitWith(code)) = err.downcast_ref::<cli::ExitWith>() {
        return ExitCode::from(*code);
    }
    let domain = err.chain().find_map(|cause| cause.downcast_ref::<Error>());
    // A domain error's message already includes what its causes add.
    let message = domain.map_or_else(|| format!("{err:#}"), ToString::to_string);
    // Messages quote paths and names from repositories: their control characters are shown,
    // line by line so that a message meant to span lines still does.
    let shown: Vec<_> = message.lines().map(output::escape).collect();
    eprintln!("{} {}", output::prefix("error"), shown.join("\n"));
    if let Some(hint) = domain.and_then(Error::hint) {
        eprintln!("{} {hint}", output::prefix("hint"));
    }
    ExitCode::from(domain.map_or(exit::FAILED, Error::exit_code))
}

fn is_broken_pipe(cause: &(dyn std::error::Error + 'static)) -> bool {
    let kind = cause
        .downcast_ref::<std::io::Error>()
        .map(std::io::Error::kind)
        .or_else(|| {
            cause
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
        });
    kind == Some(std::io::ErrorKind::BrokenPipe)
}
