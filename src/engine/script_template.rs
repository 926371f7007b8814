//! Templates in a command node's `script`: what `{{ ... }}` renders to reaches the script as
//! data, never as code. Fabro pastes values into the script text, so an input such as
//! `x'; touch PWNED; echo '` runs; here each `{{ ... }}` becomes a reference to an environment
//! variable (`FABRO_TEMPLATE_1`, `FABRO_TEMPLATE_2`, ... in the order they render) that the
//! engine sets to the value when the node runs. The script's text is then only what its
//! author wrote plus those fixed references, whatever the values hold.
//!
//! The reference is written for where it stands, so that scripts written for Fabro keep
//! working: in bash, `"${FABRO_TEMPLATE_1}"` outside quotes, `${FABRO_TEMPLATE_1}` inside
//! double quotes, `'"${FABRO_TEMPLATE_1}"'` inside single quotes; in Python, an expression
//! reading `os.environ`, outside a string or spliced into one with `+`. Where that guess is
//! wrong (a heredoc, an `eval`), the script may see the reference's text, never the value as
//! code.

use std::sync::{Arc, Mutex};

use minijinja::{Error, ErrorKind};

use super::template::{TemplateContext, describe, is_plain, strict};

/// What names the environment variable of the n-th value (from 1).
pub const VALUE_PREFIX: &str = "FABRO_TEMPLATE_";

/// Brackets a value's index in the rendered text until its reference replaces it: characters
/// of Unicode's private use area, which no script means.
const OPEN: char = '\u{F8FE}';
const CLOSE: char = '\u{F8FF}';

/// The script `text` rendered for `language` (`shell` or `python`), and the values its
/// references name, in order.
pub fn render_script(
    text: &str,
    ctx: &TemplateContext,
    language: &str,
) -> Result<(String, Vec<String>), String> {
    if is_plain(text) {
        return Ok((text.to_owned(), Vec::new()));
    }
    let values = Arc::new(Mutex::new(Vec::new()));
    let mut env = strict();
    let seen = Arc::clone(&values);
    env.set_formatter(move |out, _, value| {
        let mut seen = seen
            .lock()
            .map_err(|_| Error::new(ErrorKind::InvalidOperation, "template values lost"))?;
        seen.push(value.to_string());
        write!(out, "{OPEN}{}{CLOSE}", seen.len()).map_err(Error::from)
    });
    let values_ctx = minijinja::context! { goal => &ctx.goal, inputs => &ctx.inputs };
    let rendered = env
        .render_str(text, values_ctx)
        .map_err(|err| describe(&err))?;
    drop(env);
    let values = values.lock().map(|v| v.clone()).unwrap_or_default();
    let python = language == "python";
    Ok((place_references(&rendered, values.len(), python), values))
}

/// Where a reference stands in the script.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Code,
    Comment,
    /// Inside a string literal closed by `quote`, three of them when `triple` (Python).
    Quoted {
        quote: char,
        triple: bool,
    },
}

/// Replaces each bracketed index up to `count` by its reference, written for its place.
fn place_references(text: &str, count: usize, python: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut place = Place::Code;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == OPEN
            && let Some(len) = chars[i + 1..].iter().position(|&c| c == CLOSE)
            && let Ok(n) = chars[i + 1..i + 1 + len]
                .iter()
                .collect::<String>()
                .parse::<usize>()
            && (1..=count).contains(&n)
        {
            out.push_str(&reference(n, place, python));
            i += len + 2;
            continue;
        }
        let (next, taken) = step(&chars, i, place, python);
        out.extend(&chars[i..i + taken]);
        place = next;
        i += taken;
    }
    out
}

