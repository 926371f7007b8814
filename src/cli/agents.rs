//! `git fabro agents`: which agent presets this machine can run, so that choosing
//! `--agent claude` is not a guess.

use anyhow::Result;
use serde::Serialize;

use super::output;
use crate::engine::agents::PRESETS;

/// List the agent presets, whether each is installed, its version and its command line
///
/// `--agent claude` (or `codex`, `gemini`, `aider`, `copilot`, `qwen`, `opencode`), and the
/// same word in `git config fabro.agentCommand` or `[agent] command`, runs the command line
/// shown here: made for a fresh worktree, nobody at a terminal, as root or as a user. Any other
/// agent command is run as written. A preset is installed when its program is on PATH; its version is the first
/// line of `PROGRAM --version`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print a JSON array
    #[arg(long)]
    json: bool,
}

/// A row of `agents --json`.
#[derive(Serialize)]
struct Listed {
    name: &'static str,
    program: &'static str,
    installed: bool,
    /// Where the program was found on PATH; null when it was not.
    path: Option<String>,
    /// The first line of `PROGRAM --version`; null when not installed or it said nothing.
    version: Option<String>,
    /// The command line `--agent NAME` runs.
    command: &'static str,
}

pub fn run(args: Args) -> Result<()> {
    let search_path = std::env::var_os("PATH").unwrap_or_default();
    let listed: Vec<Listed> = PRESETS
        .iter()
        .map(|preset| {
            let installed = preset.installed(&search_path);
            Listed {
                name: preset.name,
                program: preset.program,
                installed: installed.is_some(),
                path: installed
                    .as_ref()
                    .map(|found| found.path.display().to_string()),
                version: installed.and_then(|found| found.version),
                command: preset.command,
            }
        })
        .collect();
    if args.json {
        return output::json(&listed);
    }
    let rows: Vec<Vec<String>> = listed
        .iter()
        .map(|agent| {
            let version = match (agent.installed, &agent.version) {
                (false, _) => "not installed".to_owned(),
                (true, Some(version)) => version.clone(),
                (true, None) => "installed (no version)".to_owned(),
            };
            vec![agent.name.to_owned(), version, agent.command.to_owned()]
        })
        .collect();
    output::table(&["AGENT", "VERSION", "COMMAND"], &rows, None)
}
