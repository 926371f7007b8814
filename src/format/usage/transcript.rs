//! A turn's usage read from the agent's own transcript, which every agent keeps as JSON Lines
//! with a timestamp on each line. The turn is the lines written after `since` (the run's
//! previous checkpoint, which the previous turn's end wrote after its last line). Each line
//! is read by its shape, so one reader serves every agent:
//!
//! - Claude Code: `assistant` lines carry `message.{id, model, usage}`; a response written as
//!   several lines (one per content block) repeats its usage, so a response counts once, by
//!   its id, the last line's count winning. Tool calls are the `tool_use` blocks.
//! - Codex CLI: `event_msg` lines of type `token_count` carry the session's running totals,
//!   so the turn's share is the newest total less the newest one before the turn (Codex,
//!   as OpenAI, counts cached input inside input and reasoning inside output); `turn_context`
//!   names the model; tool calls are `response_item`s of a call type.
//! - Gemini CLI: `gemini` records carry `model`, `tokens` and `toolCalls`; a record is
//!   written again as it grows, so each id counts once, the newest record winning.
//! - Qwen Code: `assistant` lines carry a top-level `model` and Gemini's `usageMetadata`;
//!   tool calls are the `functionCall` parts of their message.
//! - GitHub Copilot CLI (`events.jsonl`): `session.usage_record` events carry each request's
//!   model and tokens; tool calls are `tool.execution_start` events.
//! - OpenCode: no file of its own; git-fabro's plugin hands over the session's messages as
//!   one JSON array, each assistant message with `modelID`, `providerID` and `tokens`, its
//!   tool calls `tool` parts, its time `time.created` in milliseconds.

use std::collections::HashSet;

use serde_json::Value;

use super::{ModelRef, TokenCounts, Usage};
use crate::format::time::Timestamp;

/// What a turn's lines of a transcript tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnUsage {
    pub usage: Usage,
    /// From the turn's first line to its last.
    pub duration_ms: Option<u64>,
}

/// Codex's `response_item` types that are a call of a tool.
const CODEX_CALLS: [&str; 4] = [
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "web_search_call",
];

/// The usage of the turn whose lines come after `since` (every line when `None`); `None` when
/// no line of the turn tells any (not a transcript git-fabro can read, or a turn that asked
/// no model).
pub fn turn_usage(transcript: &[u8], since: Option<Timestamp>) -> Option<TurnUsage> {
    let mut reader = Reader::default();
    if transcript.trim_ascii_start().starts_with(b"[") {
        let messages: Value = serde_json::from_slice(transcript).ok()?;
        for message in messages.as_array()?.iter().rev() {
            reader.opencode(message, since);
        }
        return reader.finish();
    }
    // Newest first: the turn is at the end, and the newest copy of a record is the one to keep.
    for line in transcript.rsplit(|&b| b == b'\n') {
        if reader.done() {
            break;
        }
        reader.line(line, since);
    }
    reader.finish()
}

#[derive(Default)]
struct Reader {
    usage: Usage,
    seen: HashSet<String>,
    known: bool,
    first: Option<i64>,
    last: Option<i64>,
    /// Codex: the newest running total in the turn and before it, and the model.
    codex_end: Option<TokenCounts>,
    codex_before: Option<TokenCounts>,
    codex_model: Option<String>,
    /// Past the turn's first line: only Codex's totals and model are still looked for.
    before_turn: bool,
}

impl Reader {
    fn done(&self) -> bool {
        self.before_turn
            && (self.codex_end.is_none()
                || (self.codex_before.is_some() && self.codex_model.is_some()))
    }

    fn line(&mut self, line: &[u8], since: Option<Timestamp>) {
        if self.before_turn && !contains(line, b"token_count") && !contains(line, b"turn_context") {
            return;
        }
        if !contains(line, b"\"timestamp\"") {
            return;
        }
        let Ok(value) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        let Some(at) = value["timestamp"]
            .as_str()
            .and_then(Timestamp::parse_rfc3339)
        else {
            return;
        };
        if since.is_some_and(|since| at <= since) {
            self.before_turn = true;
            self.codex(&value, false);
            return;
        }
        self.first = Some(at.millis());
        self.last.get_or_insert(at.millis());
        match value["type"].as_str() {
            Some("assistant") if value["usageMetadata"].is_object() => self.qwen(&value),
            Some("assistant") => self.claude(&value["message"]),
            Some("gemini") => self.gemini(&value),
            Some("session.usage_record") => self.copilot_usage(&value["data"]["usage"]),
            Some("tool.execution_start") => {
                self.usage.tool_calls += 1;
                self.known = true;
            }
            _ => self.codex(&value, true),
        }
    }

