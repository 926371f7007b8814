//! What was asked in each turn of an agent session. The agent's prompt hook hands each prompt
//! over as it is submitted; they wait in the run directory until the turn ends, and the turn's
//! checkpoint keeps them as its stage's `prompt.md` (Fabro's name for what a stage was asked).
//! A session is named by the first line of its first prompt.

use crate::error::Result;
use crate::format::store::RunDir;

/// Where prompts wait for their turn's checkpoint.
const PENDING: &str = "turn-prompts.jsonl";
/// The stage file that keeps a turn's prompts.
pub const PROMPT_FILE: &str = "prompt.md";
/// How long a session's name may be, in characters: what fits a commit subject.
const NAME_LENGTH: usize = 72;

/// Keeps `prompt` for the checkpoint of the turn it starts.
pub fn hand_over(dir: &RunDir, prompt: &str) -> Result<()> {
    let mut pending = waiting(dir);
    pending.push(prompt.to_owned());
    let mut lines = String::new();
    for prompt in &pending {
        lines.push_str(&serde_json::Value::from(prompt.as_str()).to_string());
        lines.push('\n');
    }
    dir.write(PENDING, lines.as_bytes())
}

/// The prompts of the turn under way, oldest first; a line that is not a JSON string (an
/// older or damaged file) is skipped.
pub fn waiting(dir: &RunDir) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(dir.path.join(PENDING)) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| serde_json::from_str::<String>(line).ok())
        .collect()
}

/// Forgets the prompts once their turn's checkpoint holds them.
pub fn taken(dir: &RunDir) {
    let _ = std::fs::remove_file(dir.path.join(PENDING));
}

/// The text of `prompt.md` for a turn's prompts: each one, a blank line between.
pub fn stage_text(prompts: &[String]) -> String {
    let mut text = prompts.join("\n\n");
    text.push('\n');
    text
}

/// A session's name from what it was asked: the first line of text, at most [`NAME_LENGTH`]
/// characters, cut at a word with `...` when longer.
pub fn name(prompt: &str) -> Option<String> {
    let line = prompt
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())?;
    let line: String = line
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if line.chars().count() <= NAME_LENGTH {
        return Some(line);
    }
    let cut: String = line.chars().take(NAME_LENGTH - 3).collect();
    let cut = match cut.rfind(' ') {
        Some(space) if space > NAME_LENGTH / 2 => &cut[..space],
        _ => cut.as_str(),
    };
    Some(format!("{}...", cut.trim_end()))
}

#[cfg(test)]
mod tests {
    use super::name;

    #[test]
    fn a_session_is_named_by_its_first_line_of_text() {
        assert_eq!(
            name("\n  fix the flaky test \nin ci").as_deref(),
            Some("fix the flaky test")
        );
        assert_eq!(name(" \n\t\n"), None);
        let long =
            "refactor the parser so that every error names the line and column it was found at";
        let named = name(long).expect("a name");
        assert_eq!(
            named,
            "refactor the parser so that every error names the line and column it..."
        );
        assert!(named.chars().count() <= 72);
        let word = "x".repeat(100);
        assert_eq!(name(&word).expect("a name").chars().count(), 72);
        assert_eq!(name("tab\there").as_deref(), Some("tab here"));
    }
}
