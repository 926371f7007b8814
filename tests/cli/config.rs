//! One precedence for every setting: flags > run.toml > settings.toml > git config > defaults.

use serde_json::Value;

use crate::common::{TestRepo, run_err, write_file};

fn started(repo: &TestRepo, args: &[&str]) -> Value {
    let mut all = vec!["start", "--json"];
    all.extend_from_slice(args);
    serde_json::from_str(&repo.ok(&all)).unwrap()
}

#[test]
fn the_runs_directory_comes_from_git_config_then_settings_then_the_flag() {
    let repo = TestRepo::new();
    let from_git = repo.root.join("git-runs");
    repo.git(&["config", "fabro.runsDir", from_git.to_str().unwrap()]);
    let run = started(&repo, &[]);
    assert!(
        run["run_dir"]
            .as_str()
            .unwrap()
            .starts_with(from_git.to_str().unwrap()),
        "{run}"
    );

    let from_settings = repo.root.join("settings-runs");
    repo.write_settings(&format!(
        "[runs]\ndir = {:?}\n",
        from_settings.to_str().unwrap()
    ));
    let run = started(&repo, &[]);
    assert!(
        run["run_dir"]
            .as_str()
            .unwrap()
            .starts_with(from_settings.to_str().unwrap()),
        "{run}"
    );
    // Commands find a run directory in the configured place.
    repo.checkpoint(run["run_id"].as_str().unwrap(), "n");
    assert!(
        std::path::Path::new(run["run_dir"].as_str().unwrap())
            .join("checkpoint.json")
            .is_file()
    );

    let from_flag = repo.root.join("flag-run");
    let run = started(&repo, &["--run-dir", from_flag.to_str().unwrap()]);
    assert_eq!(
        run["run_dir"].as_str().unwrap(),
        from_flag.to_str().unwrap()
    );
}

#[test]
fn identity_layers_run_toml_over_settings_over_git_config() {
    let repo = TestRepo::new();
    repo.git(&["config", "fabro.author.name", "From Git"]);
    repo.git(&["config", "fabro.author.email", "git@example.com"]);
    repo.write_settings("[git.author]\nname = \"From Settings\"\n");
    let plain = started(&repo, &[]);
    let id = plain["run_id"].as_str().unwrap();
    let sha = repo.checkpoint(id, "a");
    assert_eq!(
        repo.git(&["log", "-1", "--format=%an <%ae>", &sha]).trim(),
        "From Settings <git@example.com>"
    );

    write_file(
        &repo.root.join("run.toml"),
        "[git.author]\nname = \"From Run\"\nemail = \"run@example.com\"\n",
    );
    let run = started(&repo, &["--config", "../run.toml"]);
    let id = run["run_id"].as_str().unwrap();
    let sha = repo.checkpoint(id, "a");
    assert_eq!(
        repo.git(&["log", "-1", "--format=%an <%ae>", &sha]).trim(),
        "From Run <run@example.com>"
    );
}

#[test]
fn exclude_globs_from_git_config_apply_when_no_toml_sets_them() {
    let repo = TestRepo::new();
    repo.git(&["config", "--add", "fabro.excludeGlob", "*.secret"]);
    repo.git(&["config", "--add", "fabro.excludeGlob", "cache-dir/"]);
    let run = repo.start();
    for path in ["a.secret", "cache-dir/x", "kept.txt"] {
        write_file(&run.worktree.join(path), "x\n");
    }
    repo.checkpoint(&run.id, "n");
    let files = repo.files_in(&format!("fabro/run/{}", run.id));
    assert!(
        files.contains("kept.txt") && !files.contains("secret") && !files.contains("cache-dir"),
        "{files}"
    );
}

#[test]
fn the_default_remote_comes_from_config() {
    let repo = TestRepo::new();
    let bare = repo.add_bare_remote("backup", "elsewhere.git");
    repo.git(&["config", "fabro.remote", "backup"]);
    let run = repo.start();
    repo.ok(&["push", &run.id]);
    assert!(repo.git_in(&bare, &["for-each-ref"]).contains(&run.id));
}

#[test]
fn malformed_and_unknown_settings_name_the_file_and_line() {
    let repo = TestRepo::new();
    repo.write_settings("[checkpoint]\nexclude_globs = [\"a\"]\ncolour = true\n");
    let (code, err) = run_err(repo.fabro().arg("start"));
    assert_eq!(code, 2);
    assert!(
        err.contains("settings.toml") && err.contains("line 3") && err.contains("colour"),
        "{err}"
    );
    repo.write_settings("[checkpoint\n");
    let (code, err) = run_err(repo.fabro().arg("start"));
    assert_eq!(code, 2);
    assert!(
        err.contains("settings.toml") && err.contains("line 1"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
}
