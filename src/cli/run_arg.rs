//! One way to name a run, for every command that works on one: a positional RUN where the
//! command has one, `--run RUN` everywhere, and otherwise the current run ($FABRO_RUN_ID, the
//! worktree holding the current directory, the one run in place here). Naming it twice is
//! fine when both name the same run and a usage error (exit 2) when they do not. Short ids
//! are shown here too, abbreviated against every run of the repository.

use anyhow::Result;

use super::Ctx;
use super::open_run::OpenRun;
use crate::error::Error;
use crate::format::run_id::RunId;
use crate::run;
use crate::run::abbrev::{Abbreviations, near_prefix};

/// `--run RUN`, for commands whose positionals are about something else.
#[derive(Debug, Clone, clap::Args)]
pub struct RunFlag {
    /// The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current
    /// directory, else the one run in place in it)
    #[arg(long = "run", value_name = "RUN")]
    pub run: Option<String>,
}

/// A positional RUN and `--run RUN`, for commands whose only positional is the run.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// The run (or --run RUN; default: the current run)
    #[arg(value_name = "RUN")]
    pub run_pos: Option<String>,
    #[command(flatten)]
    pub flag: RunFlag,
}

impl RunArgs {
    /// The run these name (they must agree), else the current run.
    pub fn id(&self, ctx: &Ctx) -> Result<RunId> {
        ctx.named_run(self.run_pos.as_deref(), self.flag.run.as_deref())
    }

    /// The run these name, opened with its workspace, run directory and configuration.
    pub fn open(&self, ctx: &Ctx) -> Result<OpenRun> {
        ctx.open_run(Some(self.id(ctx)?.as_str()))
    }
}

impl Ctx {
    /// The run a positional RUN and `--run` name (they must agree), else the current run.
    pub fn named_run(&self, positional: Option<&str>, flag: Option<&str>) -> Result<RunId> {
        match (positional, flag) {
            (Some(given), Some(flagged)) => {
                let id = run::resolve(&self.repo, given)?;
                let other = run::resolve(&self.repo, flagged)?;
                if id != other {
                    return Err(Error::Usage(format!(
                        "RUN {given} and --run {flagged} name different runs ({id} and {other}); name the run once"
                    ))
                    .into());
                }
                Ok(id)
            }
            (None, None) => self.run_id(None).or_else(|err| self.latest_here(err)),
            (one, other) => self.run_id(one.or(other)),
        }
    }

    /// Where no run is current, a checkout's latest run in place, which may have ended: a
    /// finished agent session is still the one `log`, `diff`, `undo` and `land` are about.
    fn latest_here(&self, err: anyhow::Error) -> Result<RunId> {
        let none_current = matches!(err.downcast_ref::<Error>(), Some(Error::NoCurrentRun));
        let latest = match (none_current, self.repo.workdir()) {
            (true, Some(dir)) => crate::ops::agent_sessions::latest_in_place(&self.repo, dir)?,
            _ => None,
        };
        latest.ok_or(err)
    }

    /// The runs named by positionals (once each), else by `--run`, else the current run. With
    /// both, `--run` must name one of the positionals' runs.
    pub fn named_runs(&self, given: &[String], flag: Option<&str>) -> Result<Vec<RunId>> {
        if given.is_empty() {
            return Ok(vec![self.run_id(flag)?]);
        }
        let mut ids = Vec::new();
        for text in given {
            let id = run::resolve(&self.repo, text)?;
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        if let Some(flagged) = flag {
            let other = run::resolve(&self.repo, flagged)?;
            if !ids.contains(&other) {
                return Err(Error::Usage(format!(
                    "--run {flagged} names run {other}, which the RUN arguments do not; name each run once"
                ))
                .into());
            }
        }
        Ok(ids)
    }

    /// The run and the checkpoint targets of a command whose positionals are `[RUN]` and up to
    /// `slots` targets. The first word is the RUN when every slot is filled and one more word
    /// is given, when it names a run (a target never does: `@N` and `NODE@V` hold an `@`, and
    /// run ids start with their timestamp), or when no run is known otherwise (no `--run`, no
    /// current run); else the words are targets of the run `--run` or the context names.
    pub fn run_and_targets(
        &self,
        flag: Option<&str>,
        given: &[Option<String>],
        slots: usize,
    ) -> Result<(RunId, Vec<String>)> {
        let mut words: Vec<String> = given.iter().flatten().cloned().collect();
        // The first word's run, looked up once: it decides, and is the answer when no
        // `--run` needs comparing with it.
        let first_run = words
            .first()
            .and_then(|word| run::resolve(&self.repo, word).ok());
        let run_given = words.len() > slots
            || first_run.is_some()
            || (!words.is_empty() && flag.is_none() && self.named_run(None, None).is_err());
        let positional = run_given.then(|| words.remove(0));
        let id = match (first_run, flag) {
            (Some(id), None) => id,
            _ => self.named_run(positional.as_deref(), flag)?,
        };
        Ok((id, words))
    }

    /// The shortest prefix of `id` that no other run of the repository shares (at least eight
    /// characters), which the commands accept back.
    pub fn short<'a>(&self, id: &'a str) -> &'a str {
        if let Some(every) = self.abbreviations.get() {
            return every.short(id);
        }
        // Only the runs that share the id's first characters are read, once per such prefix.
        let prefix = near_prefix(id);
        let mut near = self.near.borrow_mut();
        let at = match near.iter().position(|(listed, _)| listed == prefix) {
            Some(at) => at,
            None => {
                let runs = Abbreviations::near(&self.repo, prefix).unwrap_or_default();
                near.push((prefix.to_owned(), runs));
                near.len() - 1
            }
        };
        near[at].1.short(id)
    }

    /// The abbreviations, made by `make` from every run id when no command made them yet (a
    /// listing that has read every run's ref already gives them, instead of a second read).
    pub fn abbreviations_of(&self, make: impl FnOnce() -> Abbreviations) -> &Abbreviations {
        self.abbreviations.get_or_init(make)
    }
}
