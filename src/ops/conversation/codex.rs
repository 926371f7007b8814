//! Codex CLI (checked with 0.169.0 and 0.171.0): a session is a rollout file,
//! `<codex home>/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl`, where the home is
//! `$CODEX_HOME`, else `~/.codex`, the date and time are local (Codex names the file with the
//! local time it starts the session) and `<id>` is the session's id, a UUID v7. `codex resume
//! <id>` (and `codex exec resume <id> PROMPT`) finds the file by the id in its name, from any
//! directory, and appends the new turn to it. The file's first record, `session_meta`, holds
//! the id (`payload.id` and `payload.session_id`); events and token records name it again
//! (`payload.thread_id`, `payload.session_id`). Those values, where they equal the recorded
//! session's id, take the new id, so that the copy is a session of its own throughout; no other
//! byte changes, and a message, a tool's output or a file's content that happens to hold the
//! id as text stays as recorded. A parent session's id (a fork's `forked_from_id`) is another
//! id and stays too.

use std::ops::Range;
use std::path::Path;

use super::{Agent, ConversationError, RestoredConversation, io, json_scan, uuid_v7, write_new};

/// The record that opens a rollout and names its session.
const SESSION_META: &str = "session_meta";
/// The keys of a record's `payload` whose value, when it is the session's id, names the
/// session (`id` only in the `session_meta` record, where it is the session's own).
const ID_KEYS: [&str; 3] = ["session_id", "thread_id", "conversation_id"];

/// Writes `transcript` (a Codex rollout, as a turn's checkpoint holds it) back into Codex's
/// home `codex_home` (see [`crate::input::agent_dirs::codex_home`]) as a new session: a new id (a UUID v7 of `now`, as
/// Codex makes its own), a file named as Codex names one started at `now` (local time), never
/// replacing one (see [`write_new`]). Returns where it went and the command that continues it,
/// `codex resume <id>`.
pub fn restore_codex(
    transcript: &[u8],
    codex_home: &Path,
    now: &jiff::Zoned,
) -> Result<RestoredConversation, ConversationError> {
    let Some(recorded) = recorded_id(transcript) else {
        return Err(ConversationError::not_a_transcript(
            Agent::Codex,
            transcript,
            "is a session_meta record with an id",
        ));
    };
    let session_id = uuid_v7(now.timestamp().as_millisecond())?;
    let (bytes, unreadable_lines) = rewrite(transcript, &recorded, &session_id);
    let dir = codex_home
        .join("sessions")
        .join(now.strftime("%Y").to_string())
        .join(now.strftime("%m").to_string())
        .join(now.strftime("%d").to_string());
    std::fs::create_dir_all(&dir).map_err(io(format!("cannot create {}", dir.display())))?;
    let name = format!(
        "rollout-{}-{session_id}.jsonl",
        now.strftime("%Y-%m-%dT%H-%M-%S")
    );
    let path = dir.join(name);
    write_new(&path, &bytes)?;
    Ok(RestoredConversation {
        agent: Agent::Codex,
        command: vec!["codex".into(), "resume".into(), session_id.clone()],
        session_id: Some(session_id),
        recorded_session_id: Some(recorded),
        path,
        workdir: None,
        unreadable_lines,
    })
}

/// One line of a rollout, read: its members, its `type`, and where its `payload` is.
struct Record<'l> {
    line: &'l [u8],
    kind: Option<String>,
    payload: Option<(Range<usize>, Vec<json_scan::Member>)>,
}

fn record(line: &[u8]) -> Option<Record<'_>> {
    if !json_scan::is_json(line) {
        return None;
    }
    let members = json_scan::members(line)?;
    let kind = json_scan::get(line, &members, "type").and_then(json_scan::string_value);
    let payload = members
        .iter()
        .rev()
        .find(|m| json_scan::key_is(&line[m.key.clone()], "payload"))
        .and_then(|m| Some((m.value.clone(), json_scan::members(&line[m.value.clone()])?)));
    Some(Record {
        line,
        kind,
        payload,
    })
}

impl Record<'_> {
    /// The string value of the payload's member `name`.
    fn payload_string(&self, name: &str) -> Option<String> {
        let (at, members) = self.payload.as_ref()?;
        json_scan::get(&self.line[at.clone()], members, name).and_then(json_scan::string_value)
    }

    /// Where (in the line) the payload's values naming the session `id` are.
    fn id_values(&self, id: &str) -> Vec<Range<usize>> {
        let Some((at, members)) = &self.payload else {
            return Vec::new();
        };
        let payload = &self.line[at.clone()];
        let meta = self.kind.as_deref() == Some(SESSION_META);
        members
            .iter()
            .filter(|m| {
                let key = &payload[m.key.clone()];
                (ID_KEYS.iter().any(|k| json_scan::key_is(key, k))
                    || (meta && json_scan::key_is(key, "id")))
                    && json_scan::string_value(&payload[m.value.clone()]).as_deref() == Some(id)
            })
            .map(|m| at.start + m.value.start..at.start + m.value.end)
            .collect()
    }
}

fn lines(transcript: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = transcript.strip_suffix(b"\n").unwrap_or(transcript);
    body.split(|&b| b == b'\n')
        .filter(move |_| !transcript.is_empty())
}

