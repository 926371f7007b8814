use std::collections::BTreeSet;
use std::process::Child;

use crate::common::TestRepo;

fn wait_all(children: Vec<(String, Child)>) -> Vec<(String, i32, String)> {
    children
        .into_iter()
        .map(|(node, child)| {
            let out = child.wait_with_output().unwrap();
            (
                node,
                out.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        })
        .collect()
}

#[test]
fn concurrent_checkpoints_of_one_run_win_whole_or_exit_3() {
    let repo = TestRepo::new();
    let run = repo.start();
    let children: Vec<(String, Child)> = (0..8)
        .map(|i| {
            let node = format!("n{i}");
            let child = repo
                .fabro()
                .args(["checkpoint", "--run", &run.id, "--node", &node])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (node, child)
        })
        .collect();
    let results = wait_all(children);
    let mut succeeded = BTreeSet::new();
    for (node, code, err) in &results {
        match code {
            0 => {
                succeeded.insert(node.clone());
            }
            3 => assert!(err.starts_with("error: ") && err.contains("hint:"), "{err}"),
            other => panic!("{node} exited {other}: {err}"),
        }
    }
    assert!(!succeeded.is_empty());
    let log = repo.log_json(&run.id);
    let recorded: BTreeSet<String> = log
        .iter()
        .map(|e| e["node_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        recorded, succeeded,
        "the timeline holds exactly the successful calls"
    );
    let counts: Vec<u64> = log
        .iter()
        .map(|e| e["completed"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, (1..=log.len() as u64).collect::<Vec<_>>());
    let fsck = repo.git_output(&repo.path, &["fsck", "--strict"]);
    assert!(
        fsck.status.success(),
        "{}",
        String::from_utf8_lossy(&fsck.stderr)
    );
    // A later checkpoint builds on whatever won.
    repo.checkpoint(&run.id, "after");
    assert_eq!(repo.log_json(&run.id).len(), log.len() + 1);
}

#[test]
fn runs_in_one_repository_do_not_block_each_other() {
    let repo = TestRepo::new();
    let runs: Vec<_> = (0..4).map(|_| repo.start()).collect();
    let children: Vec<(String, Child)> = runs
        .iter()
        .map(|run| {
            let child = repo
                .fabro()
                .args(["checkpoint", "--run", &run.id, "--node", "work"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (run.id.clone(), child)
        })
        .collect();
    for (id, code, err) in wait_all(children) {
        assert_eq!(code, 0, "{id}: {err}");
    }
    for run in &runs {
        assert_eq!(repo.log_json(&run.id).len(), 1);
    }
}
