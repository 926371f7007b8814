//! Each invocation builds only the part of the command line's definition it parses with. The
//! definition has some thirty commands with hundreds of arguments and their help:
//!
//! - A command's arguments are built only when clap enters the command: building all of them
//!   took about half a millisecond of every invocation.
//! - Only the commands the command line names are built at all ([`named`]): clap copies each
//!   global option into every command it has, some ninety copies for an invocation that runs
//!   one command, 70 µs.
//!
//! [`Deferred`] does both: around a command's arguments it defers them, around the commands it
//! leaves out those the command line does not name.
//!
//! Help, man pages and completions need the whole tree, which [`whole`] builds.

use std::cell::{Cell, RefCell};
use std::ffi::OsString;

use clap::{ArgMatches, Args, Command, FromArgMatches, Subcommand};

thread_local! {
    static WHOLE: Cell<bool> = const { Cell::new(false) };
    /// While set, the words of the command line that name the commands to build.
    static WORDS: RefCell<Option<Vec<OsString>>> = const { RefCell::new(None) };
}

/// A part `T` of the definition, built only as far as an invocation needs it: a command's
/// arguments when clap enters the command, and, while [`named`] runs, only the commands the
/// command line names.
#[derive(Debug)]
pub struct Deferred<T>(pub T);

/// Runs `build` with every command's arguments built at once.
pub fn whole<R>(build: impl FnOnce() -> R) -> R {
    WHOLE.set(true);
    let built = build();
    WHOLE.set(false);
    built
}

/// Runs `build` with only the commands whose name is one of `words`. A word equal to a
/// command's name that is not the command (an option's value) only adds a command that goes
/// unused, so a command line parses against this definition as against the whole one.
pub fn named<R>(words: &[OsString], build: impl FnOnce() -> R) -> R {
    WORDS.set(Some(words.to_vec()));
    let built = build();
    WORDS.set(None);
    built
}

impl<T: Args> Args for Deferred<T> {
    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }

    fn augment_args(cmd: Command) -> Command {
        match WHOLE.get() {
            true => T::augment_args(cmd),
            false => cmd.defer(T::augment_args),
        }
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        match WHOLE.get() {
            true => T::augment_args_for_update(cmd),
            false => cmd.defer(T::augment_args_for_update),
        }
    }
}

impl<T: FromArgMatches> FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }

    fn from_arg_matches_mut(matches: &mut ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Deferred)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(&mut self, matches: &mut ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

impl<T: Subcommand> Subcommand for Deferred<T> {
    fn augment_subcommands(cmd: Command) -> Command {
        only_named(cmd, T::augment_subcommands)
    }

    fn augment_subcommands_for_update(cmd: Command) -> Command {
        only_named(cmd, T::augment_subcommands_for_update)
    }

    fn has_subcommand(name: &str) -> bool {
        T::has_subcommand(name)
    }
}

/// `cmd` with the commands `augment` adds, or with those of them [`named`] asks for.
fn only_named(cmd: Command, augment: fn(Command) -> Command) -> Command {
    WORDS.with_borrow(|words| match words {
        None => augment(cmd),
        Some(words) => {
            let all = augment(Command::new(""));
            let wanted = all
                .get_subcommands()
                .filter(|sub| words.iter().any(|word| word == sub.get_name()));
            cmd.subcommands(wanted.cloned())
        }
    })
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use clap::CommandFactory;

    use crate::cli::Cli;

    /// A command registered as `Name(name::Args)` instead of `Name(Deferred<name::Args>)` builds
    /// its arguments on every invocation, whichever command runs: nothing else would notice.
    #[test]
    fn every_command_builds_its_arguments_only_when_it_runs() {
        let cli = Cli::command();
        let eager: Vec<_> = cli
            .get_subcommands()
            .filter(|command| command.get_arguments().next().is_some())
            .map(|command| command.get_name().to_owned())
            .collect();
        assert!(
            eager.is_empty(),
            "{eager:?} build their arguments before clap enters them: register each as \
             `Name(Deferred<name::Args>)` in `Command` (src/cli/mod.rs)"
        );
        // The check sees arguments that are there before clap builds: the whole definition
        // has them.
        let whole = super::whole(Cli::command);
        let log = whole.find_subcommand("log").expect("log");
        assert!(log.get_arguments().next().is_some());
    }

    #[test]
    fn a_parse_builds_only_the_commands_its_words_name() {
        let words: Vec<OsString> = ["git-fabro", "-C", "log", "fork", "RUN"]
            .map(OsString::from)
            .into();
        let cli = super::named(&words, Cli::command);
        let names: Vec<_> = cli.get_subcommands().map(|c| c.get_name()).collect();
        assert_eq!(names, ["log", "fork"]);
        let all = Cli::command().get_subcommands().count();
        assert!(all > 20, "without `named` every command is there ({all})");
    }
}
