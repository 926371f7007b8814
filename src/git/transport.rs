//! Push, fetch and remote listing through the `git` binary: gix has no push, and one
//! credential, ssh and proxy path for both directions is what users' setups expect. Output is
//! parsed from `--porcelain`; everything shown to the user is stripped of credentials.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use super::remote::redact;
use super::{ObjectId, Repo};
use crate::git::error::{Error, Result};

/// One ref of a push or fetch, as git reported it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) struct RefReport {
    /// The ref on the receiving side.
    pub name: String,
    /// `new`, `updated`, `up-to-date` or `rejected`.
    pub result: &'static str,
    /// git's reason for a rejection, or its summary.
    pub detail: String,
}

/// What a push or fetch did.
pub(crate) struct Transfer {
    pub refs: Vec<RefReport>,
    pub ok: bool,
    /// git's messages, credentials removed.
    pub messages: String,
}

impl Repo {
    /// `git push --atomic --porcelain --no-verify REMOTE REFSPECS`: never forced, never running
    /// the user's hooks (git-fabro's own pre-push hook calls this).
    pub(crate) fn push(
        &self,
        remote: &str,
        refspecs: &[String],
        progress: bool,
    ) -> Result<Transfer> {
        let args = ["push", "--atomic", "--porcelain", "--no-verify"];
        self.transfer(&args, remote, refspecs, progress, parse_push_line)
    }

    /// The same push, fenced: each `(ref, expected)` must hold `expected` on the remote (`None`:
    /// must not exist) for any ref of the push to move (`--force-with-lease`, which git also
    /// checks on the remote's side within the atomic transaction).
    pub(crate) fn push_fenced(
        &self,
        remote: &str,
        refspecs: &[String],
        expected: &[(String, Option<ObjectId>)],
    ) -> Result<Transfer> {
        let leases: Vec<String> = expected
            .iter()
            .map(|(name, sha)| {
                let sha = sha.map(|s| s.to_string()).unwrap_or_default();
                format!("--force-with-lease={name}:{sha}")
            })
            .collect();
        let mut args = vec!["push", "--atomic", "--porcelain", "--no-verify"];
        args.extend(leases.iter().map(String::as_str));
        self.transfer(&args, remote, refspecs, false, parse_push_line)
    }

    /// `git fetch --atomic --porcelain REMOTE REFSPECS` into local refs of the same names,
    /// never forced. Objects are checked as they arrive (`fetch.fsckObjects`), so a tree
    /// holding `..`, `.git` or a name twice never enters this clone through git-fabro; an empty
    /// `--refmap` keeps git from also updating the remote-tracking refs that the remote's
    /// configured fetch refspecs map the run branches to.
    pub(crate) fn fetch(
        &self,
        remote: &str,
        refspecs: &[String],
        progress: bool,
    ) -> Result<Transfer> {
        let args = [
            "-c",
            "fetch.fsckObjects=true",
            "fetch",
            "--atomic",
            "--porcelain",
            "--no-write-fetch-head",
            "--refmap=",
        ];
        self.transfer(&args, remote, refspecs, progress, parse_fetch_line)
    }

    fn transfer(
        &self,
        args: &[&str],
        remote: &str,
        refspecs: &[String],
        progress: bool,
        parse: fn(&str) -> Option<RefReport>,
    ) -> Result<Transfer> {
        let mut args = args.to_vec();
        // Without --progress git stays silent on a pipe; --quiet would also drop the porcelain.
        if progress {
            args.push("--progress");
        }
        let out = self.git(&args, remote, refspecs, progress)?;
        let refs = out.stdout.lines().filter_map(parse).collect();
        Ok(Transfer {
            refs,
            ok: out.ok,
            messages: out.stderr,
        })
    }

    /// The refs of `remote` under `prefix`.
    pub(crate) fn ls_remote(&self, remote: &str, prefix: &str) -> Result<Vec<(String, ObjectId)>> {
        self.ls_remote_prefixes(remote, &[prefix])
    }

    /// The refs of `remote` under any of `prefixes`, asked for by prefix (protocol v2), so
    /// that a remote with many other refs sends only these.
    pub(crate) fn ls_remote_prefixes(
        &self,
        remote: &str,
        prefixes: &[&str],
    ) -> Result<Vec<(String, ObjectId)>> {
        let patterns: Vec<String> = prefixes.iter().map(|p| format!("{p}*")).collect();
        let out = self.git(&["ls-remote", "--refs"], remote, &patterns, false)?;
        if !out.ok {
            return Err(Error::Failed(format!(
                "cannot list the refs of {}: {}",
                super::remote::display(remote),
                out.stderr.trim()
            )));
        }
        Ok(out
            .stdout
            .lines()
            .filter_map(|line| {
                let (sha, name) = line.split_once('\t')?;
                Some((name.to_owned(), ObjectId::from_hex(sha.as_bytes()).ok()?))
            })
            .collect())
    }

