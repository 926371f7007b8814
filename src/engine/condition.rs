//! The guard language of edges (`condition="outcome=succeeded && context.tests contains PASS"`),
//! as Fabro reads and evaluates it.
//!
//! `||` binds loosest, then `&&`, then `!`; there are no parentheses. A clause is `key op value`
//! or a bare `key` (true when its value is not empty, `false` or `0`). The operators are
//! `= != > < >= <=` and, after a word, `contains` and `matches` (a regex, compiled when the
//! condition is parsed). Keys: `outcome` (the node's status), `preferred_label`,
//! `context.X` (looked up as `context.X`, then as `X`), or any other context key. A missing key
//! is the empty string. Fabro's error messages are kept, since `validate` shows them.

use std::collections::BTreeMap;
use std::fmt;

use regex::Regex;
use serde_json::Value;

#[derive(Debug, Clone)]
pub enum Condition {
    Clause(Clause),
    Not(Box<Condition>),
    And(Vec<Condition>),
    Or(Vec<Condition>),
}

#[derive(Debug, Clone)]
pub struct Clause {
    pub key: String,
    pub op: Op,
    pub value: String,
    regex: Option<Regex>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    NotEq,
    Gt,
    Lt,
    Gte,
    Lte,
    Contains,
    Matches,
    Truthy,
}

/// Why a condition cannot be read; displayed as Fabro displays it (`Parse error: ...`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Parse error: {0}")]
pub struct ConditionError(String);

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    /// A comparison: every `Op` but `Truthy`, which is a word alone.
    Op(Op),
    And,
    Or,
    Not,
}

/// Tokens are named in messages as Fabro's `Debug` names them (`OpEq`, `Word("x")`).
impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Word(w) => write!(f, "Word({w:?})"),
            Token::Op(op @ (Op::Contains | Op::Matches)) => write!(f, "{op:?}"),
            Token::Op(op) => write!(f, "Op{op:?}"),
            Token::And => f.write_str("And"),
            Token::Or => f.write_str("Or"),
            Token::Not => f.write_str("Not"),
        }
    }
}

fn is_operator_char(c: char) -> bool {
    matches!(c, '=' | '!' | '>' | '<' | '&' | '|')
}

fn tokenize(input: &str) -> Result<Vec<Token>, ConditionError> {
    let chars: Vec<char> = input.trim().chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let pair = chars.get(i + 1).map(|&next| (c, next));
        let double = match pair {
            Some(('&', '&')) => Some(Token::And),
            Some(('|', '|')) => Some(Token::Or),
            Some(('!', '=')) => Some(Token::Op(Op::NotEq)),
            Some(('>', '=')) => Some(Token::Op(Op::Gte)),
            Some(('<', '=')) => Some(Token::Op(Op::Lte)),
            _ => None,
        };
        if let Some(token) = double {
            tokens.push(token);
            i += 2;
            continue;
        }
        let single = match c {
            '=' => Some(Token::Op(Op::Eq)),
            '>' => Some(Token::Op(Op::Gt)),
            '<' => Some(Token::Op(Op::Lt)),
            '!' => Some(Token::Not),
            _ => None,
        };
        if let Some(token) = single {
            tokens.push(token);
            i += 1;
            continue;
        }
        let start = i;
        if c == '"' {
            // The quotes stay in the word; the value is unquoted when it is read.
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' && i + 1 < chars.len() {
                    2
                } else {
                    1
                };
            }
            i = (i + 1).min(chars.len());
            tokens.push(Token::Word(chars[start..i].iter().collect()));
            continue;
        }
        while i < chars.len()
            && !chars[i].is_whitespace()
            && !is_operator_char(chars[i])
            && chars[i] != '"'
        {
            i += 1;
        }
        if i == start {
            return Err(ConditionError(format!(
                "unexpected character '{c}' in condition expression"
            )));
        }
        let word: String = chars[start..i].iter().collect();
        let after_word = matches!(tokens.last(), Some(Token::Word(_)));
        tokens.push(match word.as_str() {
            "contains" if after_word => Token::Op(Op::Contains),
            "matches" if after_word => Token::Op(Op::Matches),
            _ => Token::Word(word),
        });
    }
    Ok(tokens)
}

