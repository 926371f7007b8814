//! Remote URLs as people should see them: `host/owner/repo` for hosted repositories, the path
//! for local ones, and never the credentials a URL may embed. Everything git-fabro prints or
//! records about a remote goes through here. What is shown is rebuilt from git-url-parse's parts
//! rather than cut from the text, so a part it does not name (user information, query,
//! fragment) cannot slip through; cutting is only the fallback for URLs it cannot read.

use crate::git::error::{Error, Result};

/// Where a URL's authority ends. A password may hold quotes and other punctuation, so only what
/// cannot appear unencoded in an authority ends it.
const AUTHORITY_END: [char; 6] = ['/', '?', '#', ' ', '\t', '\n'];

/// Where a URL ends inside a line of text.
const URL_END: [char; 6] = [' ', '\t', '\n', '\r', '\'', '"'];

/// The name under which output refers to a remote URL: `host/owner/repo`, or the path of a
/// local repository.
pub(crate) fn display(url: &str) -> String {
    match parse(url) {
        Some(parsed) => match parsed.host() {
            Some(host) => {
                let path = parsed.path().trim_start_matches('/').trim_end_matches('/');
                format!("{host}/{}", path.strip_suffix(".git").unwrap_or(path))
            }
            None => parsed.path().to_owned(),
        },
        None => strip_secrets(url),
    }
}

/// One remote URL rebuilt from its scheme, host, port and path as git-url-parse reads them:
/// never the password or token, query or fragment, nor the user of a `scheme://` URL (where a
/// token often stands as the user). An scp-like `user@host:path` keeps its ssh login, which
/// names an account and cannot carry a password, so the recorded remote stays one git can use.
pub(crate) fn redact_url(url: &str) -> String {
    let Some(parsed) = parse(url) else {
        return strip_secrets(url);
    };
    let host = parsed.host().unwrap_or("");
    let port = parsed.port().map(|p| format!(":{p}")).unwrap_or_default();
    let path = parsed.path();
    let scheme = parsed.scheme().unwrap_or("");
    if parsed.print_scheme() {
        // git-url-parse drops the `/` that starts an ssh path; git needs it back.
        let slash = if scheme.contains("ssh") { "/" } else { "" };
        return format!("{scheme}://{host}{port}{slash}{path}");
    }
    match (parsed.host(), parsed.user(), parsed.password()) {
        // scp-like: the only form without a scheme that has a host.
        (Some(_), Some(login), None) => format!("{login}@{host}:{path}"),
        (Some(_), _, _) => format!("{host}:{path}"),
        (None, _, _) => path.to_owned(),
    }
}

/// Removes user information, queries and fragments from every `scheme://` URL in `text`, such
/// as a line of git's output, keeping everything else as it was.
pub(crate) fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        // The scheme is part of what git-url-parse reads, so the URL starts with it.
        let scheme_start = rest[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |before| before + 1);
        out.push_str(&rest[..scheme_start]);
        let tail = &rest[at + 3..];
        // The authority is scanned first: a quote inside a password must not end the URL.
        let authority_end = tail.find(AUTHORITY_END).unwrap_or(tail.len());
        let path_start = tail[..authority_end].rfind('@').map_or(0, |at| at + 1);
        let url_end = path_start
            + tail[path_start..]
                .find(URL_END)
                .unwrap_or(tail.len() - path_start);
        out.push_str(&redact_url(&rest[scheme_start..at + 3 + url_end]));
        rest = &tail[url_end..];
    }
    out.push_str(rest);
    out
}

/// `url` as git-url-parse reads it, where that reading is git's own; else the same for `url`
/// without its user information, query and fragment. A reading is not git's when a password
/// holds an `@` (git and curl end the user information at the last one, git-url-parse at the
/// first), when it stops short of the path (at a space) or takes a host for the path
/// (`git://`): such a URL is treated as one it refused.
fn parse(url: &str) -> Option<git_url_parse::GitUrl> {
    // A misread is usually the user information's doing; without it the rest often parses.
    parse_as_git_does(url).or_else(|| parse_as_git_does(&strip_secrets(url)))
}

fn parse_as_git_does(url: &str) -> Option<git_url_parse::GitUrl> {
    let parsed = git_url_parse::GitUrl::parse(url).ok()?;
    let (authority, rest) = match url.split_once("://") {
        Some((_, after)) => after.split_at(after.find(AUTHORITY_END).unwrap_or(after.len())),
        // scp-like `[user@]host:path`; a local path has no host to compare.
        None if parsed.host().is_some() => url.split_at(url.find(':')?),
        None => ("", url),
    };
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let expected = match parsed.port() {
        Some(port) => format!("{}:{port}", parsed.host().unwrap_or("")),
        None => parsed.host().unwrap_or("").to_owned(),
    };
    let without_query = rest.find(['?', '#']).map_or(rest, |end| &rest[..end]);
    let whole_path = rest.ends_with(parsed.path()) || without_query.ends_with(parsed.path());
    (host_port == expected && whole_path).then_some(parsed)
}

