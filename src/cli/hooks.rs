use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::{Ctx, agent_hook, output};
use crate::error::Error;
use crate::format::run_id::RunId;
use crate::ops::agent_hooks::{self, Agent, Uninstalled, WorkTree};
use crate::ops::fork::parse_sha;
use crate::ops::hooks::{self, Hook};
use crate::ops::relink::relink;
use crate::ops::sync::push_metadata;
use crate::ops::{agent_sessions, gemini_trust};
use crate::run::RUN_BRANCH_PREFIX;

/// Install, remove or inspect git-fabro's git hooks and coding agents' hooks
///
/// The pre-push hook pushes the metadata branch of every run whose run branch is being
/// pushed. The post-rewrite hook re-links checkpoints to the commits a rebase or amend
/// replaced them with, when the trees are equal. Hooks go where git runs them from
/// (`core.hooksPath`, as husky sets it, or .git/hooks), inside a marked block that leaves any
/// existing hook in place, and never block git when git-fabro fails.
///
/// --claude, --codex, --gemini and --qwen write the agent's own hook settings where it reads
/// them when it runs in this work tree (.claude/settings.local.json, .codex/hooks.json, of the
/// main checkout for Codex in a linked worktree, .gemini/settings.json, .qwen/settings.json);
/// --opencode writes a plugin, .opencode/plugins/git-fabro.js, OpenCode having plugins instead
/// of hooks. Each turn that ends is checkpointed as node `turn` with the session's transcript
/// attached, and each file write or shell command is preceded by a snapshot. GitHub Copilot CLI
/// runs Claude Code's hooks: --claude sets it up too, and `copilot -p` loads them only with
/// --trust-folder. --gemini also trusts this folder in Gemini's trustedFolders.json, without
/// which Gemini runs no project hook. Installed in a checkout of your own (not a run's
/// worktree), each agent session there becomes a run in place of its own, labelled with the
/// session id: started by its first hook, finished when it ends (Claude Code, Copilot, Gemini
/// CLI, Qwen Code's terminal UI), else by the next session or `land`. Uninstall gives every
/// file back as it was; while installed, those files are in no checkpoint. A failing agent hook
/// never stops the agent; `git fabro status` shows its failures.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Install the hooks (both unless one is named)
    Install(Which),
    /// Remove git-fabro's block from the hooks, and hook files it created
    Uninstall(Which),
    /// Show where the hooks are and whether they are installed
    Status {
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Run a hook's job (called by the installed hooks)
    #[command(hide = true)]
    Run {
        /// pre-push or post-rewrite
        hook: String,
        /// The arguments git passed to the hook
        args: Vec<String>,
    },
}

#[derive(Debug, clap::Args)]
struct Which {
    /// The pre-push hook
    #[arg(long)]
    pre_push: bool,
    /// The post-rewrite hook
    #[arg(long)]
    post_rewrite: bool,
    /// Claude Code's hooks, which GitHub Copilot CLI runs too (.claude/settings.local.json)
    #[arg(long)]
    claude: bool,
    /// Codex CLI's hooks (.codex/hooks.json)
    #[arg(long)]
    codex: bool,
    /// Gemini CLI's hooks (.gemini/settings.json)
    #[arg(long)]
    gemini: bool,
    /// Qwen Code's hooks (.qwen/settings.json)
    #[arg(long)]
    qwen: bool,
    /// OpenCode's plugin (.opencode/plugins/git-fabro.js)
    #[arg(long)]
    opencode: bool,
}

impl Which {
    fn agents(&self) -> Vec<Agent> {
        [
            (self.claude, Agent::Claude),
            (self.codex, Agent::Codex),
            (self.gemini, Agent::Gemini),
            (self.qwen, Agent::Qwen),
            (self.opencode, Agent::OpenCode),
        ]
        .into_iter()
        .filter_map(|(on, agent)| on.then_some(agent))
        .collect()
    }

    /// The git hooks named; both when nothing at all is named.
    fn hooks(&self) -> Vec<Hook> {
        let named: Vec<Hook> = [
            (self.pre_push, Hook::PrePush),
            (self.post_rewrite, Hook::PostRewrite),
        ]
        .into_iter()
        .filter_map(|(on, hook)| on.then_some(hook))
        .collect();
        if named.is_empty() && self.agents().is_empty() {
            Hook::ALL.to_vec()
        } else {
            named
        }
    }
}

