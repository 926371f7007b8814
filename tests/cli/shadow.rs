//! Directories outside git: runs live in a shadow repository under the fabro home.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{TestRepo, run_ok, write_file};

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            for (k, v) in files(&path) {
                out.insert(format!("{}/{k}", entry.file_name().to_string_lossy()), v);
            }
        } else {
            out.insert(
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read(&path).unwrap(),
            );
        }
    }
    out
}

#[test]
fn a_directory_outside_git_gets_a_shadow_repository_and_every_command_works() {
    let repo = TestRepo::new();
    let dir = repo.root.join("plain");
    write_file(&dir.join("notes.md"), "first\n");
    write_file(&dir.join("src/main.py"), "print(1)\n");
    let fabro = |args: &[&str]| run_ok(repo.fabro_in(&dir).args(args));

    let started: Value = serde_json::from_str(&fabro(&["start", "--json"])).unwrap();
    let id = started["run_id"].as_str().unwrap().to_owned();
    assert_eq!(started["in_place"], true);
    assert!(
        !dir.join(".git").exists(),
        "no .git in the user's directory"
    );
    let shadows: Vec<_> = std::fs::read_dir(repo.home.join("checkpoints"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(shadows.len(), 1);
    assert_eq!(
        shadows[0].file_name().len(),
        16,
        "named by 16 hex digits of sha256(path)"
    );

    let before = files(&dir);
    write_file(&dir.join("notes.md"), "second\n");
    let after_edit = files(&dir);
    fabro(&["checkpoint", "--node", "edit"]);
    fabro(&["snapshot"]);
    fabro(&["checkpoint", "--node", "again"]);
    fabro(&["log", &id]);
    fabro(&["show", &id, "edit"]);
    fabro(&["diff", &id, "--stat"]);
    let ps: Vec<Value> = serde_json::from_str(&fabro(&["ps", "--json"])).unwrap();
    assert_eq!(ps[0]["run_id"], id.as_str());
    assert_eq!(
        files(&dir),
        after_edit,
        "nothing but restore writes in the directory"
    );
    assert!(!dir.join(".git").exists());

    // Commands from a subdirectory find the same shadow repository.
    let log: Vec<Value> = serde_json::from_str(&run_ok(
        repo.fabro_in(&dir.join("src")).args(["log", "--json"]),
    ))
    .unwrap();
    assert_eq!(log.len(), 2);

    write_file(&dir.join("later.txt"), "x\n");
    fabro(&["restore", "@1"]);
    assert_eq!(files(&dir), after_edit);
    let _ = before;

    fabro(&["finish"]);
    let forked = fabro(&["fork", &id, "@1"]).trim().to_owned();
    let rewound = fabro(&["rewind", &id, "@2"]).trim().to_owned();
    let state: Value = serde_json::from_str(&fabro(&["resume", &forked])).unwrap();
    assert!(Path::new(state["worktree"].as_str().unwrap()).is_dir());
    fabro(&["archive", &forked]);
    fabro(&["gc", "--older-than", "0"]);
    // The rewound source and the archived fork are gone; the replacement stays.
    let ps: Vec<Value> = serde_json::from_str(&fabro(&["ps", "--all", "--json"])).unwrap();
    assert_eq!(
        ps.iter()
            .map(|r| r["run_id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        [rewound.as_str()]
    );
    assert!(!dir.join(".git").exists());
}