/// The safe answer for a URL git-url-parse refuses (or misreads): only what cannot be secret
/// is kept, by cutting the text itself. In a `scheme://` URL, the user information ends at the
/// authority's last `@`, and the query and fragment go; anything else loses all before its
/// last `@`.
fn strip_secrets(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.rsplit('@').next().unwrap_or(url).to_owned();
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

/// A remote as given by a flag, a setting or git: a name or URL never begins with `-`, which
/// would make git read it as an option.
pub(crate) fn check(remote: &str) -> Result<()> {
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
        for (url, shown) in [
            ("https://github.com/o/r.git", "github.com/o/r"),
            ("git@github.com:o/r.git", "github.com/o/r"),
            ("ssh://git@github.com:22/o/r.git", "github.com/o/r"),
            (
                "https://x-access-token:ghs_secret@github.com/o/r",
                "github.com/o/r",
            ),
            ("https://u:it's@example.com/o/r.git", "example.com/o/r"),
            ("/srv/git/r.git", "/srv/git/r.git"),
        ] {
            assert_eq!(display(url), shown, "{url}");
        }
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
    fn a_password_may_hold_a_quote_an_at_and_a_colon() {
        let url = "https://bot:it's@s:cr\"et@example.com:8443/o/r.git";
        assert_eq!(redact_url(url), "https://example.com:8443/o/r.git");
        assert_eq!(display(url), "example.com/o/r");
        let line = format!("fatal: unable to access '{url}/': refused");
        assert_eq!(
            redact(&line),
            "fatal: unable to access 'https://example.com:8443/o/r.git/': refused"
        );
    }

    #[test]
    fn tokens_in_the_query_or_fragment_are_dropped() {
        assert_eq!(
            redact_url("https://h/o/r.git?access_token=abc&x=1#frag"),
            "https://h/o/r.git"
        );
        assert_eq!(redact_url("git@h:o/r.git?token=abc"), "git@h:o/r.git");
        assert_eq!(
            redact("a https://t@h/x?k=s b git+ssh://u:p@h2/y#z c"),
            "a https://h/x b ssh://h2/y c"
        );
    }

    #[test]
    fn ssh_remotes_keep_host_port_and_path() {
        assert_eq!(
            redact_url("ssh://git@github.com:22/o/r.git"),
            "ssh://github.com:22/o/r.git"
        );
        assert_eq!(redact_url("ssh://h/~u/r.git"), "ssh://h/~u/r.git");
        assert_eq!(redact_url("user@host:~/r.git"), "user@host:~/r.git");
        assert_eq!(redact_url("host:r.git"), "host:r.git");
        assert_eq!(display("host:r.git"), "host/r");
    }

    #[test]
    fn file_paths_are_kept_as_they_are() {
        for path in ["/srv/r.git", "../rel/r.git", "/home/u@x/r.git"] {
            assert_eq!(redact_url(path), path);
            assert_eq!(display(path), path);
        }
        assert_eq!(redact_url("file:///srv/r.git"), "file:///srv/r.git");
        assert_eq!(display("file:///srv/r.git"), "/srv/r.git");
    }

    /// git-url-parse refuses these (no path, an IPv6 host, an ssh password in scp form) or
    /// misreads them (`git://` takes the host for the path): what is shown is cut from the
    /// text, and never holds the secret.
    #[test]
    fn urls_git_url_parse_refuses_show_nothing_secret() {
        let cases = [
            ("https://ghp_token@github.com", "https://github.com"),
            (
                "https://tok@[::1]:8080/r.git?k=secret",
                "https://[::1]:8080/r.git",
            ),
            ("git://tok@h/o/r#secret", "git://h/o/r"),
            ("u:secret@h:o/r.git", "h:o/r.git"),
            (
                "https://u:p\"q@r:s@example.com/o/r.git",
                "https://example.com/o/r.git",
            ),
        ];
        for (url, shown) in cases {
            assert_eq!(redact_url(url), shown, "{url}");
            let display = display(url);
            assert!(
                !display.contains("secret") && !display.contains("tok") && !display.contains('@'),
                "{url}: {display}"
            );
        }
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
