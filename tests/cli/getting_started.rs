//! The first minutes: `git fabro --help` maps the commands by group with an example each, and
//! `scripts/demo` installs git-fabro with its man pages where `man` (and so
//! `git fabro --help` through git) finds them, then runs end to end.

use std::path::Path;

use crate::common::{TestRepo, read_file, run_ok};

#[test]
fn help_groups_the_commands_with_one_example_each() {
    let repo = TestRepo::new();
    for flag in ["-h", "--help"] {
        let help = run_ok(repo.fabro().arg(flag));
        let mut at = 0;
        for group in [
            "Record a run:",
            "Inspect runs:",
            "Travel in time:",
            "Share the result:",
            "Run on many machines:",
            "Keep an agent framework's checkpoints:",
            "Maintain:",
        ] {
            let found = help[at..]
                .find(group)
                .unwrap_or_else(|| panic!("{group} in order in {help}"));
            at += found + group.len();
        }
        assert_eq!(help.matches("  e.g. git fabro ").count(), 7, "{help}");
        assert!(
            help.contains("  checkpoint   Record a completed node"),
            "{help}"
        );
        assert!(help.contains("--no-pager"), "{help}");
        assert!(
            help.lines().skip(1).all(|l| l.chars().count() <= 100),
            "{help}"
        );
    }
    let page = read_file(Path::new(env!("CARGO_MANIFEST_DIR")).join("man/git-fabro.1"));
    assert!(
        page.contains(".SS \"Travel in time\""),
        "the man page has the groups too"
    );
}

#[test]
fn the_demo_installs_the_man_pages_where_man_finds_them_and_runs() {
    let repo = TestRepo::new();
    let stub = repo.root.join("stub");
    let install_root = repo.root.join("install");
    // Stands in for `cargo install`: the binary under test is already built.
    crate::common::write_file(
        &stub.join("cargo"),
        "#!/bin/sh\nmkdir -p \"$CARGO_INSTALL_ROOT/bin\" && echo \"$*\" >> \"$CARGO_INSTALL_ROOT/cargo-args\" && cp \"$FABRO_BUILT\" \"$CARGO_INSTALL_ROOT/bin/git-fabro\"\n",
    );
    {
        use std::os::unix::fs::PermissionsExt;
        let cargo = stub.join("cargo");
        std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = format!(
        "{}:{}",
        stub.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/demo");
    let out = repo
        .command(&demo)
        .env("PATH", &path)
        .env("CARGO_INSTALL_ROOT", &install_root)
        .env("FABRO_BUILT", assert_cmd::cargo::cargo_bin("git-fabro"))
        .env_remove("MANPATH")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("==> installing the man pages"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(install_root.join("cargo-args")).unwrap(),
        "install --locked --path . --profile release\n"
    );
    assert!(stderr.contains("landed run"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("plan@2"), "{stdout}");
    // The engine ran the example: its check failed once, the fix ran, the check passed.
    assert!(stderr.contains("check@1  failed"), "{stderr}");
    assert!(stderr.contains("check@2  succeeded"), "{stderr}");
    assert!(stdout.contains("add 2 3 = 5"), "{stdout}");
    let page = install_root.join("share/man/man1/git-fabro-checkpoint.1");
    assert!(page.is_file(), "{stderr}");
    // With the binary's directory on PATH, man finds the page git opens for `--help`.
    let Ok(found) = repo
        .command("man")
        .args(["-w", "git-fabro"])
        .env(
            "PATH",
            format!("{}:{path}", install_root.join("bin").display()),
        )
        .env_remove("MANPATH")
        .output()
    else {
        return; // no man on this machine
    };
    assert_eq!(
        String::from_utf8_lossy(&found.stdout).trim(),
        install_root
            .join("share/man/man1/git-fabro.1")
            .display()
            .to_string()
    );
}
