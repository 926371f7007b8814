//! `status`: where a run stands right now, on this machine: its last checkpoint, the node it
//! goes on with, whether its files hold work no checkpoint recorded, and whether a process is
//! working on it. Outside any run, the same for every run of the repository that is not
//! finished. `ps` shares the liveness shown here.

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::run_arg::RunFlag;
use super::{Ctx, output};
use crate::error::{Error, Situation};
use crate::format::record::StatusKind;
use crate::format::run_id::RunId;
use crate::format::store::RunsListing;
use crate::format::usage::{self, UsageTotal};
use crate::ops::agent_process::{self, Liveness};
use crate::ops::hook_failures::{self, HookFailure};
use crate::ops::run_pid::RUN_PID;
use crate::run::RunState;
use crate::run::active_time;
use crate::run::timeline::timeline;
use crate::run::workspace::Workspace;

/// Show where a run stands: last checkpoint, next node, unrecorded changes, live process
///
/// In a run (its worktree, $FABRO_RUN_ID, the run in place here) or with RUN, shows that
/// run. Otherwise lists every run of this repository that is not finished (submitted, running
/// or dead), one line each. "changes" means the run's files differ from its last run commit
/// (what the next checkpoint would record); "process" is what run.pid names: alive, gone
/// (the process ended without finishing the run) or none.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run (or --run RUN; default: the current run, else every unfinished run)
    #[arg(value_name = "RUN")]
    run_pos: Option<String>,
    #[command(flatten)]
    run: RunFlag,
    /// Print JSON: an object for one run, an array for the list
    #[arg(long)]
    json: bool,
}

/// What `run.pid` in the run's directory says.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Process {
    /// The pid it names, alive or not.
    pub pid: Option<u32>,
    /// Whether that process is alive.
    pub alive: bool,
    /// For an agent session, whether its agent still runs (see [`agent_process`]).
    pub session: Option<Liveness>,
}

impl Process {
    /// The run.pid of the run's directory on this machine, next to `worktree` when known.
    pub fn of(ctx: &Ctx, id: &RunId, worktree: Option<&Path>) -> Process {
        let Some(dir) = ctx.run_dir(id, worktree) else {
            return Process::default();
        };
        let pid = dir.recorded_holder();
        Process {
            pid,
            alive: dir.live_holder().is_some(),
            session: agent_process::liveness(&dir),
        }
    }

    /// [`Process::of`] for one run of many, its directory looked for in `listing`: a run
    /// whose directories have no run.pid costs no more than looking for that file.
    pub fn of_listed(
        ctx: &Ctx,
        listing: &RunsListing,
        id: &RunId,
        worktree: Option<&Path>,
    ) -> Process {
        let session = ctx
            .run_dir_holding(listing, id, worktree, agent_process::FILE)
            .and_then(|dir| agent_process::liveness(&dir));
        let Some(dir) = ctx.run_dir_holding(listing, id, worktree, RUN_PID) else {
            return Process {
                session,
                ..Process::default()
            };
        };
        Process {
            pid: dir.recorded_holder(),
            alive: dir.live_holder().is_some(),
            session,
        }
    }
}

/// A status as listings show it: a running run whose run.pid process is gone says so, and so
/// does an agent session whose agent is gone (`ended` between turns, `interrupted` mid-turn).
pub fn shown_status(status: StatusKind, process: &Process) -> String {
    match process.session {
        Some(gone @ (Liveness::Ended | Liveness::Interrupted)) if status == StatusKind::Running => {
            return gone.as_str().into();
        }
        _ => {}
    }
    match (status, process.pid, process.alive) {
        (StatusKind::Running, Some(_), false) => "running (no process)".into(),
        (StatusKind::Running, Some(pid), true) => format!("running (pid {pid})"),
        (status, _, _) => status.as_str().into(),
    }
}

