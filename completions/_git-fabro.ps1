
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'git-fabro' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'git-fabro'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'git-fabro' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start a run: create its run and metadata branches, run directory and worktree')
            [CompletionResult]::new('checkpoint', 'checkpoint', [CompletionResultType]::ParameterValue, 'Record a completed node: a metadata commit and a run commit of the worktree')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Save the run''s files between checkpoints, without completing a node')
            [CompletionResult]::new('finish', 'finish', [CompletionResultType]::ParameterValue, 'Finish a run: record its conclusion and remove its worktree')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show a run''s timeline, rebuilt from the run branch''s trailers')
            [CompletionResult]::new('ps', 'ps', [CompletionResultType]::ParameterValue, 'List the runs of this repository, found from their refs')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show where a run stands: last checkpoint, next node, unrecorded changes, live process')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one checkpoint in full: its record, commits and stage files')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Show the changes between two checkpoints, or between a checkpoint and the worktree')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Draw a workflow, or a run of one, as DOT, SVG or Mermaid')
            [CompletionResult]::new('land', 'land', [CompletionResultType]::ParameterValue, 'Land a finished run on your branch: its changes as one commit (or a merge commit)')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the directory a run''s files are in: its worktree, or the directory it runs in place')
            [CompletionResult]::new('fork', 'fork', [CompletionResultType]::ParameterValue, 'Fork a run at a checkpoint into a new, independent run')
            [CompletionResult]::new('rewind', 'rewind', [CompletionResultType]::ParameterValue, 'Rewind a run to a checkpoint: fork it there and archive the source as superseded')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Resume a run: rebuild its run directory and worktree from git, then continue it, print its state or run a command in it')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Make a run''s worktree match a checkpoint exactly, or only some paths of it')
            [CompletionResult]::new('undo', 'undo', [CompletionResultType]::ParameterValue, 'Take back the last turn (or step) of a run: its files go back one recorded step')
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'Archive runs: hide them from `ps` (they stay in git until `gc`)')
            [CompletionResult]::new('unarchive', 'unarchive', [CompletionResultType]::ParameterValue, 'Unarchive runs: give them back the status they had')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Delete archived runs older than a limit, and stale worktree registrations of runs')
            [CompletionResult]::new('fsck', 'fsck', [CompletionResultType]::ParameterValue, 'Check that runs hold together, and repair what can be repaired without losing anything')
            [CompletionResult]::new('push', 'push', [CompletionResultType]::ParameterValue, 'Push runs (both branches of each) to a remote, never forcing')
            [CompletionResult]::new('fetch', 'fetch', [CompletionResultType]::ParameterValue, 'Fetch runs (both branches of each) from a remote, never forcing')
            [CompletionResult]::new('submit', 'submit', [CompletionResultType]::ParameterValue, 'Queue a workflow''s run on a shared remote, for a worker to run: start it here without executing it, push it, print its id')
            [CompletionResult]::new('worker', 'worker', [CompletionResultType]::ParameterValue, 'Take queued runs from a shared remote and run them, each under a lease that fences every write')
            [CompletionResult]::new('store', 'store', [CompletionResultType]::ParameterValue, 'Keep an agent framework''s checkpoints in git, over stdin and stdout')
            [CompletionResult]::new('hooks', 'hooks', [CompletionResultType]::ParameterValue, 'Install, remove or inspect git-fabro''s git hooks and coding agents'' hooks')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check a Fabro workflow as `fabro validate` does')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a Fabro workflow: start a run, execute it node by node, checkpoint every node, finish')
            [CompletionResult]::new('agents', 'agents', [CompletionResultType]::ParameterValue, 'List the agent presets, whether each is installed, its version and its command line')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the completion script for a shell')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'git-fabro;start' {
            [CompletionResult]::new('--goal', '--goal', [CompletionResultType]::ParameterName, 'What the run is for, recorded in run.json')
            [CompletionResult]::new('--workflow', '--workflow', [CompletionResultType]::ParameterName, 'Workflow source to store as graph.fabro (its sha256 guards resumes); `-` reads stdin')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'A label recorded in run.json (repeatable)')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Commit the run branch starts at')
            [CompletionResult]::new('--run-dir', '--run-dir', [CompletionResultType]::ParameterName, 'Run directory to use instead of <fabro home>/runs/<date>-<id>')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'run.toml for this run ([checkpoint] exclude_globs, [git.author])')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Work in this directory itself (a checkout, dirty or not, or a directory outside git) instead of a linked worktree; the user''s HEAD, index and files are left as they are')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON object instead of the run id')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;checkpoint' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'The node that completed')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'succeeded, partially_succeeded, failed or skipped')
            [CompletionResult]::new('--next', '--next', [CompletionResultType]::ParameterName, 'The node the run continues with')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'A context value to record (repeatable); the value is JSON')
            [CompletionResult]::new('--attach', '--attach', [CompletionResultType]::ParameterName, 'A file to store with the stage as NAME (repeatable)')
            [CompletionResult]::new('--usage', '--usage', [CompletionResultType]::ParameterName, 'What the node''s agent used, as JSON: {"models": [{"model": {"provider": P, "model_id": M}, "tokens": {"input_tokens": N, "output_tokens": N, ...}}], "tool_calls": N} (docs/FORMAT.md); `show`, `log --usage`, `ps` and `status` show it')
            [CompletionResult]::new('--duration-ms', '--duration-ms', [CompletionResultType]::ParameterName, 'How long the node ran, in milliseconds')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'On a lost race (exit 3), try again for up to DURATION (default 10s; 0, 45s, 2m)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON object instead of the run commit''s sha')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;snapshot' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why the snapshot is taken (one line)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;finish' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'How the run ended')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why it ended (recorded as the failure reason of a failed run)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--keep-worktree', '--keep-worktree', [CompletionResultType]::ParameterName, 'Keep the worktree')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Go ahead even while a live process holds the run''s run.pid')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON object describing the conclusion')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;log' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the statuses: always, never or auto (default: color.ui, else auto)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Also list the snapshots taken between checkpoints')
            [CompletionResult]::new('--usage', '--usage', [CompletionResultType]::ParameterName, 'Show each checkpoint''s tokens (input, output, cache read and write), tool calls and model, as its agent reported them')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON array')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;ps' {
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only runs with this status (repeatable: any of them)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'Only runs started with this label (repeatable: all of them)')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'List the runs a shared remote holds instead: queued, running (on which worker, lease age), stale, needs-answer or needs-decision (at which nodes), a running run''s branches on other workers under it; REMOTE defaults to `[remote] pool` of settings.toml, else the remote `push` uses')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Include archived runs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON array')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;status' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON: an object for one run, an array for the list')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;show' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Print the stage file or attachment NAME byte for byte instead (status.json, an --attach NAME of checkpoint)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON object')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;diff' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour the patch: always, never or auto (default: color.diff, color.ui, else auto)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--worktree', '--worktree', [CompletionResultType]::ParameterName, 'Compare FROM (default: the latest checkpoint) with the files in the run''s worktree')
            [CompletionResult]::new('--stat', '--stat', [CompletionResultType]::ParameterName, 'Print a summary of changed files instead of the patch')
            [CompletionResult]::new('--name-only', '--name-only', [CompletionResultType]::ParameterName, 'Print only the names of changed files')
            [CompletionResult]::new('--name-status', '--name-status', [CompletionResultType]::ParameterName, 'Print the names and kinds (A, D, M, T) of changed files')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON object with the per-file counts and the patch')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;graph' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'The format of the picture')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;land' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('--into', '--into', [CompletionResultType]::ParameterName, 'The branch to land on (default: the current branch)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--squash', '--squash', [CompletionResultType]::ParameterName, 'One commit on the branch with the run''s changes (the default)')
            [CompletionResult]::new('--merge', '--merge', [CompletionResultType]::ParameterName, 'A merge commit whose second parent is the run branch''s tip')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Land a run that has not finished')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON object')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;path' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;fork' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the source''s timeline instead')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;rewind' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the source''s timeline instead')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Rewind a run that has not ended')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;resume' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('--workflow', '--workflow', [CompletionResultType]::ParameterName, 'Check that this workflow is the one the run was started with')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The command agent and prompt nodes run, instead of the one the run was given (`run --agent`) or else the configured one: a preset (claude, codex, gemini, aider, copilot, qwen, opencode: see `git fabro agents`) or a command line; the run keeps it')
            [CompletionResult]::new('--answer', '--answer', [CompletionResultType]::ParameterName, 'Answer the human gate NODE with CHOICE: its key, number, label or target node (repeatable)')
            [CompletionResult]::new('--rerun', '--rerun', [CompletionResultType]::ParameterName, 'Run again the side-effect node NODE that was cut short (repeatable)')
            [CompletionResult]::new('--assume-done', '--assume-done', [CompletionResultType]::ParameterName, 'Record the side-effect node NODE that was cut short as succeeded, without running it again (repeatable)')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Give the answer or decision to the run where it waits on this shared remote, for the next worker to go on with, instead of going on with it here')
            [CompletionResult]::new('--executor', '--executor', [CompletionResultType]::ParameterName, 'With --remote: start a worker for the run with this executor (default: `[executor] default` of settings.toml), as `submit --executor` does')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Resume under a workflow whose sha256 differs from the recorded one')
            [CompletionResult]::new('--trust', '--trust', [CompletionResultType]::ParameterName, 'Run the recorded workflow (and child workflows it reads from files) even though this machine neither wrote nor approved it, and remember the approval')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the state is always printed as JSON without a command)')
            [CompletionResult]::new('--prepare-only', '--prepare-only', [CompletionResultType]::ParameterName, 'Only rebuild the run directory and worktree and print the state, even for a run the engine executes')
            [CompletionResult]::new('--auto-approve', '--auto-approve', [CompletionResultType]::ParameterName, 'Answer every human gate with its first choice')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;restore' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--last-success', '--last-success', [CompletionResultType]::ParameterName, 'Restore the latest checkpoint whose status is succeeded')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'List what would change and change nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Go ahead even while a live process holds the run''s run.pid')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the recovery points (the states restores kept) with their time and command')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;undo' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'List what would change and change nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Go ahead even while a live process holds the run''s run.pid')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;archive' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Go ahead even while a live process holds the run''s run.pid')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;unarchive' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory, else the one run in place in it)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;gc' {
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only runs archived at least this long ago (0, 45s, 90m, 12h, 30d, 2w)')
            [CompletionResult]::new('--finished-older-than', '--finished-older-than', [CompletionResultType]::ParameterName, 'Also finished runs (succeeded, failed, dead) that finished at least this long ago')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Move finished runs off this shared remote into this clone instead (REMOTE defaults to `[remote] pool` of settings.toml, else the remote `push` uses)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'List what would be removed and remove nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Collect runs even while a live process holds their run.pid')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;fsck' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--repair', '--repair', [CompletionResultType]::ParameterName, 'Repair what can be repaired')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;push' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Push every run of the repository')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;fetch' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every run the remote has, which is what fetch without RUN does (as `push --all` pushes every run)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;submit' {
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'The shared remote: a configured remote''s name or a URL (default: `[remote] pool` of settings.toml, else the remote `push` uses)')
            [CompletionResult]::new('--executor', '--executor', [CompletionResultType]::ParameterName, 'Start a worker for the run with this executor')
            [CompletionResult]::new('--goal', '--goal', [CompletionResultType]::ParameterName, 'The run''s goal, instead of the workflow''s `goal` attribute')
            [CompletionResult]::new('--input', '--input', [CompletionResultType]::ParameterName, 'A workflow input, KEY=VALUE (repeatable)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'A label recorded in run.json (repeatable)')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Commit the run branch starts at (default: HEAD)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'run.toml for this run')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--sign', '--sign', [CompletionResultType]::ParameterName, 'Sign the submission with the key git signs commits with (`user.signingKey`; workers accept SSH signatures by the keys of their `[worker] allowed_signers`), so that workers that allow this key run it without --trust')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print {"run_id", "remote", "approved", "worker"} as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;worker' {
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'The shared remote: a configured remote''s name or a URL (default: `[remote] pool` of settings.toml, else the remote `push` uses)')
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'Run only this run (its full id), then exit; waits out another worker''s lease on it')
            [CompletionResult]::new('--max-runs', '--max-runs', [CompletionResultType]::ParameterName, 'Exit after this many runs')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'How long a lease lives unrenewed before another worker may take the run (default: `[lease] ttl` of settings.toml, else 60s)')
            [CompletionResult]::new('--approved', '--approved', [CompletionResultType]::ParameterName, 'Run the workflow and values of this sha256 as if this machine had approved them (repeatable): what `submit --executor` passes the worker it starts')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The command agent and prompt nodes run, instead of the configured one')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The worker''s name in its leases (default: `[worker] name` of settings.toml, else the host name); its process id follows')
            [CompletionResult]::new('--rerun', '--rerun', [CompletionResultType]::ParameterName, 'With --run: run again the side-effect node NODE that a lost worker cut short (as `resume RUN --remote REMOTE --rerun NODE` decides it for any worker)')
            [CompletionResult]::new('--assume-done', '--assume-done', [CompletionResultType]::ParameterName, 'With --run: record the side-effect node NODE that a lost worker cut short as succeeded')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--once', '--once', [CompletionResultType]::ParameterName, 'Run one run, then exit')
            [CompletionResult]::new('--exit-when-idle', '--exit-when-idle', [CompletionResultType]::ParameterName, 'Exit when no run is queued or leased, instead of waiting for one')
            [CompletionResult]::new('--trust', '--trust', [CompletionResultType]::ParameterName, 'Run workflows this machine neither wrote nor approved')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;store' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--track-files', '--track-files', [CompletionResultType]::ParameterName, 'Record the directory''s files with each root checkpoint, and put them back when an older checkpoint is read (LangGraph''s time travel)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;hooks' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install the hooks (both unless one is named)')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove git-fabro''s block from the hooks, and hook files it created')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show where the hooks are and whether they are installed')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a hook''s job (called by the installed hooks)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'git-fabro;hooks;install' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--pre-push', '--pre-push', [CompletionResultType]::ParameterName, 'The pre-push hook')
            [CompletionResult]::new('--post-rewrite', '--post-rewrite', [CompletionResultType]::ParameterName, 'The post-rewrite hook')
            [CompletionResult]::new('--claude', '--claude', [CompletionResultType]::ParameterName, 'Claude Code''s hooks, which GitHub Copilot CLI runs too (.claude/settings.local.json)')
            [CompletionResult]::new('--codex', '--codex', [CompletionResultType]::ParameterName, 'Codex CLI''s hooks (.codex/hooks.json)')
            [CompletionResult]::new('--gemini', '--gemini', [CompletionResultType]::ParameterName, 'Gemini CLI''s hooks (.gemini/settings.json)')
            [CompletionResult]::new('--qwen', '--qwen', [CompletionResultType]::ParameterName, 'Qwen Code''s hooks (.qwen/settings.json)')
            [CompletionResult]::new('--opencode', '--opencode', [CompletionResultType]::ParameterName, 'OpenCode''s plugin (.opencode/plugins/git-fabro.js)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;hooks;uninstall' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--pre-push', '--pre-push', [CompletionResultType]::ParameterName, 'The pre-push hook')
            [CompletionResult]::new('--post-rewrite', '--post-rewrite', [CompletionResultType]::ParameterName, 'The post-rewrite hook')
            [CompletionResult]::new('--claude', '--claude', [CompletionResultType]::ParameterName, 'Claude Code''s hooks, which GitHub Copilot CLI runs too (.claude/settings.local.json)')
            [CompletionResult]::new('--codex', '--codex', [CompletionResultType]::ParameterName, 'Codex CLI''s hooks (.codex/hooks.json)')
            [CompletionResult]::new('--gemini', '--gemini', [CompletionResultType]::ParameterName, 'Gemini CLI''s hooks (.gemini/settings.json)')
            [CompletionResult]::new('--qwen', '--qwen', [CompletionResultType]::ParameterName, 'Qwen Code''s hooks (.qwen/settings.json)')
            [CompletionResult]::new('--opencode', '--opencode', [CompletionResultType]::ParameterName, 'OpenCode''s plugin (.opencode/plugins/git-fabro.js)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;hooks;status' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;hooks;run' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'git-fabro;hooks;help' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install the hooks (both unless one is named)')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove git-fabro''s block from the hooks, and hook files it created')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show where the hooks are and whether they are installed')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a hook''s job (called by the installed hooks)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'git-fabro;hooks;help;install' {
            break
        }
        'git-fabro;hooks;help;uninstall' {
            break
        }
        'git-fabro;hooks;help;status' {
            break
        }
        'git-fabro;hooks;help;run' {
            break
        }
        'git-fabro;hooks;help;help' {
            break
        }
        'git-fabro;validate' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print Fabro''s JSON report: workflow_name, nodes, edges, valid, diagnostics')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;run' {
            [CompletionResult]::new('--answer', '--answer', [CompletionResultType]::ParameterName, 'Answer the human gate NODE with CHOICE: its key, number, label or target node (repeatable)')
            [CompletionResult]::new('--goal', '--goal', [CompletionResultType]::ParameterName, 'The run''s goal, instead of the workflow''s `goal` attribute (taken as written, never rendered as a template)')
            [CompletionResult]::new('--input', '--input', [CompletionResultType]::ParameterName, 'A workflow input, KEY=VALUE (repeatable)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'A label recorded in run.json (repeatable)')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Commit the run branch starts at (default: HEAD)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'run.toml for this run ([checkpoint] exclude_globs, [git.author], [agent] command)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The command agent and prompt nodes run: a preset (claude, codex, gemini, aider, copilot, qwen, opencode: see `git fabro agents`) or a command line (`/bin/bash -c COMMAND` in the worktree, the prompt on stdin and in $FABRO_PROMPT_FILE, the response on stdout)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Simulate every node instead of running it; nothing is written')
            [CompletionResult]::new('--auto-approve', '--auto-approve', [CompletionResultType]::ParameterName, 'Answer every human gate with its first choice')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Work in this directory itself instead of a linked worktree')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as one JSON document, the only thing on stdout: run_id, status, stages [{node_id, visit, status, duration_ms}], duration_ms, active_ms (less the time it stood blocked or paused), failure; a run that blocked or was interrupted: status blocked or paused and stop (a dry run: status, stages)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;agents' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON array')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;completions' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-fabro was started in DIR instead of the current directory')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no messages for people on stderr (data, warnings and errors still appear)')
            [CompletionResult]::new('-P', '-P ', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not send the output of log, diff and show through a pager')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'git-fabro;help' {
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start a run: create its run and metadata branches, run directory and worktree')
            [CompletionResult]::new('checkpoint', 'checkpoint', [CompletionResultType]::ParameterValue, 'Record a completed node: a metadata commit and a run commit of the worktree')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Save the run''s files between checkpoints, without completing a node')
            [CompletionResult]::new('finish', 'finish', [CompletionResultType]::ParameterValue, 'Finish a run: record its conclusion and remove its worktree')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show a run''s timeline, rebuilt from the run branch''s trailers')
            [CompletionResult]::new('ps', 'ps', [CompletionResultType]::ParameterValue, 'List the runs of this repository, found from their refs')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show where a run stands: last checkpoint, next node, unrecorded changes, live process')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one checkpoint in full: its record, commits and stage files')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Show the changes between two checkpoints, or between a checkpoint and the worktree')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Draw a workflow, or a run of one, as DOT, SVG or Mermaid')
            [CompletionResult]::new('land', 'land', [CompletionResultType]::ParameterValue, 'Land a finished run on your branch: its changes as one commit (or a merge commit)')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the directory a run''s files are in: its worktree, or the directory it runs in place')
            [CompletionResult]::new('fork', 'fork', [CompletionResultType]::ParameterValue, 'Fork a run at a checkpoint into a new, independent run')
            [CompletionResult]::new('rewind', 'rewind', [CompletionResultType]::ParameterValue, 'Rewind a run to a checkpoint: fork it there and archive the source as superseded')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Resume a run: rebuild its run directory and worktree from git, then continue it, print its state or run a command in it')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Make a run''s worktree match a checkpoint exactly, or only some paths of it')
            [CompletionResult]::new('undo', 'undo', [CompletionResultType]::ParameterValue, 'Take back the last turn (or step) of a run: its files go back one recorded step')
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'Archive runs: hide them from `ps` (they stay in git until `gc`)')
            [CompletionResult]::new('unarchive', 'unarchive', [CompletionResultType]::ParameterValue, 'Unarchive runs: give them back the status they had')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Delete archived runs older than a limit, and stale worktree registrations of runs')
            [CompletionResult]::new('fsck', 'fsck', [CompletionResultType]::ParameterValue, 'Check that runs hold together, and repair what can be repaired without losing anything')
            [CompletionResult]::new('push', 'push', [CompletionResultType]::ParameterValue, 'Push runs (both branches of each) to a remote, never forcing')
            [CompletionResult]::new('fetch', 'fetch', [CompletionResultType]::ParameterValue, 'Fetch runs (both branches of each) from a remote, never forcing')
            [CompletionResult]::new('submit', 'submit', [CompletionResultType]::ParameterValue, 'Queue a workflow''s run on a shared remote, for a worker to run: start it here without executing it, push it, print its id')
            [CompletionResult]::new('worker', 'worker', [CompletionResultType]::ParameterValue, 'Take queued runs from a shared remote and run them, each under a lease that fences every write')
            [CompletionResult]::new('store', 'store', [CompletionResultType]::ParameterValue, 'Keep an agent framework''s checkpoints in git, over stdin and stdout')
            [CompletionResult]::new('hooks', 'hooks', [CompletionResultType]::ParameterValue, 'Install, remove or inspect git-fabro''s git hooks and coding agents'' hooks')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check a Fabro workflow as `fabro validate` does')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a Fabro workflow: start a run, execute it node by node, checkpoint every node, finish')
            [CompletionResult]::new('agents', 'agents', [CompletionResultType]::ParameterValue, 'List the agent presets, whether each is installed, its version and its command line')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the completion script for a shell')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'git-fabro;help;start' {
            break
        }
        'git-fabro;help;checkpoint' {
            break
        }
        'git-fabro;help;snapshot' {
            break
        }
        'git-fabro;help;finish' {
            break
        }
        'git-fabro;help;log' {
            break
        }
        'git-fabro;help;ps' {
            break
        }
        'git-fabro;help;status' {
            break
        }
        'git-fabro;help;show' {
            break
        }
        'git-fabro;help;diff' {
            break
        }
        'git-fabro;help;graph' {
            break
        }
        'git-fabro;help;land' {
            break
        }
        'git-fabro;help;path' {
            break
        }
        'git-fabro;help;fork' {
            break
        }
        'git-fabro;help;rewind' {
            break
        }
        'git-fabro;help;resume' {
            break
        }
        'git-fabro;help;restore' {
            break
        }
        'git-fabro;help;undo' {
            break
        }
        'git-fabro;help;archive' {
            break
        }
        'git-fabro;help;unarchive' {
            break
        }
        'git-fabro;help;gc' {
            break
        }
        'git-fabro;help;fsck' {
            break
        }
        'git-fabro;help;push' {
            break
        }
        'git-fabro;help;fetch' {
            break
        }
        'git-fabro;help;submit' {
            break
        }
        'git-fabro;help;worker' {
            break
        }
        'git-fabro;help;store' {
            break
        }
        'git-fabro;help;hooks' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install the hooks (both unless one is named)')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove git-fabro''s block from the hooks, and hook files it created')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show where the hooks are and whether they are installed')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a hook''s job (called by the installed hooks)')
            break
        }
        'git-fabro;help;hooks;install' {
            break
        }
        'git-fabro;help;hooks;uninstall' {
            break
        }
        'git-fabro;help;hooks;status' {
            break
        }
        'git-fabro;help;hooks;run' {
            break
        }
        'git-fabro;help;validate' {
            break
        }
        'git-fabro;help;run' {
            break
        }
        'git-fabro;help;agents' {
            break
        }
        'git-fabro;help;completions' {
            break
        }
        'git-fabro;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