pub fn run(ctx: impl FnOnce() -> Result<Ctx>, args: Args) -> Result<()> {
    // An agent's hook must exit 0 even where no repository opens: it never stops the agent.
    if let Action::Run { hook, args } = &args.action
        && hook.starts_with("agent-")
    {
        agent_hook::run(ctx, hook, args);
        return Ok(());
    }
    let ctx = &ctx()?;
    match args.action {
        Action::Install(which) => {
            for agent in which.agents() {
                install_agent(ctx, agent)?;
            }
            for written in hooks::install(&ctx.repo, &which.hooks())? {
                output::note(format!("installed {}", shown(&written.path)));
                if !written.enabled {
                    output::warn(format!(
                        "{} is not executable, so git does not run it; `chmod +x` it to enable it",
                        shown(&written.path)
                    ));
                }
            }
            Ok(())
        }
        Action::Uninstall(which) => {
            for agent in which.agents() {
                uninstall_agent(ctx, agent)?;
            }
            for path in hooks::uninstall(&ctx.repo, &which.hooks())? {
                output::note(format!("removed git-fabro from {}", shown(&path)));
            }
            Ok(())
        }
        Action::Status { json } => {
            let status = hooks::status(&ctx.repo);
            let agents = match work_tree(ctx) {
                Ok(tree) => agent_hooks::status(&tree),
                Err(_) => Vec::new(),
            };
            if json {
                let mut all = serde_json::to_value(&status)?;
                if let (Some(list), serde_json::Value::Array(more)) =
                    (all.as_array_mut(), serde_json::to_value(&agents)?)
                {
                    list.extend(more);
                }
                return output::json(&all);
            }
            // A git hook is chained with the user's script; an agent's entries sit beside the
            // user's own settings in the same file.
            let beside = "installed (beside your settings)";
            let agent_rows = agents.iter().map(|s| {
                (
                    s.hook.name(),
                    s.installed,
                    s.chained.then_some(beside),
                    &s.path,
                )
            });
            let chained = "installed (chained with your hook)";
            let rows: Vec<Vec<String>> = status
                .iter()
                .map(|s| {
                    (
                        s.hook.file_name(),
                        s.installed,
                        s.chained.then_some(chained),
                        &s.path,
                    )
                })
                .chain(agent_rows)
                .map(|(name, installed, shared, path)| {
                    let state = match (installed, shared) {
                        (true, Some(shared)) => shared,
                        (true, None) => "installed",
                        (false, _) => "not installed",
                    };
                    vec![name.to_owned(), state.to_owned(), shown(path)]
                })
                .collect();
            output::table(&["HOOK", "STATE", "PATH"], &rows, None)
        }
        Action::Run { hook, args } => {
            // A hook must never block git: report problems and succeed.
            if let Err(err) = run_hook(ctx, &hook, &args) {
                output::warn(format!("git-fabro {hook} hook: {err:#}"));
            }
            Ok(())
        }
    }
}

/// Installs an agent's hooks where it reads them when it runs in this work tree.
fn install_agent(ctx: &Ctx, agent: Agent) -> Result<()> {
    let tree = work_tree(ctx)?;
    let path = agent_hooks::install(&tree, agent)?;
    let what = match agent {
        Agent::OpenCode => "plugin",
        _ => "hooks",
    };
    output::note(format!(
        "installed {}'s {what} in {}",
        agent.name(),
        shown(&path)
    ));
    // In a checkout of the user's (not a run's worktree), each session is a run.
    let in_run = ctx
        .repo
        .head_branch()
        .is_some_and(|b| b.starts_with(RUN_BRANCH_PREFIX));
    if !in_run {
        agent_sessions::enable(&tree.git_dir, agent.name())?;
        output::note(format!(
            "each {} session here is now a run in place of its own",
            agent.name()
        ));
    }
    if agent == Agent::Gemini {
        let file = gemini_trust_file();
        gemini_trust::trust(&file, &tree.dir, &tree.git_dir)?;
        output::note(format!("trusted this folder in {}", shown(&file)));
    }
    Ok(())
}

