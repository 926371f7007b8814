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
        let files = repo.git(&[
            "ls-tree",
            "-r",
            "--name-only",
            &format!("fabro/run/{}", ran.id),
        ]);
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
