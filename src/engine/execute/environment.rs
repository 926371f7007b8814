//! What a node's process inherits from git-fabro's environment: an allowlist, the one every
//! process the engine starts goes through (command nodes, agent and prompt nodes, the nodes of
//! parallel branches and manager children). A workflow may come from someone else and
//! whatever a node prints is committed, so a variable reaches a node only when a build needs
//! it, when the user named it in `[env] pass` (or `fabro.envPass`), or, for agent nodes only,
//! when it is how the agents git-fabro has presets for log in. Everything else (`AWS_SECRET_ACCESS_KEY`,
//! `SSH_AUTH_SOCK`, `GIT_ASKPASS`, `DATABASE_URL`, ...) stays out, and so does every variable
//! that would point a node's `git` at another repository, even when named on purpose.

use std::ffi::{OsStr, OsString};

use super::Engine;
use crate::engine::graph::Node;
use crate::engine::template::SCRIPT_VALUE_PREFIX;
use crate::format::run_id::RunId;
use crate::git::redirects::redirects_repository;

/// Who the environment is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience {
    /// A command node's script.
    Script,
    /// The agent command of an agent or prompt node.
    Agent,
}

/// What every node gets: what a build needs to find its tools, its home, its language and its
/// terminal, and the identity and config files a `git commit` in the worktree uses. A name
/// ending in `*` stands for every name it starts.
const BUILD: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "TZ",
    "TMPDIR",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
];

/// What agent nodes get beyond [`BUILD`]: the keys, tokens and endpoints the agent CLIs
/// git-fabro has presets for log in with (Fabro hands its agents the provider's key too), the
/// settings those CLIs read from their own variables (Claude Code's `ANTHROPIC_*` and
/// `CLAUDE_CODE_*`, Codex's own `CODEX_*` named one by one, since a GitHub token also goes by
/// that prefix, Gemini CLI's `GEMINI_*` and `GOOGLE_GENAI_*`, aider's `AIDER_*` and the
/// `LITELLM_*` and provider keys of the library it calls models through, GitHub Copilot CLI's
/// `COPILOT_*`, its GitHub token and its own model provider's alike, Qwen Code's own named one
/// by one, since `QWEN_*` also holds tokens of its servers and channels, and OpenCode's
/// `OPENCODE_*`), and the proxy and certificate variables a machine behind a gateway reaches
/// them with. Read from the CLIs themselves (Claude Code 2.1, Codex 0.169, Gemini CLI 0.61,
/// aider 0.86, Copilot CLI 1.0.102, Qwen Code 0.24.4, OpenCode 1.18.33); a provider missing
/// here is named in `[env] pass`. `GITHUB_TOKEN` and `GH_TOKEN`, which Copilot also reads,
/// stay out: they open the user's repositories, not a model.
const AGENT_LOGIN: &[&str] = &[
    "ANTHROPIC_*",
    "CLAUDE_CODE_*",
    "CLAUDE_CONFIG_DIR",
    "DISABLE_AUTOUPDATER",
    "DISABLE_TELEMETRY",
    "DISABLE_ERROR_REPORTING",
    "API_TIMEOUT_MS",
    "CLOUD_ML_REGION",
    "VERTEX_REGION_*",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_API_BASE",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "CODEX_API_KEY",
    "CODEX_ACCESS_TOKEN",
    "CODEX_HOME",
    "CODEX_SQLITE_HOME",
    "CODEX_CA_CERTIFICATE",
    "AZURE_OPENAI_API_KEY",
    "GEMINI_*",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_VERTEX_BASE_URL",
    "GOOGLE_API_KEY",
    "GOOGLE_GENAI_*",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_CLOUD_QUOTA_PROJECT",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AIDER_*",
    "LITELLM_*",
    "OPENROUTER_API_KEY",
    "DEEPSEEK_API_KEY",
    "GROQ_API_KEY",
    "MISTRAL_API_KEY",
    "XAI_API_KEY",
    "COHERE_API_KEY",
    "OLLAMA_API_BASE",
    "AZURE_API_KEY",
    "AZURE_API_BASE",
    "AZURE_API_VERSION",
    "VERTEXAI_PROJECT",
    "VERTEXAI_LOCATION",
    "KIMI_API_KEY",
    "ZAI_API_KEY",
    "MINIMAX_API_KEY",
    "INCEPTION_API_KEY",
    "COPILOT_*",
    "QWEN_HOME",
    "QWEN_RUNTIME_DIR",
    "QWEN_MODEL",
    "QWEN_API_KEY",
    "OPENAI_MODEL",
    "DASHSCOPE_API_KEY",
    "BAILIAN_CODING_PLAN_API_KEY",
    "BAILIAN_TOKEN_PLAN_API_KEY",
    "GOOGLE_MODEL",
    "OPENCODE_*",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
];