    fn git(
        &self,
        args: &[&str],
        remote: &str,
        refspecs: &[String],
        progress: bool,
    ) -> Result<GitOutput> {
        let mut child = Command::new("git")
            .current_dir(
                self.workdir()
                    .map_or_else(|| self.common_dir(), ToOwned::to_owned),
            )
            .args(args)
            // A remote named `--upload-pack=...` must reach git as a name, never as an option.
            .arg("--")
            .arg(remote)
            .args(refspecs)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|err| Error::Failed(format!("cannot run git: {err}")))?;
        let mut stderr_pipe = child
            .stderr
            .take()
            .ok_or_else(|| Error::Failed("git has no stderr".into()))?;
        // Progress is relayed as it comes (redacted), so a terminal sees it live.
        let relay = std::thread::spawn(move || {
            let mut all = Vec::new();
            let mut unsent = Vec::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                all.extend_from_slice(&buf[..n]);
                if progress {
                    unsent.extend_from_slice(&buf[..n]);
                    if let Some(lines) = take_complete_lines(&mut unsent) {
                        relay_redacted(&lines);
                    }
                }
            }
            relay_redacted(&unsent);
            all
        });
        let mut stdout = String::new();
        if let Some(mut pipe) = child.stdout.take() {
            let _ = pipe.read_to_string(&mut stdout);
        }
        let status = child
            .wait()
            .map_err(|err| Error::Failed(format!("git did not finish: {err}")))?;
        let stderr = relay.join().unwrap_or_default();
        let stderr = if progress {
            String::new()
        } else {
            redact(&String::from_utf8_lossy(&stderr))
        };
        Ok(GitOutput {
            ok: status.success(),
            stdout,
            stderr,
        })
    }
}

/// Removes and returns what `unsent` holds up to its last line or progress-line end: a URL
/// is only redacted whole, never split between two reads.
fn take_complete_lines(unsent: &mut Vec<u8>) -> Option<Vec<u8>> {
    let end = unsent.iter().rposition(|&b| b == b'\n' || b == b'\r')?;
    let rest = unsent.split_off(end + 1);
    Some(std::mem::replace(unsent, rest))
}

fn relay_redacted(text: &[u8]) {
    if !text.is_empty() {
        let _ = std::io::stderr().write_all(redact(&String::from_utf8_lossy(text)).as_bytes());
    }
}

struct GitOutput {
    ok: bool,
    stdout: String,
    stderr: String,
}

/// What a ref's porcelain flag says happened to it; push and fetch share the flags.
fn ref_result(flag: &str) -> Option<&'static str> {
    match flag {
        "*" => Some("new"),
        " " | "+" => Some("updated"),
        "=" => Some("up-to-date"),
        "!" => Some("rejected"),
        _ => None,
    }
}

/// `<flag>\t<from>:<to>\t<summary>` from `git push --porcelain`.
fn parse_push_line(line: &str) -> Option<RefReport> {
    let mut fields = line.split('\t');
    let flag = fields.next()?;
    let (_, to) = fields.next()?.split_once(':')?;
    let summary = fields.next().unwrap_or_default();
    let result = ref_result(flag)?;
    Some(RefReport {
        name: to.to_owned(),
        result,
        detail: summary.to_owned(),
    })
}

/// `<flag> <old> <new> <ref>` from `git fetch --porcelain`.
fn parse_fetch_line(line: &str) -> Option<RefReport> {
    let (flag, rest) = line.split_at_checked(1)?;
    let name = rest.trim().rsplit(' ').next()?;
    let result = ref_result(flag)?;
    Some(RefReport {
        name: name.to_owned(),
        result,
        detail: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::{parse_fetch_line, parse_push_line, redact, take_complete_lines};

    #[test]
    fn progress_is_relayed_in_whole_lines() {
        let mut unsent = b"Counting 10%\rCounting 20%\rfatal: 'https://u:p".to_vec();
        assert_eq!(
            take_complete_lines(&mut unsent).unwrap(),
            b"Counting 10%\rCounting 20%\r"
        );
        assert_eq!(unsent, b"fatal: 'https://u:p");
        assert!(take_complete_lines(&mut unsent).is_none());
        unsent.extend_from_slice(b"w@host/r' failed\n");
        let line = take_complete_lines(&mut unsent).unwrap();
        assert_eq!(
            redact(&String::from_utf8_lossy(&line)),
            "fatal: 'https://host/r' failed\n"
        );
        assert!(unsent.is_empty());
    }

    #[test]
    fn porcelain_lines() {
        let r = parse_push_line(
            "!\trefs/heads/fabro/run/X:refs/heads/fabro/run/X\t[rejected] (fetch first)",
        )
        .unwrap();
        assert_eq!(
            (r.name.as_str(), r.result),
            ("refs/heads/fabro/run/X", "rejected")
        );
        assert_eq!(r.detail, "[rejected] (fetch first)");
        let r = parse_push_line("*\trefs/heads/a:refs/heads/a\t[new branch]").unwrap();
        assert_eq!(r.result, "new");
        assert!(parse_push_line("To /srv/r.git").is_none());
        let f = parse_fetch_line("* 0000000000000000000000000000000000000000 1111111111111111111111111111111111111111 refs/heads/fabro/run/X").unwrap();
        assert_eq!(
            (f.name.as_str(), f.result),
            ("refs/heads/fabro/run/X", "new")
        );
    }
}
