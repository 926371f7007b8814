//! `{{ inputs.x }}` and `{{ goal }}` in a command node's script, with values written to
//! break out of wherever the script puts them (unquoted, in single or double quotes, in
//! Python strings): each reaches the script as data, so none of them runs `touch PWNED`,
//! and the script prints exactly the value. `--goal` text is the user's, never a template.

use std::path::Path;

use crate::common::TestRepo;
use crate::engine_run::{meta_file, run, workflow};

/// Values that run `touch PWNED` when pasted into a script.
const ATTACKS: &[&str] = &[
    "x'; touch PWNED; echo '",
    "x\"; touch PWNED; echo \"",
    "$(touch PWNED)",
    "`touch PWNED`",
    "; touch PWNED #",
    "x\ntouch PWNED\n",
    "x' + open('PWNED', 'w').name + '",
    "x\" + open(\"PWNED\", \"w\").name + \"",
];

/// Every file named PWNED under `dir`.
fn pwned(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(pwned(&path));
        } else if entry.file_name() == "PWNED" {
            found.push(path.display().to_string());
        }
    }
    found
}

/// A workflow whose one command node runs `script` (DOT-escaped here), `language` given.
fn one_script(repo: &TestRepo, script: &str, language: &str) -> std::path::PathBuf {
    let script = script.replace('\\', "\\\\").replace('"', "\\\"");
    workflow(
        repo,
        "tpl",
        &format!(
            r#"digraph tpl {{
  start [shape=Mdiamond]
  exit [shape=Msquare]
  work [shape=parallelogram, language="{language}", script="{script}"]
  start -> work -> exit
}}"#
        ),
    )
}

/// Runs `script` with input `t` set to each attack; the script prints `expected(attack)`.
fn assert_data_only(script: &str, language: &str, expected: impl Fn(&str) -> String) {
    for attack in ATTACKS {
        let repo = TestRepo::new();
        let path = one_script(&repo, script, language);
        let input = format!("t={attack}");
        let ran = run(&repo, &path, &["--input", &input, "--goal", attack]);
        assert_eq!(ran.code, 0, "{attack:?} in {script:?}: {}", ran.stderr);
        assert_eq!(
            pwned(&repo.root),
            Vec::<String>::new(),
            "{attack:?} in {script:?}"
        );
        let files = repo.files_in(&format!("fabro/run/{}", ran.id));
        assert!(
            !files.lines().any(|f| f == "PWNED"),
            "{attack:?} committed PWNED"
        );
        let printed = meta_file(&repo, &ran.id, "stages/002-work@1/stdout.log");
        assert_eq!(printed, expected(attack), "{attack:?} in {script:?}");
    }
}

#[test]
fn a_value_in_single_quotes_is_data() {
    assert_data_only("printf %s '{{ inputs.t }}'", "shell", str::to_owned);
}

#[test]
fn a_value_in_double_quotes_is_data() {
    assert_data_only("printf '%s' \"<{{ inputs.t }}>\"", "shell", |v| {
        format!("<{v}>")
    });
}

#[test]
fn an_unquoted_value_is_one_word_of_data() {
    assert_data_only("printf '[%s]' {{ inputs.t }}", "shell", |v| {
        format!("[{v}]")
    });
}

#[test]
fn the_goal_in_a_script_is_data() {
    assert_data_only(
        "printf %s {{ goal }} # it's the goal",
        "shell",
        str::to_owned,
    );
}

#[test]
fn a_value_in_a_python_string_is_data() {
    assert_data_only(
        "import sys; sys.stdout.write('{{ inputs.t }}' + \"|{{ goal }}\")",
        "python",
        |v| format!("{v}|{v}"),
    );
}

