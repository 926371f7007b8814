//! Man pages and shell completions, produced from the clap definition (`super::command()`) so
//! they cannot drift from `--help`. These functions only build bytes: `generate-docs` writes
//! them to `man/` and `completions/`, and a test compares them with the checked-in files.

use std::path::PathBuf;

use clap_complete::Shell;

/// The executable's name: man pages are `git-fabro.1` and `git-fabro-<command>.1`, which is
/// what `git help fabro` looks up, and the completion scripts complete `git-fabro`.
const BIN: &str = "git-fabro";

/// Every shell clap_complete generates a script for.
pub const SHELLS: [Shell; 5] = [
    Shell::Bash,
    Shell::Zsh,
    Shell::Fish,
    Shell::Elvish,
    Shell::PowerShell,
];

/// `git-fabro.1` for the root and `git-fabro-<command>.1` for every visible command.
pub fn man_pages() -> Vec<(PathBuf, Vec<u8>)> {
    // `git fabro help` is clap's, not ours; it gets neither a page nor a line in the list.
    let mut root = super::command().disable_help_subcommand(true);
    root.build();
    let mut pages = Vec::new();
    add_pages(&root, "", &mut pages);
    pages
}

/// The page of `cmd`, the command at `path`, and of its visible commands, recursively. After
/// `build()`, clap names a command `<parent>-<name>` and writes its synopsis as `git fabro <name>`.
fn add_pages(cmd: &clap::Command, path: &str, pages: &mut Vec<(PathBuf, Vec<u8>)>) {
    let file = format!("{}.1", cmd.get_display_name().unwrap_or(BIN));
    pages.push((PathBuf::from(file), super::man::page(cmd, path)));
    for sub in cmd.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let sub_path = format!("{path} {}", sub.get_name());
        add_pages(sub, sub_path.trim_start(), pages);
    }
}

/// The completion script for `shell`; bash's also completes `git fabro` (see `GIT_BASH`).
pub(crate) fn completion(shell: Shell) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(
        shell,
        &mut without_hidden(super::command()),
        BIN,
        &mut script,
    );
    match shell {
        Shell::Zsh => return with_zsh_dynamic(script),
        Shell::Fish => {
            script.extend_from_slice(FISH_DYNAMIC.as_bytes());
            return script;
        }
        Shell::Bash => {}
        _ => return script,
    }
    // clap_complete (4.6.11 and earlier) spells the bash states of a hyphenated binary's
    // commands two ways, `git__fabro__subcmd__log` where it sets them and
    // `git__subcmd__fabro__subcmd__log` where it matches them, so no command's flags would
    // complete (clap-rs/clap#6421). Spell them the one way; once clap agrees, this is a no-op.
    let script = String::from_utf8(script)
        .expect("clap_complete writes UTF-8")
        .replace(&BIN.replace('-', "__subcmd__"), &BIN.replace('-', "__"));
    let mut script = script.into_bytes();
    script.extend_from_slice(BASH_DYNAMIC.as_bytes());
    script.extend_from_slice(GIT_BASH.as_bytes());
    script
}

