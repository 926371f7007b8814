# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_git_fabro_global_optspecs
    string join \n C= q/quiet P/no-pager h/help V/version
end

function __fish_git_fabro_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_git_fabro_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_git_fabro_using_subcommand
    set -l cmd (__fish_git_fabro_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c git-fabro -n "__fish_git_fabro_needs_command" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_needs_command" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -s h -l help -d 'Print help'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -s V -l version -d 'Print version'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "start" -d 'Start a run: create its run and metadata branches, run directory and worktree'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "checkpoint" -d 'Record a completed node: a metadata commit and a run commit of the worktree'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "snapshot" -d 'Save the run\'s files between checkpoints, without completing a node'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "finish" -d 'Finish a run: record its conclusion and remove its worktree'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "log" -d 'Show a run\'s timeline, rebuilt from the run branch\'s trailers'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "ps" -d 'List the runs of this repository, found from their refs'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "status" -d 'Show where a run stands: last checkpoint, next node, unrecorded changes, live process'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "show" -d 'Show one checkpoint in full: its record, commits and stage files'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "diff" -d 'Show the changes between two checkpoints, or between a checkpoint and the worktree'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "graph" -d 'Draw a workflow, or a run of one, as DOT, SVG or Mermaid'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "land" -d 'Land a finished run on your branch: its changes as one commit (or a merge commit)'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "path" -d 'Print the directory a run\'s files are in: its worktree, or the directory it runs in place'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "fork" -d 'Fork a run at a checkpoint into a new, independent run'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "rewind" -d 'Rewind a run to a checkpoint: fork it there and archive the source as superseded'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "resume" -d 'Resume a run: rebuild its run directory and worktree from git, then continue it, print its state or run a command in it'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "restore" -d 'Make a run\'s worktree match a checkpoint exactly, or only some paths of it'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "undo" -d 'Take back the last turn (or step) of a run: its files go back one recorded step'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "archive" -d 'Archive runs: hide them from `ps` (they stay in git until `gc`)'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "unarchive" -d 'Unarchive runs: give them back the status they had'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "gc" -d 'Delete archived runs older than a limit, and stale worktree registrations of runs'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "fsck" -d 'Check that runs hold together, and repair what can be repaired without losing anything'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "push" -d 'Push runs (both branches of each) to a remote, never forcing'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "fetch" -d 'Fetch runs (both branches of each) from a remote, never forcing'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "submit" -d 'Queue a workflow\'s run on a shared remote, for a worker to run: start it here without executing it, push it, print its id'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "worker" -d 'Take queued runs from a shared remote and run them, each under a lease that fences every write'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "store" -d 'Keep an agent framework\'s checkpoints in git, over stdin and stdout'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "hooks" -d 'Install, remove or inspect git-fabro\'s git hooks and coding agents\' hooks'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "validate" -d 'Check a Fabro workflow as `fabro validate` does'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "run" -d 'Run a Fabro workflow: start a run, execute it node by node, checkpoint every node, finish'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "agents" -d 'List the agent presets, whether each is installed, its version and its command line'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "completions" -d 'Print the completion script for a shell'
complete -c git-fabro -n "__fish_git_fabro_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand start" -l goal -d 'What the run is for, recorded in run.json' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand start" -l workflow -d 'Workflow source to store as graph.fabro (its sha256 guards resumes); `-` reads stdin' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand start" -l label -d 'A label recorded in run.json (repeatable)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand start" -l base -d 'Commit the run branch starts at' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand start" -l run-dir -d 'Run directory to use instead of <fabro home>/runs/<date>-<id>' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand start" -l config -d 'run.toml for this run ([checkpoint] exclude_globs, [git.author])' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand start" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand start" -l in-place -d 'Work in this directory itself (a checkout, dirty or not, or a directory outside git) instead of a linked worktree; the user\'s HEAD, index and files are left as they are'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand start" -l json -d 'Print a JSON object instead of the run id'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand start" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand start" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand start" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -l node -d 'The node that completed' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -l status -d 'succeeded, partially_succeeded, failed or skipped' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -l next -d 'The node the run continues with' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -l context -d 'A context value to record (repeatable); the value is JSON' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -l attach -d 'A file to store with the stage as NAME (repeatable)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -l usage -d 'What the node\'s agent used, as JSON: {"models": [{"model": {"provider": P, "model_id": M}, "tokens": {"input_tokens": N, "output_tokens": N, ...}}], "tool_calls": N} (docs/FORMAT.md); `show`, `log --usage`, `ps` and `status` show it' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -l duration-ms -d 'How long the node ran, in milliseconds' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -l wait -d 'On a lost race (exit 3), try again for up to DURATION (default 10s; 0, 45s, 2m)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -l json -d 'Print a JSON object instead of the run commit\'s sha'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand checkpoint" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand snapshot" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand snapshot" -l reason -d 'Why the snapshot is taken (one line)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand snapshot" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand snapshot" -l json -d 'Print JSON'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand snapshot" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand snapshot" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand snapshot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand finish" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand finish" -l status -d 'How the run ended' -r -f -a "succeeded\t''
failed\t''"
complete -c git-fabro -n "__fish_git_fabro_using_subcommand finish" -l reason -d 'Why it ended (recorded as the failure reason of a failed run)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand finish" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand finish" -l keep-worktree -d 'Keep the worktree'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand finish" -l force -d 'Go ahead even while a live process holds the run\'s run.pid'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand finish" -l json -d 'Print a JSON object describing the conclusion'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand finish" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand finish" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand finish" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand log" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand log" -l color -d 'Colour the statuses: always, never or auto (default: color.ui, else auto)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-fabro -n "__fish_git_fabro_using_subcommand log" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand log" -l all -d 'Also list the snapshots taken between checkpoints'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand log" -l usage -d 'Show each checkpoint\'s tokens (input, output, cache read and write), tool calls and model, as its agent reported them'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand log" -l json -d 'Print a JSON array'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand log" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand log" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand ps" -l status -d 'Only runs with this status (repeatable: any of them)' -r -f -a "submitted\t''
running\t''
blocked\t''
paused\t''
succeeded\t''
failed\t''
dead\t''
archived\t''"
complete -c git-fabro -n "__fish_git_fabro_using_subcommand ps" -l label -d 'Only runs started with this label (repeatable: all of them)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand ps" -l remote -d 'List the runs a shared remote holds instead: queued, running (on which worker, lease age), stale, needs-answer or needs-decision (at which nodes), a running run\'s branches on other workers under it; REMOTE defaults to `[remote] pool` of settings.toml, else the remote `push` uses' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand ps" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand ps" -l all -d 'Include archived runs'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand ps" -l json -d 'Print a JSON array'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand ps" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand ps" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand ps" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand status" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand status" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand status" -l json -d 'Print JSON: an object for one run, an array for the list'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand status" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand status" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand show" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand show" -l file -d 'Print the stage file or attachment NAME byte for byte instead (status.json, an --attach NAME of checkpoint)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand show" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand show" -l json -d 'Print a JSON object'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand show" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand show" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand diff" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand diff" -l color -d 'Colour the patch: always, never or auto (default: color.diff, color.ui, else auto)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-fabro -n "__fish_git_fabro_using_subcommand diff" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand diff" -l worktree -d 'Compare FROM (default: the latest checkpoint) with the files in the run\'s worktree'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand diff" -l stat -d 'Print a summary of changed files instead of the patch'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand diff" -l name-only -d 'Print only the names of changed files'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand diff" -l name-status -d 'Print the names and kinds (A, D, M, T) of changed files'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand diff" -l json -d 'Print a JSON object with the per-file counts and the patch'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand diff" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand diff" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand graph" -l format -d 'The format of the picture' -r -f -a "dot\t'Graphviz DOT, a workflow git-fabro and Fabro read back'
svg\t'A standalone SVG document'
mermaid\t'A Mermaid flowchart'"
complete -c git-fabro -n "__fish_git_fabro_using_subcommand graph" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand graph" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand graph" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand graph" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand land" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand land" -l into -d 'The branch to land on (default: the current branch)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand land" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand land" -l squash -d 'One commit on the branch with the run\'s changes (the default)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand land" -l merge -d 'A merge commit whose second parent is the run branch\'s tip'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand land" -l force -d 'Land a run that has not finished'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand land" -l json -d 'Print a JSON object'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand land" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand land" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand land" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand path" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand path" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand path" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand path" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand path" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fork" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fork" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fork" -l list -d 'List the source\'s timeline instead'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fork" -l json -d 'Print JSON'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fork" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fork" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fork" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand rewind" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand rewind" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand rewind" -l list -d 'List the source\'s timeline instead'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand rewind" -l json -d 'Print JSON'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand rewind" -l force -d 'Rewind a run that has not ended'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand rewind" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand rewind" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand rewind" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l workflow -d 'Check that this workflow is the one the run was started with' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l agent -d 'The command agent and prompt nodes run, instead of the one the run was given (`run --agent`) or else the configured one: a preset (claude, codex, gemini, aider, copilot, qwen, opencode: see `git fabro agents`) or a command line; the run keeps it' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l answer -d 'Answer the human gate NODE with CHOICE: its key, number, label or target node (repeatable)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l rerun -d 'Run again the side-effect node NODE that was cut short (repeatable)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l assume-done -d 'Record the side-effect node NODE that was cut short as succeeded, without running it again (repeatable)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l remote -d 'Give the answer or decision to the run where it waits on this shared remote, for the next worker to go on with, instead of going on with it here' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l executor -d 'With --remote: start a worker for the run with this executor (default: `[executor] default` of settings.toml), as `submit --executor` does' -r -f -a "local\t''
slurm\t''
ssh\t''
kubernetes\t''"
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l force -d 'Resume under a workflow whose sha256 differs from the recorded one'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l trust -d 'Run the recorded workflow (and child workflows it reads from files) even though this machine neither wrote nor approved it, and remember the approval'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l json -d 'Print JSON (the state is always printed as JSON without a command)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l prepare-only -d 'Only rebuild the run directory and worktree and print the state, even for a run the engine executes'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -l auto-approve -d 'Answer every human gate with its first choice'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand resume" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand restore" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand restore" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand restore" -l last-success -d 'Restore the latest checkpoint whose status is succeeded'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand restore" -l dry-run -d 'List what would change and change nothing'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand restore" -l force -d 'Go ahead even while a live process holds the run\'s run.pid'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand restore" -l list -d 'List the recovery points (the states restores kept) with their time and command'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand restore" -l json -d 'Print JSON'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand restore" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand restore" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand restore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand undo" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand undo" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand undo" -l dry-run -d 'List what would change and change nothing'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand undo" -l force -d 'Go ahead even while a live process holds the run\'s run.pid'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand undo" -l json -d 'Print JSON'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand undo" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand undo" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand undo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand archive" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand archive" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand archive" -l force -d 'Go ahead even while a live process holds the run\'s run.pid'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand archive" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand archive" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand archive" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand unarchive" -l run -d 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand unarchive" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand unarchive" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand unarchive" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand unarchive" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand gc" -l older-than -d 'Only runs archived at least this long ago (0, 45s, 90m, 12h, 30d, 2w)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand gc" -l finished-older-than -d 'Also finished runs (succeeded, failed, dead) that finished at least this long ago' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand gc" -l remote -d 'Move finished runs off this shared remote into this clone instead (REMOTE defaults to `[remote] pool` of settings.toml, else the remote `push` uses)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand gc" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand gc" -l dry-run -d 'List what would be removed and remove nothing'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand gc" -l force -d 'Collect runs even while a live process holds their run.pid'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand gc" -l json -d 'Print JSON'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand gc" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand gc" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand gc" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fsck" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fsck" -l repair -d 'Repair what can be repaired'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fsck" -l json -d 'Print JSON'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fsck" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fsck" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fsck" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand push" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand push" -l all -d 'Push every run of the repository'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand push" -l json -d 'Print JSON'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand push" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand push" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand push" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fetch" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fetch" -l all -d 'Every run the remote has, which is what fetch without RUN does (as `push --all` pushes every run)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fetch" -l json -d 'Print JSON'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fetch" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fetch" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand fetch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -l remote -d 'The shared remote: a configured remote\'s name or a URL (default: `[remote] pool` of settings.toml, else the remote `push` uses)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -l executor -d 'Start a worker for the run with this executor' -r -f -a "local\t''
slurm\t''
ssh\t''
kubernetes\t''"
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -l goal -d 'The run\'s goal, instead of the workflow\'s `goal` attribute' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -l input -d 'A workflow input, KEY=VALUE (repeatable)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -l label -d 'A label recorded in run.json (repeatable)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -l base -d 'Commit the run branch starts at (default: HEAD)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -l config -d 'run.toml for this run' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -l sign -d 'Sign the submission with the key git signs commits with (`user.signingKey`; workers accept SSH signatures by the keys of their `[worker] allowed_signers`), so that workers that allow this key run it without --trust'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -l json -d 'Print {"run_id", "remote", "approved", "worker"} as JSON'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand submit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -l remote -d 'The shared remote: a configured remote\'s name or a URL (default: `[remote] pool` of settings.toml, else the remote `push` uses)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -l run -d 'Run only this run (its full id), then exit; waits out another worker\'s lease on it' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -l max-runs -d 'Exit after this many runs' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -l ttl -d 'How long a lease lives unrenewed before another worker may take the run (default: `[lease] ttl` of settings.toml, else 60s)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -l approved -d 'Run the workflow and values of this sha256 as if this machine had approved them (repeatable): what `submit --executor` passes the worker it starts' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -l agent -d 'The command agent and prompt nodes run, instead of the configured one' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -l name -d 'The worker\'s name in its leases (default: `[worker] name` of settings.toml, else the host name); its process id follows' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -l rerun -d 'With --run: run again the side-effect node NODE that a lost worker cut short (as `resume RUN --remote REMOTE --rerun NODE` decides it for any worker)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -l assume-done -d 'With --run: record the side-effect node NODE that a lost worker cut short as succeeded' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -l once -d 'Run one run, then exit'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -l exit-when-idle -d 'Exit when no run is queued or leased, instead of waiting for one'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -l trust -d 'Run workflows this machine neither wrote nor approved'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand worker" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand store" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand store" -l track-files -d 'Record the directory\'s files with each root checkpoint, and put them back when an older checkpoint is read (LangGraph\'s time travel)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand store" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand store" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand store" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status run help" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status run help" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status run help" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status run help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status run help" -f -a "install" -d 'Install the hooks (both unless one is named)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status run help" -f -a "uninstall" -d 'Remove git-fabro\'s block from the hooks, and hook files it created'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status run help" -f -a "status" -d 'Show where the hooks are and whether they are installed'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status run help" -f -a "run" -d 'Run a hook\'s job (called by the installed hooks)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall status run help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from install" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from install" -l pre-push -d 'The pre-push hook'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from install" -l post-rewrite -d 'The post-rewrite hook'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from install" -l claude -d 'Claude Code\'s hooks, which GitHub Copilot CLI runs too (.claude/settings.local.json)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from install" -l codex -d 'Codex CLI\'s hooks (.codex/hooks.json)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from install" -l gemini -d 'Gemini CLI\'s hooks (.gemini/settings.json)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from install" -l qwen -d 'Qwen Code\'s hooks (.qwen/settings.json)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from install" -l opencode -d 'OpenCode\'s plugin (.opencode/plugins/git-fabro.js)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from install" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from install" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l pre-push -d 'The pre-push hook'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l post-rewrite -d 'The post-rewrite hook'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l claude -d 'Claude Code\'s hooks, which GitHub Copilot CLI runs too (.claude/settings.local.json)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l codex -d 'Codex CLI\'s hooks (.codex/hooks.json)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l gemini -d 'Gemini CLI\'s hooks (.gemini/settings.json)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l qwen -d 'Qwen Code\'s hooks (.qwen/settings.json)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l opencode -d 'OpenCode\'s plugin (.opencode/plugins/git-fabro.js)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from status" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from status" -l json -d 'Print JSON'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from status" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from run" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from run" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from run" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "install" -d 'Install the hooks (both unless one is named)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "uninstall" -d 'Remove git-fabro\'s block from the hooks, and hook files it created'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show where the hooks are and whether they are installed'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run a hook\'s job (called by the installed hooks)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand validate" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand validate" -l json -d 'Print Fabro\'s JSON report: workflow_name, nodes, edges, valid, diagnostics'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand validate" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand validate" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand validate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -l answer -d 'Answer the human gate NODE with CHOICE: its key, number, label or target node (repeatable)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -l goal -d 'The run\'s goal, instead of the workflow\'s `goal` attribute (taken as written, never rendered as a template)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -l input -d 'A workflow input, KEY=VALUE (repeatable)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -l label -d 'A label recorded in run.json (repeatable)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -l base -d 'Commit the run branch starts at (default: HEAD)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -l config -d 'run.toml for this run ([checkpoint] exclude_globs, [git.author], [agent] command)' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -l agent -d 'The command agent and prompt nodes run: a preset (claude, codex, gemini, aider, copilot, qwen, opencode: see `git fabro agents`) or a command line (`/bin/bash -c COMMAND` in the worktree, the prompt on stdin and in $FABRO_PROMPT_FILE, the response on stdout)' -r
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -l dry-run -d 'Simulate every node instead of running it; nothing is written'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -l auto-approve -d 'Answer every human gate with its first choice'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -l in-place -d 'Work in this directory itself instead of a linked worktree'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -l json -d 'Print the result as one JSON document, the only thing on stdout: run_id, status, stages [{node_id, visit, status, duration_ms}], duration_ms, active_ms (less the time it stood blocked or paused), failure; a run that blocked or was interrupted: status blocked or paused and stop (a dry run: status, stages)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand agents" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand agents" -l json -d 'Print a JSON array'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand agents" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand agents" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand agents" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand completions" -s C -d 'Run as if git-fabro was started in DIR instead of the current directory' -r -F
complete -c git-fabro -n "__fish_git_fabro_using_subcommand completions" -s q -l quiet -d 'Print no messages for people on stderr (data, warnings and errors still appear)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand completions" -s P -l no-pager -d 'Do not send the output of log, diff and show through a pager'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "start" -d 'Start a run: create its run and metadata branches, run directory and worktree'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "checkpoint" -d 'Record a completed node: a metadata commit and a run commit of the worktree'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "snapshot" -d 'Save the run\'s files between checkpoints, without completing a node'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "finish" -d 'Finish a run: record its conclusion and remove its worktree'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "log" -d 'Show a run\'s timeline, rebuilt from the run branch\'s trailers'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "ps" -d 'List the runs of this repository, found from their refs'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "status" -d 'Show where a run stands: last checkpoint, next node, unrecorded changes, live process'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "show" -d 'Show one checkpoint in full: its record, commits and stage files'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "diff" -d 'Show the changes between two checkpoints, or between a checkpoint and the worktree'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "graph" -d 'Draw a workflow, or a run of one, as DOT, SVG or Mermaid'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "land" -d 'Land a finished run on your branch: its changes as one commit (or a merge commit)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "path" -d 'Print the directory a run\'s files are in: its worktree, or the directory it runs in place'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "fork" -d 'Fork a run at a checkpoint into a new, independent run'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "rewind" -d 'Rewind a run to a checkpoint: fork it there and archive the source as superseded'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "resume" -d 'Resume a run: rebuild its run directory and worktree from git, then continue it, print its state or run a command in it'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "restore" -d 'Make a run\'s worktree match a checkpoint exactly, or only some paths of it'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "undo" -d 'Take back the last turn (or step) of a run: its files go back one recorded step'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "archive" -d 'Archive runs: hide them from `ps` (they stay in git until `gc`)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "unarchive" -d 'Unarchive runs: give them back the status they had'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "gc" -d 'Delete archived runs older than a limit, and stale worktree registrations of runs'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "fsck" -d 'Check that runs hold together, and repair what can be repaired without losing anything'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "push" -d 'Push runs (both branches of each) to a remote, never forcing'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "fetch" -d 'Fetch runs (both branches of each) from a remote, never forcing'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "submit" -d 'Queue a workflow\'s run on a shared remote, for a worker to run: start it here without executing it, push it, print its id'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "worker" -d 'Take queued runs from a shared remote and run them, each under a lease that fences every write'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "store" -d 'Keep an agent framework\'s checkpoints in git, over stdin and stdout'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "hooks" -d 'Install, remove or inspect git-fabro\'s git hooks and coding agents\' hooks'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "validate" -d 'Check a Fabro workflow as `fabro validate` does'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "run" -d 'Run a Fabro workflow: start a run, execute it node by node, checkpoint every node, finish'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "agents" -d 'List the agent presets, whether each is installed, its version and its command line'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "completions" -d 'Print the completion script for a shell'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and not __fish_seen_subcommand_from start checkpoint snapshot finish log ps status show diff graph land path fork rewind resume restore undo archive unarchive gc fsck push fetch submit worker store hooks validate run agents completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and __fish_seen_subcommand_from hooks" -f -a "install" -d 'Install the hooks (both unless one is named)'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and __fish_seen_subcommand_from hooks" -f -a "uninstall" -d 'Remove git-fabro\'s block from the hooks, and hook files it created'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and __fish_seen_subcommand_from hooks" -f -a "status" -d 'Show where the hooks are and whether they are installed'
complete -c git-fabro -n "__fish_git_fabro_using_subcommand help; and __fish_seen_subcommand_from hooks" -f -a "run" -d 'Run a hook\'s job (called by the installed hooks)'

# Run ids and checkpoints, from the repository: `git-fabro __complete` prints them (a tab before
# a description, as fish wants them) or exits 1 where the word is neither.
function __fish_git_fabro_dynamic
    set -l words (commandline -opc)
    git-fabro __complete $words[2..-1] (commandline -ct) 2>/dev/null
end
complete -c git-fabro -f -a '(__fish_git_fabro_dynamic)'
