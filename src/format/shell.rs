//! Words printed for a person to type again at a POSIX shell.

/// `word` as a shell reads it back: as it is when it holds only characters no shell treats
/// specially, else in single quotes.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn only_words_a_shell_would_change_are_quoted() {
        assert_eq!(quote("git@host:repo.git"), "git@host:repo.git");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }
}
