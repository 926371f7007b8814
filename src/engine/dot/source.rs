//! Comments go before parsing, as in Fabro: `//` to the end of the line and `/* ... */`,
//! anywhere outside a quoted string (so `a/**/b` is one word). `#` lines are not comments in
//! Fabro's dialect and stay, to be refused by the grammar. Unlike Fabro, an unterminated
//! `/*` is an error here rather than a comment that keeps its last character.

/// A position in the original source with a message, for errors found before parsing.
pub struct Located {
    pub offset: usize,
    pub message: String,
}

/// The source without comments, and for each of its bytes the offset it came from.
pub struct Stripped {
    pub text: String,
    origin: Vec<usize>,
    end: usize,
}

impl Stripped {
    /// The original offset of a byte of `text` (or the end of the source past its end).
    pub fn original_offset(&self, at: usize) -> Located {
        Located {
            offset: self.origin.get(at).copied().unwrap_or(self.end),
            message: String::new(),
        }
    }
}

pub fn strip_comments(source: &str) -> Result<Stripped, Located> {
    let bytes = source.as_bytes();
    let mut out = Stripped {
        text: String::with_capacity(source.len()),
        origin: Vec::with_capacity(source.len()),
        end: source.len(),
    };
    let keep = |out: &mut Stripped, from: usize, to: usize| {
        out.text.push_str(&source[from..to]);
        out.origin.extend(from..to);
    };
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b'/', Some(b'/')) => {
                i = source[i..].find('\n').map_or(bytes.len(), |n| i + n);
            }
            (b'/', Some(b'*')) => match source[i + 2..].find("*/") {
                Some(n) => i += 2 + n + 2,
                None => {
                    return Err(Located {
                        offset: i,
                        message: "unterminated comment: this /* has no */".into(),
                    });
                }
            },
            (b'"', _) => {
                // A quoted string passes through whole; a backslash protects the next byte.
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                // A backslash may have stepped into the middle of a multi-byte character.
                while !source.is_char_boundary(i) {
                    i += 1;
                }
                keep(&mut out, start, i);
            }
            _ => {
                let start = i;
                i += 1;
                while i < bytes.len() && !matches!(bytes[i], b'/' | b'"') {
                    i += 1;
                }
                keep(&mut out, start, i);
            }
        }
    }
    Ok(out)
}
