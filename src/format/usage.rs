//! What an agent's work cost, in Fabro's terms: for each model that answered, its tokens of
//! each kind (Fabro's `TokenCounts` and `ModelUsage`), and beside them the tool calls it made.
//! A stage keeps its usage in `status.json`; its outcome in `run.json` keeps Fabro's
//! `BilledModelUsage` of the model that did most of the work (a Fabro `Outcome` holds one);
//! and the checkpoint record keeps the run's totals so far, so that `ps` and `status` show
//! them without reading every stage.

pub mod transcript;

use std::ops::AddAssign;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Fabro's `TokenCounts`: input excludes what the cache served where the provider counts it
/// apart (Anthropic), as each provider reports it; output excludes reasoning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCounts {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub reasoning_tokens: u64,
    #[serde(default)]
    pub cache_read_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl TokenCounts {
    pub fn total(&self) -> u64 {
        [
            self.input_tokens,
            self.output_tokens,
            self.reasoning_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
        ]
        .into_iter()
        .fold(0, u64::saturating_add)
    }

    /// `self` less `earlier`, each count at least zero: a turn's share of running totals.
    pub fn since(&self, earlier: &TokenCounts) -> TokenCounts {
        TokenCounts {
            input_tokens: self.input_tokens.saturating_sub(earlier.input_tokens),
            output_tokens: self.output_tokens.saturating_sub(earlier.output_tokens),
            reasoning_tokens: self
                .reasoning_tokens
                .saturating_sub(earlier.reasoning_tokens),
            cache_read_tokens: self
                .cache_read_tokens
                .saturating_sub(earlier.cache_read_tokens),
            cache_write_tokens: self
                .cache_write_tokens
                .saturating_sub(earlier.cache_write_tokens),
        }
    }
}

impl AddAssign for TokenCounts {
    fn add_assign(&mut self, other: TokenCounts) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(other.reasoning_tokens);
        self.cache_read_tokens = self
            .cache_read_tokens
            .saturating_add(other.cache_read_tokens);
        self.cache_write_tokens = self
            .cache_write_tokens
            .saturating_add(other.cache_write_tokens);
    }
}

/// The providers Fabro bills by, as its `Provider` spells them.
const PROVIDERS: [&str; 8] = [
    "anthropic",
    "openai",
    "gemini",
    "kimi",
    "zai",
    "minimax",
    "inception",
    "openai_compatible",
];

/// Fabro's `ModelRef`: whose API answered, and the model it names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelRef {
    pub provider: String,
    pub model_id: String,
}

impl ModelRef {
    /// A model of `provider`; a provider Fabro does not know is billed as an OpenAI-compatible
    /// API, the one shape every other provider offers.
    pub fn new(provider: &str, model_id: &str) -> ModelRef {
        let provider = match provider {
            "open_ai" => "openai",
            known if PROVIDERS.contains(&known) => known,
            _ => "openai_compatible",
        };
        ModelRef {
            provider: provider.to_owned(),
            model_id: model_id.to_owned(),
        }
    }
}

/// Fabro's `ModelUsage`: one model's tokens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelUsage {
    pub model: ModelRef,
    pub tokens: TokenCounts,
}

/// A stage's usage, as `status.json` keeps it: each model that answered, and the agent's tool
/// calls.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub models: Vec<ModelUsage>,
    #[serde(default)]
    pub tool_calls: u64,
}

impl Usage {
    /// Adds `tokens` to `model`'s count, listing the model when it is new.
    pub fn add(&mut self, model: ModelRef, tokens: TokenCounts) {
        match self.models.iter_mut().find(|m| m.model == model) {
            Some(known) => known.tokens += tokens,
            None => self.models.push(ModelUsage { model, tokens }),
        }
    }

    /// Every model's tokens together.
    pub fn tokens(&self) -> TokenCounts {
        let mut all = TokenCounts::default();
        for model in &self.models {
            all += model.tokens;
        }
        all
    }

    /// The model that used the most tokens (the first of equals).
    pub fn main_model(&self) -> Option<&ModelUsage> {
        self.models.iter().rev().max_by_key(|m| m.tokens.total())
    }

