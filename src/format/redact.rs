//! Secrets never stored: what git-fabro keeps from an agent or a node (transcripts, prompts,
//! command output, context values, notes) goes through [`Redactor`] before it is written,
//! and every secret in it becomes a marker naming the rule that found it
//! (`REDACTED:github-token`). The rules are the shapes of well-known tokens (GitHub, GitLab,
//! Slack, AWS, Google Cloud, Azure, Stripe, OpenAI, Anthropic, npm, PyPI), private key blocks,
//! JWTs, passwords in URLs, long random-looking values assigned to secret-looking names, and
//! the values of this machine's environment variables whose names say they hold a secret,
//! wherever they appear. `[redact] patterns` in settings.toml adds rules of the user's own.
//!
//! The rules are compiled into one expression the first time something is redacted, so a
//! command that stores nothing from an agent pays nothing for them.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::bytes::{Captures, Regex};

/// The built-in rules: a name and the expression of the secret. A rule with a capture group
/// named `secret` redacts only that part (a URL keeps its host, an assignment its name).
const RULES: &[(&str, &str)] = &[
    (
        "private-key",
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY( BLOCK)?-----",
    ),
    (
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
    ),
    (
        "gitlab-token",
        r"\bgl(?:pat|dt|ptt|rt|soat|cbt|imt|ft)-[A-Za-z0-9_\-]{20,}",
    ),
    (
        "slack-token",
        r"\bxox[abposr]-(?:[0-9]+-)*[A-Za-z0-9]{10,}(?:-[A-Za-z0-9]+)*",
    ),
    (
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,}",
    ),
    (
        "aws-access-key",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b",
    ),
    ("gcp-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    (
        "azure-storage-key",
        r"(?i)AccountKey=(?P<secret>[A-Za-z0-9+/]{86}==)",
    ),
    (
        "stripe-key",
        r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{20,}\b",
    ),
    (
        "anthropic-key",
        r"\bsk-ant-(?:api|admin|oat)[0-9]{2}-[A-Za-z0-9_\-]{20,}",
    ),
    (
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}",
    ),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
    ),
    (
        "url-password",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:(?P<secret>[^/\s@]+)@",
    ),
];

/// A value assigned to a secret-looking name: `token = ...`, `"apiKey": "..."`, `PASSWORD=...`.
/// Redacted only when it looks random enough (see [`looks_random`]), so that `password =
/// input()` or `secret_name: primary` stay.
const ASSIGNED: &str = r#"(?i)(?:secret|token|passw(?:or)?d|api[_\-]?key|access[_\-]?key|private[_\-]?key|client[_\-]?secret|credential|auth)[A-Za-z0-9_\-]*["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9+/=_\-.~]{16,})"#;

/// Words in an environment variable's name that say its value is a secret.
const SECRET_NAMES: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "APIKEY",
    "ACCESS_KEY",
    "PRIVATE_KEY",
    "CREDENTIAL",
    "AUTH",
    "COOKIE",
];

/// A rule of the user's own: `NAME=EXPRESSION` in `[redact] patterns`.
#[derive(Clone, Debug)]
pub struct UserRule {
    pub name: String,
    pub expression: String,
}

impl UserRule {
    /// Parses `NAME=EXPRESSION`, the expression checked by compiling it.
    pub fn parse(text: &str) -> Result<UserRule, String> {
        let (name, expression) = text
            .split_once('=')
            .ok_or_else(|| format!("{text:?} is not NAME=EXPRESSION"))?;
        let name_ok = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !name_ok {
            return Err(format!(
                "{name:?} is not a rule name (letters, digits, - and _)"
            ));
        }
        Regex::new(expression).map_err(|err| format!("{name}: {err}"))?;
        Ok(UserRule {
            name: name.to_owned(),
            expression: expression.to_owned(),
        })
    }
}

/// The rules in force, compiled on first use.
#[derive(Debug, Default)]
pub struct Redactor {
    user: Vec<UserRule>,
    /// Secret values of this machine's environment, longest first.
    values: Vec<String>,
    compiled: OnceLock<Compiled>,
}

#[derive(Debug)]
struct Compiled {
    /// Every rule as one alternation of groups `r0`, `r1`, ...: one pass over the text.
    all: Regex,
    names: Vec<String>,
    assigned: Regex,
}

impl Redactor {
    pub fn new(user: Vec<UserRule>, mut values: Vec<String>) -> Redactor {
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        Redactor {
            user,
            values,
            compiled: OnceLock::new(),
        }
    }

    /// The rules with the secret values of `environment`: each variable whose name holds one
    /// of [`SECRET_NAMES`] and whose value is at least eight characters.
    pub fn with_environment<I, K, V>(user: Vec<UserRule>, environment: I) -> Redactor
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<std::ffi::OsStr>,
        V: AsRef<std::ffi::OsStr>,
    {
        let values = environment
            .into_iter()
            .filter(|(name, _)| {
                let name = name.as_ref().to_string_lossy().to_ascii_uppercase();
                SECRET_NAMES.iter().any(|word| name.contains(word))
            })
            .filter_map(|(_, value)| value.as_ref().to_str().map(str::to_owned))
            .filter(|value| value.len() >= 8 && !value.contains(char::is_whitespace))
            .collect();
        Redactor::new(user, values)
    }

