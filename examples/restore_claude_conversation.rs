//! Test plumbing, not a workflow example: calls `git_fabro::ops::conversation::restore_claude`
//! from a script, until `git fabro restore` and `undo` offer it (`tests/agents/
//! run_claude_resume.sh` drives it against the real Claude Code). It reads the environment
//! as the command line will: Claude's config dir from `$CLAUDE_CONFIG_DIR`, else `$HOME`.
//!
//!   cargo build --example restore_claude_conversation
//!   restore_claude_conversation TRANSCRIPT [WORKDIR]
//!
//! TRANSCRIPT is a turn's `transcript.jsonl` (`-` for stdin); WORKDIR the checkout to resume
//! in (default: the current directory). Prints the result as one JSON object
//! (`session_id`, `recorded_session_id`, `path`, `workdir`, `command`, `unreadable_lines`);
//! exit 1 with the reason on stderr when nothing was written.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use git_fabro::ops::conversation::{claude_config_dir, restore_claude};

fn main() -> ExitCode {
    match run() {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<String, String> {
    let mut args = std::env::args_os().skip(1);
    let transcript = args
        .next()
        .ok_or("usage: restore_claude_conversation TRANSCRIPT [WORKDIR]")?;
    let workdir = match args.next() {
        Some(dir) => PathBuf::from(dir),
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    let bytes = if transcript == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        bytes
    } else {
        std::fs::read(&transcript)
            .map_err(|e| format!("cannot read {}: {e}", transcript.to_string_lossy()))?
    };
    let config = claude_config_dir(
        std::env::var_os("CLAUDE_CONFIG_DIR").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
    .ok_or("neither CLAUDE_CONFIG_DIR nor HOME is set")?;
    let restored = restore_claude(&bytes, &workdir, &config).map_err(|e| e.to_string())?;
    serde_json::to_string(&restored).map_err(|e| e.to_string())
}