fn uninstall_agent(ctx: &Ctx, agent: Agent) -> Result<()> {
    let tree = work_tree(ctx)?;
    agent_sessions::disable(&tree.git_dir, agent.name())?;
    match agent_hooks::uninstall(&tree, agent)? {
        Uninstalled::Removed(path) => {
            output::note(format!("removed git-fabro from {}", shown(&path)));
        }
        Uninstalled::KeptForOthers(path) => output::note(format!(
            "left git-fabro's entries in {}: another work tree of this repository uses them",
            shown(&path)
        )),
        Uninstalled::NotInstalled => {}
    }
    if agent == Agent::Gemini {
        gemini_trust::untrust(&tree.git_dir)?;
    }
    Ok(())
}

/// A path as the user would type it here: relative to the current directory when it is inside
/// it (`.git/hooks/pre-push`), else whole (the main checkout's hooks, seen from a worktree).
fn shown(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|here| path.strip_prefix(here).ok().map(Path::to_owned))
        .filter(|rel| !rel.as_os_str().is_empty())
        .unwrap_or_else(|| path.to_owned())
        .display()
        .to_string()
}

/// The work tree the agent works in: the one of the current directory.
fn work_tree(ctx: &Ctx) -> Result<WorkTree> {
    let workdir = ctx.repo.workdir().ok_or_else(|| {
        Error::Usage("agent hooks go into a work tree, and this repository has none".into())
    })?;
    Ok(WorkTree {
        dir: workdir.to_owned(),
        git_dir: ctx.repo.git_dir(),
        main_dir: ctx.repo.main_path(),
        common_dir: ctx.repo.common_dir(),
    })
}

/// Gemini CLI's trusted folders file, where Gemini itself looks for it:
/// `$GEMINI_CLI_TRUSTED_FOLDERS_PATH`, else `.gemini/trustedFolders.json` in
/// `$GEMINI_CLI_HOME`, else in the home directory.
fn gemini_trust_file() -> PathBuf {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(path) = var("GEMINI_CLI_TRUSTED_FOLDERS_PATH") {
        return PathBuf::from(path);
    }
    let home = var("GEMINI_CLI_HOME")
        .or_else(|| var("HOME"))
        .map_or_else(std::env::temp_dir, PathBuf::from);
    home.join(".gemini").join("trustedFolders.json")
}

fn run_hook(ctx: &Ctx, hook: &str, args: &[String]) -> Result<()> {
    let lines: Vec<String> = std::io::stdin()
        .lock()
        .lines()
        .map_while(Result::ok)
        .collect();
    match hook {
        "pre-push" => {
            let remote = args
                .first()
                .ok_or_else(|| anyhow::anyhow!("pre-push needs the remote"))?;
            // Lines are `<local ref> <local sha> <remote ref> <remote sha>`; deletions have a
            // zero local sha and need nothing.
            let mut ids: Vec<RunId> = lines
                .iter()
                .filter_map(|line| {
                    let mut fields = line.split_whitespace();
                    let local = fields.next()?;
                    let sha = fields.next()?;
                    let id = RunId::parse(local.strip_prefix(RUN_BRANCH_PREFIX)?).ok()?;
                    (!sha.chars().all(|c| c == '0')).then_some(id)
                })
                .collect();
            ids.sort();
            ids.dedup();
            if !ids.is_empty() {
                let synced = push_metadata(&ctx.repo, remote, &ids)?;
                output::note(format!(
                    "git-fabro: pushed the metadata of {} to {}",
                    output::counted(ids.len(), "run", "runs"),
                    synced.remote
                ));
            }
            Ok(())
        }
        "post-rewrite" => {
            let pairs: Vec<_> = lines
                .iter()
                .filter_map(|line| {
                    let mut fields = line.split_whitespace();
                    Some((
                        parse_sha(fields.next()?).ok()?,
                        parse_sha(fields.next()?).ok()?,
                    ))
                })
                .collect();
            let links = relink(&ctx.repo, &pairs, &ctx.base_config()?)?;
            if !links.is_empty() {
                output::note(format!(
                    "git-fabro: re-linked {} to rewritten commits",
                    output::counted(links.len(), "checkpoint", "checkpoints")
                ));
            }
            Ok(())
        }
        other => Err(anyhow::anyhow!("unknown hook {other:?}")),
    }
}