    fn compiled(&self) -> &Compiled {
        self.compiled.get_or_init(|| {
            let mut names = Vec::new();
            let mut parts = Vec::new();
            let rules = RULES
                .iter()
                .map(|(name, expr)| ((*name).to_owned(), (*expr).to_owned()))
                .chain(
                    self.user
                        .iter()
                        .map(|r| (r.name.clone(), r.expression.clone())),
                );
            for (name, expr) in rules {
                // Each rule's own `secret` group becomes `s<N>`, unique in the alternation.
                let i = names.len();
                parts.push(format!(
                    "(?P<r{i}>{})",
                    expr.replace("(?P<secret>", &format!("(?P<s{i}>"))
                ));
                names.push(name);
            }
            if !self.values.is_empty() {
                let i = names.len();
                let literal: Vec<String> = self.values.iter().map(|v| regex::escape(v)).collect();
                parts.push(format!("(?P<r{i}>{})", literal.join("|")));
                names.push("environment-secret".into());
            }
            Compiled {
                // The parts were each compiled alone (user rules when parsed): together they
                // compile too, within the default size limit for any sane set of rules.
                all: Regex::new(&parts.join("|")).unwrap_or_else(|_| never()),
                names,
                assigned: Regex::new(ASSIGNED).unwrap_or_else(|_| never()),
            }
        })
    }

    /// `text` with every secret replaced by `REDACTED:<rule>`; borrowed when it holds none.
    pub fn bytes<'a>(&self, text: &'a [u8]) -> Cow<'a, [u8]> {
        let compiled = self.compiled();
        let first = compiled.all.replace_all(text, |caps: &Captures| {
            let matched =
                (0..compiled.names.len()).find_map(|i| caps.name(&format!("r{i}")).map(|m| (i, m)));
            let Some((i, whole)) = matched else {
                return b"REDACTED:secret".to_vec();
            };
            let marker = format!("REDACTED:{}", compiled.names[i]);
            match caps.name(&format!("s{i}")) {
                Some(secret) => keep_around(whole, secret, &marker),
                None => marker.into_bytes(),
            }
        });
        let assigned = |caps: &Captures| match (caps.get(0), caps.name("secret")) {
            (Some(whole), Some(secret)) if looks_random(secret.as_bytes()) => {
                keep_around(whole, secret, "REDACTED:secret-assignment")
            }
            (whole, _) => whole.map_or_else(Vec::new, |w| w.as_bytes().to_vec()),
        };
        let second = compiled.assigned.replace_all(&first, assigned);
        if let (Cow::Borrowed(_), Cow::Borrowed(_)) = (&first, &second) {
            return Cow::Borrowed(text);
        }
        // A name that looked secret with a value that did not is no change.
        let clean = second.into_owned();
        match clean == text {
            true => Cow::Borrowed(text),
            false => Cow::Owned(clean),
        }
    }

    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match self.bytes(text.as_bytes()) {
            Cow::Borrowed(_) => Cow::Borrowed(text),
            // Markers are ASCII and only whole matches of UTF-8 text were replaced.
            Cow::Owned(bytes) => Cow::Owned(String::from_utf8_lossy(&bytes).into_owned()),
        }
    }

    /// Every string in `value`, keys included, redacted in place.
    pub fn json(&self, value: &mut serde_json::Value) {
        use serde_json::Value;
        match value {
            Value::String(text) => {
                if let Cow::Owned(clean) = self.text(text) {
                    *text = clean;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.json(item)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (key, mut item) in entries {
                    self.json(&mut item);
                    map.insert(self.text(&key).into_owned(), item);
                }
            }
            _ => {}
        }
    }
}

/// `whole` with its part `secret` replaced by `marker`.
fn keep_around(whole: regex::bytes::Match, secret: regex::bytes::Match, marker: &str) -> Vec<u8> {
    let text = whole.as_bytes();
    let (start, end) = (secret.start() - whole.start(), secret.end() - whole.start());
    [&text[..start], marker.as_bytes(), &text[end..]].concat()
}

/// Whether a value looks random rather than like a word or a name: mixed kinds of character
/// and more than 3.5 bits of entropy per character.
fn looks_random(value: &[u8]) -> bool {
    let kinds = [
        value.iter().any(u8::is_ascii_lowercase),
        value.iter().any(u8::is_ascii_uppercase),
        value.iter().any(u8::is_ascii_digit),
    ];
    kinds.iter().filter(|k| **k).count() >= 2 && entropy(value) > 3.5
}

fn entropy(value: &[u8]) -> f64 {
    let mut counts = [0usize; 256];
    for b in value {
        counts[usize::from(*b)] += 1;
    }
    let n = value.len() as f64;
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = *c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// An expression that matches nothing, for rules that cannot compile (never the built-in ones,
/// which a test compiles).
fn never() -> Regex {
    Regex::new(r"[^\s\S]").expect("an empty class compiles")
}

#[cfg(test)]
mod tests;