/// The command line as people see it. clap's scripts offer hidden commands (`__complete`,
/// `generate-docs`) like any other, and clap cannot remove a command, so the scripts are
/// generated from a copy of the root that never had them.
fn without_hidden(full: clap::Command) -> clap::Command {
    let mut visible = clap::Command::new(BIN)
        .version(env!("CARGO_PKG_VERSION"))
        .args(full.get_arguments().cloned())
        .subcommands(full.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    if let Some(about) = full.get_about() {
        visible = visible.about(about.clone());
    }
    if let Some(about) = full.get_long_about() {
        visible = visible.long_about(about.clone());
    }
    visible
}

/// clap's zsh function, renamed `_git-fabro_static`, behind one that first asks
/// `git-fabro __complete` (see `ZSH_DYNAMIC`).
fn with_zsh_dynamic(script: Vec<u8>) -> Vec<u8> {
    let script = String::from_utf8(script).expect("clap_complete writes UTF-8");
    let definition = format!("{BIN}() {{");
    let script = script.replacen(
        &format!("_{definition}"),
        &format!("{ZSH_DYNAMIC}\n_{BIN}_static() {{"),
        1,
    );
    script.into_bytes()
}

/// Run ids and checkpoints come from the repository, so the scripts ask the binary for them
/// (`git-fabro __complete WORDS...`, in `complete.rs`); where it answers with exit 1, the word
/// is not one of them and clap's static completion goes on as before.
const BASH_DYNAMIC: &str = r#"
# Run ids and checkpoints, from the repository: `git-fabro __complete` prints them (one a line,
# a tab before a description) or exits 1 where the word is neither.
_git__fabro_dynamic() {
    local found line
    if found=$(git-fabro __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null); then
        COMPREPLY=()
        while IFS= read -r line; do
            [[ -n $line ]] && COMPREPLY+=("${line%%$'	'*}")
        done <<< "$found"
        return 0
    fi
    _git__fabro "$@"
}
if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _git__fabro_dynamic -o nosort -o bashdefault -o default git-fabro
else
    complete -F _git__fabro_dynamic -o bashdefault -o default git-fabro
fi
"#;

/// zsh calls `_git-fabro` for `git-fabro ...` and, through its own `_git`, for `git fabro ...`;
/// in both, `words[2,CURRENT]` are the words after the command, the last one being completed.
const ZSH_DYNAMIC: &str = r#"# Run ids and checkpoints, from the repository: `git-fabro __complete` prints them (one a line,
# a tab before a description) or exits 1 where the word is neither, and clap's completion runs.
_git-fabro() {
    local found line
    local -a candidates described
    if found=$(git-fabro __complete "${(@)words[2,CURRENT]}" 2>/dev/null); then
        for line in "${(@f)found}"; do
            [[ -n $line ]] || continue
            candidates+=("${line%%$'	'*}")
            described+=("${line%%$'	'*}  -- ${line#*$'	'}")
        done
        (( ${#candidates} )) && compadd -U -l -d described -a candidates
        return 0
    fi
    _git-fabro_static "$@"
}
"#;

/// fish completes `git fabro ...` through `git-fabro`'s completions too.
const FISH_DYNAMIC: &str = r#"
# Run ids and checkpoints, from the repository: `git-fabro __complete` prints them (a tab before
# a description, as fish wants them) or exits 1 where the word is neither.
function __fish_git_fabro_dynamic
    set -l words (commandline -opc)
    git-fabro __complete $words[2..-1] (commandline -ct) 2>/dev/null
end
complete -c git-fabro -f -a '(__fish_git_fabro_dynamic)'
"#;

/// Every completion script under its conventional file name (`git-fabro.bash`, `_git-fabro`,
/// `git-fabro.fish`, `git-fabro.elv`, `_git-fabro.ps1`).
pub fn completion_files() -> Vec<(PathBuf, Vec<u8>)> {
    use clap_complete::Generator;
    SHELLS
        .iter()
        .map(|&shell| (PathBuf::from(shell.file_name(BIN)), completion(shell)))
        .collect()
}

/// clap's bash function `_git__fabro` completes `git-fabro ...`. For `git fabro ...`, git's own
/// completion finds the command word and calls `_git_fabro` with its view of the line: `words`
/// and `cword`, with `=` and `:` not splitting words, and `__git_cmd_idx` at `fabro` (git 2.31
/// and later; older ones are searched for it). This shim hands clap's function the same line as
/// if it started at `git-fabro`, keeping bash's own current word, the one bash will replace.
/// git registers its completion with `-o nospace`; clap's words want the usual trailing space.
const GIT_BASH: &str = r#"
# `git fabro <TAB>`: git's completion (git-completion.bash) calls _git_fabro.
_git_fabro() {
    local idx=${__git_cmd_idx-}
    if [[ -z $idx ]]; then
        for ((idx = 1; idx < cword; idx++)); do
            [[ ${words[idx]} == fabro ]] && break
        done
    fi
    local cur_word=${COMP_WORDS[COMP_CWORD]}
    local line=(git-fabro "${words[@]:idx+1:cword-idx-1}" "$cur_word")
    local COMP_WORDS=("${line[@]}")
    local COMP_CWORD=$((${#line[@]} - 1))
    compopt +o nospace 2>/dev/null
    _git__fabro_dynamic git-fabro "$cur_word" "${line[COMP_CWORD-1]}"
}
"#;
