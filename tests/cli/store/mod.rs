//! `git fabro store`: the thread store a checkpointer (LangGraph's) talks to over stdin and
//! stdout (docs/store-protocol.md), driven here line by line and checked with plain git.

mod clients;
mod files;
mod model;
mod protocol;
mod threads;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use serde_json::{Value, json};

use crate::common::TestRepo;

/// A running `git fabro store` and the lines it answers.
pub struct Store {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Store {
    pub fn open(repo: &TestRepo, args: &[&str]) -> Store {
        Store::open_in(repo, &repo.path, args)
    }

    pub fn open_in(repo: &TestRepo, dir: &Path, args: &[&str]) -> Store {
        let mut child = repo
            .fabro_in(dir)
            .arg("store")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the store starts");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Store {
            child,
            input,
            output,
        }
    }

    /// Sends one line, as it is, and reads one reply.
    pub fn send_line(&mut self, line: &str) -> Value {
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
        self.reply()
    }

    pub fn ask(&mut self, request: Value) -> Value {
        self.send_line(&request.to_string())
    }

    /// A request that must succeed.
    pub fn ok(&mut self, request: Value) -> Value {
        let reply = self.ask(request.clone());
        assert_eq!(reply["ok"], true, "{request} got {reply}");
        reply
    }

    pub fn reply(&mut self) -> Value {
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not a reply: {line:?}"))
    }

    /// The checkpoints a `list` gives, in order.
    pub fn list(&mut self, query: Value) -> Vec<Value> {
        let mut request = query;
        request["op"] = json!("list");
        writeln!(self.input, "{request}").unwrap();
        let mut listed = Vec::new();
        loop {
            let line = self.reply();
            if line.get("ok").is_some() {
                assert_eq!(line["ok"], true, "{line}");
                assert_eq!(line["count"], listed.len(), "{line}");
                return listed;
            }
            listed.push(line["checkpoint"].clone());
        }
    }

    /// Ends the store as a client does, by closing its input: it exits 0.
    pub fn close(self) {
        let Store {
            mut child, input, ..
        } = self;
        drop(input);
        assert!(
            child.wait().unwrap().success(),
            "the store ends with exit 0"
        );
    }

    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

/// A typed value whose bytes are `text`'s.
pub fn typed(kind: &str, text: &str) -> Value {
    use base64::Engine as _;
    json!({ "type": kind, "data": base64::engine::general_purpose::STANDARD.encode(text) })
}

/// A `put` of checkpoint `id` with a channel `x` at version `id` worth `value`.
pub fn put(
    thread: &str,
    ns: &str,
    id: &str,
    parent: Option<&str>,
    step: i64,
    value: &str,
) -> Value {
    json!({
        "op": "put", "thread": thread, "ns": ns, "checkpoint_id": id, "parent_id": parent,
        "checkpoint": typed("msgpack", &format!("checkpoint {id}")),
        "metadata": { "source": "loop", "step": step },
        "channel_versions": { "x": id },
        "blobs": [{ "channel": "x", "version": id, "value": typed("json", value) }],
    })
}

/// The run that holds `thread`, from `ps --json`'s labels.
pub fn run_of(repo: &TestRepo, thread: &str) -> String {
    let ps: Value = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    let runs: Vec<&Value> = crate::common::array(&ps)
        .iter()
        .filter(|run| run["labels"]["thread_id"] == thread)
        .collect();
    assert_eq!(runs.len(), 1, "one run holds thread {thread}: {ps}");
    runs[0]["run_id"].as_str().unwrap().to_owned()
}
