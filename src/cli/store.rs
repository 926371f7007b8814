use std::io::{BufRead, Write};

use anyhow::Result;
use serde::Serialize;
use serde_json::{Value, json};

use super::Ctx;
use crate::error::{Error, exit};
use crate::format::store_protocol::{PROTOCOL, Request, Tuple};
use crate::ops::threads::ThreadStore;

/// Keep an agent framework's checkpoints in git, over stdin and stdout
///
/// A long-lived process for a checkpointer (LangGraph's, from the Python package
/// langgraph-checkpoint-gitfabro): it reads one JSON request per line on stdin and writes one
/// JSON reply per line on stdout, as docs/store-protocol.md describes, until stdin ends. Each
/// thread is a run labelled thread_id; each checkpoint of its root namespace is a checkpoint
/// of the run, so that log, diff, restore and land work on it. A bad request gets an error
/// reply and the store goes on.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Record the directory's files with each root checkpoint, and put them back when an
    /// older checkpoint is read (LangGraph's time travel)
    #[arg(long)]
    track_files: bool,
}

/// The longest request line read; a longer one is answered with an error and skipped.
const MAX_REQUEST: usize = 512 << 20;

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let mut store = ThreadStore::open(&ctx.repo, ctx.home.clone(), args.track_files)?;
    let mut input = std::io::stdin().lock();
    let mut output = std::io::BufWriter::new(std::io::stdout().lock());
    let mut line = Vec::new();
    loop {
        let reply = match read_line(&mut input, &mut line)? {
            Line::End => return Ok(()),
            Line::TooLong => failure(&Error::Usage(format!(
                "a request is longer than {} MiB; nothing of it was done",
                MAX_REQUEST >> 20
            ))),
            Line::Request => match serde_json::from_slice::<Request>(&line) {
                Ok(request) => answer(&mut store, request, &mut output),
                Err(err) => failure(&Error::Usage(format!("not a request: {err}"))),
            },
        };
        if send(&mut output, &reply).is_err() {
            return Ok(()); // the client went away: nobody is left to answer
        }
        // A store lives as long as its client: it keeps house as a command does at its end,
        // so that its loose objects are packed while it runs (the gc is detached).
        ctx.repo.start_auto_gc_if_due();
    }
}

enum Line {
    Request,
    TooLong,
    End,
}

/// Reads one line into `line` (without its newline), skipping the rest of one too long.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> Result<Line> {
    line.clear();
    let mut too_long = false;
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            let done = match (too_long, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Request,
            };
            return Ok(done);
        }
        let (taken, ends) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => (at, true),
            None => (buffer.len(), false),
        };
        if !too_long && line.len() + taken <= MAX_REQUEST {
            line.extend_from_slice(&buffer[..taken]);
        } else {
            too_long = true;
            line.clear();
        }
        input.consume(taken + usize::from(ends));
        if ends {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Request
            });
        }
    }
}

/// Does one request; a `list` writes its checkpoints on `output` before the reply.
fn answer(store: &mut ThreadStore, request: Request, output: &mut impl Write) -> Value {
    let ok = |()| json!({ "ok": true });
    let done = match request {
        Request::Hello => {
            return json!({
                "ok": true,
                "protocol": PROTOCOL,
                "version": env!("CARGO_PKG_VERSION"),
                "track_files": store.track_files(),
            });
        }
        Request::Put(put) => store.put(&put).map(ok),
        Request::PutWrites(writes) => store.put_writes(&writes).map(ok),
        Request::Get {
            thread,
            ns,
            checkpoint_id,
        } => store
            .get(&thread, &ns, checkpoint_id.as_deref())
            .map(|tuple| json!({ "ok": true, "checkpoint": tuple })),
        Request::List(query) => store
            .list(&query, |tuple| list_line(output, &tuple))
            .map(|count| json!({ "ok": true, "count": count })),
        Request::DeleteThread { thread } => store.delete_thread(&thread).map(ok),
        Request::DeleteForRuns { run_ids } => store.delete_for_runs(&run_ids).map(ok),
        Request::CopyThread { source, target } => store.copy_thread(&source, &target).map(ok),
        Request::Prune { threads, strategy } => store.prune(&threads, &strategy).map(ok),
    };
    done.unwrap_or_else(|err| failure(&err))
}

fn list_line(output: &mut impl Write, tuple: &Tuple) -> crate::error::Result<()> {
    #[derive(Serialize)]
    struct Listed<'t> {
        checkpoint: &'t Tuple,
    }
    send(output, &Listed { checkpoint: tuple })
        .map_err(Error::io("cannot write a listed checkpoint"))
}

/// The reply to a request that failed: what went wrong, and a code a client can act on.
fn failure(err: &Error) -> Value {
    let code = match err {
        Error::Conflict(_) | Error::Busy(_) => "conflict",
        Error::Corrupt(_) => "corrupt",
        err if err.exit_code() == exit::USAGE => "usage",
        _ => "failed",
    };
    let mut reply = json!({ "ok": false, "code": code, "error": err.to_string() });
    if let Some(hint) = err.hint() {
        reply["hint"] = Value::String(hint);
    }
    reply
}

fn send(output: &mut impl Write, reply: &impl Serialize) -> std::io::Result<()> {
    serde_json::to_writer(&mut *output, reply)?;
    output.write_all(b"\n")?;
    output.flush()
}
