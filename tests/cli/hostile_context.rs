//! Agents that answer with more context than a run's record can hold: most of a megabyte in
//! a new key at every visit, or hundreds of keys at once. The record (`run.json`) is never
//! refused half-way through a run: a long value is held by its end, as a command's output is,
//! and a stage that would add more than its share fails with a record saying so. The run
//! ends as its workflow says, its record readable, and nothing is left `running`.

use serde_json::Value;

use crate::common::TestRepo;
use crate::engine_run::{meta_file, run, run_json, workflow};

/// An agent node visited until the agent says `done`, the agent's answer written by `script`.
fn notes_run(repo: &TestRepo, script: &str, loop_until_done: bool) -> crate::engine_run::Ran {
    let agent = repo.write_beside("agent.sh", script);
    let edges = match loop_until_done {
        true => "work -> exit [condition=\"context.done=yes\"]\n  work -> work",
        false => "work -> exit",
    };
    let path = workflow(
        repo,
        "notes",
        &format!(
            "digraph Notes {{ start [shape=Mdiamond]; exit [shape=Msquare]\n  \
             work [prompt=\"Take notes\"]\n  start -> work\n  {edges} }}\n"
        ),
    );
    run(
        repo,
        &path,
        &["--agent", &format!("bash {}", agent.display())],
    )
}

#[test]
fn an_agent_returning_most_of_a_megabyte_of_context_per_visit_keeps_the_run_readable() {
    let repo = TestRepo::new();
    let script = r#"cat > /dev/null
big=$(head -c 900000 /dev/zero | tr '\0' x)
done=no; [ "$FABRO_VISIT" -ge 20 ] && done=yes
printf 'ok {"context_updates": {"note_%s": "%sEND", "done": "%s"}}\n' "$FABRO_VISIT" "$big" "$done"
"#;
    let ran = notes_run(&repo, script, true);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stderr.contains("work@20  succeeded"), "{}", ran.stderr);
    let size = meta_file(&repo, &ran.id, "run.json").len();
    assert!(size < 4 << 20, "run.json is {size} bytes");
    let record = run_json(&repo, &ran.id);
    assert_eq!(record["status"]["kind"], "succeeded", "{record}");
    let note = record["checkpoint"]["context_values"]["note_1"]
        .as_str()
        .unwrap();
    assert!(note.ends_with("xxxEND"), "{}", &note[note.len() - 20..]);
    assert!(
        note.starts_with("[git-fabro: the first ") && note.contains("response.md"),
        "{}",
        &note[..120]
    );
    // The whole answer is the stage's response.
    let response = meta_file(&repo, &ran.id, "stages/002-work@1/response.md");
    assert!(response.len() > 900_000);
    repo.ok(&["show", &ran.id]);
}

#[test]
fn a_stage_adding_more_context_than_its_share_fails_with_a_record() {
    let repo = TestRepo::new();
    let script = r#"cat > /dev/null
value=$(head -c 1000 /dev/zero | tr '\0' y)
printf 'ok {"context_updates": {'
for i in $(seq 1 300); do printf '"k%s": "%s", ' "$i" "$value"; done
printf '"last": 1}}\n'
"#;
    let ran = notes_run(&repo, script, false);
    // The failed node follows its unconditional edge, as any failed node does.
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("work@1  failed")
            && ran.stderr.contains("over the 262144 one stage may add")
            && ran.stderr.contains("none of them was applied"),
        "{}",
        ran.stderr
    );
    let record = run_json(&repo, &ran.id);
    let context = &record["checkpoint"]["context_values"];
    assert_eq!(context.get("k1"), None::<&Value>, "{context}");
    assert_eq!(context.get("last"), None::<&Value>, "{context}");
    let status: Value =
        serde_json::from_str(&meta_file(&repo, &ran.id, "stages/002-work@1/status.json")).unwrap();
    assert_eq!(status["outcome"], "failed", "{status}");
}
