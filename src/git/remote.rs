//! Remote URLs as people should see them: `host/owner/repo` for hosted repositories, the path
//! for local ones, and never the credentials a URL may embed. Everything git-fabro prints or
//! records about a remote goes through here.

use crate::git::error::{Error, Result};

/// Where a URL's authority ends. A password may hold quotes and other punctuation, so only what
/// cannot appear unencoded in an authority ends it.
const AUTHORITY_END: [char; 6] = ['/', '?', '#', ' ', '\t', '\n'];

/// Where a URL ends inside a line of text.
const URL_END: [char; 6] = [' ', '\t', '\n', '\r', '\'', '"'];

/// The name under which output refers to a remote URL.
pub fn display(url: &str) -> String {
    let url = redact_url(url);
    match git_url_parse::GitUrl::parse(&url) {
        Ok(parsed) => match parsed.host() {
            Some(host) => {
                let path = parsed.path().trim_start_matches('/').trim_end_matches('/');
                format!("{host}/{}", path.strip_suffix(".git").unwrap_or(path))
            }
            None => parsed.path().to_owned(),
        },
        Err(_) => url,
    }
}

/// One remote URL without what may be secret: the user information of a `scheme://` URL (a
/// password, or a token given as the user), and its query and fragment, where access tokens
/// travel. scp-like `user@host:path` names only an ssh login and is kept.
pub fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_owned();
    };
    let (scheme, rest) = url.split_at(scheme_end + 3);
    let authority_end = rest.find(AUTHORITY_END).unwrap_or(rest.len());
    let (authority, after) = rest.split_at(authority_end);
    let host = authority
        .rfind('@')
        .map_or(authority, |at| &authority[at + 1..]);
    let path = after.find(['?', '#']).map_or(after, |end| &after[..end]);
    format!("{scheme}{host}{path}")
}

/// Removes user information and query strings from every `scheme://` URL in `text`, such as
/// a line of git's output, keeping everything else as it was.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        // The authority is scanned first: a quote inside a password must not end the URL.
        let authority_end = tail.find(AUTHORITY_END).unwrap_or(tail.len());
        let after_userinfo = tail[..authority_end]
            .rfind('@')
            .map_or(tail, |userinfo_end| &tail[userinfo_end + 1..]);
        let url_end = after_userinfo.find(URL_END).unwrap_or(after_userinfo.len());
        let (url, after_url) = after_userinfo.split_at(url_end);
        out.push_str(&redact_url(&format!("x://{url}"))[4..]);
        rest = after_url;
    }
    out.push_str(rest);
    out
}

/// A remote as given by a flag, a setting or git: a name or URL never begins with `-`, which
/// would make git read it as an option.
pub fn check(remote: &str) -> Result<()> {
    if remote.is_empty() || remote.starts_with('-') {
        return Err(Error::Usage(format!(
            "{:?} is not a remote name or URL",
            redact(remote)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check, display, redact, redact_url};

    #[test]
    fn hosted_remotes_show_as_host_owner_repo() {
        assert_eq!(display("https://github.com/o/r.git"), "github.com/o/r");
        assert_eq!(display("git@github.com:o/r.git"), "github.com/o/r");
        assert_eq!(display("ssh://git@github.com:22/o/r.git"), "github.com/o/r");
        assert_eq!(
            display("https://x-access-token:ghs_secret@github.com/o/r"),
            "github.com/o/r"
        );
        assert_eq!(
            display("https://u:it's@example.com/o/r.git"),
            "example.com/o/r"
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
        let quoted = "fatal: unable to access 'https://u:it's@example.com/o/r.git/': refused";
        assert_eq!(
            redact(quoted),
            "fatal: unable to access 'https://example.com/o/r.git/': refused"
        );
        assert_eq!(
            redact("see 'https://h/o/r.git?access_token=abc&x=1' now"),
            "see 'https://h/o/r.git' now"
        );
    }

    #[test]
    fn one_url_keeps_scheme_host_and_path_only() {
        assert_eq!(
            redact_url("https://user:pa'ss@word@example.com:8443/o/r.git?token=abc#frag"),
            "https://example.com:8443/o/r.git"
        );
        assert_eq!(
            redact_url("https://ghp_token@github.com"),
            "https://github.com"
        );
        assert_eq!(
            redact_url("git@github.com:o/r.git"),
            "git@github.com:o/r.git"
        );
        assert_eq!(redact_url("/srv/r.git"), "/srv/r.git");
    }

    #[test]
    fn remotes_never_look_like_options() {
        assert!(check("--upload-pack=touch x").is_err());
        assert!(check("-q").is_err());
        assert!(check("").is_err());
        assert!(check("origin").is_ok());
        assert!(check("/srv/r.git").is_ok());
    }
}