    fn qwen(&mut self, line: &Value) {
        let parts = line["message"]["parts"].as_array().into_iter().flatten();
        let calls = parts
            .filter(|part| part["functionCall"].is_object())
            .count() as u64;
        self.usage.tool_calls += calls;
        self.known |= calls > 0;
        let (Some(model), usage) = (line["model"].as_str(), &line["usageMetadata"]) else {
            return;
        };
        if !self.first_time("qwen", &line["uuid"]) {
            return;
        }
        let reasoning = count(&usage["thoughtsTokenCount"]);
        let tokens = TokenCounts {
            input_tokens: count(&usage["promptTokenCount"]),
            output_tokens: count(&usage["candidatesTokenCount"]),
            reasoning_tokens: reasoning,
            cache_read_tokens: count(&usage["cachedContentTokenCount"]),
            cache_write_tokens: 0,
        };
        self.usage
            .add(ModelRef::new("openai_compatible", model), tokens);
        self.known = true;
    }

    fn copilot_usage(&mut self, usage: &Value) {
        let Some(model) = usage["model"].as_str() else {
            return;
        };
        let keys = [
            "/inputTokens",
            "/outputTokens",
            "",
            "/cacheReadTokens",
            "/cacheWriteTokens",
        ];
        let tokens = token_counts(usage, keys);
        self.usage
            .add(ModelRef::new(provider_of(model), model), tokens);
        self.known = true;
    }

    fn opencode(&mut self, message: &Value, since: Option<Timestamp>) {
        let info = &message["info"];
        let Some(created) = info["time"]["created"].as_i64() else {
            return;
        };
        if since.is_some_and(|since| created <= since.millis()) || info["role"] != "assistant" {
            return;
        }
        self.first = Some(created);
        self.last
            .get_or_insert(info["time"]["completed"].as_i64().unwrap_or(created));
        let parts = message["parts"].as_array().into_iter().flatten();
        let calls = parts.filter(|part| part["type"] == "tool").count() as u64;
        self.usage.tool_calls += calls;
        let (Some(model), tokens) = (info["modelID"].as_str(), &info["tokens"]) else {
            self.known |= calls > 0;
            return;
        };
        let provider = match info["providerID"].as_str() {
            Some("google") => "gemini",
            Some(provider) => provider,
            None => provider_of(model),
        };
        let keys = [
            "/input",
            "/output",
            "/reasoning",
            "/cache/read",
            "/cache/write",
        ];
        let tokens = token_counts(tokens, keys);
        self.usage.add(ModelRef::new(provider, model), tokens);
        self.known = true;
    }

