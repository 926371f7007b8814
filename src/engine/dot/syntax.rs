//! The statements of a workflow, read by recursive descent over the comment-free text.
//!
//! The grammar is Fabro's, down to its order of alternatives (a statement is tried as
//! `graph [..]`, `node [..]`, `edge [..]`, `subgraph`, `key = value`, then an edge chain or a
//! node) and its value precedence (quoted string, duration, float, integer, boolean, bare
//! string, identifier; the first that matches wins, even when what follows then fails, so
//! `x=true-ish` is an error in Fabro and here). Where Fabro backtracks and then fails anyway,
//! this parser stops at the first place that cannot be right and says what it expected.

/// A value before typing: quoted strings, bare strings and identifiers are all text, but a
/// subgraph's label must be text to name a class.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
}

pub type AttrList = Vec<(String, Value)>;

#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    GraphAttrs(AttrList),
    NodeDefaults(AttrList),
    EdgeDefaults(AttrList),
    Subgraph(Vec<Statement>),
    /// `key = value` at statement level: a graph attribute.
    GraphAttr(String, Value),
    Node(String, Option<AttrList>),
    /// A chain `a -> b -> c` with the attributes every one of its edges gets.
    Edges(Vec<String>, Option<AttrList>),
}

pub struct Document {
    pub name: String,
    pub statements: Vec<Statement>,
}

pub struct SyntaxError {
    /// Byte offset in the text given to [`parse`].
    pub at: usize,
    pub message: String,
}

type Result<T> = std::result::Result<T, SyntaxError>;

/// Nesting deeper than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 64;