#[test]
fn goal_text_is_never_rendered_as_a_template() {
    let repo = TestRepo::new();
    let path = one_script(&repo, "printf %s \"{{ goal }}\"", "shell");
    let ran = run(
        &repo,
        &path,
        &[
            "--input",
            "t=secret",
            "--goal",
            "{{ inputs.t }} {% if true %}x{% endif %}",
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        meta_file(&repo, &ran.id, "stages/002-work@1/stdout.log"),
        "{{ inputs.t }} {% if true %}x{% endif %}"
    );
}

#[test]
fn scripts_written_for_fabro_keep_working() {
    let repo = TestRepo::new();
    let script = "echo Hello {{ inputs.name | upper }} > greeting.txt; \
                  echo \"for {{ goal }}\" >> greeting.txt; echo '{{ inputs.name }}!' >> greeting.txt";
    let path = one_script(&repo, script, "shell");
    let ran = run(
        &repo,
        &path,
        &["--input", "name=ada", "--goal", "the tests"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let greeting = repo.git(&["show", &format!("fabro/run/{}:greeting.txt", ran.id)]);
    assert_eq!(greeting, "Hello ADA\nfor the tests\nada!\n");
}

/// The run that the manager node `manage` of run `parent` started, from its `child_run.json`.
fn child_of(repo: &TestRepo, parent: &str) -> String {
    let names = repo.files_in(&format!("fabro/meta/{parent}"));
    let link = names
        .lines()
        .find(|p| p.ends_with("-manage@1/child_run.json"))
        .unwrap_or_else(|| panic!("no child_run.json in {names}"));
    let link: serde_json::Value = serde_json::from_str(&meta_file(repo, parent, link)).unwrap();
    link["run_id"].as_str().unwrap().to_owned()
}

/// The node ids of run `id`'s recorded graph.
fn recorded_nodes(repo: &TestRepo, id: &str) -> Vec<String> {
    let record: serde_json::Value = serde_json::from_str(&meta_file(repo, id, "run.json")).unwrap();
    let nodes = record["spec"]["graph"]["nodes"].as_object().unwrap();
    nodes.keys().cloned().collect()
}

/// A parent whose manager node runs an inline child: a command node running `script` and a
/// node labelled with the input, both DOT-escaped once for the child and once for the parent.
fn inline_family(repo: &TestRepo, script: &str) -> std::path::PathBuf {
    let escape = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let child = format!(
        "digraph C {{ start [shape=Mdiamond]; exit [shape=Msquare]; \
         s [shape=parallelogram, script=\"{}\"]; \
         note [shape=parallelogram, label=\"{{{{ inputs.t }}}}\", script=\"true\"]; \
         start -> s -> note -> exit }}",
        escape(script)
    );
    workflow(
        repo,
        "parent",
        &format!(
            "digraph P {{ start [shape=Mdiamond]; exit [shape=Msquare]\n  \
             manage [shape=house, stack.child_dot_source=\"{}\"]\n  \
             start -> manage -> exit }}\n",
            escape(&child)
        ),
    )
}

#[test]
fn an_inline_child_workflow_gets_values_as_data_and_no_nodes_from_them() {
    // The last one closes the label and declares a node of its own, reachable from start.
    let graph_attack = "x\"]; start -> evil; evil [shape=parallelogram, script=\"touch PWNED\"]; \
                        y [label=\"";
    for attack in ATTACKS[..6].iter().copied().chain([graph_attack]) {
        let repo = TestRepo::new();
        let path = inline_family(&repo, "printf %s '{{ inputs.t }}'");
        let ran = run(&repo, &path, &["--input", &format!("t={attack}")]);
        assert_eq!(ran.code, 0, "{attack:?}: {}", ran.stderr);
        assert!(ran.stderr.contains("manage@1  succeeded"), "{}", ran.stderr);
        assert_eq!(pwned(&repo.root), Vec::<String>::new(), "{attack:?}");
        let child = child_of(&repo, &ran.id);
        assert_eq!(
            meta_file(&repo, &child, "stages/002-s@1/stdout.log"),
            attack,
            "{attack:?}"
        );
        assert_eq!(
            recorded_nodes(&repo, &child),
            ["exit", "note", "s", "start"]
        );
    }
}

#[test]
fn a_child_workflow_file_gets_values_as_data() {
    let repo = TestRepo::new();
    let dir = repo.root.join("flows");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("child.fabro"),
        "digraph C { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
         s [shape=parallelogram, script=\"printf %s '{{ inputs.t }}'\"]\n  start -> s -> exit }\n",
    )
    .unwrap();
    let parent = dir.join("parent.fabro");
    std::fs::write(
        &parent,
        "digraph P { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
         manage [shape=house, stack.child_workflow=\"child.fabro\"]\n  start -> manage -> exit }\n",
    )
    .unwrap();
    let attack = ATTACKS[0];
    let ran = run(&repo, &parent, &["--input", &format!("t={attack}")]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(pwned(&repo.root), Vec::<String>::new());
    let child = child_of(&repo, &ran.id);
    assert_eq!(
        meta_file(&repo, &child, "stages/002-s@1/stdout.log"),
        attack
    );
    // The child records the values it was rendered with, so that it resumes the same.
    let record: serde_json::Value =
        serde_json::from_str(&meta_file(&repo, &child, "run.json")).unwrap();
    assert_eq!(record["spec"]["inputs"]["t"], attack);
}
