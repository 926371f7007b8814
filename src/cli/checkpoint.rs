use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::{Ctx, output};
use crate::error::{Error, exit};
use crate::format::node::{NodeId, StageStatus};
use crate::format::usage::{ModelRef, Usage};
use crate::input;
use crate::ops::checkpoint::{
    Attachment, CheckpointRequest, VANISHED_TRIES, check_attachment_name, checkpoint,
    parse_context, refuse_ended,
};
use crate::ops::gc::parse_duration;

/// Record a completed node: a metadata commit and a run commit of the worktree
///
/// Writes the stage's status and attached files with the updated run.json as a metadata
/// commit, then commits the worktree's files (minus excluded and ignored paths) to the run
/// branch with Fabro-Run, Fabro-Completed and Fabro-Checkpoint trailers. Both branches move
/// together or not at all; a concurrent checkpoint of the same run exits 3, or with --wait is
/// tried again, reading the run afresh, with jittered exponential backoff until the time is
/// up. Prints the run commit's sha.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)
    #[arg(long, value_name = "RUN")]
    run: Option<String>,
    /// The node that completed
    #[arg(long, value_name = "NODE")]
    node: String,
    /// succeeded, partially_succeeded, failed or skipped
    #[arg(long, value_name = "STATUS", default_value = "succeeded")]
    status: String,
    /// The node the run continues with
    #[arg(long, value_name = "NODE")]
    next: Option<String>,
    /// A context value to record (repeatable); the value is JSON
    #[arg(long = "context", value_name = "KEY=JSON")]
    context: Vec<String>,
    /// A file to store with the stage as NAME (repeatable)
    #[arg(long = "attach", value_name = "NAME=PATH")]
    attach: Vec<String>,
    /// What the node's agent used, as JSON: {"models": [{"model": {"provider": P,
    /// "model_id": M}, "tokens": {"input_tokens": N, "output_tokens": N, ...}}], "tool_calls":
    /// N} (docs/FORMAT.md); `show`, `log --usage`, `ps` and `status` show it
    #[arg(long, value_name = "JSON")]
    usage: Option<String>,
    /// How long the node ran, in milliseconds
    #[arg(long, value_name = "MS")]
    duration_ms: Option<u64>,
    /// On a lost race (exit 3), try again for up to DURATION (default 10s; 0, 45s, 2m)
    #[arg(
        long,
        value_name = "DURATION",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = DEFAULT_WAIT
    )]
    wait: Option<String>,
    /// Print a JSON object instead of the run commit's sha
    #[arg(long)]
    json: bool,
}

/// How long `--wait` alone keeps trying: long enough for a few checkpoints of the same run
/// to pass, short enough that a harness stuck behind a hung one hears of it.
const DEFAULT_WAIT: &str = "10s";
/// Whether a try failed on an object `git gc` moved under it.
fn vanished(err: &anyhow::Error) -> bool {
    err.downcast_ref().is_some_and(Error::is_vanished_object)
        || err
            .downcast_ref()
            .is_some_and(crate::git::Error::is_vanished_object)
}

/// The first pause after a lost race, and the longest one.
const FIRST_PAUSE: Duration = Duration::from_millis(50);
const LONGEST_PAUSE: Duration = Duration::from_secs(2);

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let request = request(&args)?;
    let deadline = match &args.wait {
        Some(text) => {
            let seconds = parse_duration(text)?;
            Some(Instant::now() + Duration::from_secs(seconds.unsigned_abs()))
        }
        None => None,
    };
    let mut pause = FIRST_PAUSE;
    let mut vanished_tries = 0;
    let done = loop {
        // Each try reads the run afresh: the race was lost to a checkpoint that moved it.
        let tried = ctx.open_run(args.run.as_deref()).and_then(|run| {
            // A finished run has no worktree: say that it ended, which is why.
            refuse_ended(&run.state)?;
            Ok(checkpoint(
                &ctx.repo,
                Some(run.workspace()?),
                &run.state,
                &run.config,
                &request,
                run.run_dir.as_ref(),
            )?)
        });
        match tried {
            // `git gc` beside it can move an object from a loose file into a new pack while
            // this checkpoint reads it; nothing was recorded, and the next try finds it.
            Err(err) if vanished(&err) && vanished_tries < VANISHED_TRIES => {
                vanished_tries += 1;
                std::thread::sleep(jittered(FIRST_PAUSE));
            }
            Err(err)
                if err
                    .downcast_ref()
                    .is_some_and(|e: &Error| e.exit_code() == exit::CONFLICT) =>
            {
                let left = deadline.map_or(Duration::ZERO, |d| {
                    d.saturating_duration_since(Instant::now())
                });
                if left.is_zero() {
                    return Err(err);
                }
                std::thread::sleep(jittered(pause).min(left));
                pause = (pause * 2).min(LONGEST_PAUSE);
            }
            other => break other?,
        }
    };
    for warning in &done.warnings {
        output::warn(warning);
    }
    if args.json {
        output::json(&done)
    } else {
        output::line(&done.run_commit)
    }
}

/// A pause between half of `pause` and all of it, so that processes that lost the same race
/// do not all come back at the same instant.
fn jittered(pause: Duration) -> Duration {
    use std::hash::{BuildHasher, Hasher};
    // Each RandomState is seeded afresh: random enough for spreading retries.
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let half = pause / 2;
    half + Duration::from_nanos(random % (half.as_nanos() as u64 + 1))
}

/// Checks every argument before anything is read from or written to the repository.
/// `--usage`'s JSON, its providers spelled as Fabro spells them.
fn parse_usage(json: &str) -> Result<Usage, Error> {
    let mut usage: Usage = serde_json::from_str(json).map_err(|err| {
        Error::Usage(format!(
            "--usage is not usage JSON ({err}); it looks like {{\"models\": [{{\"model\": \
             {{\"provider\": \"anthropic\", \"model_id\": \"claude-sonnet-4-6\"}}, \"tokens\": \
             {{\"input_tokens\": 1200, \"output_tokens\": 300}}}}], \"tool_calls\": 4}}"
        ))
    })?;
    for model in &mut usage.models {
        model.model = ModelRef::new(&model.model.provider, &model.model.model_id);
    }
    Ok(usage)
}

fn request(args: &Args) -> Result<CheckpointRequest, Error> {
    let node = NodeId::parse(&args.node)?;
    let status = StageStatus::parse(&args.status)?;
    let next = args.next.as_deref().map(NodeId::parse).transpose()?;
    let context = args
        .context
        .iter()
        .map(|c| parse_context(c))
        .collect::<Result<_, _>>()?;
    let mut attachments = Vec::new();
    for arg in &args.attach {
        let (name, path) = arg
            .split_once('=')
            .ok_or_else(|| Error::Usage(format!("--attach {arg:?} is not NAME=PATH")))?;
        check_attachment_name(name)?;
        let data = input::read_attachment(
            &PathBuf::from(path),
            &format!("--attach {name}"),
            input::MAX_ATTACHMENT,
        )?;
        attachments.push((name.to_owned(), Attachment::Bytes(data)));
    }
    Ok(CheckpointRequest {
        next,
        duration_ms: args.duration_ms,
        usage: args.usage.as_deref().map(parse_usage).transpose()?,
        ..CheckpointRequest::by_hand(node, status, context, attachments)
    })
}
