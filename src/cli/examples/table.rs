//! The table of examples, one entry a command: the data of `examples.rs`, kept apart from the
//! code that attaches it.

use super::{Example, ex};

/// The examples of each command, by its words after `git fabro` (`""` is the root).
pub(super) const EXAMPLES: &[(&str, &[Example])] = &[
    (
        "",
        &[
            ex(
                "git fabro run examples/review-gate.fabro",
                "Run a workflow: one commit per completed node, on the branch fabro/run/<id>",
            ),
            ex(
                "git fabro start --goal \"Fix the flaky test\"",
                "Start a run by hand (an agent then checkpoints it node by node)",
            ),
            ex("git fabro log", "The current run's timeline"),
            ex(
                "git fabro land RUN",
                "Its changes as one commit on your branch",
            ),
        ],
    ),
    (
        "start",
        &[
            ex(
                "git fabro start --goal \"Fix the flaky test\"",
                "Start a run in a new worktree; prints its id",
            ),
            ex(
                "git fabro start --in-place --workflow plan.fabro",
                "Work in this directory itself, recording the workflow it follows",
            ),
            ex(
                "git fabro start --base main --label ticket=42 --json",
                "Start at main with a label, and print the run as JSON",
            ),
        ],
    ),
    (
        "checkpoint",
        &[
            ex(
                "git fabro checkpoint --node plan --next code",
                "Record that node plan completed and the run goes on with code",
            ),
            ex(
                "git fabro checkpoint --node test --status failed --attach log=test.log",
                "Record a failed node with its log stored alongside",
            ),
            ex(
                "git fabro checkpoint --node code --context 'tries=2' --wait",
                "Record a context value; on a lost race, try again for up to 10s",
            ),
        ],
    ),
    (
        "snapshot",
        &[
            ex(
                "git fabro snapshot",
                "Save the run's files now, without completing a node",
            ),
            ex(
                "git fabro snapshot --reason \"before the refactor\" src/",
                "Save only src/, saying why",
            ),
        ],
    ),
    (
        "finish",
        &[
            ex(
                "git fabro finish",
                "Finish the current run and remove its worktree",
            ),
            ex(
                "git fabro finish RUN --status failed --reason \"tests never passed\"",
                "Finish a run as failed",
            ),
            ex(
                "git fabro finish --keep-worktree",
                "Finish it but keep the worktree to look at",
            ),
        ],
    ),
    (
        "log",
        &[
            ex("git fabro log", "The current run's timeline"),
            ex(
                "git fabro log RUN --all",
                "A run's timeline with the snapshots between checkpoints",
            ),
            ex("git fabro log --json", "The timeline as a JSON array"),
        ],
    ),
    (
        "ps",
        &[
            ex("git fabro ps", "The runs of this repository"),
            ex(
                "git fabro ps --status running --status blocked",
                "Only the runs still going or waiting at a gate",
            ),
            ex(
                "git fabro ps --all --label ticket=42 --json",
                "Every run with a label, archived ones too, as JSON",
            ),
        ],
    ),
    (
        "status",
        &[
            ex(
                "git fabro status",
                "Where the current run stands, else every unfinished run",
            ),
            ex("git fabro status RUN --json", "One run's state as JSON"),
        ],
    ),
    (
        "show",
        &[
            ex("git fabro show", "The current run's latest checkpoint"),
            ex("git fabro show RUN plan@2", "The second visit of node plan"),
            ex(
                "git fabro show RUN @3 --file status.json",
                "The third checkpoint's status.json, byte for byte",
            ),
        ],
    ),
    (
        "diff",
        &[
            ex(
                "git fabro diff RUN @1 @2 --stat",
                "What changed between the first two checkpoints, as a summary",
            ),
            ex(
                "git fabro diff --worktree",
                "The current run's changes since its latest checkpoint",
            ),
            ex(
                "git fabro diff RUN plan code --name-only",
                "The files changed between nodes plan and code",
            ),
        ],
    ),
    (
        "graph",
        &[
            ex(
                "git fabro graph examples/pipeline.fabro",
                "A workflow as DOT, for Graphviz",
            ),
            ex(
                "git fabro graph RUN --format svg",
                "A run as SVG, each node with its status",
            ),
            ex(
                "git fabro graph RUN --format mermaid",
                "A run as Mermaid, for a pull request",
            ),
        ],
    ),
    (
        "land",
        &[
            ex(
                "git fabro land RUN",
                "A finished run's changes as one commit on your branch",
            ),
            ex(
                "git fabro land RUN --merge --into main",
                "A merge commit of the run branch on main instead",
            ),
        ],
    ),
    (
        "path",
        &[
            ex("git fabro path", "The directory of the current run's files"),
            ex("git fabro path RUN", "The directory of a run's files"),
        ],
    ),
    (
        "fork",
        &[
            ex(
                "git fabro fork RUN plan@1",
                "A new run starting where node plan first completed",
            ),
            ex("git fabro fork RUN --list", "The checkpoints to fork at"),
        ],
    ),
    (
        "rewind",
        &[
            ex(
                "git fabro rewind RUN plan@1",
                "Go back to node plan's first checkpoint; the old run is archived",
            ),
            ex(
                "git fabro rewind --list",
                "The current run's checkpoints to rewind to",
            ),
        ],
    ),
    (
        "resume",
        &[
            ex(
                "git fabro resume RUN",
                "Rebuild a run's worktree and continue it (the engine's runs) or print its state",
            ),
            ex(
                "git fabro resume RUN --answer review=A",
                "Continue a run blocked at the human gate review with choice A",
            ),
            ex(
                "git fabro resume RUN -- cargo test",
                "Run a command in the run's worktree, as the run",
            ),
        ],
    ),
    (
        "restore",
        &[
            ex(
                "git fabro restore @2",
                "Make the current run's worktree match its second checkpoint",
            ),
            ex(
                "git fabro restore --last-success --dry-run",
                "What going back to the latest succeeded checkpoint would change",
            ),
            ex(
                "git fabro restore plan -- src/lib.rs",
                "Only src/lib.rs, as node plan's latest visit left it",
            ),
        ],
    ),
    (
        "undo",
        &[
            ex(
                "git fabro undo",
                "Take back the last turn of the latest agent session in this checkout",
            ),
            ex(
                "git fabro undo RUN --dry-run",
                "What taking back the run's last step would change",
            ),
        ],
    ),
    (
        "archive",
        &[
            ex("git fabro archive RUN", "Hide a run from `ps`"),
            ex("git fabro archive RUN1 RUN2", "Hide several"),
        ],
    ),
    (
        "unarchive",
        &[
            ex(
                "git fabro unarchive RUN",
                "Give a run back the status it had",
            ),
            ex("git fabro unarchive RUN1 RUN2", "Give several theirs"),
        ],
    ),
    (
        "gc",
        &[
            ex(
                "git fabro gc --dry-run",
                "What would be deleted: runs archived 14 days ago or more",
            ),
            ex(
                "git fabro gc --older-than 2d --finished-older-than 30d",
                "Delete runs archived 2 days ago or more, and runs finished 30 days ago or more",
            ),
        ],
    ),
    (
        "fsck",
        &[
            ex(
                "git fabro fsck",
                "Check every run and the state around them",
            ),
            ex("git fabro fsck RUN --repair", "Check one run and repair it"),
        ],
    ),
    (
        "push",
        &[
            ex("git fabro push origin RUN", "Push a run's two branches"),
            ex("git fabro push origin --all", "Push every run"),
        ],
    ),
    (
        "fetch",
        &[
            ex("git fabro fetch origin", "Fetch every run the remote has"),
            ex("git fabro fetch origin RUN", "Fetch one run"),
        ],
    ),
    (
        "submit",
        &[
            ex(
                "git fabro submit review.fabro --remote runs",
                "Queue a run of review.fabro on the remote named runs",
            ),
            ex(
                "git fabro submit fix.fabro --remote runs --input issue=42",
                "Queue a run with an input",
            ),
        ],
    ),
    (
        "store",
        &[
            ex(
                "git fabro store",
                "Serve this repository's threads on stdin and stdout",
            ),
            ex(
                "git fabro -C ~/app store --track-files",
                "Serve threads that keep the files of ~/app with each checkpoint",
            ),
        ],
    ),
    (
        "worker",
        &[
            ex(
                "git fabro worker --remote runs",
                "Run queued runs one after another, waiting for more",
            ),
            ex(
                "git fabro worker --remote runs --run RUN",
                "Run one run, taking it over once its last worker's lease expires",
            ),
        ],
    ),
    (
        "hooks",
        &[
            ex(
                "git fabro hooks install",
                "Install the pre-push and post-rewrite git hooks",
            ),
            ex(
                "git fabro hooks install --claude",
                "Checkpoint each turn of Claude Code's sessions",
            ),
            ex(
                "git fabro hooks status",
                "Where the hooks are and which are installed",
            ),
        ],
    ),
    (
        "hooks install",
        &[
            ex(
                "git fabro hooks install",
                "Install the pre-push and post-rewrite git hooks",
            ),
            ex(
                "git fabro hooks install --codex --gemini",
                "Checkpoint Codex CLI's and Gemini CLI's sessions",
            ),
            ex(
                "git fabro hooks install --qwen --opencode",
                "Checkpoint Qwen Code's and OpenCode's sessions",
            ),
        ],
    ),
    (
        "hooks uninstall",
        &[
            ex("git fabro hooks uninstall", "Remove both git hooks"),
            ex(
                "git fabro hooks uninstall --claude",
                "Stop checkpointing Claude Code's sessions",
            ),
        ],
    ),
    (
        "hooks status",
        &[
            ex(
                "git fabro hooks status",
                "Where the hooks are and which are installed",
            ),
            ex("git fabro hooks status --json", "The same as JSON"),
        ],
    ),
    (
        "validate",
        &[
            ex(
                "git fabro validate review.fabro",
                "Check a workflow: errors and warnings, with suggestions",
            ),
            ex(
                "git fabro validate review.fabro --json",
                "Fabro's JSON report",
            ),
        ],
    ),
    (
        "run",
        &[
            ex(
                "git fabro run examples/review-gate.fabro",
                "Run a workflow; at a terminal, its human gates ask you",
            ),
            ex(
                "git fabro run review.fabro --answer review=A --agent claude",
                "Answer a gate up front and run agent nodes with Claude Code",
            ),
            ex(
                "git fabro run review.fabro --dry-run",
                "Simulate every node; nothing is written",
            ),
        ],
    ),
    (
        "agents",
        &[
            ex(
                "git fabro agents",
                "The agent presets and whether each is installed",
            ),
            ex("git fabro agents --json", "The same as JSON"),
        ],
    ),
    (
        "completions",
        &[
            ex(
                "git fabro completions bash > ~/.local/share/bash-completion/completions/git-fabro",
                "Install bash's completion",
            ),
            ex(
                "git fabro completions zsh > ~/.zfunc/_git-fabro",
                "Install zsh's (with ~/.zfunc in $fpath)",
            ),
        ],
    ),
];
