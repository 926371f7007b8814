//! Signed submissions: a worker runs, without --trust, the runs whose submission a key of its
//! allowed-signers file signed, and nothing else: not an unsigned one, not a signed
//! submission moved onto another run's queue ref.

use std::path::Path;
use std::process::Command;

use super::{Pool, held_at_two, path};
use crate::common::{run_err, run_ok};

/// An SSH key for the submitter, set as its git signing key; returns the public key's line.
fn signing_key(pool: &Pool) -> String {
    let key = pool.repo.root.join("submitter-key");
    let made = Command::new("ssh-keygen")
        .args([
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            "submitter",
            "-f",
            path(&key),
        ])
        .status()
        .unwrap();
    assert!(made.success());
    pool.repo.git(&["config", "gpg.format", "ssh"]);
    pool.repo.git(&["config", "user.signingKey", path(&key)]);
    std::fs::read_to_string(key.with_extension("pub")).unwrap()
}

/// Machine `name`'s fabro home allows `public_key` to sign submissions.
fn allows(pool: &Pool, machine: &Path, public_key: &str) {
    let home = pool.fabro_home(machine);
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("allowed_signers"),
        format!("submitter@example.invalid namespaces=\"git\" {public_key}"),
    )
    .unwrap();
    std::fs::write(
        home.join("settings.toml"),
        "[worker]\nallowed_signers = \"allowed_signers\"\n",
    )
    .unwrap();
}

#[test]
fn a_worker_runs_the_submissions_an_allowed_key_signed_and_no_other() {
    let pool = Pool::new();
    std::fs::write(pool.repo.root.join("go"), "").unwrap();
    let public_key = signing_key(&pool);
    let worker = pool.machine("worker-1");
    allows(&pool, &worker, &public_key);
    let signed = pool.submit_with(&held_at_two(&pool.repo.root), &["--sign"]);
    let unsigned = pool.submit(&held_at_two(&pool.repo.root));
    let forged = pool.submit(&held_at_two(&pool.repo.root));
    // The signed submission put on another run's queue ref vouches for nothing there.
    let signed_queue = pool.remote_git(&["rev-parse", &format!("refs/fabro/queue/{signed}")]);
    pool.remote_git(&[
        "update-ref",
        &format!("refs/fabro/queue/{forged}"),
        signed_queue.trim(),
    ]);

    for refused in [&unsigned, &forged] {
        let (code, stderr) = run_err(
            &mut pool.fabro_on(&worker, &["worker", "--remote", "origin", "--run", refused]),
        );
        assert_eq!(code, 5, "{stderr}");
        assert!(
            stderr.contains(&format!(
                "run {refused}'s submission is not signed by a key of "
            )),
            "{stderr}"
        );
    }
    let ran = pool
        .fabro_on(&worker, &["worker", "--remote", "origin", "--run", &signed])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(ran.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "run {signed} was submitted by submitter@example.invalid, whom this machine allows\n"
        )),
        "{stderr}"
    );
    assert_eq!(
        pool.subjects(&signed),
        ["three (succeeded)", "two (succeeded)", "one (succeeded)"]
    );
    let mut left = [&unsigned, &forged];
    left.sort();
    let left: String = left
        .iter()
        .map(|id| format!("refs/fabro/queue/{id}\n"))
        .collect();
    assert_eq!(pool.pool_refs(), left);
    run_ok(&mut pool.fabro_on(&worker, &["fsck"]));
}
