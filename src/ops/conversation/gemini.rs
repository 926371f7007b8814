//! Gemini CLI (checked with 0.61.0): `gemini --session-file FILE` imports a session from any
//! file: it reads FILE's records (the metadata record with `sessionId` and `projectHash`, the
//! messages, `$set` updates), gives the conversation a new session id of its own, writes it
//! as a new session of the project it runs in (`~/.gemini/tmp/<project>/chats/`), and goes on
//! there. FILE is only read, and nothing in it needs rewriting: the copy is the checkpoint's
//! transcript byte for byte, kept where the caller chooses (a place of git-fabro's, since
//! Gemini never writes to it).

use std::path::Path;

use super::{Agent, ConversationError, RestoredConversation, io, json_scan, write_new};

/// Writes `transcript` (a Gemini CLI session's JSON Lines, as a turn's checkpoint holds it)
/// to `dest`, which must not exist (its folders are made; see [`write_new`]). Returns it with
/// the command that continues the conversation, `gemini --session-file <dest>`, `dest` made
/// absolute so that it runs from anywhere.
pub fn restore_gemini(
    transcript: &[u8],
    dest: &Path,
) -> Result<RestoredConversation, ConversationError> {
    let (recorded, unreadable_lines) = read(transcript).ok_or_else(|| {
        ConversationError::not_a_transcript(
            Agent::Gemini,
            transcript,
            "carries a sessionId and a projectHash",
        )
    })?;
    let (Some(dir), Some(name)) = (dest.parent(), dest.file_name()) else {
        return Err(ConversationError::Io {
            context: format!("cannot write {}", dest.display()),
            source: std::io::ErrorKind::InvalidInput.into(),
        });
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    std::fs::create_dir_all(dir).map_err(io(format!("cannot create {}", dir.display())))?;
    let dir = std::fs::canonicalize(dir).map_err(io(format!("cannot read {}", dir.display())))?;
    let path = dir.join(name);
    write_new(&path, transcript)?;
    Ok(RestoredConversation {
        agent: Agent::Gemini,
        command: vec![
            "gemini".into(),
            "--session-file".into(),
            path.to_string_lossy().into_owned(),
        ],
        session_id: None,
        recorded_session_id: Some(recorded),
        path,
        workdir: None,
        unreadable_lines,
    })
}

/// The recorded session's id, and how many non-blank lines are not JSON objects; `None` when
/// Gemini would not take the file: no record with a string `sessionId` and `projectHash`, on
/// a line of its own or (as Gemini's older session files) as the whole file.
fn read(transcript: &[u8]) -> Option<(String, usize)> {
    let mut found = None;
    let mut unreadable = 0;
    for line in transcript.split(|&b| b == b'\n') {
        match metadata_id(line) {
            Some(id) => {
                found = found.or(id);
            }
            None => unreadable += usize::from(!line.iter().all(u8::is_ascii_whitespace)),
        }
    }
    match found {
        Some(id) => Some((id, unreadable)),
        None => Some((metadata_id(transcript)??, 0)),
    }
}

/// `None` when `text` is not a JSON object; else the `sessionId` of a metadata record.
fn metadata_id(text: &[u8]) -> Option<Option<String>> {
    if !json_scan::is_json(text) {
        return None;
    }
    let members = json_scan::members(text)?;
    let string = |name| json_scan::get(text, &members, name).and_then(json_scan::string_value);
    Some(string("projectHash").and(string("sessionId")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = concat!(
        r#"{"sessionId":"1133498b-4339-483b-8852-8b8a0e0ebcb2","projectHash":"dd18","kind":"main"}"#,
        "\n",
        r#"{"id":"9319","type":"user","content":[{"text":"hello"}]}"#,
        "\n",
        r#"{"$set":{"lastUpdated":"2026-12-01T20:08:21.259Z"}}"#,
        "\n",
    );

    #[test]
    fn a_restore_copies_the_session_as_it_is() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("conversations/run/one.jsonl");
        let done = restore_gemini(SESSION.as_bytes(), &dest).unwrap();
        let real = std::fs::canonicalize(tmp.path()).unwrap();
        assert_eq!(done.path, real.join("conversations/run/one.jsonl"));
        assert_eq!(std::fs::read_to_string(&done.path).unwrap(), SESSION);
        assert_eq!(
            done.command_line(),
            format!("gemini --session-file {}", done.path.display())
        );
        assert_eq!(
            done.recorded_session_id.as_deref(),
            Some("1133498b-4339-483b-8852-8b8a0e0ebcb2")
        );
        assert_eq!((done.session_id, done.unreadable_lines), (None, 0));
        super::super::tests::assert_private(&done.path);
        let err = restore_gemini(SESSION.as_bytes(), &dest).unwrap_err();
        assert!(matches!(err, ConversationError::Exists(_)), "{err}");
    }

    #[test]
    fn a_path_that_needs_quoting_is_quoted() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("it's here/one.jsonl");
        let done = restore_gemini(SESSION.as_bytes(), &dest).unwrap();
        assert!(
            done.command_line().ends_with(r"it'\''s here/one.jsonl'"),
            "{}",
            done.command_line()
        );
    }

    #[test]
    fn an_older_single_document_session_is_taken_and_others_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let legacy =
            "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"h\",\n  \"messages\": []\n}\n";
        let done = restore_gemini(legacy.as_bytes(), &tmp.path().join("a.json")).unwrap();
        assert_eq!(done.recorded_session_id.as_deref(), Some("s"));
        let claude = r#"{"type":"user","sessionId":"s"}"#;
        for (n, text) in ["", "x", claude, "{\"projectHash\":1,\"sessionId\":\"s\"}"]
            .iter()
            .enumerate()
        {
            let dest = tmp.path().join(format!("refused/{n}.jsonl"));
            let err = restore_gemini(text.as_bytes(), &dest).unwrap_err();
            assert!(
                matches!(err, ConversationError::NotATranscript { .. }),
                "{err}"
            );
        }
        assert!(!tmp.path().join("refused").exists());
    }
}
