
use builtin;
use str;

set edit:completion:arg-completer[git-fabro] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'git-fabro'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'git-fabro'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand start 'Start a run: create its run and metadata branches, run directory and worktree'
            cand checkpoint 'Record a completed node: a metadata commit and a run commit of the worktree'
            cand snapshot 'Save the run''s files between checkpoints, without completing a node'
            cand finish 'Finish a run: record its conclusion and remove its worktree'
            cand log 'Show a run''s timeline, rebuilt from the run branch''s trailers'
            cand ps 'List the runs of this repository, found from their refs'
            cand status 'Show where a run stands: last checkpoint, next node, unrecorded changes, live process'
            cand show 'Show one checkpoint in full: its record, commits and stage files'
            cand diff 'Show the changes between two checkpoints, or between a checkpoint and the worktree'
            cand graph 'Draw a workflow, or a run of one, as DOT, SVG or Mermaid'
            cand land 'Land a finished run on your branch: its changes as one commit (or a merge commit)'
            cand path 'Print the directory a run''s files are in: its worktree, or the directory it runs in place'
            cand fork 'Fork a run at a checkpoint into a new, independent run'
            cand rewind 'Rewind a run to a checkpoint: fork it there and archive the source as superseded'
            cand resume 'Resume a run: rebuild its run directory and worktree from git, then continue it, print its state or run a command in it'
            cand restore 'Make a run''s worktree match a checkpoint exactly, or only some paths of it'
            cand undo 'Take back the last turn (or step) of a run: its files go back one recorded step'
            cand archive 'Archive runs: hide them from `ps` (they stay in git until `gc`)'
            cand unarchive 'Unarchive runs: give them back the status they had'
            cand gc 'Delete archived runs older than a limit, and stale worktree registrations of runs'
            cand fsck 'Check that runs hold together, and repair what can be repaired without losing anything'
            cand push 'Push runs (both branches of each) to a remote, never forcing'
            cand fetch 'Fetch runs (both branches of each) from a remote, never forcing'
            cand submit 'Queue a workflow''s run on a shared remote, for a worker to run: start it here without executing it, push it, print its id'
            cand worker 'Take queued runs from a shared remote and run them, each under a lease that fences every write'
            cand store 'Keep an agent framework''s checkpoints in git, over stdin and stdout'
            cand hooks 'Install, remove or inspect git-fabro''s git hooks and coding agents'' hooks'
            cand validate 'Check a Fabro workflow as `fabro validate` does'
            cand run 'Run a Fabro workflow: start a run, execute it node by node, checkpoint every node, finish'
            cand agents 'List the agent presets, whether each is installed, its version and its command line'
            cand completions 'Print the completion script for a shell'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'git-fabro;start'= {
            cand --goal 'What the run is for, recorded in run.json'
            cand --workflow 'Workflow source to store as graph.fabro (its sha256 guards resumes); `-` reads stdin'
            cand --label 'A label recorded in run.json (repeatable)'
            cand --base 'Commit the run branch starts at'
            cand --run-dir 'Run directory to use instead of <fabro home>/runs/<date>-<id>'
            cand --config 'run.toml for this run ([checkpoint] exclude_globs, [git.author])'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --in-place 'Work in this directory itself (a checkout, dirty or not, or a directory outside git) instead of a linked worktree; the user''s HEAD, index and files are left as they are'
            cand --json 'Print a JSON object instead of the run id'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;checkpoint'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)'
            cand --node 'The node that completed'
            cand --status 'succeeded, partially_succeeded, failed or skipped'
            cand --next 'The node the run continues with'
            cand --context 'A context value to record (repeatable); the value is JSON'
            cand --attach 'A file to store with the stage as NAME (repeatable)'
            cand --usage 'What the node''s agent used, as JSON: {"models": [{"model": {"provider": P, "model_id": M}, "tokens": {"input_tokens": N, "output_tokens": N, ...}}], "tool_calls": N} (docs/FORMAT.md); `show`, `log --usage`, `ps` and `status` show it'
            cand --duration-ms 'How long the node ran, in milliseconds'
            cand --wait 'On a lost race (exit 3), try again for up to DURATION (default 10s; 0, 45s, 2m)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --json 'Print a JSON object instead of the run commit''s sha'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;snapshot'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)'
            cand --reason 'Why the snapshot is taken (one line)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --json 'Print JSON'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;finish'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand --status 'How the run ended'
            cand --reason 'Why it ended (recorded as the failure reason of a failed run)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --keep-worktree 'Keep the worktree'
            cand --force 'Go ahead even while a live process holds the run''s run.pid'
            cand --json 'Print a JSON object describing the conclusion'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;log'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand --color 'Colour the statuses: always, never or auto (default: color.ui, else auto)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --all 'Also list the snapshots taken between checkpoints'
            cand --usage 'Show each checkpoint''s tokens (input, output, cache read and write), tool calls and model, as its agent reported them'
            cand --json 'Print a JSON array'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;ps'= {
            cand --status 'Only runs with this status (repeatable: any of them)'
            cand --label 'Only runs started with this label (repeatable: all of them)'
            cand --remote 'List the runs a shared remote holds instead: queued, running (on which worker, lease age), stale, needs-answer or needs-decision (at which nodes), a running run''s branches on other workers under it; REMOTE defaults to `[remote] pool` of settings.toml, else the remote `push` uses'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --all 'Include archived runs'
            cand --json 'Print a JSON array'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;status'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --json 'Print JSON: an object for one run, an array for the list'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;show'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand --file 'Print the stage file or attachment NAME byte for byte instead (status.json, an --attach NAME of checkpoint)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --json 'Print a JSON object'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;diff'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand --color 'Colour the patch: always, never or auto (default: color.diff, color.ui, else auto)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --worktree 'Compare FROM (default: the latest checkpoint) with the files in the run''s worktree'
            cand --stat 'Print a summary of changed files instead of the patch'
            cand --name-only 'Print only the names of changed files'
            cand --name-status 'Print the names and kinds (A, D, M, T) of changed files'
            cand --json 'Print a JSON object with the per-file counts and the patch'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;graph'= {
            cand --format 'The format of the picture'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;land'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand --into 'The branch to land on (default: the current branch)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --squash 'One commit on the branch with the run''s changes (the default)'
            cand --merge 'A merge commit whose second parent is the run branch''s tip'
            cand --force 'Land a run that has not finished'
            cand --json 'Print a JSON object'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;path'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;fork'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --list 'List the source''s timeline instead'
            cand --json 'Print JSON'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;rewind'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --list 'List the source''s timeline instead'
            cand --json 'Print JSON'
            cand --force 'Rewind a run that has not ended'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;resume'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand --workflow 'Check that this workflow is the one the run was started with'
            cand --agent 'The command agent and prompt nodes run, instead of the one the run was given (`run --agent`) or else the configured one: a preset (claude, codex, gemini, aider, copilot, qwen, opencode: see `git fabro agents`) or a command line; the run keeps it'
            cand --answer 'Answer the human gate NODE with CHOICE: its key, number, label or target node (repeatable)'
            cand --rerun 'Run again the side-effect node NODE that was cut short (repeatable)'
            cand --assume-done 'Record the side-effect node NODE that was cut short as succeeded, without running it again (repeatable)'
            cand --remote 'Give the answer or decision to the run where it waits on this shared remote, for the next worker to go on with, instead of going on with it here'
            cand --executor 'With --remote: start a worker for the run with this executor (default: `[executor] default` of settings.toml), as `submit --executor` does'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --force 'Resume under a workflow whose sha256 differs from the recorded one'
            cand --trust 'Run the recorded workflow (and child workflows it reads from files) even though this machine neither wrote nor approved it, and remember the approval'
            cand --json 'Print JSON (the state is always printed as JSON without a command)'
            cand --prepare-only 'Only rebuild the run directory and worktree and print the state, even for a run the engine executes'
            cand --auto-approve 'Answer every human gate with its first choice'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;restore'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --last-success 'Restore the latest checkpoint whose status is succeeded'
            cand --dry-run 'List what would change and change nothing'
            cand --force 'Go ahead even while a live process holds the run''s run.pid'
            cand --list 'List the recovery points (the states restores kept) with their time and command'
            cand --json 'Print JSON'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;undo'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --dry-run 'List what would change and change nothing'
            cand --force 'Go ahead even while a live process holds the run''s run.pid'
            cand --json 'Print JSON'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;archive'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --force 'Go ahead even while a live process holds the run''s run.pid'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;unarchive'= {
            cand --run 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;gc'= {
            cand --older-than 'Only runs archived at least this long ago (0, 45s, 90m, 12h, 30d, 2w)'
            cand --finished-older-than 'Also finished runs (succeeded, failed, dead) that finished at least this long ago'
            cand --remote 'Move finished runs off this shared remote into this clone instead (REMOTE defaults to `[remote] pool` of settings.toml, else the remote `push` uses)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --dry-run 'List what would be removed and remove nothing'
            cand --force 'Collect runs even while a live process holds their run.pid'
            cand --json 'Print JSON'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;fsck'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --repair 'Repair what can be repaired'
            cand --json 'Print JSON'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;push'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --all 'Push every run of the repository'
            cand --json 'Print JSON'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;fetch'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --all 'Every run the remote has, which is what fetch without RUN does (as `push --all` pushes every run)'
            cand --json 'Print JSON'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;submit'= {
            cand --remote 'The shared remote: a configured remote''s name or a URL (default: `[remote] pool` of settings.toml, else the remote `push` uses)'
            cand --executor 'Start a worker for the run with this executor'
            cand --goal 'The run''s goal, instead of the workflow''s `goal` attribute'
            cand --input 'A workflow input, KEY=VALUE (repeatable)'
            cand --label 'A label recorded in run.json (repeatable)'
            cand --base 'Commit the run branch starts at (default: HEAD)'
            cand --config 'run.toml for this run'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --sign 'Sign the submission with the key git signs commits with (`user.signingKey`; workers accept SSH signatures by the keys of their `[worker] allowed_signers`), so that workers that allow this key run it without --trust'
            cand --json 'Print {"run_id", "remote", "approved", "worker"} as JSON'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;worker'= {
            cand --remote 'The shared remote: a configured remote''s name or a URL (default: `[remote] pool` of settings.toml, else the remote `push` uses)'
            cand --run 'Run only this run (its full id), then exit; waits out another worker''s lease on it'
            cand --max-runs 'Exit after this many runs'
            cand --ttl 'How long a lease lives unrenewed before another worker may take the run (default: `[lease] ttl` of settings.toml, else 60s)'
            cand --approved 'Run the workflow and values of this sha256 as if this machine had approved them (repeatable): what `submit --executor` passes the worker it starts'
            cand --agent 'The command agent and prompt nodes run, instead of the configured one'
            cand --name 'The worker''s name in its leases (default: `[worker] name` of settings.toml, else the host name); its process id follows'
            cand --rerun 'With --run: run again the side-effect node NODE that a lost worker cut short (as `resume RUN --remote REMOTE --rerun NODE` decides it for any worker)'
            cand --assume-done 'With --run: record the side-effect node NODE that a lost worker cut short as succeeded'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --once 'Run one run, then exit'
            cand --exit-when-idle 'Exit when no run is queued or leased, instead of waiting for one'
            cand --trust 'Run workflows this machine neither wrote nor approved'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;store'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --track-files 'Record the directory''s files with each root checkpoint, and put them back when an older checkpoint is read (LangGraph''s time travel)'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;hooks'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand install 'Install the hooks (both unless one is named)'
            cand uninstall 'Remove git-fabro''s block from the hooks, and hook files it created'
            cand status 'Show where the hooks are and whether they are installed'
            cand run 'Run a hook''s job (called by the installed hooks)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'git-fabro;hooks;install'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --pre-push 'The pre-push hook'
            cand --post-rewrite 'The post-rewrite hook'
            cand --claude 'Claude Code''s hooks, which GitHub Copilot CLI runs too (.claude/settings.local.json)'
            cand --codex 'Codex CLI''s hooks (.codex/hooks.json)'
            cand --gemini 'Gemini CLI''s hooks (.gemini/settings.json)'
            cand --qwen 'Qwen Code''s hooks (.qwen/settings.json)'
            cand --opencode 'OpenCode''s plugin (.opencode/plugins/git-fabro.js)'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;hooks;uninstall'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --pre-push 'The pre-push hook'
            cand --post-rewrite 'The post-rewrite hook'
            cand --claude 'Claude Code''s hooks, which GitHub Copilot CLI runs too (.claude/settings.local.json)'
            cand --codex 'Codex CLI''s hooks (.codex/hooks.json)'
            cand --gemini 'Gemini CLI''s hooks (.gemini/settings.json)'
            cand --qwen 'Qwen Code''s hooks (.qwen/settings.json)'
            cand --opencode 'OpenCode''s plugin (.opencode/plugins/git-fabro.js)'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;hooks;status'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --json 'Print JSON'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;hooks;run'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'git-fabro;hooks;help'= {
            cand install 'Install the hooks (both unless one is named)'
            cand uninstall 'Remove git-fabro''s block from the hooks, and hook files it created'
            cand status 'Show where the hooks are and whether they are installed'
            cand run 'Run a hook''s job (called by the installed hooks)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'git-fabro;hooks;help;install'= {
        }
        &'git-fabro;hooks;help;uninstall'= {
        }
        &'git-fabro;hooks;help;status'= {
        }
        &'git-fabro;hooks;help;run'= {
        }
        &'git-fabro;hooks;help;help'= {
        }
        &'git-fabro;validate'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --json 'Print Fabro''s JSON report: workflow_name, nodes, edges, valid, diagnostics'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;run'= {
            cand --answer 'Answer the human gate NODE with CHOICE: its key, number, label or target node (repeatable)'
            cand --goal 'The run''s goal, instead of the workflow''s `goal` attribute (taken as written, never rendered as a template)'
            cand --input 'A workflow input, KEY=VALUE (repeatable)'
            cand --label 'A label recorded in run.json (repeatable)'
            cand --base 'Commit the run branch starts at (default: HEAD)'
            cand --config 'run.toml for this run ([checkpoint] exclude_globs, [git.author], [agent] command)'
            cand --agent 'The command agent and prompt nodes run: a preset (claude, codex, gemini, aider, copilot, qwen, opencode: see `git fabro agents`) or a command line (`/bin/bash -c COMMAND` in the worktree, the prompt on stdin and in $FABRO_PROMPT_FILE, the response on stdout)'
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --dry-run 'Simulate every node instead of running it; nothing is written'
            cand --auto-approve 'Answer every human gate with its first choice'
            cand --in-place 'Work in this directory itself instead of a linked worktree'
            cand --json 'Print the result as one JSON document, the only thing on stdout: run_id, status, stages [{node_id, visit, status, duration_ms}], duration_ms, active_ms (less the time it stood blocked or paused), failure; a run that blocked or was interrupted: status blocked or paused and stop (a dry run: status, stages)'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;agents'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand --json 'Print a JSON array'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;completions'= {
            cand -C 'Run as if git-fabro was started in DIR instead of the current directory'
            cand -q 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand --quiet 'Print no messages for people on stderr (data, warnings and errors still appear)'
            cand -P 'Do not send the output of log, diff and show through a pager'
            cand --no-pager 'Do not send the output of log, diff and show through a pager'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'git-fabro;help'= {
            cand start 'Start a run: create its run and metadata branches, run directory and worktree'
            cand checkpoint 'Record a completed node: a metadata commit and a run commit of the worktree'
            cand snapshot 'Save the run''s files between checkpoints, without completing a node'
            cand finish 'Finish a run: record its conclusion and remove its worktree'
            cand log 'Show a run''s timeline, rebuilt from the run branch''s trailers'
            cand ps 'List the runs of this repository, found from their refs'
            cand status 'Show where a run stands: last checkpoint, next node, unrecorded changes, live process'
            cand show 'Show one checkpoint in full: its record, commits and stage files'
            cand diff 'Show the changes between two checkpoints, or between a checkpoint and the worktree'
            cand graph 'Draw a workflow, or a run of one, as DOT, SVG or Mermaid'
            cand land 'Land a finished run on your branch: its changes as one commit (or a merge commit)'
            cand path 'Print the directory a run''s files are in: its worktree, or the directory it runs in place'
            cand fork 'Fork a run at a checkpoint into a new, independent run'
            cand rewind 'Rewind a run to a checkpoint: fork it there and archive the source as superseded'
            cand resume 'Resume a run: rebuild its run directory and worktree from git, then continue it, print its state or run a command in it'
            cand restore 'Make a run''s worktree match a checkpoint exactly, or only some paths of it'
            cand undo 'Take back the last turn (or step) of a run: its files go back one recorded step'
            cand archive 'Archive runs: hide them from `ps` (they stay in git until `gc`)'
            cand unarchive 'Unarchive runs: give them back the status they had'
            cand gc 'Delete archived runs older than a limit, and stale worktree registrations of runs'
            cand fsck 'Check that runs hold together, and repair what can be repaired without losing anything'
            cand push 'Push runs (both branches of each) to a remote, never forcing'
            cand fetch 'Fetch runs (both branches of each) from a remote, never forcing'
            cand submit 'Queue a workflow''s run on a shared remote, for a worker to run: start it here without executing it, push it, print its id'
            cand worker 'Take queued runs from a shared remote and run them, each under a lease that fences every write'
            cand store 'Keep an agent framework''s checkpoints in git, over stdin and stdout'
            cand hooks 'Install, remove or inspect git-fabro''s git hooks and coding agents'' hooks'
            cand validate 'Check a Fabro workflow as `fabro validate` does'
            cand run 'Run a Fabro workflow: start a run, execute it node by node, checkpoint every node, finish'
            cand agents 'List the agent presets, whether each is installed, its version and its command line'
            cand completions 'Print the completion script for a shell'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'git-fabro;help;start'= {
        }
        &'git-fabro;help;checkpoint'= {
        }
        &'git-fabro;help;snapshot'= {
        }
        &'git-fabro;help;finish'= {
        }
        &'git-fabro;help;log'= {
        }
        &'git-fabro;help;ps'= {
        }
        &'git-fabro;help;status'= {
        }
        &'git-fabro;help;show'= {
        }
        &'git-fabro;help;diff'= {
        }
        &'git-fabro;help;graph'= {
        }
        &'git-fabro;help;land'= {
        }
        &'git-fabro;help;path'= {
        }
        &'git-fabro;help;fork'= {
        }
        &'git-fabro;help;rewind'= {
        }
        &'git-fabro;help;resume'= {
        }
        &'git-fabro;help;restore'= {
        }
        &'git-fabro;help;undo'= {
        }
        &'git-fabro;help;archive'= {
        }
        &'git-fabro;help;unarchive'= {
        }
        &'git-fabro;help;gc'= {
        }
        &'git-fabro;help;fsck'= {
        }
        &'git-fabro;help;push'= {
        }
        &'git-fabro;help;fetch'= {
        }
        &'git-fabro;help;submit'= {
        }
        &'git-fabro;help;worker'= {
        }
        &'git-fabro;help;store'= {
        }
        &'git-fabro;help;hooks'= {
            cand install 'Install the hooks (both unless one is named)'
            cand uninstall 'Remove git-fabro''s block from the hooks, and hook files it created'
            cand status 'Show where the hooks are and whether they are installed'
            cand run 'Run a hook''s job (called by the installed hooks)'
        }
        &'git-fabro;help;hooks;install'= {
        }
        &'git-fabro;help;hooks;uninstall'= {
        }
        &'git-fabro;help;hooks;status'= {
        }
        &'git-fabro;help;hooks;run'= {
        }
        &'git-fabro;help;validate'= {
        }
        &'git-fabro;help;run'= {
        }
        &'git-fabro;help;agents'= {
        }
        &'git-fabro;help;completions'= {
        }
        &'git-fabro;help;help'= {
        }
    ]
    $completions[$command]
}
