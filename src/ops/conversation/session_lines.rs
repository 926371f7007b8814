//! A Claude Code transcript with its session id changed, and nothing else. A transcript is
//! JSON Lines; each line Claude writes is one object, most with a top-level `sessionId`. Only
//! that value is replaced: every other byte of the line stays as recorded (see
//! [`json_scan`]), and so does every line that is not a JSON object. Claude Code skips such
//! lines when it reads a transcript.

use std::ops::Range;

use super::json_scan;

/// The key Claude Code keeps a line's session id under.
const SESSION_KEY: &str = "sessionId";

/// A transcript under a new session id, and what was found in it.
#[derive(Debug, PartialEq)]
pub struct Rewritten {
    /// The new transcript, ending with a newline.
    pub bytes: Vec<u8>,
    /// The first session id the transcript carried.
    pub recorded_id: Option<String>,
    /// How many lines carried a session id (and now carry the new one).
    pub session_lines: usize,
    /// How many non-blank lines are not JSON objects, copied as they were.
    pub unreadable_lines: usize,
}

/// `transcript` with the string value of every line's top-level `sessionId` replaced by
/// `new_id`. A `sessionId` nested deeper (in a message or a tool's result) is the
/// conversation's content and stays. The result ends with a newline even when the recorded
/// transcript does not (its last line cut short, say): Claude Code 2.1.197 appends its next
/// line to the file as it is, and would otherwise glue it to that last line.
pub fn rewrite(transcript: &[u8], new_id: &str) -> Rewritten {
    let replacement = serde_json::to_vec(new_id).unwrap_or_default();
    let mut out = Rewritten {
        bytes: Vec::with_capacity(transcript.len() + 64),
        recorded_id: None,
        session_lines: 0,
        unreadable_lines: 0,
    };
    if transcript.is_empty() {
        return out;
    }
    let body = transcript.strip_suffix(b"\n").unwrap_or(transcript);
    for line in body.split(|&b| b == b'\n') {
        match session_values(line) {
            None => {
                if !line.iter().all(u8::is_ascii_whitespace) {
                    out.unreadable_lines += 1;
                }
                out.bytes.extend_from_slice(line);
            }
            Some(values) => {
                if out.recorded_id.is_none() {
                    let first = values.first().map(|v| &line[v.clone()]);
                    out.recorded_id = first.and_then(json_scan::string_value);
                }
                json_scan::splice(line, &values, &replacement, &mut out.bytes);
                out.session_lines += usize::from(!values.is_empty());
            }
        }
        out.bytes.push(b'\n');
    }
    out
}

/// Where the string values of `line`'s top-level `sessionId` keys are; `None` when the line is
/// not one JSON object. (JSON allows a key twice; Claude reads the last, and each is replaced.)
fn session_values(line: &[u8]) -> Option<Vec<Range<usize>>> {
    if !json_scan::is_json(line) {
        return None;
    }
    let found = json_scan::members(line)?
        .into_iter()
        .filter(|m| {
            line.get(m.value.start) == Some(&b'"')
                && json_scan::key_is(&line[m.key.clone()], SESSION_KEY)
        })
        .map(|m| m.value)
        .collect();
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEW: &str = "11111111-2222-4333-8444-555555555555";

    fn text(r: &Rewritten) -> &str {
        std::str::from_utf8(&r.bytes).unwrap()
    }

    #[test]
    fn only_each_lines_top_level_session_id_changes() {
        let recorded = concat!(
            r#"{"type":"user","sessionId":"old-1","cwd":"/w","n":123456789012345678901234567890,"t":"\u00e9\/"}"#,
            "\n",
            r#"{ "z" : 1 , "message" : {"sessionId":"nested","content":[{"sessionId":"deep"}]}, "sessionId" : "old-1" }"#,
            "\n",
            r#"{"type":"summary","leafUuid":"u"}"#,
            "\n",
        );
        let out = rewrite(recorded.as_bytes(), NEW);
        let expected = recorded
            .replace(r#""sessionId":"old-1""#, &format!(r#""sessionId":"{NEW}""#))
            .replace(
                r#""sessionId" : "old-1""#,
                &format!(r#""sessionId" : "{NEW}""#),
            );
        assert_eq!(text(&out), expected);
        assert!(text(&out).contains(r#"{"sessionId":"nested","content":[{"sessionId":"deep"}]}"#));
        assert_eq!(out.recorded_id.as_deref(), Some("old-1"));
        assert_eq!((out.session_lines, out.unreadable_lines), (2, 0));
    }

    #[test]
    fn lines_that_are_not_json_objects_are_copied_as_they_are() {
        let recorded = "not json {\n[\"sessionId\",\"x\"]\n\n  \n{\"sessionId\":\"a\"}\r\n{\"type\":\"user\",\"sessionId\":\"a\",\"mess";
        let out = rewrite(recorded.as_bytes(), NEW);
        assert_eq!(
            text(&out),
            format!(
                "not json {{\n[\"sessionId\",\"x\"]\n\n  \n{{\"sessionId\":\"{NEW}\"}}\r\n{{\"type\":\"user\",\"sessionId\":\"a\",\"mess\n"
            )
        );
        assert_eq!((out.session_lines, out.unreadable_lines), (1, 3));
    }

    #[test]
    fn strings_serde_json_would_refuse_are_kept() {
        // JavaScript writes a lone surrogate as an escape; a Rust String cannot hold one.
        let recorded = r#"{"text":"cut \ud83d","sessionId":"s","raw":"\u0000 \" \\"}"#;
        let out = rewrite(recorded.as_bytes(), NEW);
        assert_eq!(
            text(&out),
            recorded.replace(r#""s""#, &format!("\"{NEW}\"")) + "\n"
        );
    }

    #[test]
    fn an_escaped_key_is_the_same_key_and_other_values_stay() {
        let out = rewrite(br#"{"session\u0049d":"x","sessionIdx":"y"}"#, NEW);
        assert_eq!(
            text(&out),
            format!("{{\"session\\u0049d\":\"{NEW}\",\"sessionIdx\":\"y\"}}\n")
        );
        let out = rewrite(br#"{"sessionId":null,"a":[1,{"b":"}"}]}"#, NEW);
        assert_eq!(text(&out), "{\"sessionId\":null,\"a\":[1,{\"b\":\"}\"}]}\n");
        assert_eq!(out.session_lines, 0);
    }

    #[test]
    fn an_empty_transcript_stays_empty() {
        let out = rewrite(b"", NEW);
        assert!(out.bytes.is_empty());
        assert_eq!((out.session_lines, out.recorded_id), (0, None));
        assert_eq!(text(&rewrite(b"\n", NEW)), "\n");
    }

    #[test]
    fn garbage_never_panics() {
        let samples: [&[u8]; 8] = [
            b"{",
            b"{\"",
            b"{\"a\":",
            b"\xff\xfe",
            b"{\"sessionId\":\"\\",
            b"}",
            b"{}",
            b"{\"a\":1}}",
        ];
        for sample in samples {
            let out = rewrite(sample, NEW);
            assert_eq!(out.session_lines, 0, "{sample:?}");
            assert!(out.bytes.ends_with(b"\n"));
        }
    }
}