    /// Fabro's `BilledModelUsage` of the main model, for the stage's outcome: a Fabro
    /// `Outcome` holds one model's usage, unpriced. Its billing facts spell the OpenAI
    /// providers as Fabro's `ModelBillingFacts` does, `open_ai` where a `ModelRef` has `openai`.
    pub fn fabro_outcome_usage(&self) -> Option<Value> {
        let main = self.main_model()?;
        let facts = match main.model.provider.as_str() {
            "openai" => "open_ai",
            "openai_compatible" => "open_ai_compatible",
            other => other,
        };
        Some(json!({
            "input": {
                "usage": main,
                "facts": { "provider": facts },
            }
        }))
    }
}

/// The run's usage so far, kept in the checkpoint record (git-fabro's `usage_total`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageTotal {
    #[serde(flatten)]
    pub tokens: TokenCounts,
    #[serde(default)]
    pub tool_calls: u64,
    /// How many stages reported usage.
    #[serde(default)]
    pub stages: u64,
}

impl UsageTotal {
    pub fn with(mut self, usage: &Usage) -> UsageTotal {
        self.tokens += usage.tokens();
        self.tool_calls = self.tool_calls.saturating_add(usage.tool_calls);
        self.stages = self.stages.saturating_add(1);
        self
    }
}

/// `1,234,567`: counts as people read them.
pub fn grouped(count: u64) -> String {
    let digits = count.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `1,200 in, 340 out, 5,000 cache read, 0 cache write`, reasoning named only when there is
/// some.
pub fn describe(tokens: &TokenCounts) -> String {
    let mut parts = vec![
        format!("{} in", grouped(tokens.input_tokens)),
        format!("{} out", grouped(tokens.output_tokens)),
    ];
    if tokens.reasoning_tokens > 0 {
        parts.push(format!("{} reasoning", grouped(tokens.reasoning_tokens)));
    }
    parts.push(format!("{} cache read", grouped(tokens.cache_read_tokens)));
    parts.push(format!(
        "{} cache write",
        grouped(tokens.cache_write_tokens)
    ));
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outcome_names_the_model_that_did_most_in_fabros_shape() {
        let mut usage = Usage::default();
        let small = TokenCounts {
            input_tokens: 5,
            ..TokenCounts::default()
        };
        let big = TokenCounts {
            input_tokens: 10,
            output_tokens: 20,
            ..TokenCounts::default()
        };
        usage.add(ModelRef::new("anthropic", "claude-haiku"), small);
        usage.add(ModelRef::new("anthropic", "claude-opus"), big);
        usage.add(ModelRef::new("anthropic", "claude-haiku"), small);
        assert_eq!(usage.tokens().total(), 40);
        let outcome = usage.fabro_outcome_usage().unwrap();
        assert_eq!(
            outcome["input"]["usage"]["model"]["model_id"],
            "claude-opus"
        );
        assert_eq!(outcome["input"]["usage"]["tokens"]["output_tokens"], 20);
        assert_eq!(outcome["input"]["facts"]["provider"], "anthropic");
        assert_eq!(ModelRef::new("qwen", "q").provider, "openai_compatible");
        let mut openai = Usage::default();
        openai.add(ModelRef::new("openai", "gpt-5.5"), big);
        let outcome = openai.fabro_outcome_usage().unwrap();
        assert_eq!(outcome["input"]["usage"]["model"]["provider"], "openai");
        assert_eq!(outcome["input"]["facts"]["provider"], "open_ai");
        assert_eq!(ModelRef::new("open_ai", "o").provider, "openai");
    }

    #[test]
    fn counts_read_as_people_write_them() {
        for (count, written) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1_234_567, "1,234,567"),
        ] {
            assert_eq!(grouped(count), written);
        }
        let tokens = TokenCounts {
            input_tokens: 1200,
            output_tokens: 340,
            ..TokenCounts::default()
        };
        assert_eq!(
            describe(&tokens),
            "1,200 in, 340 out, 0 cache read, 0 cache write"
        );
    }
}