    fn claude(&mut self, message: &Value) {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_use" && self.first_time("tool", &block["id"]) {
                self.usage.tool_calls += 1;
                self.known = true;
            }
        }
        let (Some(model), usage) = (message["model"].as_str(), &message["usage"]) else {
            return;
        };
        if model == "<synthetic>" || !usage.is_object() || !self.first_time("msg", &message["id"]) {
            return;
        }
        let keys = [
            "/input_tokens",
            "/output_tokens",
            "",
            "/cache_read_input_tokens",
            "/cache_creation_input_tokens",
        ];
        let tokens = token_counts(usage, keys);
        self.usage.add(ModelRef::new("anthropic", model), tokens);
        self.known = true;
    }

    fn gemini(&mut self, record: &Value) {
        if !self.first_time("gemini", &record["id"]) {
            return;
        }
        let calls = record["toolCalls"].as_array().map_or(0, Vec::len) as u64;
        self.usage.tool_calls += calls;
        self.known |= calls > 0;
        let (Some(model), tokens) = (record["model"].as_str(), &record["tokens"]) else {
            return;
        };
        if !tokens.is_object() {
            return;
        }
        let tokens = token_counts(tokens, ["/input", "/output", "/thoughts", "/cached", ""]);
        self.usage.add(ModelRef::new("gemini", model), tokens);
        self.known = true;
    }

    fn codex(&mut self, line: &Value, in_turn: bool) {
        let payload = &line["payload"];
        match (line["type"].as_str(), payload["type"].as_str()) {
            (Some("turn_context"), _) => {
                if let Some(model) = payload["model"].as_str() {
                    self.codex_model.get_or_insert_with(|| model.to_owned());
                }
            }
            (Some("event_msg"), Some("token_count")) => {
                let total = &payload["info"]["total_token_usage"];
                if !total.is_object() {
                    return;
                }
                let reasoning = count(&total["reasoning_output_tokens"]);
                let tokens = TokenCounts {
                    input_tokens: count(&total["input_tokens"]),
                    output_tokens: count(&total["output_tokens"]).saturating_sub(reasoning),
                    reasoning_tokens: reasoning,
                    cache_read_tokens: count(&total["cached_input_tokens"]),
                    cache_write_tokens: count(&total["cache_write_input_tokens"]),
                };
                let slot = match in_turn {
                    true => &mut self.codex_end,
                    false => &mut self.codex_before,
                };
                slot.get_or_insert(tokens);
            }
            (Some("response_item"), Some(kind)) if in_turn && CODEX_CALLS.contains(&kind) => {
                self.usage.tool_calls += 1;
                self.known = true;
            }
            _ => {}
        }
    }

    /// Whether `id` (a string) is seen for the first time among `kind`s; a record without
    /// one counts each time.
    fn first_time(&mut self, kind: &str, id: &Value) -> bool {
        match id.as_str() {
            Some(id) => self.seen.insert(format!("{kind}:{id}")),
            None => true,
        }
    }

    fn finish(mut self) -> Option<TurnUsage> {
        if let Some(end) = self.codex_end {
            let tokens = end.since(&self.codex_before.unwrap_or_default());
            let model = self.codex_model.as_deref().unwrap_or("unknown");
            self.usage.add(ModelRef::new("openai", model), tokens);
            self.known = true;
        }
        if !self.known {
            return None;
        }
        // Newest first while reading; the models are listed as they first answered.
        self.usage.models.reverse();
        let duration_ms = match (self.first, self.last) {
            (Some(first), Some(last)) => u64::try_from(last - first).ok(),
            _ => None,
        };
        Some(TurnUsage {
            usage: self.usage,
            duration_ms,
        })
    }
}

/// Whose API a model is, by its name, for agents that use many (Copilot).
fn provider_of(model: &str) -> &'static str {
    let model = model.to_ascii_lowercase();
    if model.starts_with("claude") {
        "anthropic"
    } else if model.starts_with("gemini") {
        "gemini"
    } else if ["gpt", "o1", "o3", "o4", "codex"]
        .iter()
        .any(|p| model.starts_with(p))
    {
        "openai"
    } else {
        "openai_compatible"
    }
}

fn count(value: &Value) -> u64 {
    value.as_u64().unwrap_or(0)
}

