//! Each command's arguments are built only when clap parses that command. The definition has
//! some thirty commands with hundreds of arguments and their help, and building all of them
//! took about half a millisecond of every invocation; a command now builds its own. Help, man
//! pages and completions need the whole tree, which [`whole`] builds.

use std::cell::Cell;

use clap::{ArgMatches, Args, Command, FromArgMatches};

thread_local! {
    static WHOLE: Cell<bool> = const { Cell::new(false) };
}

/// A command's arguments `T`, built when clap enters the command.
#[derive(Debug)]
pub struct Deferred<T>(pub T);

/// Runs `build` with every command's arguments built at once.
pub fn whole<R>(build: impl FnOnce() -> R) -> R {
    WHOLE.set(true);
    let built = build();
    WHOLE.set(false);
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