pub fn parse(text: &str) -> Result<Document> {
    let mut p = Parser { text, pos: 0 };
    p.ws();
    if !p.rest().starts_with("digraph") {
        return Err(
            p.expected("`digraph` (Fabro workflows are directed graphs: digraph Name { ... })")
        );
    }
    p.pos += "digraph".len();
    p.ws();
    let Some(name) = p.identifier() else {
        return Err(p.expected("the workflow's name after `digraph` (an unquoted identifier)"));
    };
    p.ws();
    if !p.eat('{') {
        return Err(p.expected("`{`"));
    }
    let statements = p.statements(0)?;
    p.ws();
    if !p.eat('}') {
        return Err(p.expected("a statement or `}`"));
    }
    let rest = p.rest();
    let trailing = rest.trim_start();
    if !trailing.is_empty() {
        p.pos += rest.len() - trailing.len();
        return Err(p.error("unexpected content after the graph's closing `}`".into()));
    }
    Ok(Document { name, statements })
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// Whitespace as nom's `multispace0` knows it: space, tab, CR, LF.
    fn ws(&mut self) {
        let rest = self.rest();
        let trimmed = rest.trim_start_matches([' ', '\t', '\r', '\n']);
        self.pos += rest.len() - trimmed.len();
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn error(&self, message: String) -> SyntaxError {
        SyntaxError {
            at: self.pos,
            message,
        }
    }

    fn expected(&self, what: &str) -> SyntaxError {
        let found = match self.peek() {
            None => "the end of the file".to_string(),
            Some('"') => "a quoted string".to_string(),
            Some('#') => "`#` (Fabro's DOT has // and /* */ comments only)".to_string(),
            Some('<') => "`<` (Fabro's DOT has no HTML labels)".to_string(),
            Some(c) if c.is_control() => format!("{c:?}"),
            Some(c) => format!("`{c}`"),
        };
        self.error(format!("expected {what}, found {found}"))
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`
    fn identifier(&mut self) -> Option<String> {
        let rest = self.rest();
        let first = rest.chars().next()?;
        if !(first.is_ascii_alphabetic() || first == '_') {
            return None;
        }
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        self.pos += len;
        Some(rest[..len].to_string())
    }

    /// A keyword statement (`graph`, `node`, `edge`) is its word, then `[` after optional
    /// whitespace; otherwise the word is an ordinary identifier.
    fn keyword_block(&mut self, word: &str) -> bool {
        let rest = self.rest();
        if !rest.starts_with(word) {
            return false;
        }
        let after = rest[word.len()..].trim_start_matches([' ', '\t', '\r', '\n']);
        if after.starts_with('[') {
            self.pos += rest.len() - after.len();
            true
        } else {
            false
        }
    }

    /// `subgraph Name? {`, as Fabro matches it (the name may even touch the keyword).
    fn subgraph_open(&mut self) -> bool {
        let start = self.pos;
        if !self.rest().starts_with("subgraph") {
            return false;
        }
        self.pos += "subgraph".len();
        self.ws();
        let _name = self.identifier();
        self.ws();
        if self.eat('{') {
            true
        } else {
            self.pos = start;
            false
        }
    }

    fn statements(&mut self, depth: usize) -> Result<Vec<Statement>> {
        if depth > MAX_DEPTH {
            return Err(self.error(format!("subgraphs nested deeper than {MAX_DEPTH}")));
        }
        let mut statements = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                None | Some('}') => return Ok(statements),
                _ => statements.push(self.statement(depth)?),
            }
        }
    }

    fn statement(&mut self, depth: usize) -> Result<Statement> {
        for (word, make) in [
            ("graph", Statement::GraphAttrs as fn(AttrList) -> Statement),
            ("node", Statement::NodeDefaults),
            ("edge", Statement::EdgeDefaults),
        ] {
            if self.keyword_block(word) {
                let attrs = self.attr_block()?;
                self.optional_semicolon();
                return Ok(make(attrs));
            }
        }
        if self.subgraph_open() {
            let inner = self.statements(depth + 1)?;
            self.ws();
            if !self.eat('}') {
                return Err(self.expected("a statement or `}` closing the subgraph"));
            }
            return Ok(Statement::Subgraph(inner));
        }
        let Some(first) = self.identifier() else {
            return Err(self.expected(
                "a statement: a node id, an edge `a -> b`, `key = value`, `graph [..]`, \
                 `node [..]`, `edge [..]` or `subgraph { .. }` (node ids are unquoted identifiers)",
            ));
        };
        self.ws();
        if self.eat('=') {
            let value = self.value()?;
            self.optional_semicolon();
            return Ok(Statement::GraphAttr(first, value));
        }
        let mut chain = vec![first];
        while self.rest().starts_with("->") {
            self.pos += 2;
            self.ws();
            match self.identifier() {
                Some(id) => chain.push(id),
                None => return Err(self.expected("a node id after `->` (an unquoted identifier)")),
            }
            self.ws();
        }
        let attrs = if self.peek() == Some('[') {
            Some(self.attr_block()?)
        } else {
            None
        };
        self.optional_semicolon();
        Ok(if chain.len() == 1 {
            let id = chain.pop().unwrap_or_default();
            Statement::Node(id, attrs)
        } else {
            Statement::Edges(chain, attrs)
        })
    }

    fn optional_semicolon(&mut self) {
        self.ws();
        self.eat(';');
    }

    /// `[` (key = value (`,` key = value)*)? `]`: commas only, no trailing comma.
    fn attr_block(&mut self) -> Result<AttrList> {
        self.ws();
        if !self.eat('[') {
            return Err(self.expected("`[`"));
        }
        let mut attrs = Vec::new();
        self.ws();
        if self.eat(']') {
            return Ok(attrs);
        }
        loop {
            self.ws();
            let Some(key) = self.key() else {
                return Err(self.expected("an attribute name"));
            };
            self.ws();
            if !self.eat('=') {
                return Err(self.expected(&format!("`=` after the attribute name `{key}`")));
            }
            attrs.push((key, self.value()?));
            self.ws();
            if self.eat(']') {
                return Ok(attrs);
            }
            if !self.eat(',') {
                return Err(self.expected("`,` or `]` (attributes are separated by commas)"));
            }
            self.ws();
            if self.peek() == Some(']') {
                return Err(self.error("a trailing comma is not allowed before `]`".into()));
            }
        }
    }

    /// An identifier, or identifiers joined by dots (`stack.child_workflow`).
    fn key(&mut self) -> Option<String> {
        let mut key = self.identifier()?;
        loop {
            let save = self.pos;
            if !self.eat('.') {
                return Some(key);
            }
            match self.identifier() {
                Some(segment) => {
                    key.push('.');
                    key.push_str(&segment);
                }
                None => {
                    self.pos = save;
                    return Some(key);
                }
            }
        }
    }

    fn value(&mut self) -> Result<Value> {
        // Fabro trims any Unicode whitespace before a value.
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
        if self.peek() == Some('"') {
            return self.quoted();
        }
        if let Some(v) = self
            .duration()
            .or_else(|| self.float())
            .or_else(|| self.integer())
        {
            return Ok(v);
        }
        let start = self.pos;
        if let Some(word) = self.identifier() {
            if word == "true" || word == "false" {
                return Ok(Value::Bool(word == "true"));
            }
            self.pos = start;
            if let Some(bare) = self.bare_string() {
                return Ok(Value::Text(bare));
            }
            self.pos = start;
            let word = self.identifier().unwrap_or_default();
            return Ok(Value::Text(word));
        }
        Err(self.expected(
            "a value: a quoted string, a number, a duration such as 900s, true/false or a bare word",
        ))
    }

    /// The digits of `-?[0-9]+` at the cursor, without moving it.
    fn signed_digits(&self) -> Option<&'a str> {
        let rest = self.rest();
        let sign = usize::from(rest.starts_with('-'));
        let digits = rest[sign..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - sign);
        (digits > 0).then(|| &rest[..sign + digits])
    }

    /// `-?[0-9]+(ms|s|m|h|d)` not followed by a letter or digit; kept as text, typed later.
    fn duration(&mut self) -> Option<Value> {
        let number = self.signed_digits()?;
        let after = &self.rest()[number.len()..];
        let unit = ["ms", "s", "m", "h", "d"]
            .into_iter()
            .find(|u| after.starts_with(u))?;
        if after[unit.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            return None;
        }
        self.pos += number.len() + unit.len();
        Some(Value::Text(format!("{number}{unit}")))
    }

    /// `-?[0-9]*\.[0-9]+`
    fn float(&mut self) -> Option<Value> {
        let rest = self.rest();
        let sign = usize::from(rest.starts_with('-'));
        let whole = rest[sign..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - sign);
        let dot = sign + whole;
        if !rest[dot..].starts_with('.') {
            return None;
        }
        let fraction = rest[dot + 1..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - dot - 1);
        if fraction == 0 {
            return None;
        }
        let raw = &rest[..dot + 1 + fraction];
        let value = raw.parse::<f64>().ok()?;
        self.pos += raw.len();
        Some(Value::Float(value))
    }

    /// `-?[0-9]+` not followed by `.`, within i64.
    fn integer(&mut self) -> Option<Value> {
        let raw = self.signed_digits()?;
        if self.rest()[raw.len()..].starts_with('.') {
            return None;
        }
        let value = raw.parse::<i64>().ok()?;
        self.pos += raw.len();
        Some(Value::Int(value))
    }

    /// `[A-Za-z_]+[A-Za-z0-9_.-]*` holding a `-` or a `.` (model names such as `gpt-5.2`).
    fn bare_string(&mut self) -> Option<String> {
        let rest = self.rest();
        let head = rest
            .find(|c: char| !(c.is_ascii_alphabetic() || c == '_'))
            .unwrap_or(rest.len());
        let len = rest[head..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .map_or(rest.len(), |n| head + n);
        let raw = &rest[..len];
        if head == 0 || !raw.contains(['-', '.']) {
            return None;
        }
        self.pos += len;
        Some(raw.to_string())
    }

    /// A double-quoted string. `\"`, `\n`, `\t` and `\\` are escapes; any other backslash is
    /// kept with the character after it, a backslash-newline included. Raw newlines stay.
    fn quoted(&mut self) -> Result<Value> {
        let open = self.pos;
        self.pos += 1;
        let mut text = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(Value::Text(text));
                }
                '\\' => match chars.next() {
                    Some((_, '"')) => text.push('"'),
                    Some((_, 'n')) => text.push('\n'),
                    Some((_, 't')) => text.push('\t'),
                    Some((_, '\\')) => text.push('\\'),
                    Some((_, other)) => {
                        text.push('\\');
                        text.push(other);
                    }
                    None => break,
                },
                c => text.push(c),
            }
        }
        self.pos = open;
        Err(self.error("unterminated string: this \" has no closing quote".into()))
    }
}
