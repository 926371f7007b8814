//! Where the members of a JSON object are, in the bytes as written. An agent's transcript is
//! JSON Lines; a copy changes a few string values and no other byte (key order, spacing,
//! escapes, numbers beyond 64 bits, strings holding half of a surrogate pair, which a round
//! trip through `serde_json::Value` would reorder, reformat or refuse).

use std::ops::Range;

/// One member of an object: its key as written (quoted, perhaps with escapes) and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub key: Range<usize>,
    pub value: Range<usize>,
}

/// Whether `line` is one valid JSON text.
pub fn is_json(line: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok()
}

/// The members of the object that `text` holds (valid JSON, checked by the caller with
/// [`is_json`], or a value inside such a text), in order, with ranges into `text`; `None`
/// when it is not an object. (JSON allows a key twice; each is listed.)
pub fn members(text: &[u8]) -> Option<Vec<Member>> {
    let mut at = skip_space(text, 0);
    if text.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_space(text, at + 1);
    let mut found = Vec::new();
    if text.get(at) == Some(&b'}') {
        return Some(found);
    }
    loop {
        let key = at..string_end(text, at)?;
        at = skip_space(text, key.end);
        if text.get(at) != Some(&b':') {
            return None;
        }
        at = skip_space(text, at + 1);
        let value = at..value_end(text, at)?;
        at = skip_space(text, value.end);
        found.push(Member { key, value });
        match text.get(at) {
            Some(b',') => at = skip_space(text, at + 1),
            Some(b'}') => return Some(found),
            _ => return None,
        }
    }
}

/// Whether a key, as written (quoted, perhaps with escapes), is `name`.
pub fn key_is(raw: &[u8], name: &str) -> bool {
    let plain = raw
        .strip_prefix(b"\"")
        .and_then(|r| r.strip_suffix(b"\""))
        .is_some_and(|inner| inner == name.as_bytes());
    plain
        || (raw.contains(&b'\\') && serde_json::from_slice::<String>(raw).is_ok_and(|k| k == name))
}

/// The string a value written as `raw` holds; `None` for any other value (or a string a Rust
/// `String` cannot hold).
pub fn string_value(raw: &[u8]) -> Option<String> {
    if raw.first() != Some(&b'"') {
        return None;
    }
    serde_json::from_slice(raw).ok()
}

/// The value of the last member of `members` keyed `name`, as written in `text`.
pub fn get<'t>(text: &'t [u8], members: &[Member], name: &str) -> Option<&'t [u8]> {
    let member = members
        .iter()
        .rev()
        .find(|m| key_is(&text[m.key.clone()], name))?;
    Some(&text[member.value.clone()])
}

/// `line` with each of `ranges` (in order, not overlapping) replaced by `replacement`,
/// appended to `out`.
pub fn splice(line: &[u8], ranges: &[Range<usize>], replacement: &[u8], out: &mut Vec<u8>) {
    let mut at = 0;
    for range in ranges {
        out.extend_from_slice(&line[at..range.start]);
        out.extend_from_slice(replacement);
        at = range.end;
    }
    out.extend_from_slice(&line[at..]);
}

fn skip_space(text: &[u8], mut at: usize) -> usize {
    while text
        .get(at)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    {
        at += 1;
    }
    at
}

/// The end (exclusive) of the string opening at `at`.
fn string_end(text: &[u8], at: usize) -> Option<usize> {
    if text.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        match text.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// The end (exclusive) of the value starting at `at`: a string, an object or array with
/// everything in it, or a number or literal.
fn value_end(text: &[u8], at: usize) -> Option<usize> {
    match text.get(at)? {
        b'"' => string_end(text, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match text.get(i)? {
                    b'"' => {
                        i = string_end(text, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
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
            let len = text[at..]
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

    #[test]
    fn members_are_found_where_they_are_written() {
        let text = br#" { "a" : [1,{"}":"]"}] ,"b\u0022c":"x", "n":-1.5e3,"o":{}} "#;
        let found = members(text).unwrap();
        let raw: Vec<(&[u8], &[u8])> = found
            .iter()
            .map(|m| (&text[m.key.clone()], &text[m.value.clone()]))
            .collect();
        assert_eq!(
            raw,
            [
                (&br#""a""#[..], &br#"[1,{"}":"]"}]"#[..]),
                (br#""b\u0022c""#, br#""x""#),
                (br#""n""#, b"-1.5e3"),
                (br#""o""#, b"{}"),
            ]
        );
        assert!(key_is(raw[1].0, "b\"c"));
        assert_eq!(get(text, &found, "b\"c"), Some(&br#""x""#[..]));
        assert_eq!(string_value(raw[1].1).as_deref(), Some("x"));
        assert_eq!(string_value(raw[2].1), None);
        assert_eq!(members(b"[1]"), None);
        assert_eq!(members(b"{}"), Some(Vec::new()));
    }

    #[test]
    fn broken_text_never_panics() {
        for text in [
            &b"{"[..],
            b"{\"",
            b"{\"a\":",
            b"{\"a\":1}}",
            b"}",
            b"{\"a\":]}",
            b"\xff",
        ] {
            let _ = members(text);
        }
    }
}