/// One run's standing, for people and as `status --json`.
#[derive(Debug, Serialize)]
pub struct Standing {
    pub run_id: String,
    pub status: StatusKind,
    pub goal: Option<String>,
    /// The latest checkpoint; null before the first.
    pub last_checkpoint: Option<LastCheckpoint>,
    pub next_node_id: Option<String>,
    /// The run's worktree, or the directory it runs in place in; null when this machine has
    /// neither.
    pub worktree: Option<String>,
    /// Whether the run's files differ from its last run commit; null without a worktree.
    pub unrecorded_changes: Option<bool>,
    pub pid: Option<u32>,
    pub process_alive: bool,
    /// For an agent session: `running` while its agent runs, `ended` when it exited between
    /// turns, `interrupted` when it exited mid-turn; null for other runs.
    pub agent_session: Option<Liveness>,
    /// How many times an agent hook failed (logged in the run directory's
    /// hook-failures.jsonl), and the latest failure; null when none did.
    pub hook_failures: usize,
    pub last_hook_failure: Option<HookFailure>,
    /// What a blocked run waits for: the human gate's question and choices.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<serde_json::Value>,
    /// A finished run's wall time, and that less the time it stood blocked or paused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_ms: Option<u64>,
    /// The tokens and tool calls of its stages so far; null when none reported usage.
    pub usage: Option<UsageTotal>,
    /// What decides the next step shown for people.
    #[serde(skip)]
    pub situation: Situation,
}

#[derive(Debug, Serialize)]
pub struct LastCheckpoint {
    pub ordinal: usize,
    pub node_id: String,
    pub visit: u64,
    pub status: String,
    pub timestamp: String,
    pub run_commit: String,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let flag = args.run.run.as_deref();
    let one = match (args.run_pos.as_deref(), flag) {
        (None, None) => match ctx.run_id(None) {
            Ok(id) => Some(id),
            Err(err) => match err.downcast_ref::<Error>() {
                Some(Error::NoCurrentRun) => None,
                _ => return Err(err),
            },
        },
        (given, _) => Some(ctx.named_run(given, flag)?),
    };
    match one {
        Some(id) => {
            let standing = standing(ctx, &RunState::load(&ctx.repo, &id)?)?;
            if args.json {
                output::json(&standing)
            } else {
                print_one(ctx, &standing)
            }
        }
        None => list(ctx, args.json),
    }
}

fn standing(ctx: &Ctx, state: &RunState) -> Result<Standing> {
    let id = &state.id;
    let last = timeline(&ctx.repo, state)?.pop().map(|e| LastCheckpoint {
        ordinal: e.ordinal,
        node_id: e.node_id,
        visit: e.visit,
        status: e.status,
        timestamp: e.timestamp,
        run_commit: e.run_commit,
    });
    let workspace = Workspace::find(&ctx.repo, id)?;
    let unrecorded_changes = match &workspace {
        Some(ws) => {
            let config = ctx.config(state, ctx.run_dir_of(id, ws).as_ref())?;
            Some(ws.is_dirty(state.run_tip, &config)?)
        }
        None => None,
    };
    let worktree = workspace.as_ref().map(|ws| ws.path.as_path());
    let process = Process::of(ctx, id, worktree);
    let conclusion = state.record.conclusion.as_ref();
    let mut failures = ctx
        .run_dir(id, worktree)
        .map(|dir| hook_failures::read(&dir))
        .unwrap_or_default();
    Ok(Standing {
        run_id: id.to_string(),
        status: state.record.status.kind,
        goal: state.record.spec.goal(),
        last_checkpoint: last,
        next_node_id: state
            .record
            .checkpoint
            .as_ref()
            .and_then(|c| c.next_node_id.clone()),
        worktree: worktree.map(|p| p.display().to_string()),
        unrecorded_changes,
        pid: process.pid,
        process_alive: process.alive,
        agent_session: process.session,
        hook_failures: failures.len(),
        last_hook_failure: failures.pop(),
        question: state
            .record
            .extra
            .get(crate::ops::lifecycle::PENDING_INTERVIEWS)
            .and_then(|p| p.as_object()?.values().next()?.get("question").cloned()),
        duration_ms: conclusion.map(|c| c.duration_ms),
        active_ms: conclusion.map(active_time::of),
        usage: state.record.checkpoint.as_ref().and_then(|c| c.usage_total),
        situation: state.situation(),
    })
}

