use std::io::BufRead;

use anyhow::Result;

use super::{Ctx, output};
use crate::format::run_id::RunId;
use crate::ops::fork::parse_sha;
use crate::ops::hooks::{self, Hook};
use crate::ops::relink::relink;
use crate::ops::sync::push_metadata;
use crate::run::RUN_BRANCH_PREFIX;

/// Install, remove or inspect git-fabro's git hooks
///
/// The pre-push hook pushes the metadata branch of every run whose run branch is being
/// pushed. The post-rewrite hook re-links checkpoints to the commits a rebase or amend
/// replaced them with, when the trees are equal. Hooks go where git runs them from
/// (`core.hooksPath`, as husky sets it, or .git/hooks), inside a marked block that leaves any
/// existing hook in place, and never block git when git-fabro fails.
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
}

impl Which {
    fn hooks(&self) -> Vec<Hook> {
        let named: Vec<Hook> = [
            (self.pre_push, Hook::PrePush),
            (self.post_rewrite, Hook::PostRewrite),
        ]
        .into_iter()
        .filter_map(|(on, hook)| on.then_some(hook))
        .collect();
        if named.is_empty() {
            Hook::ALL.to_vec()
        } else {
            named
        }
    }
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    match args.action {
        Action::Install(which) => {
            for written in hooks::install(&ctx.repo, &which.hooks())? {
                output::note(format!("installed {}", written.path.display()));
                if !written.enabled {
                    output::warn(format!(
                        "{} is not executable, so git does not run it; `chmod +x` it to enable it",
                        written.path.display()
                    ));
                }
            }
            Ok(())
        }
        Action::Uninstall(which) => {
            for path in hooks::uninstall(&ctx.repo, &which.hooks())? {
                output::note(format!("removed git-fabro from {}", path.display()));
            }
            Ok(())
        }
        Action::Status { json } => {
            let status = hooks::status(&ctx.repo);
            if json {
                return output::json(&status);
            }
            let rows: Vec<Vec<String>> = status
                .iter()
                .map(|s| {
                    let state = match (s.installed, s.chained) {
                        (true, true) => "installed (chained with your hook)",
                        (true, false) => "installed",
                        (false, _) => "not installed",
                    };
                    vec![
                        s.hook.file_name().to_owned(),
                        state.to_owned(),
                        s.path.display().to_string(),
                    ]
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
                    "git-fabro: pushed the metadata of {} run(s) to {}",
                    ids.len(),
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
                    "git-fabro: re-linked {} checkpoint(s) to rewritten commits",
                    links.len()
                ));
            }
            Ok(())
        }
        other => Err(anyhow::anyhow!("unknown hook {other:?}")),
    }
}