/// The place after the characters at `i` (an escape takes two), and how many were read.
fn step(chars: &[char], i: usize, place: Place, python: bool) -> (Place, usize) {
    let c = chars[i];
    let at = |k: usize| chars.get(i + k).copied();
    match place {
        Place::Comment if c == '\n' => (Place::Code, 1),
        Place::Comment => (Place::Comment, 1),
        Place::Quoted { quote, triple } => {
            // Single quotes in bash end at the next quote: no escapes there.
            let escapes = python || quote == '"';
            if c == '\\' && escapes {
                return (place, 2.min(chars.len() - i));
            }
            if c != quote {
                return (place, 1);
            }
            if !triple {
                return (Place::Code, 1);
            }
            if at(1) == Some(quote) && at(2) == Some(quote) {
                return (Place::Code, 3);
            }
            (place, 1)
        }
        Place::Code => match c {
            '\\' => (Place::Code, 2.min(chars.len() - i)),
            '#' if python || starts_word(chars, i) => (Place::Comment, 1),
            '\'' | '"' if python && at(1) == Some(c) && at(2) == Some(c) => (
                Place::Quoted {
                    quote: c,
                    triple: true,
                },
                3,
            ),
            '\'' | '"' => (
                Place::Quoted {
                    quote: c,
                    triple: false,
                },
                1,
            ),
            _ => (Place::Code, 1),
        },
    }
}

/// Whether the `#` at `i` starts a word, and so a bash comment (`a#b` is one word).
fn starts_word(chars: &[char], i: usize) -> bool {
    i == 0
        || matches!(
            chars[i - 1],
            ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')'
        )
}

/// The reference to the n-th value, written for `place`.
fn reference(n: usize, place: Place, python: bool) -> String {
    let name = format!("{VALUE_PREFIX}{n}");
    if python {
        let read = format!("__import__('os').environ['{name}']");
        return match place {
            Place::Quoted { quote, triple } => {
                let q = if triple {
                    quote.to_string().repeat(3)
                } else {
                    quote.to_string()
                };
                format!("{q} + {read} + {q}")
            }
            _ => read,
        };
    }
    match place {
        Place::Quoted { quote: '"', .. } => format!("${{{name}}}"),
        Place::Quoted { .. } => format!("'\"${{{name}}}\"'"),
        _ => format!("\"${{{name}}}\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(value: &str) -> TemplateContext {
        TemplateContext {
            goal: "the goal".into(),
            inputs: [("x".to_string(), value.to_string())].into(),
        }
    }

    fn shell(text: &str) -> (String, Vec<String>) {
        render_script(text, &ctx("a'b\"c$d"), "shell").unwrap()
    }

    #[test]
    fn values_become_references_written_for_their_quotes() {
        let (text, values) = shell("echo {{ inputs.x }} \"in {{ inputs.x }}\" 'in {{ goal }}'");
        assert_eq!(
            text,
            "echo \"${FABRO_TEMPLATE_1}\" \"in ${FABRO_TEMPLATE_2}\" 'in '\"${FABRO_TEMPLATE_3}\"''"
        );
        assert_eq!(values, ["a'b\"c$d", "a'b\"c$d", "the goal"]);
    }

    #[test]
    fn comments_and_escapes_do_not_confuse_the_quotes() {
        let (text, _) = shell("# don't\necho \\' it\\\"s {{ inputs.x | upper }}");
        assert_eq!(text, "# don't\necho \\' it\\\"s \"${FABRO_TEMPLATE_1}\"");
        let (text, values) = shell("{% for i in [1, 2] %}{{ i }}{% endfor %}");
        assert_eq!(text, "\"${FABRO_TEMPLATE_1}\"\"${FABRO_TEMPLATE_2}\"");
        assert_eq!(values, ["1", "2"]);
    }

    #[test]
    fn python_reads_the_environment() {
        let read = |n| format!("__import__('os').environ['FABRO_TEMPLATE_{n}']");
        let (text, _) = render_script(
            "x = {{ inputs.x }}\nprint(\"v: {{ goal }}\", '''{{ goal }}''')",
            &ctx("v"),
            "python",
        )
        .unwrap();
        let want = format!(
            "x = {}\nprint(\"v: \" + {} + \"\", '''''' + {} + '''''')",
            read(1),
            read(2),
            read(3)
        );
        assert_eq!(text, want);
    }

    #[test]
    fn plain_text_stays_as_written() {
        let (text, values) = shell("echo '$x' {x} \u{F8FE}1\u{F8FF}");
        assert_eq!(text, "echo '$x' {x} \u{F8FE}1\u{F8FF}");
        assert!(values.is_empty());
    }
}
