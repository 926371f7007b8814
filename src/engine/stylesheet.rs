//! The `model_stylesheet` graph attribute: CSS-like rules that give nodes a model, provider or
//! reasoning effort (`* { model: x; } .fast { reasoning_effort: low; } #review { ... }`).
//! Selectors are `*`, a shape name, `.class` and `#id`, in rising specificity. Only reading is
//! here for now (validation reports what Fabro reports); applying comes with the agent nodes.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    Universal,
    Shape(String),
    Class(String),
    Id(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub selector: Selector,
    pub declarations: Vec<(String, String)>,
}

/// At most `n` characters of `s`, for messages that quote what follows an error.
fn head(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// Reads a stylesheet; the messages are Fabro's.
pub fn parse(input: &str) -> Result<Vec<Rule>, String> {
    let mut rest = input.trim();
    let mut rules = Vec::new();
    while !rest.is_empty() {
        let selector = selector(&mut rest)?;
        let Some(body) = rest.strip_prefix('{') else {
            return Err(format!(
                "expected '{{' after selector, got: {:?}",
                head(rest, 20)
            ));
        };
        rest = body.trim();
        let declarations = declarations(&mut rest)?;
        rest = rest.strip_prefix('}').unwrap_or(rest).trim();
        rules.push(Rule {
            selector,
            declarations,
        });
    }
    Ok(rules)
}

/// Takes the word at the start of `rest` made of characters `keep` accepts.
fn word<'a>(rest: &mut &'a str, keep: impl Fn(char) -> bool) -> &'a str {
    let end = rest.find(|c: char| !keep(c)).unwrap_or(rest.len());
    let (word, after) = rest.split_at(end);
    *rest = after.trim();
    word
}

fn selector(rest: &mut &str) -> Result<Selector, String> {
    let id_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if let Some(after) = rest.strip_prefix('*') {
        *rest = after.trim();
        return Ok(Selector::Universal);
    }
    if let Some(after) = rest.strip_prefix('#') {
        *rest = after.trim();
        let id = word(rest, id_char);
        if id.is_empty() {
            return Err("expected identifier after '#'".into());
        }
        return Ok(Selector::Id(id.to_string()));
    }
    if let Some(after) = rest.strip_prefix('.') {
        *rest = after.trim();
        let class = word(rest, |c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'
        });
        if class.is_empty() {
            return Err("expected class name after '.'".into());
        }
        return Ok(Selector::Class(class.to_string()));
    }
    let original = *rest;
    let shape = word(rest, id_char);
    if shape.is_empty() {
        return Err(format!(
            "expected selector ('*', '#id', '.class', or shape name), got: {:?}",
            head(original, 20)
        ));
    }
    Ok(Selector::Shape(shape.to_string()))
}

fn declarations(rest: &mut &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    while !rest.starts_with('}') {
        if rest.is_empty() {
            return Err("unexpected end of stylesheet, expected '}'".into());
        }
        if let Some(after) = rest.strip_prefix(';') {
            *rest = after.trim();
            continue;
        }
        let property = word(rest, |c| c != ':' && !c.is_whitespace()).to_string();
        let Some(after) = rest.strip_prefix(':') else {
            return Err(format!("expected ':' after property name '{property}'"));
        };
        *rest = after.trim();
        let end = rest.find([';', '}']).unwrap_or(rest.len());
        let value = rest[..end].trim().to_string();
        *rest = rest[end..].trim();
        if value.is_empty() {
            return Err(format!("empty value for property '{property}'"));
        }
        out.push((property, value));
        if let Some(after) = rest.strip_prefix(';') {
            *rest = after.trim();
        }
    }
    Ok(out)
}