/// A value as written: a quoted one loses its quotes, and `\"` and `\\` their backslash.
fn literal(raw: &str) -> String {
    let raw = raw.trim();
    match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(inner) if raw.len() >= 2 => inner.replace("\\\"", "\"").replace("\\\\", "\\"),
        _ => raw.to_string(),
    }
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.pos).cloned();
        self.pos += usize::from(token.is_some());
        token
    }

    fn or(&mut self) -> Result<Condition, ConditionError> {
        self.joined(&Token::Or, Self::and, Condition::Or)
    }

    fn and(&mut self) -> Result<Condition, ConditionError> {
        self.joined(&Token::And, Self::unary, Condition::And)
    }

    /// `operand (separator operand)*`, one node when there is a single operand.
    fn joined(
        &mut self,
        separator: &Token,
        operand: fn(&mut Self) -> Result<Condition, ConditionError>,
        join: fn(Vec<Condition>) -> Condition,
    ) -> Result<Condition, ConditionError> {
        let mut children = vec![operand(self)?];
        while self.peek() == Some(separator) {
            self.pos += 1;
            children.push(operand(self)?);
        }
        Ok(if children.len() == 1 {
            children.remove(0)
        } else {
            join(children)
        })
    }

    fn unary(&mut self) -> Result<Condition, ConditionError> {
        // `!!!...x` nests one level per `!`; the length of a condition bounds it, but an
        // iterative count keeps a hostile one off the stack.
        let mut negations = 0usize;
        while self.peek() == Some(&Token::Not) {
            self.pos += 1;
            negations += 1;
        }
        let mut condition = self.clause()?;
        for _ in 0..negations {
            condition = Condition::Not(Box::new(condition));
        }
        Ok(condition)
    }

    fn clause(&mut self) -> Result<Condition, ConditionError> {
        let key = match self.next() {
            Some(Token::Word(word)) => word,
            Some(other) => {
                return Err(ConditionError(format!(
                    "expected key, got {other} in condition expression"
                )));
            }
            None => {
                return Err(ConditionError(
                    "unexpected end of condition expression".into(),
                ));
            }
        };
        let op = match self.peek() {
            Some(Token::Op(op)) => *op,
            _ => {
                let value = String::new();
                return Ok(Condition::Clause(Clause {
                    key,
                    op: Op::Truthy,
                    value,
                    regex: None,
                }));
            }
        };
        self.pos += 1;
        let value = match self.next() {
            Some(Token::Word(word)) => literal(&word),
            Some(other) => {
                return Err(ConditionError(format!(
                    "expected value after operator, got {other}"
                )));
            }
            // `key=` compares with the empty string.
            None if matches!(op, Op::Eq | Op::NotEq) => String::new(),
            None => return Err(ConditionError("expected value after operator".into())),
        };
        let regex = if op == Op::Matches {
            let compiled = Regex::new(&value)
                .map_err(|e| ConditionError(format!("invalid regex pattern '{value}': {e}")))?;
            Some(compiled)
        } else {
            None
        };
        Ok(Condition::Clause(Clause {
            key,
            op,
            value,
            regex,
        }))
    }
}

/// Reads a condition. An empty one is always true.
pub fn parse(expr: &str) -> Result<Condition, ConditionError> {
    let tokens = tokenize(expr)?;
    if tokens.is_empty() {
        return Ok(Condition::And(Vec::new()));
    }
    let mut parser = Parser { tokens, pos: 0 };
    let condition = parser.or()?;
    if let Some(extra) = parser.peek() {
        return Err(ConditionError(format!(
            "unexpected token {extra} in condition expression"
        )));
    }
    Ok(condition)
}

/// What a condition is evaluated against: the status of the node that just ran, its
/// preferred label, and the run's context.
pub struct Facts<'a> {
    pub outcome: &'a str,
    pub preferred_label: Option<&'a str>,
    pub context: &'a BTreeMap<String, Value>,
}

impl Facts<'_> {
    fn value(&self, key: &str) -> Value {
        match key {
            "outcome" => Value::String(self.outcome.to_string()),
            "preferred_label" => self
                .preferred_label
                .map_or(Value::Null, |l| Value::String(l.to_string())),
            _ => {
                let bare = key.strip_prefix("context.");
                self.context
                    .get(key)
                    .or_else(|| bare.and_then(|b| self.context.get(b)))
                    .cloned()
                    .unwrap_or(Value::Null)
            }
        }
    }

    fn text(&self, key: &str) -> String {
        as_text(&self.value(key))
    }
}

fn as_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

impl Condition {
    pub fn evaluate(&self, facts: &Facts<'_>) -> bool {
        match self {
            Condition::And(children) => children.iter().all(|c| c.evaluate(facts)),
            Condition::Or(children) => children.iter().any(|c| c.evaluate(facts)),
            Condition::Not(inner) => !inner.evaluate(facts),
            Condition::Clause(clause) => clause.evaluate(facts),
        }
    }
}

impl Clause {
    fn evaluate(&self, facts: &Facts<'_>) -> bool {
        match self.op {
            Op::Truthy => {
                let text = facts.text(&self.key);
                !text.is_empty() && text != "false" && text != "0"
            }
            Op::Eq => facts.text(&self.key) == self.value,
            Op::NotEq => facts.text(&self.key) != self.value,
            Op::Gt | Op::Lt | Op::Gte | Op::Lte => {
                let (Ok(lhs), Ok(rhs)) = (
                    facts.text(&self.key).parse::<f64>(),
                    self.value.parse::<f64>(),
                ) else {
                    return false;
                };
                match self.op {
                    Op::Gt => lhs > rhs,
                    Op::Lt => lhs < rhs,
                    Op::Gte => lhs >= rhs,
                    _ => lhs <= rhs,
                }
            }
            Op::Contains => match facts.value(&self.key) {
                Value::Array(items) => items.iter().any(|item| as_text(item) == self.value),
                other => as_text(&other).contains(&self.value),
            },
            Op::Matches => self
                .regex
                .as_ref()
                .is_some_and(|re| re.is_match(&facts.text(&self.key))),
        }
    }
}

/// Evaluates a condition as Fabro does at run time: one that cannot be read is false.
pub fn holds(expr: &str, facts: &Facts<'_>) -> bool {
    parse(expr).is_ok_and(|c| c.evaluate(facts))
}

#[cfg(test)]
mod tests;
