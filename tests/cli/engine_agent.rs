//! Agent and prompt nodes run through the agent command (`--agent`, run.toml, git config
//! `fabro.agentCommand`, settings.toml): prompt on stdin and in `$FABRO_PROMPT_FILE`, the
//! stage's model from the stylesheet in the environment, the response in `response.md`, its
//! routing JSON followed. Templates render strictly; python command nodes run.

use std::path::Path;

use serde_json::Value;

use crate::common::failpoints::die_at;
use crate::common::workflow::{between, chain};
use crate::common::{TestRepo, assert_success, read_file, run_err};
use crate::engine_run::{meta_file, run, run_dir, workflow};

/// A fake agent: echoes what it was given and its stage's variables, leaves a file in the
/// worktree, and answers each node as the tests need.
const AGENT: &str = r#"prompt=$(cat)
echo "stdin=$prompt"
echo "file=$(cat "$FABRO_PROMPT_FILE")"
env | grep '^FABRO_' | sort
echo "keys=${ANTHROPIC_API_KEY:-none} ${GITHUB_TOKEN:-none}"
echo "$FABRO_NODE_ID was here" >> agents.txt
case "$FABRO_NODE_ID" in
  review) echo 'Looks good. {"preferred_next_label": "Ship", "context_updates": {"quality": "high"}}' ;;
  broken) echo "half done"; echo "the model is down" >&2; exit 3 ;;
esac
"#;

fn agent(repo: &TestRepo) -> String {
    let path = repo.write_beside("agent.sh", AGENT);
    format!("bash {}", path.display())
}

fn checkpoint(repo: &TestRepo, id: &str) -> Value {
    let record: Value = serde_json::from_str(&meta_file(repo, id, "run.json")).unwrap();
    record["checkpoint"].clone()
}

fn stages() -> String {
    between(
        "agents",
        r#"graph [goal="Ship {{ inputs.feature }}", model_stylesheet="* { model: base-model; } .deep { model: deep-model; provider: acme; reasoning_effort: low; }"]
  plan [shape=tab, prompt="Plan: {{ goal }} for {{ inputs.user }}"]
  build [class="deep", label="Build it"]
  start -> plan -> build -> exit"#,
    )
}

#[test]
fn agents_get_the_prompt_on_stdin_and_in_a_file_and_their_stage_in_the_environment() {
    let repo = TestRepo::new();
    let path = workflow(&repo, "agents", &stages());
    let agent = agent(&repo);
    let out = repo
        .fabro()
        .arg("run")
        .arg(&path)
        .args([
            "--agent",
            &agent,
            "--input",
            "user=ada",
            "--input",
            "feature=search",
        ])
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env("GITHUB_TOKEN", "kept-from-agents")
        .output()
        .unwrap();
    assert_success(&out);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let id = stdout.lines().next().unwrap();

    let plan = meta_file(&repo, id, "stages/002-plan@1/response.md");
    let prompt = "Plan: Ship search for ada";
    assert_eq!(meta_file(&repo, id, "stages/002-plan@1/prompt.md"), prompt);
    for line in [
        format!("stdin={prompt}"),
        format!("file={prompt}"),
        "FABRO_NODE_TYPE=prompt".into(),
        "FABRO_NODE_ID=plan".into(),
        "FABRO_MODEL=base-model".into(),
        "FABRO_PROVIDER=".into(),
        "FABRO_REASONING_EFFORT=high".into(),
        format!("FABRO_RUN_ID={id}"),
        format!("FABRO_IDEMPOTENCY_KEY={id}:plan@1"),
        "keys=sk-test none".into(),
    ] {
        assert!(plan.lines().any(|l| l == line), "{line} in:\n{plan}");
    }
    let build = meta_file(&repo, id, "stages/003-build@1/response.md");
    for line in [
        "stdin=Build it",
        "FABRO_NODE_TYPE=agent",
        "FABRO_MODEL=deep-model",
        "FABRO_PROVIDER=acme",
        "FABRO_REASONING_EFFORT=low",
    ] {
        assert!(build.lines().any(|l| l == line), "{line} in:\n{build}");
    }
    let file = build
        .lines()
        .find_map(|l| l.strip_prefix("FABRO_PROMPT_FILE="))
        .expect("FABRO_PROMPT_FILE");
    let dir = run_dir(&repo, id);
    assert_eq!(Path::new(file), dir.join("nodes/build/prompt.md"));

    // The stage files are in the run directory too, and the agents' work is in the run commits.
    let local = read_file(dir.join("nodes/plan/response.md"));
    assert_eq!(local, plan);
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{id}:agents.txt")]),
        "plan was here\nbuild was here\n"
    );

    // Fabro's context keys after an LLM stage.
    let context = &checkpoint(&repo, id)["context_values"];
    assert_eq!(context["last_stage"], "build");
    assert_eq!(context["graph.goal"], "Ship search");
    assert_eq!(context["response.plan"], plan.as_str());
    let last = context["last_response"].as_str().unwrap();
    assert!(build.starts_with(last) && last.len() == 200, "{last}");
}

