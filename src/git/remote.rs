//! Remote URLs as people should see them: `host/owner/repo` for hosted repositories, the path
//! for local ones, and never the credentials a URL may embed. Everything git-fabro prints or
//! records about a remote goes through here.

/// The name under which output refers to a remote URL.
pub fn display(url: &str) -> String {
    match git_url_parse::GitUrl::parse(url) {
        Ok(parsed) => match parsed.host() {
            Some(host) => {
                let path = parsed.path().trim_start_matches('/').trim_end_matches('/');
                format!("{host}/{}", path.strip_suffix(".git").unwrap_or(path))
            }
            None => redact(parsed.path()),
        },
        Err(_) => redact(url),
    }
}

/// Removes `user:password@` (or `token@`) from every URL in `text`, such as a line of git's
/// output, keeping everything else as it was.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let authority_end = tail
            .find(['/', ' ', '\t', '\'', '"', '\n'])
            .unwrap_or(tail.len());
        match tail[..authority_end].rfind('@') {
            Some(userinfo_end) => rest = &tail[userinfo_end + 1..],
            None => rest = tail,
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::{display, redact};

    #[test]
    fn hosted_remotes_show_as_host_owner_repo() {
        assert_eq!(display("https://github.com/o/r.git"), "github.com/o/r");
        assert_eq!(display("git@github.com:o/r.git"), "github.com/o/r");
        assert_eq!(display("ssh://git@github.com:22/o/r.git"), "github.com/o/r");
        assert_eq!(
            display("https://x-access-token:ghs_secret@github.com/o/r"),
            "github.com/o/r"
        );
        assert_eq!(display("/srv/git/r.git"), "/srv/git/r.git");
    }

    #[test]
    fn credentials_are_removed_from_any_text() {
        let line = "fatal: unable to access 'https://user:hunter2@example.com/o/r.git/': refused";
        assert_eq!(
            redact(line),
            "fatal: unable to access 'https://example.com/o/r.git/': refused"
        );
        assert_eq!(redact("no url here"), "no url here");
        assert_eq!(redact("https://host/path@v2"), "https://host/path@v2");
        assert!(!redact("a https://t@h/x b https://u:p@h2/y").contains('@'));
    }
}
