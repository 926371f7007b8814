//! A Claude Code transcript with its session id changed, and nothing else. A transcript is
//! JSON Lines; each line Claude writes is one object, most with a top-level `sessionId`. Only
//! that value is replaced: every other byte of the line (key order, spacing, escapes, numbers
//! beyond 64 bits, strings holding half of a surrogate pair, which a round trip through
//! `serde_json::Value` would reorder, reformat or refuse) stays as recorded, and so does every
//! line that is not a JSON object. Claude Code skips such lines when it reads a transcript.

use std::ops::Range;

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
                let mut at = 0;
                for value in &values {
                    if out.recorded_id.is_none() {
                        out.recorded_id = serde_json::from_slice(&line[value.clone()]).ok();
                    }
                    out.bytes.extend_from_slice(&line[at..value.start]);
                    out.bytes.extend_from_slice(&replacement);
                    at = value.end;
                }
                out.bytes.extend_from_slice(&line[at..]);
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
    serde_json::from_slice::<serde::de::IgnoredAny>(line).ok()?;
    let mut at = skip_space(line, 0);
    if line.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_space(line, at + 1);
    let mut found = Vec::new();
    if line.get(at) == Some(&b'}') {
        return Some(found);
    }
    loop {
        let key = at..string_end(line, at)?;
        at = skip_space(line, key.end);
        if line.get(at) != Some(&b':') {
            return None;
        }
        at = skip_space(line, at + 1);
        let value = at..value_end(line, at)?;
        if line.get(value.start) == Some(&b'"') && is_session_key(&line[key]) {
            found.push(value.clone());
        }
        at = skip_space(line, value.end);
        match line.get(at) {
            Some(b',') => at = skip_space(line, at + 1),
            Some(b'}') => return Some(found),
            _ => return None,
        }
    }
}

/// Whether a key, as written (quoted, perhaps with escapes), is `sessionId`.
fn is_session_key(raw: &[u8]) -> bool {
    let plain = raw
        .strip_prefix(b"\"")
        .and_then(|r| r.strip_suffix(b"\""))
        .is_some_and(|inner| inner == SESSION_KEY.as_bytes());
    plain
        || (raw.contains(&b'\\')
            && serde_json::from_slice::<String>(raw).is_ok_and(|key| key == SESSION_KEY))
}

fn skip_space(line: &[u8], mut at: usize) -> usize {
    while line
        .get(at)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    {
        at += 1;
    }
    at
}

/// The end (exclusive) of the string opening at `at`.
fn string_end(line: &[u8], at: usize) -> Option<usize> {
    if line.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        match line.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// The end (exclusive) of the value starting at `at`: a string, an object or array with
/// everything in it, or a number or literal. The line is valid JSON (checked before).
fn value_end(line: &[u8], at: usize) -> Option<usize> {
    match line.get(at)? {
        b'"' => string_end(line, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match line.get(i)? {
                    b'"' => {
                        i = string_end(line, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let len = line[at..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.'))
                .count();
            (len > 0).then_some(at + len)
        }
    }
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