/// AWS credentials reach an agent only when Claude Code is told to use Bedrock
/// (`CLAUDE_CODE_USE_BEDROCK` set and not empty): no other agent logs in with them, and they
/// open far more than a model.
const BEDROCK_SWITCH: &str = "CLAUDE_CODE_USE_BEDROCK";
const BEDROCK_LOGIN: &[&str] = &[
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "AWS_BEARER_TOKEN_BEDROCK",
];

/// The variables of `inherited` that `audience` may see, in their order. `pass` is what the
/// user allowed on purpose, with the same `*` suffix as [`BUILD`].
pub fn allowed(
    inherited: &[(OsString, OsString)],
    pass: &[String],
    audience: Audience,
) -> Vec<(OsString, OsString)> {
    let bedrock = inherited
        .iter()
        .any(|(name, value)| name == BEDROCK_SWITCH && !value.is_empty());
    let mut lists = vec![BUILD];
    if audience == Audience::Agent {
        lists.push(AGENT_LOGIN);
        if bedrock {
            lists.push(BEDROCK_LOGIN);
        }
    }
    inherited
        .iter()
        .filter(|(name, _)| !redirects_repository(name))
        .filter(|(name, _)| {
            lists
                .iter()
                .any(|list| matches_any(name, list.iter().copied()))
                || matches_any(name, pass.iter().map(String::as_str))
        })
        .cloned()
        .collect()
}

impl Engine<'_> {
    /// What [`allowed`] lets `audience` see, plus git-fabro's `FABRO_*` variables.
    pub(super) fn node_env(
        &self,
        id: &RunId,
        node: &Node,
        visit: u64,
        audience: Audience,
    ) -> Vec<(OsString, OsString)> {
        let ours = [
            ("FABRO_RUN_ID", OsString::from(id.as_str())),
            ("FABRO_NODE_ID", OsString::from(&node.id)),
            ("FABRO_VISIT", OsString::from(visit.to_string())),
            ("FABRO_RUN_DIR", self.run_dir.path.clone().into_os_string()),
            ("FABRO_HOME", self.config.home.clone().into_os_string()),
            (
                "FABRO_IDEMPOTENCY_KEY",
                OsString::from(format!("{id}:{}@{visit}", node.id)),
            ),
        ];
        let mut env: Vec<(OsString, OsString)> =
            allowed(&self.env, &self.config.env_pass, audience)
                .into_iter()
                .filter(|(k, _)| !ours.iter().any(|(name, _)| k == name))
                .collect();
        env.extend(ours.into_iter().map(|(k, v)| (OsString::from(k), v)));
        let values = node.template_values.iter().enumerate();
        env.extend(values.map(|(i, value)| {
            let name = format!("{}{}", SCRIPT_VALUE_PREFIX, i + 1);
            (OsString::from(name), OsString::from(value))
        }));
        env
    }
}

/// Whether `name` is one of `patterns`: equal, or starting with what precedes a final `*`.
fn matches_any<'a>(name: &OsStr, mut patterns: impl Iterator<Item = &'a str>) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    patterns.any(|pattern| match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == pattern,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(names: &[&str]) -> Vec<(OsString, OsString)> {
        names
            .iter()
            .map(|n| (OsString::from(n), OsString::from("v")))
            .collect()
    }

    fn names(env: &[(OsString, OsString)]) -> Vec<String> {
        env.iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn scripts_get_the_allowlist_and_what_is_passed() {
        let inherited = vars(&[
            "PATH",
            "LC_ALL",
            "AWS_SECRET_ACCESS_KEY",
            "SSH_AUTH_SOCK",
            "ANTHROPIC_API_KEY",
            "GIT_DIR",
            "NPM_TOKEN",
            "MY_A",
        ]);
        let pass = [
            "NPM_TOKEN".to_owned(),
            "MY_*".to_owned(),
            "GIT_DIR".to_owned(),
        ];
        let env = allowed(&inherited, &pass, Audience::Script);
        assert_eq!(names(&env), ["PATH", "LC_ALL", "NPM_TOKEN", "MY_A"]);
    }

    #[test]
    fn agents_also_get_their_logins_and_aws_only_for_bedrock() {
        let mut inherited = vars(&["ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "GH_TOKEN"]);
        let env = allowed(&inherited, &[], Audience::Agent);
        assert_eq!(names(&env), ["ANTHROPIC_API_KEY"]);
        let others = vars(&[
            "COPILOT_PROVIDER_API_KEY",
            "GITHUB_TOKEN",
            "DASHSCOPE_API_KEY",
            "QWEN_SERVER_TOKEN",
            "OPENCODE_CONFIG",
        ]);
        let env = allowed(&others, &[], Audience::Agent);
        assert_eq!(
            names(&env),
            [
                "COPILOT_PROVIDER_API_KEY",
                "DASHSCOPE_API_KEY",
                "OPENCODE_CONFIG"
            ]
        );
        inherited.push((BEDROCK_SWITCH.into(), "1".into()));
        let env = allowed(&inherited, &[], Audience::Agent);
        assert_eq!(
            names(&env),
            ["ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", BEDROCK_SWITCH]
        );
    }
}