fn list(ctx: &Ctx, json: bool) -> Result<()> {
    let (states, unreadable) = crate::run::load_all(&ctx.repo)?;
    output::warn_unreadable(&unreadable);
    let mut standings = Vec::new();
    // Newest first, as `ps` lists them.
    for state in states.iter().rev().filter(|s| {
        matches!(
            s.record.status.kind,
            StatusKind::Submitted
                | StatusKind::Running
                | StatusKind::Blocked
                | StatusKind::Paused
                | StatusKind::Dead
        )
    }) {
        standings.push(standing(ctx, state)?);
    }
    if json {
        return output::json(&standings);
    }
    if standings.is_empty() {
        output::note("no unfinished runs; `git fabro ps --all` lists every run");
        return Ok(());
    }
    let rows: Vec<Vec<String>> = standings
        .iter()
        .map(|s| {
            vec![
                ctx.short(&s.run_id).to_owned(),
                shown_status(s.status, &process(s)),
                s.last_checkpoint.as_ref().map_or_else(|| "-".into(), label),
                s.next_node_id.clone().unwrap_or_else(|| "-".into()),
                changes(s).into(),
                s.goal.clone().unwrap_or_default(),
            ]
        })
        .collect();
    output::table(
        &["RUN", "STATUS", "LAST", "NEXT", "CHANGES", "GOAL"],
        &rows,
        Some(1),
    )
}

/// `1,200 in, 340 out, 0 cache read, 0 cache write; 3 tool calls in 2 stages`.
fn total_usage(total: &UsageTotal) -> String {
    let plural = |n: u64, one: &str, many: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{} {many}", usage::grouped(n)),
    };
    format!(
        "{}; {} in {}",
        usage::describe(&total.tokens),
        plural(total.tool_calls, "tool call", "tool calls"),
        plural(total.stages, "stage", "stages")
    )
}

fn print_one(ctx: &Ctx, s: &Standing) -> Result<()> {
    let field =
        |name: &str, value: &str| output::line(format!("{name:<10}{}", output::escape(value)));
    field("run", &format!("{} ({})", ctx.short(&s.run_id), s.run_id))?;
    field("status", &shown_status(s.status, &process(s)))?;
    if let Some(goal) = &s.goal {
        field("goal", goal)?;
    }
    match &s.last_checkpoint {
        Some(last) => field(
            "last",
            &format!(
                "{} ({}) at {}",
                label(last),
                last.status,
                output::local_time(&last.timestamp)
            ),
        )?,
        None => field("last", "no checkpoint yet")?,
    }
    field("next", s.next_node_id.as_deref().unwrap_or("-"))?;
    if let (Some(active), Some(total)) = (s.active_ms, s.duration_ms) {
        field("took", &active_time::shown(active, total))?;
    }
    if let Some(total) = &s.usage {
        field("tokens", &total_usage(total))?;
    }
    if let Some(question) = &s.question {
        let node = question["stage"].as_str().unwrap_or("-");
        let text = question["text"].as_str().unwrap_or("");
        field("waiting", &format!("{node}: {text}"))?;
        field(
            "answer",
            &format!("git fabro resume {} --answer {node}=CHOICE", s.run_id),
        )?;
    }
    match &s.worktree {
        Some(path) => field("worktree", &format!("{path} ({})", changes(s)))?,
        None => field(
            "worktree",
            &format!(
                "none on this machine ({})",
                s.situation.without_worktree(&s.run_id)
            ),
        )?,
    }
    field(
        "process",
        &match (s.pid, s.process_alive) {
            (Some(pid), true) => format!("{pid}, alive (run.pid)"),
            (Some(pid), false) => format!("{pid}, gone without finishing the run (run.pid)"),
            (None, _) => "none".into(),
        },
    )?;

    if let Some(last) = &s.last_hook_failure {
        let times = match s.hook_failures {
            1 => "failed once".to_owned(),
            n => format!("failed {n} times"),
        };
        field(
            "hooks",
            &format!(
                "{times}; last at {} ({} {}): {}",
                output::local_time(&last.time),
                last.agent,
                last.hook,
                last.message
            ),
        )?;
    }
    Ok(())
}

fn process(s: &Standing) -> Process {
    Process {
        pid: s.pid,
        alive: s.process_alive,
        session: s.agent_session,
    }
}

fn label(last: &LastCheckpoint) -> String {
    format!("@{} {}@{}", last.ordinal, last.node_id, last.visit)
}

fn changes(s: &Standing) -> &'static str {
    match s.unrecorded_changes {
        Some(true) => "unrecorded changes",
        Some(false) => "clean",
        None => "no worktree",
    }
}
