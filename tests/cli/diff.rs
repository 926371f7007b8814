use crate::common::{TestRepo, write_file};

#[test]
fn diff_between_checkpoints_and_against_the_worktree() {
    let repo = TestRepo::new();
    let run = repo.start();
    write_file(&run.worktree.join("a.txt"), "one\n");
    let first = repo.checkpoint(&run.id, "one");
    write_file(&run.worktree.join("a.txt"), "one\ntwo\n");
    write_file(&run.worktree.join("b.txt"), "b\n");
    let second = repo.checkpoint(&run.id, "two");

    assert_eq!(
        repo.ok(&["diff", &run.id]),
        repo.git(&["diff", &first, &second])
    );
    let base = repo.git(&["rev-parse", "main"]);
    assert_eq!(
        repo.ok(&["diff", &run.id, "@1"]),
        repo.git(&["diff", &first, &second])
    );
    assert_eq!(
        repo.ok(&["diff", &run.id, "@2", "@1"]),
        repo.git(&["diff", &second, &first])
    );
    let _ = base;

    write_file(&run.worktree.join("c.txt"), "uncommitted\n");
    let worktree = repo.ok(&["diff", &run.id, "--worktree"]);
    assert!(
        worktree.contains("+++ b/c.txt") && worktree.contains("+uncommitted"),
        "{worktree}"
    );
    let stat = repo.ok(&["diff", &run.id, "--stat"]);
    assert!(stat.contains("a.txt") && stat.contains("b.txt"), "{stat}");
    assert!(
        stat.contains("2 files changed, 2 insertions(+), 0 deletions(-)"),
        "{stat}"
    );
}

#[test]
fn the_first_checkpoint_is_compared_with_the_base() {
    let repo = TestRepo::new();
    let run = repo.start();
    write_file(&run.worktree.join("a.txt"), "a\n");
    let first = repo.checkpoint(&run.id, "one");
    assert_eq!(
        repo.ok(&["diff", &run.id]),
        repo.git(&["diff", "main", &first])
    );
}