/// The session's id: that of the first `session_meta` record.
fn recorded_id(transcript: &[u8]) -> Option<String> {
    lines(transcript)
        .filter_map(record)
        .find(|r| r.kind.as_deref() == Some(SESSION_META))?
        .payload_string("id")
}

/// `transcript` with the session's id `old` made `new` where it names the session, ending
/// with a newline (Codex appends the next turn's records); and how many non-blank lines are
/// not JSON objects (copied as they are).
fn rewrite(transcript: &[u8], old: &str, new: &str) -> (Vec<u8>, usize) {
    let replacement = serde_json::to_vec(new).unwrap_or_default();
    let mut out = Vec::with_capacity(transcript.len() + 64);
    let mut unreadable = 0;
    for line in lines(transcript) {
        match record(line) {
            Some(record) => json_scan::splice(line, &record.id_values(old), &replacement, &mut out),
            None => {
                unreadable += usize::from(!line.iter().all(u8::is_ascii_whitespace));
                out.extend_from_slice(line);
            }
        }
        out.push(b'\n');
    }
    (out, unreadable)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "01a23338-f211-7d71-bacc-cc57242f8f78";

    fn rollout() -> String {
        [
            format!(
                r#"{{"timestamp":"t","type":"session_meta","payload":{{"session_id":"{OLD}","id":"{OLD}","forked_from_id":"p","cwd":"/first"}}}}"#
            ),
            format!(
                r#"{{"type":"event_msg","payload":{{"type":"item_completed","thread_id":"{OLD}","item":{{"id":"{OLD}","text":"{OLD}"}}}}}}"#
            ),
            format!(
                r#"{{"type":"response_item","payload":{{"type":"message","id":"{OLD}","content":[{{"type":"input_text","text":"{OLD}"}}]}}}}"#
            ),
            format!(
                r#"{{"type":"token_usage_record","payload":{{"thread_id":"{OLD}","session_id" : "{OLD}","turn_id":"{OLD}x"}}}}"#
            ),
            "cut short {".to_owned(),
        ]
        .join("\n")
    }

    fn local(text: &str) -> jiff::Zoned {
        text.parse().unwrap()
    }

    #[test]
    fn only_the_values_naming_the_session_change() {
        let new = "01a2ffff-0000-7000-8000-000000000000";
        let (out, unreadable) = rewrite(rollout().as_bytes(), OLD, new);
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            format!(
                r#"{{"timestamp":"t","type":"session_meta","payload":{{"session_id":"{new}","id":"{new}","forked_from_id":"p","cwd":"/first"}}}}"#
            )
        );
        // The event names the session; its item's id and text are content.
        assert_eq!(
            lines[1],
            format!(
                r#"{{"type":"event_msg","payload":{{"type":"item_completed","thread_id":"{new}","item":{{"id":"{OLD}","text":"{OLD}"}}}}}}"#
            )
        );
        // A message's id equal to the session's is not the session's id outside session_meta.
        assert_eq!(lines[2], rollout().lines().nth(2).unwrap());
        assert_eq!(
            lines[3],
            format!(
                r#"{{"type":"token_usage_record","payload":{{"thread_id":"{new}","session_id" : "{new}","turn_id":"{OLD}x"}}}}"#
            )
        );
        assert_eq!(lines[4], "cut short {");
        assert!(out.ends_with("{\n"));
        assert_eq!(unreadable, 1);
    }

    #[test]
    fn a_restore_writes_a_rollout_named_as_codex_names_one() {
        let tmp = tempfile::tempdir().unwrap();
        let now = local("2026-12-01T20:08:19.825+01:00[+01:00]");
        let done = restore_codex(rollout().as_bytes(), tmp.path(), &now).unwrap();
        let id = done.session_id.clone().unwrap();
        assert!(
            id.starts_with("01a23302-03f1-7"),
            "{id}: a v7 id of the time"
        );
        let dir = tmp.path().join("sessions/2026/12/01");
        assert_eq!(
            done.path,
            dir.join(format!("rollout-2026-12-01T20-08-19-{id}.jsonl"))
        );
        assert_eq!(done.command_line(), format!("codex resume {id}"));
        assert_eq!(done.recorded_session_id.as_deref(), Some(OLD));
        assert_eq!((done.agent, done.workdir.as_ref()), (Agent::Codex, None));
        let written = std::fs::read_to_string(&done.path).unwrap();
        assert_eq!(written.matches(&id).count(), 5);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        super::super::tests::assert_private(&done.path);
        let again = restore_codex(rollout().as_bytes(), tmp.path(), &now).unwrap();
        assert_ne!(again.path, done.path);
    }

    #[test]
    fn what_is_not_a_rollout_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("codex");
        let now = local("2026-12-01T20:08:19Z[UTC]");
        let claude = r#"{"type":"user","sessionId":"s"}"#;
        let no_id = r#"{"type":"session_meta","payload":{"id":7}}"#;
        for text in [
            "",
            "\n",
            "not json",
            claude,
            no_id,
            "{\"type\":\"session_meta\"}",
        ] {
            let err = restore_codex(text.as_bytes(), &home, &now).unwrap_err();
            assert!(
                matches!(err, ConversationError::NotATranscript { .. }),
                "{err}"
            );
        }
        assert!(!home.exists());
    }
}
