//! Comments go before parsing, as in Fabro: `//` to the end of the line and `/* ... */`,
//! anywhere outside a quoted string (so `a/**/b` is one word). `#` lines are not comments in
//! Fabro's dialect and stay, to be refused by the grammar. Unlike Fabro, an unterminated
//! `/*` is an error here rather than a comment that keeps its last character.

/// A position in the original source with a message, for errors found before parsing.
pub struct Located {
    pub offset: usize,
    pub message: String,
}

/// The source without comments, and where each of its stretches came from. A stretch is
/// kept source between two comments, so the map holds one entry per comment, not one per
/// byte (an offset per byte made it eight times the size of the workflow).
pub struct Stripped {
    pub text: String,
    /// `(offset in text, offset in the source)` where each stretch starts, in order.
    stretches: Vec<(usize, usize)>,
    end: usize,
}

impl Stripped {
    /// The original offset of a byte of `text` (or the end of the source past its end).
    pub fn original_offset(&self, at: usize) -> Located {
        let offset = match self.stretches.partition_point(|(start, _)| *start <= at) {
            _ if at >= self.text.len() => self.end,
            0 => at,
            n => {
                let (start, origin) = self.stretches[n - 1];
                origin + (at - start)
            }
        };
        Located {
            offset,
            message: String::new(),
        }
    }

    /// Appends `source[from..to]`, a stretch of the source `source`.
    fn keep(&mut self, source: &str, from: usize, to: usize) {
        let at = self.text.len();
        let follows = self
            .stretches
            .last()
            .is_some_and(|(start, origin)| origin + (at - start) == from);
        if !follows {
            self.stretches.push((at, from));
        }
        self.text.push_str(&source[from..to]);
    }
}

pub fn strip_comments(source: &str) -> Result<Stripped, Located> {
    let bytes = source.as_bytes();
    let mut out = Stripped {
        text: String::with_capacity(source.len()),
        stretches: Vec::new(),
        end: source.len(),
    };
    let keep = |out: &mut Stripped, from: usize, to: usize| out.keep(source, from, to);
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

#[cfg(test)]
mod tests {
    use super::strip_comments;

    #[test]
    fn every_byte_kept_maps_back_to_where_it_was() {
        let source = "a /* one */ b // two\n\"c // not\" d";
        let stripped = strip_comments(source).ok().expect("strips");
        assert_eq!(stripped.text, "a  b \n\"c // not\" d");
        for (at, byte) in stripped.text.bytes().enumerate() {
            let offset = stripped.original_offset(at).offset;
            assert_eq!(source.as_bytes()[offset], byte, "byte {at}");
        }
        assert_eq!(
            stripped.original_offset(stripped.text.len()).offset,
            source.len()
        );
    }
}
