//! `resume` goes on with the agent command the run was given (`run --agent`), unless given
//! another, which the run then keeps.

use crate::common::{TestRepo, write_file};
use crate::engine_run::{run, workflow};

/// A gate before an agent node: `run` stops there (exit 4, no terminal), `resume --answer`
/// goes on to the agent.
const GATE_THEN_AGENT: &str = r#"digraph later {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  approve [shape=hexagon, label="Go on?"]
  plan [shape=tab, prompt="Plan it"]
  later [shape=tab, prompt="Then this"]
  start -> approve
  approve -> plan [label="[G] Go"]
  plan -> later -> exit
}"#;

/// The same with a second gate between the two agent nodes.
const TWO_GATES: &str = r#"digraph later {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  approve [shape=hexagon, label="Go on?"]
  plan [shape=tab, prompt="Plan it"]
  again [shape=hexagon, label="Again?"]
  later [shape=tab, prompt="Then this"]
  start -> approve
  approve -> plan [label="[G] Go"]
  plan -> again
  again -> later [label="[G] Go"]
  later -> exit
}"#;

/// An agent command that writes its name and the node it ran into `agents.txt`.
fn agent(repo: &TestRepo, name: &str) -> String {
    let path = repo.root.join(format!("{name}.sh"));
    write_file(
        &path,
        &format!("cat >/dev/null; echo \"{name}: $FABRO_NODE_ID\" >> agents.txt\n"),
    );
    format!("bash {}", path.display())
}

/// `resume ID ARGS`, answering the gate, without a terminal; its exit code and stderr.
fn resume(repo: &TestRepo, id: &str, answer: &str, args: &[&str]) -> (i32, String) {
    let out = repo
        .fabro()
        .args(["resume", id, "--answer", answer])
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("git-fabro runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), stderr)
}

fn agents_ran(repo: &TestRepo, id: &str) -> String {
    repo.git(&["show", &format!("fabro/run/{id}:agents.txt")])
}

#[test]
fn resume_runs_the_agent_the_run_was_given() {
    let repo = TestRepo::new();
    let path = workflow(&repo, "later", GATE_THEN_AGENT);
    let first = agent(&repo, "first");
    let ran = run(&repo, &path, &["--agent", &first]);
    assert_eq!(ran.code, 4, "{}", ran.stderr);
    let (code, stderr) = resume(&repo, &ran.id, "approve=G", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(agents_ran(&repo, &ran.id), "first: plan\nfirst: later\n");
}

#[test]
fn resume_agent_replaces_the_runs_agent_from_then_on() {
    let repo = TestRepo::new();
    let path = workflow(&repo, "later", TWO_GATES);
    let (first, second) = (agent(&repo, "first"), agent(&repo, "second"));
    let ran = run(&repo, &path, &["--agent", &first]);
    assert_eq!(ran.code, 4, "{}", ran.stderr);
    let (code, stderr) = resume(&repo, &ran.id, "approve=G", &["--agent", &second]);
    assert_eq!(code, 4, "{stderr}");
    let (code, stderr) = resume(&repo, &ran.id, "again=G", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(agents_ran(&repo, &ran.id), "second: plan\nsecond: later\n");
}
