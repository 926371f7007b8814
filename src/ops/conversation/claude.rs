//! Claude Code (checked with 2.1.197 and 2.1.332): `claude --resume <id>` reads
//! `<config dir>/projects/<project>/<id>.jsonl`, where the config dir is `$CLAUDE_CONFIG_DIR`,
//! else `~/.claude`, and `<project>` is the real path of the directory Claude runs in (symbolic
//! links resolved) with every UTF-16 unit outside `[A-Za-z0-9]` made a `-` (see
//! [`claude_project_name`]). It finds the session by the file's name: 2.1.197 looks only in
//! the directory of where it runs (a copy written under the recorded checkout's path is "No
//! conversation found" on a second clone), 2.1.332 in every project. So the copy goes under the
//! checkout where the user asks for it, which on a second clone is not the recorded one.
//! Each line's top-level `sessionId` is set to the new id, so that the file is one session
//! throughout, as Claude's own files are (Claude resumes it either way, and writes its new
//! lines with the id of the file's name). The lines' `cwd` fields are kept: they record where
//! each turn ran, and neither `--resume` nor `--continue` needs them to match (Claude itself
//! tells the model the working directory changed, from the session's environment record).
//!
//! Lines that are not JSON objects (a line cut short when the transcript was read mid-write,
//! say) are copied as they are: Claude Code skips such lines when it loads a transcript
//! (checked), and the copy stays the record, byte for byte but for the session ids. A
//! transcript with no line carrying a session id is not a Claude transcript and is refused.
//! Files the session kept beside its transcript (`<id>/` with subagents' transcripts and large
//! tool results) are not in the checkpoint and are not copied.

use std::path::{Path, PathBuf};

use super::{
    Agent, ConversationError, RestoredConversation, io, session_lines, uuid_v4, write_new,
};

/// Claude Code keeps a project's folder name at most this long, then adds a hash (see
/// [`claude_project_name`]).
const MAX_PROJECT_NAME: usize = 200;

/// The name of the folder under `projects/` where Claude Code keeps the sessions run in
/// `dir` (a real path): each UTF-16 unit outside `[A-Za-z0-9]` of the path becomes `-` (so
/// `é` gives one, an emoji two); a name over 200 characters is cut there and given `-` and
/// the base-36 hash of the whole path (31 times the hash so far plus each UTF-16 unit, in
/// 32-bit arithmetic, its absolute value), as Claude names it.
pub fn claude_project_name(dir: &Path) -> String {
    let path = dir.to_string_lossy();
    let mut name = String::with_capacity(path.len());
    let mut hash: i32 = 0;
    for unit in path.encode_utf16() {
        hash = hash.wrapping_mul(31).wrapping_add(i32::from(unit));
        let c = char::from_u32(u32::from(unit)).filter(char::is_ascii_alphanumeric);
        name.push(c.unwrap_or('-'));
    }
    if name.len() <= MAX_PROJECT_NAME {
        return name;
    }
    name.truncate(MAX_PROJECT_NAME);
    name.push('-');
    name.push_str(&base36(i64::from(hash).unsigned_abs()));
    name
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

/// The folder of Claude Code's config dir `config_dir` that holds the sessions run in `dir`
/// (a real path).
pub fn claude_project_dir(config_dir: &Path, dir: &Path) -> PathBuf {
    config_dir.join("projects").join(claude_project_name(dir))
}

/// Writes `transcript` (a Claude Code session's JSON Lines, as a turn's checkpoint holds it)
/// back for Claude Code under a new session id (a UUID v4, as Claude makes its own), for the
/// checkout `workdir` (where the user runs the command; its real path names the folder), in
/// Claude's config dir `config_dir` (see [`crate::input::agent_dirs::claude_config`]). Folders are created as
/// needed; the file is written as [`write_new`] does, so no file of Claude's is ever replaced.
/// Returns where it went and the command that continues it, `claude --resume <id>`.
pub fn restore_claude(
    transcript: &[u8],
    workdir: &Path,
    config_dir: &Path,
) -> Result<RestoredConversation, ConversationError> {
    let workdir =
        std::fs::canonicalize(workdir).map_err(io(format!("cannot read {}", workdir.display())))?;
    let session_id = uuid_v4()?;
    let rewritten = session_lines::rewrite(transcript, &session_id);
    if rewritten.session_lines == 0 {
        return Err(ConversationError::not_a_transcript(
            Agent::Claude,
            transcript,
            "carries a sessionId",
        ));
    }
    let dir = claude_project_dir(config_dir, &workdir);
    std::fs::create_dir_all(&dir).map_err(io(format!("cannot create {}", dir.display())))?;
    let path = dir.join(format!("{session_id}.jsonl"));
    write_new(&path, &rewritten.bytes)?;
    Ok(RestoredConversation {
        agent: Agent::Claude,
        command: vec!["claude".into(), "--resume".into(), session_id.clone()],
        session_id: Some(session_id),
        recorded_session_id: rewritten.recorded_id,
        path,
        workdir: Some(workdir),
        unreadable_lines: rewritten.unreadable_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_names_are_claudes() {
        assert_eq!(
            claude_project_name(Path::new("/home/dev/my repo.git/x_y")),
            "-home-dev-my-repo-git-x-y"
        );
        // One `-` for each UTF-16 unit: `é` is one, the emoji two (as Claude Code 2.1 named it).
        assert_eq!(claude_project_name(Path::new("/d-é😀x")), "-d----x");
        // A long name, as Claude Code 2.1.332 named the folder of this path.
        let long = format!("/tmp/{}", "a-very-long-checkout-name-".repeat(9));
        let name = claude_project_name(Path::new(&long));
        let cut: String = long
            .chars()
            .take(200)
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        assert_eq!(name, format!("{cut}-ql5ywg"));
    }

    #[test]
    fn a_restore_writes_a_new_session_for_the_checkout() {
        let tmp = tempfile::tempdir().unwrap();
        let (work, config) = (tmp.path().join("clone"), tmp.path().join("claude"));
        std::fs::create_dir(&work).unwrap();
        let recorded = "{\"type\":\"user\",\"sessionId\":\"old\",\"cwd\":\"/first\"}\n";
        let done = restore_claude(recorded.as_bytes(), &work, &config).unwrap();
        let real = std::fs::canonicalize(&work).unwrap();
        let dir = claude_project_dir(&config, &real);
        let id = done.session_id.clone().unwrap();
        assert_eq!(done.path, dir.join(format!("{id}.jsonl")));
        assert_eq!(done.workdir.as_deref(), Some(real.as_path()));
        assert_eq!(done.recorded_session_id.as_deref(), Some("old"));
        assert_eq!(done.command_line(), format!("claude --resume {id}"));
        let written = std::fs::read_to_string(&done.path).unwrap();
        assert_eq!(written, recorded.replace("old", &id));
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
        super::super::tests::assert_private(&done.path);
        let again = restore_claude(recorded.as_bytes(), &work, &config).unwrap();
        assert_ne!(again.path, done.path);
    }

    #[test]
    fn what_is_not_a_claude_transcript_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let config = tmp.path().join("claude");
        for text in ["", "not json\n", "{\"type\":\"x\"}\n"] {
            let err = restore_claude(text.as_bytes(), tmp.path(), &config).unwrap_err();
            assert!(
                matches!(err, ConversationError::NotATranscript { .. }),
                "{err}"
            );
        }
        assert!(
            !config.exists(),
            "nothing is created for a refused transcript"
        );
    }
}