/// The counts an agent writes under the JSON pointers `keys` names, in `TokenCounts`' order
/// (input, output, reasoning, cache read, cache write); `""` for a count it does not keep.
fn token_counts(usage: &Value, keys: [&str; 5]) -> TokenCounts {
    let at = |key: &str| match key {
        "" => 0,
        key => usage.pointer(key).map_or(0, count),
    };
    let [input, output, reasoning, cache_read, cache_write] = keys;
    TokenCounts {
        input_tokens: at(input),
        output_tokens: at(output),
        reasoning_tokens: at(reasoning),
        cache_read_tokens: at(cache_read),
        cache_write_tokens: at(cache_write),
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Option<Timestamp> {
        Timestamp::parse_rfc3339(text)
    }

    #[test]
    fn a_claude_turn_counts_each_response_once_and_each_tool_use() {
        let lines = [
            r#"{"type":"assistant","timestamp":"2026-12-01T10:00:00.000Z","message":{"id":"m0","model":"claude-opus","usage":{"input_tokens":99,"output_tokens":99}}}"#,
            r#"{"type":"user","timestamp":"2026-12-01T10:00:05.000Z","message":{"content":"fix it"}}"#,
            r#"{"type":"assistant","timestamp":"2026-12-01T10:00:06.000Z","message":{"id":"m1","model":"claude-opus","usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":7},"content":[{"type":"text"}]}}"#,
            r#"{"type":"assistant","timestamp":"2026-12-01T10:00:06.100Z","message":{"id":"m1","model":"claude-opus","usage":{"input_tokens":10,"output_tokens":20,"cache_read_input_tokens":100,"cache_creation_input_tokens":7},"content":[{"type":"tool_use","id":"t1"}]}}"#,
            r#"{"type":"assistant","timestamp":"2026-12-01T10:00:08.000Z","message":{"id":"m2","model":"claude-haiku","usage":{"input_tokens":3,"output_tokens":1},"content":[{"type":"tool_use","id":"t2"}]}}"#,
            r#"{"type":"assistant","timestamp":"2026-12-01T10:00:09.500Z","message":{"id":"m3","model":"<synthetic>","usage":{"input_tokens":0,"output_tokens":0}}}"#,
            r#"{"type":"last-prompt"}"#,
        ]
        .join("\n");
        let turn = turn_usage(lines.as_bytes(), at("2026-12-01T10:00:01.000Z")).unwrap();
        assert_eq!(turn.usage.tool_calls, 2);
        assert_eq!(turn.duration_ms, Some(4500));
        let [opus, haiku] = turn.usage.models.as_slice() else {
            panic!("{:?}", turn.usage.models)
        };
        assert_eq!(opus.model, ModelRef::new("anthropic", "claude-opus"));
        assert_eq!(
            opus.tokens,
            TokenCounts {
                input_tokens: 10,
                output_tokens: 20,
                reasoning_tokens: 0,
                cache_read_tokens: 100,
                cache_write_tokens: 7,
            }
        );
        assert_eq!(haiku.tokens.input_tokens, 3);
    }

    #[test]
    fn a_codex_turn_is_its_share_of_the_running_totals() {
        let total = |input: u64, output: u64| {
            format!(
                r#"{{"total_token_usage":{{"input_tokens":{input},"cached_input_tokens":4,"output_tokens":{output},"reasoning_output_tokens":2}}}}"#
            )
        };
        let lines = [
            r#"{"timestamp":"2026-12-01T10:00:00.000Z","type":"turn_context","payload":{"model":"gpt-5.5"}}"#.to_owned(),
            format!(r#"{{"timestamp":"2026-12-01T10:00:01.000Z","type":"event_msg","payload":{{"type":"token_count","info":{}}}}}"#, total(10, 20)),
            r#"{"timestamp":"2026-12-01T10:00:05.000Z","type":"event_msg","payload":{"type":"task_started"}}"#.to_owned(),
            r#"{"timestamp":"2026-12-01T10:00:06.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch"}}"#.to_owned(),
            format!(r#"{{"timestamp":"2026-12-01T10:00:07.000Z","type":"event_msg","payload":{{"type":"token_count","info":{}}}}}"#, total(25, 50)),
            r#"{"timestamp":"2026-12-01T10:00:07.100Z","type":"event_msg","payload":{"type":"token_count","info":null}}"#.to_owned(),
        ]
        .join("\n");
        let turn = turn_usage(lines.as_bytes(), at("2026-12-01T10:00:02.000Z")).unwrap();
        assert_eq!(turn.usage.tool_calls, 1);
        let [codex] = turn.usage.models.as_slice() else {
            panic!("{:?}", turn.usage.models)
        };
        assert_eq!(codex.model, ModelRef::new("openai", "gpt-5.5"));
        assert_eq!(codex.tokens.input_tokens, 15);
        assert_eq!(codex.tokens.output_tokens, 30);
        assert_eq!(codex.tokens.cache_read_tokens, 0);
        // The first turn of a session counts from nothing.
        let first = turn_usage(lines.as_bytes(), None).unwrap();
        assert_eq!(first.usage.models[0].tokens.input_tokens, 25);
        assert_eq!(first.usage.models[0].tokens.output_tokens, 48);
    }

    #[test]
    fn a_gemini_record_written_again_counts_once() {
        let lines = [
            r#"{"sessionId":"s","projectHash":"p"}"#,
            r#"{"id":"u1","timestamp":"2026-12-01T10:00:05.000Z","type":"user","content":"go"}"#,
            r#"{"id":"g1","timestamp":"2026-12-01T10:00:06.000Z","type":"gemini","model":"gemini-3-pro","content":"","toolCalls":[{"id":"c1"}]}"#,
            r#"{"id":"g1","timestamp":"2026-12-01T10:00:06.000Z","type":"gemini","model":"gemini-3-pro","content":"","toolCalls":[{"id":"c1"}],"tokens":{"input":10,"output":20,"cached":3,"thoughts":4,"tool":0,"total":37}}"#,
        ]
        .join("\n");
        let turn = turn_usage(lines.as_bytes(), at("2026-12-01T10:00:00.000Z")).unwrap();
        assert_eq!(turn.usage.tool_calls, 1);
        assert_eq!(turn.usage.models[0].tokens.total(), 37);
        assert_eq!(turn.duration_ms, Some(1000));
    }

    #[test]
    fn qwen_copilot_and_opencode_turns_are_read_too() {
        let qwen = [
            r#"{"uuid":"a","timestamp":"2026-12-01T10:00:06.000Z","type":"assistant","model":"qwen3-coder-plus","message":{"parts":[{"functionCall":{"name":"edit"}}]},"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":20,"thoughtsTokenCount":2,"cachedContentTokenCount":4}}"#,
        ]
        .join("\n");
        let turn = turn_usage(qwen.as_bytes(), None).unwrap();
        assert_eq!(turn.usage.tool_calls, 1);
        assert_eq!(turn.usage.models[0].model.provider, "openai_compatible");
        assert_eq!(turn.usage.models[0].tokens.cache_read_tokens, 4);

        let copilot = [
            r#"{"type":"session.usage_record","timestamp":"2026-12-01T10:00:06.000Z","data":{"usage":{"model":"claude-sonnet-4.5","inputTokens":10,"outputTokens":20,"cacheReadTokens":1,"cacheWriteTokens":2}}}"#,
            r#"{"type":"tool.execution_start","timestamp":"2026-12-01T10:00:07.000Z","data":{"toolName":"edit"}}"#,
            r#"{"type":"session.usage_record","timestamp":"2026-12-01T10:00:08.000Z","data":{"usage":{"model":"gpt-5.5","inputTokens":1,"outputTokens":1}}}"#,
        ]
        .join("\n");
        let turn = turn_usage(copilot.as_bytes(), None).unwrap();
        assert_eq!(turn.usage.tool_calls, 1);
        let providers: Vec<&str> = turn
            .usage
            .models
            .iter()
            .map(|m| m.model.provider.as_str())
            .collect();
        assert_eq!(providers, ["anthropic", "openai"]);
        assert_eq!(turn.duration_ms, Some(2000));

        let opencode = r#"[
 {"info": {"role": "user", "time": {"created": 1796165400000}}, "parts": []},
 {"info": {"role": "assistant", "time": {"created": 1796165437020, "completed": 1796165441170},
   "modelID": "claude-opus-4-8", "providerID": "anthropic",
   "tokens": {"input": 10, "output": 20, "reasoning": 0, "cache": {"read": 5, "write": 1}}},
  "parts": [{"type": "step-start"}, {"type": "tool", "tool": "edit"}]}
]"#;
        let turn = turn_usage(opencode.as_bytes(), at("2026-12-01T10:00:00.000Z")).unwrap();
        assert_eq!(turn.usage.tool_calls, 1);
        assert_eq!(turn.usage.models[0].tokens.cache_write_tokens, 1);
        assert_eq!(turn.duration_ms, Some(4150));
        assert_eq!(
            turn_usage(opencode.as_bytes(), at("2026-12-01T23:00:00.000Z")),
            None
        );
    }

    #[test]
    fn a_file_that_tells_nothing_is_no_usage() {
        assert_eq!(turn_usage(b"", None), None);
        assert_eq!(turn_usage(b"not json\n{\"a\":1}\n", None), None);
        let old = r#"{"type":"assistant","timestamp":"2026-12-01T10:00:00.000Z","message":{"id":"m","model":"m","usage":{"input_tokens":1}}}"#;
        assert_eq!(
            turn_usage(old.as_bytes(), at("2026-12-01T11:00:00.000Z")),
            None
        );
    }
}
