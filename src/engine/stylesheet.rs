//! The `model_stylesheet` graph attribute: CSS-like rules that give nodes a model, provider or
//! reasoning effort (`* { model: x; } .fast { reasoning_effort: low; } #review { ... }`).
//! Selectors are `*`, a shape name, `.class` and `#id`, in rising specificity. [`resolve`]
//! gives a node what the rules give it, as Fabro applies them: the most specific rule wins,
//! a later rule wins among equals, and an attribute written on the node wins over all.

use super::graph::{Graph, Node};

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

impl Selector {
    fn specificity(&self) -> u8 {
        match self {
            Selector::Universal => 0,
            Selector::Shape(_) => 1,
            Selector::Class(_) => 2,
            Selector::Id(_) => 3,
        }
    }

    fn matches(&self, node: &Node) -> bool {
        match self {
            Selector::Universal => true,
            Selector::Shape(shape) => node.shape() == shape,
            Selector::Class(class) => node.classes.contains(class),
            Selector::Id(id) => node.id == *id,
        }
    }
}

/// `property` for `node`: its own attribute, else the stylesheet's most specific rule that
/// sets it. An unreadable stylesheet gives nothing (validation reports it).
pub fn resolve(graph: &Graph, node: &Node, property: &str) -> Option<String> {
    if let Some(own) = node.attrs.get(property) {
        return Some(own.to_text());
    }
    let sheet = graph.attrs().get("model_stylesheet")?.as_str()?;
    let rules = parse(sheet).ok()?;
    let mut best: Option<(u8, &str)> = None;
    for rule in rules.iter().filter(|r| r.selector.matches(node)) {
        let specificity = rule.selector.specificity();
        for (name, value) in &rule.declarations {
            if name == property && best.is_none_or(|(s, _)| specificity >= s) {
                best = Some((specificity, value));
            }
        }
    }
    best.map(|(_, value)| value.to_owned())
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

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn the_most_specific_rule_wins_and_the_node_beats_them_all() {
        let source = r##"digraph g {
  graph [model_stylesheet="#b { model: by-id; } .fast { model: by-class; } box { model: by-shape; provider: p1; } * { model: any; reasoning_effort: low; } box { provider: p2; }"]
  a [class="fast"]
  b [class="fast"]
  c [shape=tab]
  d [model="own"]
}"##;
        let graph = crate::engine::workflow::parse(source, "g.fabro").unwrap();
        let get = |id: &str, property: &str| resolve(&graph, graph.node(id).unwrap(), property);
        assert_eq!(get("a", "model").as_deref(), Some("by-class"));
        assert_eq!(get("b", "model").as_deref(), Some("by-id"));
        assert_eq!(get("c", "model").as_deref(), Some("any"));
        assert_eq!(get("d", "model").as_deref(), Some("own"));
        assert_eq!(get("a", "provider").as_deref(), Some("p2"));
        assert_eq!(get("c", "provider"), None);
        assert_eq!(get("c", "reasoning_effort").as_deref(), Some("low"));
    }
}
