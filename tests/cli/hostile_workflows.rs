//! Workflows written to hurt: `@file` prompts and child workflow files that reach outside the
//! workflow's directory and the repository (an absolute path, `..`, a symlink leading out),
//! and workflows that
//! `validate` passed and `run` then refused half-way or ran wrong (a node id no checkpoint
//! holds, a parallel node with two branches to one node, a wait whose duration cannot be
//! read). Each is a validation error naming the node, from `validate` and from `run` alike,
//! and `run` writes nothing for it.

use std::path::{Path, PathBuf};

use crate::common::{TestRepo, write_file};

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `git fabro ARGS WORKFLOW`: (exit code, stdout + stderr).
fn fabro(repo: &TestRepo, args: &[&str], workflow: &Path) -> (i32, String) {
    let out = repo
        .fabro()
        .args(args)
        .arg(workflow)
        .output()
        .expect("git-fabro runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// The refs under `refs/heads/fabro/`: a run that was started has some.
fn runs(repo: &TestRepo) -> String {
    repo.git(&["for-each-ref", "refs/heads/fabro/"])
}

/// `validate` (exit 1, as Fabro's) and `run` (exit 2) both refuse `workflow` with `expected` in their output, and
/// `run` starts no run.
fn refused_by_validate_and_run(repo: &TestRepo, workflow: &Path, expected: &[&str]) -> String {
    let (code, validated) = fabro(repo, &["validate"], workflow);
    assert_eq!(code, 1, "{validated}");
    let (code, ran) = fabro(repo, &["run", "--agent", "cat"], workflow);
    assert_eq!(code, 2, "{ran}");
    for text in expected {
        assert!(validated.contains(text), "validate: {validated}");
        assert!(ran.contains(text), "run: {ran}");
    }
    assert_eq!(runs(repo), "", "run started a run");
    ran
}

fn prompt_workflow(dir: &Path, reference: &str) -> PathBuf {
    let file = dir.join("flow.fabro");
    write_file(
        &file,
        &format!(
            "digraph Flow {{\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  \
             ask [shape=box, prompt=\"@{reference}\"]\n  start -> ask -> exit\n}}\n"
        ),
    );
    file
}

#[test]
fn file_prompts_never_read_outside_the_workflow_directory_or_the_repository() {
    let repo = TestRepo::new();
    let flows = repo.path.join("flows");
    let secret = repo.write_beside("secret.txt", "TOP SECRET\n");
    std::fs::create_dir_all(&flows).unwrap();
    std::os::unix::fs::symlink(&secret, flows.join("link.md")).unwrap();
    for reference in [
        "/proc/self/environ".to_owned(),
        path(&secret).to_owned(),
        "../../secret.txt".to_owned(),
        "link.md".to_owned(),
    ] {
        let workflow = prompt_workflow(&flows, &reference);
        let ran = refused_by_validate_and_run(
            &repo,
            &workflow,
            &[
                "[node: ask]",
                "unresolved file reference",
                "(unresolved_file_ref)",
            ],
        );
        assert!(!ran.contains("TOP SECRET"), "{ran}");
    }
}

#[test]
fn file_prompts_inside_the_workflow_directory_or_the_repository_are_read() {
    let repo = TestRepo::new();
    let flows = repo.path.join("flows");
    write_file(&flows.join("plan.md"), "Plan beside the workflow\n");
    write_file(
        &repo.path.join("prompts/shared.md"),
        "Shared in the repository\n",
    );
    for reference in ["plan.md", "../prompts/shared.md"] {
        let workflow = prompt_workflow(&flows, reference);
        let (code, out) = fabro(&repo, &["validate"], &workflow);
        assert_eq!(code, 0, "{reference}: {out}");
        assert!(!out.contains("unresolved_file_ref"), "{out}");
    }
}

fn pipeline(repo: &TestRepo, body: &str) -> PathBuf {
    repo.write_beside(
        "flow.fabro",
        &format!("digraph Flow {{\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n{body}}}\n"),
    )
}

#[test]
fn a_node_id_no_checkpoint_can_hold_is_refused_before_the_run_starts() {
    let repo = TestRepo::new();
    let long = "n".repeat(129);
    let workflow = pipeline(
        &repo,
        &format!("  {long} [shape=parallelogram, script=\"true\"]\n  start -> {long} -> exit\n"),
    );
    refused_by_validate_and_run(
        &repo,
        &workflow,
        &[
            &format!("[node: {long}]"),
            "longer than 128 characters",
            "(node_id_recordable)",
        ],
    );
}

#[test]
fn a_parallel_node_with_two_branches_to_one_node_is_refused_before_the_run_starts() {
    let repo = TestRepo::new();
    let workflow = pipeline(
        &repo,
        "  fan [shape=component]\n  a [shape=parallelogram, script=\"true\"]\n  \
         join [shape=tripleoctagon]\n  start -> fan\n  fan -> a\n  fan -> a\n  a -> join\n  \
         join -> exit\n",
    );
    refused_by_validate_and_run(
        &repo,
        &workflow,
        &[
            "[node: fan]",
            "two branches to 'a'",
            "(parallel_branches_distinct)",
        ],
    );
}

#[test]
fn a_wait_whose_duration_cannot_be_read_is_refused_before_the_run_starts() {
    let repo = TestRepo::new();
    let workflow = pipeline(
        &repo,
        "  pause [shape=insulator, duration=\"ten minutes\"]\n  start -> pause -> exit\n",
    );
    refused_by_validate_and_run(
        &repo,
        &workflow,
        &[
            "[node: pause]",
            "duration that cannot be read: ten minutes",
            "(wait_duration_valid)",
        ],
    );
}

/// The metadata branches in the repository: one per run.
fn run_count(repo: &TestRepo) -> usize {
    repo.git(&["for-each-ref", "refs/heads/fabro/meta/"])
        .lines()
        .count()
}

fn manager_workflow(dir: &Path, name: &str, child: &str) -> PathBuf {
    let file = dir.join(format!("{name}.fabro"));
    write_file(
        &file,
        &format!(
            "digraph {name} {{\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  \
             again [shape=house, stack.child_workflow=\"{child}.fabro\"]\n  \
             start -> again -> exit\n}}\n"
        ),
    );
    file
}

#[test]
fn a_manager_loop_whose_child_is_an_ancestor_starts_no_child() {
    let repo = TestRepo::new();
    let flows = repo.root.join("flows");
    let itself = manager_workflow(&flows, "itself", "itself");
    let (_, out) = fabro(&repo, &["run"], &itself);
    assert!(
        out.contains("manager loop again: its child workflow is the workflow of run")
            && out.contains("a workflow that starts itself never ends"),
        "{out}"
    );
    assert_eq!(run_count(&repo), 1, "{out}");

    // A starts B, whose child is A again: refused one level down.
    manager_workflow(&flows, "b", "a");
    let a = manager_workflow(&flows, "a", "b");
    let (_, out) = fabro(&repo, &["run"], &a);
    assert_eq!(run_count(&repo), 3, "{out}");
    let metas = repo.git(&[
        "for-each-ref",
        "--format=%(refname)",
        "refs/heads/fabro/meta/",
    ]);
    let refused = metas.lines().any(|meta| {
        let found = repo.git_output(
            &repo.path,
            &[
                "grep",
                "-q",
                "its child workflow is the workflow of run",
                meta,
            ],
        );
        found.status.success()
    });
    assert!(refused, "no run recorded the refusal");
}

#[test]
fn nested_template_loops_stop_with_an_error_naming_the_node() {
    let repo = TestRepo::new();
    let workflow = pipeline(
        &repo,
        "  loop [shape=parallelogram, script=\"{% for a in range(100000) %}{% for b in \
         range(100000) %}x{% endfor %}{% endfor %}\"]\n  start -> loop -> exit\n",
    );
    let (code, out) = fabro(&repo, &["run"], &workflow);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("node loop, attribute script: template too costly to render"),
        "{out}"
    );
    assert_eq!(runs(&repo), "", "run started a run");
}

#[test]
fn a_child_workflow_file_outside_the_workflow_directory_and_the_repository_does_not_run() {
    let repo = TestRepo::new();
    let flows = repo.root.join("flows");
    let outside = repo.root.join("elsewhere");
    let marker = repo.root.join("PWNED");
    write_file(
        &outside.join("evil.fabro"),
        &format!(
            "digraph evil {{ start [shape=Mdiamond]; exit [shape=Msquare]\n  \
             s [shape=parallelogram, script=\"touch {}\"]\n  start -> s -> exit }}\n",
            marker.display()
        ),
    );
    std::fs::create_dir_all(&flows).unwrap();
    std::os::unix::fs::symlink(outside.join("evil.fabro"), flows.join("link.fabro")).unwrap();
    let evil = outside.join("evil");
    // `manager_workflow` names `<child>.fabro`.
    for named in [path(&evil), "../elsewhere/evil", "link"] {
        let parent = manager_workflow(&flows, "parent", named);
        let (code, out) = fabro(&repo, &["run"], &parent);
        assert_eq!(code, 0, "{named}: {out}");
        assert!(out.contains("again@1  failed"), "{named}: {out}");
        let why = if named.starts_with('/') {
            "is not a relative path beside the workflow"
        } else {
            "leads outside the workflow's directory and the repository"
        };
        assert!(out.contains(why), "{named}: {out}");
        assert!(!marker.exists(), "{named}: the child ran");
    }
    assert_eq!(run_count(&repo), 3, "a child run was started");
}

#[test]
fn imports_that_splice_more_than_one_workflow_may_hold_are_refused_before_the_run_starts() {
    let repo = TestRepo::new();
    let dir = repo.root.join("flows");
    // 1.2 MB of text in one node: twenty imports would splice 24 MB into the graph.
    write_file(
        &dir.join("part.fabro"),
        &format!(
            "digraph part {{ start [shape=Mdiamond]; exit [shape=Msquare]\n  \
             big [shape=parallelogram, script=\"true\", label=\"{}\"]\n  start -> big -> exit }}\n",
            "x".repeat(1_200_000)
        ),
    );
    let imports: String = (0..20)
        .map(|i| format!("  p{i} [import=\"part.fabro\"]\n"))
        .collect();
    let chain: Vec<String> = (0..20).map(|i| format!("p{i}")).collect();
    let host = dir.join("host.fabro");
    write_file(
        &host,
        &format!(
            "digraph host {{\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n{imports}  \
             start -> {} -> exit\n}}\n",
            chain.join(" -> ")
        ),
    );
    let out = refused_by_validate_and_run(
        &repo,
        &host,
        &[
            "the workflow and its imports come to more than 16 MiB",
            "(import_error)",
        ],
    );
    // The first thirteen fit; each one after is refused, by its node.
    assert!(
        out.contains("[node: p13]") && out.contains("[node: p19]"),
        "{out}"
    );
    assert!(!out.contains("[node: p12]"), "{out}");
}