fn routed() -> String {
    between(
        "routed",
        r#"review [prompt="Review the change"]
  rework [shape=parallelogram, script="echo rework"]
  ship [shape=parallelogram, script="echo ship"]
  gate [shape=diamond]
  loud [shape=parallelogram, script="echo loud"]
  quiet [shape=parallelogram, script="echo quiet"]
  start -> review
  review -> rework [label="Rework"]
  review -> ship [label="[S] Ship"]
  rework -> gate
  ship -> gate
  gate -> loud [condition="context.quality=high"]
  gate -> quiet
  loud -> exit
  quiet -> exit"#,
    )
}

#[test]
fn the_response_routes_by_preferred_label_and_its_context_updates_reach_conditions() {
    let repo = TestRepo::new();
    let path = workflow(&repo, "routed", &routed());
    let agent = agent(&repo);
    let ran = run(&repo, &path, &["--agent", &agent]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let checkpoint = checkpoint(&repo, &ran.id);
    assert_eq!(
        checkpoint["completed_nodes"],
        serde_json::json!(["start", "review", "ship", "gate", "loud"])
    );
    let review = &checkpoint["node_outcomes"]["review"];
    assert_eq!(review["preferred_label"], "Ship");
    assert_eq!(review["context_updates"]["quality"], "high");
    assert_eq!(checkpoint["context_values"]["quality"], "high");
}

#[test]
fn a_non_zero_exit_fails_the_stage_with_the_tail_of_its_output() {
    let repo = TestRepo::new();
    let path = workflow(
        &repo,
        "broken",
        &chain("broken", &[r#"broken [prompt="Try", goal_gate=true]"#]),
    );
    let agent = agent(&repo);
    let ran = run(&repo, &path, &["--agent", &agent]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(ran.stderr.contains("broken@1  failed"), "{}", ran.stderr);
    assert!(ran.stderr.contains("(exit 3)"), "{}", ran.stderr);
    let outcome = &checkpoint(&repo, &ran.id)["node_outcomes"]["broken"];
    assert_eq!(outcome["status"], "failed");
    let message = outcome["failure"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Agent command exited with code 3: the model is down\nstdout: "),
        "{message}"
    );
    assert!(message.ends_with("half done"), "{message}");
    assert_eq!(
        meta_file(&repo, &ran.id, "stages/002-broken@1/stderr.log"),
        "the model is down\n"
    );
}

#[test]
fn without_an_agent_command_or_with_a_bad_template_nothing_is_written() {
    let repo = TestRepo::new();
    let path = workflow(&repo, "agents", &stages());
    let refs_before = repo.git(&["for-each-ref"]);
    let inputs = ["--input", "user=ada", "--input", "feature=search"];
    let (code, err) = run_err(repo.fabro().arg("run").arg(&path).args(inputs));
    assert_eq!(code, 2, "{err}");
    for text in [
        "agent or prompt nodes (plan, build)",
        "--agent claude",
        "git config fabro.agentCommand",
        "nothing was run",
    ] {
        assert!(err.contains(text), "{text}: {err}");
    }

    // An input the templates use and the run lacks: strict rendering refuses the run.
    let agent = agent(&repo);
    let (code, err) = run_err(
        repo.fabro()
            .args(["run", "--agent", &agent, "--input", "feature=x"])
            .arg(&path),
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("node plan, attribute prompt: template referenced an undefined variable"),
        "{err}"
    );
    let typo = workflow(
        &repo,
        "typo",
        &chain("typo", &[r#"work [prompt="Do {{ gaol }}"]"#]),
    );
    // A variable no run can give is found before any run: `validate` reports it.
    let (code, err) = run_err(repo.fabro().args(["run", "--agent", &agent]).arg(&typo));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a valid workflow"), "{err}");
    let (code, err) = run_err(repo.fabro().arg("validate").arg(&typo));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            "error [node: work]: Node 'work' attribute 'prompt': template referenced an \
             undefined variable: gaol (template_valid)"
        ),
        "{err}"
    );
    assert_eq!(repo.git(&["for-each-ref"]), refs_before);
    assert!(!repo.home.join("runs").exists());
}

fn one_agent() -> String {
    chain("one", &[r#"work [prompt="Work"]"#])
}

/// The response of the one agent stage of a run of [`one_agent`].
fn answer(repo: &TestRepo, extra: &[&str]) -> String {
    let path = workflow(repo, "one", &one_agent());
    let ran = run(repo, &path, extra);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    meta_file(repo, &ran.id, "stages/002-work@1/response.md")
}

#[test]
fn the_flag_beats_run_toml_which_beats_git_config_which_beats_settings() {
    let repo = TestRepo::new();
    std::fs::create_dir_all(&repo.home).unwrap();
    repo.write_settings("[agent]\ncommand = \"echo from-settings\"\n");
    assert_eq!(answer(&repo, &[]), "from-settings\n");
    repo.git(&["config", "fabro.agentCommand", "echo from-git-config"]);
    assert_eq!(answer(&repo, &[]), "from-git-config\n");
    let run_toml = repo.write_beside("run.toml", "[agent]\ncommand = \"echo from-run-toml\"\n");
    let config = run_toml.to_string_lossy().into_owned();
    assert_eq!(answer(&repo, &["--config", &config]), "from-run-toml\n");
    assert_eq!(
        answer(&repo, &["--config", &config, "--agent", "echo from-flag"]),
        "from-flag\n"
    );
}

#[test]
fn a_python_command_node_runs_its_script_with_python3() {
    let repo = TestRepo::new();
    let path = workflow(
        &repo,
        "python",
        &chain(
            "python",
            &[
                r#"calc [shape=parallelogram, language=python, script="import os\nprint('answer', 6 * 7, os.path.exists('README.md'))"]"#,
            ],
        ),
    );
    let ran = run(&repo, &path, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        meta_file(&repo, &ran.id, "stages/002-calc@1/stdout.log"),
        "answer 42 True\n"
    );
    let invocation: Value = serde_json::from_str(&meta_file(
        &repo,
        &ran.id,
        "stages/002-calc@1/script_invocation.json",
    ))
    .unwrap();
    assert_eq!(invocation["language"], "python");
    assert!(
        invocation["command"]
            .as_str()
            .unwrap()
            .starts_with("python3 -c 'import os"),
        "{invocation}"
    );
}

#[test]
fn resume_needs_an_agent_command_too_takes_the_flag_and_keeps_the_inlined_prompt() {
    let repo = TestRepo::new();
    let path = workflow(
        &repo,
        "from_file",
        &chain("from_file", &[r#"work [prompt="@work.md"]"#]),
    );
    let prompt_file = repo.write_beside("work.md", "Work as the file said");
    // Configured, not given: the run keeps a `--agent` (`resume_agent.rs`), not the config.
    repo.git(&["config", "fabro.agentCommand", "cat"]);
    die_at(
        repo.fabro().arg("run").arg(&path),
        "engine:checkpointed:start@1",
    );
    repo.git(&["config", "--unset", "fabro.agentCommand"]);
    std::fs::remove_file(&prompt_file).unwrap();
    let refs = repo.runs_with_metadata();
    let id = refs.trim();
    let (code, err) = run_err(repo.fabro().args(["resume", id]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("agent or prompt nodes (work)"), "{err}");
    let out = repo.output(&["resume", id, "--agent", "echo resumed; cat"]);
    assert_success(&out);
    assert_eq!(
        meta_file(&repo, id, "stages/002-work@1/response.md"),
        "resumed\nWork as the file said"
    );
    let events = read_file(run_dir(&repo, id).join("progress.jsonl"));
    for event in ["\"stage.prompt\"", "\"prompt.completed\""] {
        assert!(events.contains(event), "{event} in {events}");
    }
}

#[test]
fn routing_may_come_from_a_status_json_and_a_timeout_stops_the_agent() {
    let repo = TestRepo::new();
    let path = workflow(
        &repo,
        "status_file",
        &between(
            "status_file",
            r#"decide [prompt="Decide"]
  slow [prompt="Take your time", timeout="1s"]
  left [shape=parallelogram, script="true"]
  right [shape=parallelogram, script="true"]
  start -> decide
  decide -> left [label="Left"]
  decide -> right [label="Right"]
  left -> slow
  right -> slow
  slow -> exit"#,
        ),
    );
    let agent = r#"if [ "$FABRO_NODE_ID" = slow ]; then echo started; exec sleep 30; fi
echo '{"preferred_next_label": "Right"}' > status.json; echo "see status.json""#;
    let ran = run(&repo, &path, &["--agent", agent]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let checkpoint = checkpoint(&repo, &ran.id);
    assert_eq!(
        checkpoint["completed_nodes"],
        serde_json::json!(["start", "decide", "right", "slow"])
    );
    let slow = &checkpoint["node_outcomes"]["slow"];
    assert_eq!(slow["status"], "failed");
    let message = slow["failure"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Agent command timed out after "),
        "{message}"
    );
    assert!(message.ends_with("stdout: started"), "{message}");
}
