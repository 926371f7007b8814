# Sourced after common.sh: the environment each agent CLI needs to talk to fake_llm.py offline.
case "$1" in
  claude)
    export ANTHROPIC_BASE_URL="http://127.0.0.1:$FAKE_PORT" ANTHROPIC_API_KEY=sk-ant-fake
    # CLAUDE_AUTH=token: log in as gateway users do, with ANTHROPIC_AUTH_TOKEN instead.
    if [ "${CLAUDE_AUTH:-}" = token ]; then unset ANTHROPIC_API_KEY; export ANTHROPIC_AUTH_TOKEN=fake-token; fi
    export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1
    ;;
  codex)
    export OPENAI_API_KEY=sk-fake
    mkdir -p "$HOME/.codex"
    cat >"$HOME/.codex/config.toml" <<EOF
model = "gpt-5.5"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:$FAKE_PORT/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
EOF
    ;;
  gemini)
    export GEMINI_API_KEY=fake-key GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$FAKE_PORT"
    export GEMINI_CLI_NO_RELAUNCH=true
    mkdir -p "$HOME/.gemini"
    # Folder trust stays on, as by default: every run's worktree is a folder never trusted.
    trust='"folderTrust": {}'
    cat >"$HOME/.gemini/settings.json" <<EOF
{
  "security": { "auth": { "selectedType": "gemini-api-key" }, $trust },
  "general": { "disableAutoUpdate": true, "disableUpdateNag": true },
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false }
}
EOF
    unset trust
    ;;
  copilot)
    # GitHub Copilot CLI with its own model provider (BYOK, Chat Completions), offline: no
    # GitHub login. A Claude model id gets Copilot's view/create/edit tools, which
    # fake_llm.py scripts (a GPT one gets its freeform apply_patch).
    export COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$FAKE_PORT/v1"
    export COPILOT_PROVIDER_API_KEY=sk-fake COPILOT_MODEL="${COPILOT_MODEL:-claude-sonnet-4.5}"
    export COPILOT_AUTO_UPDATE=false
    ;;
  qwen)
    # Qwen Code with an OpenAI-compatible provider chosen in the user's settings.
    export OPENAI_API_KEY=sk-fake OPENAI_BASE_URL="http://127.0.0.1:$FAKE_PORT/v1"
    mkdir -p "$HOME/.qwen"
    cat >"$HOME/.qwen/settings.json" <<EOF
{
  "security": { "auth": { "selectedType": "openai" } },
  "model": { "name": "qwen3-coder-plus" },
  "general": { "disableAutoUpdate": true },
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false }
}
EOF
    ;;
  opencode)
    # OpenCode with an OpenAI-compatible provider of its own in the user's config; no fetch of
    # the models list, no update, no language-server download.
    mkdir -p "$HOME/.config/opencode"
    cat >"$HOME/.config/opencode/opencode.json" <<EOF
{
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "fake",
      "options": { "baseURL": "http://127.0.0.1:$FAKE_PORT/v1", "apiKey": "sk-fake" },
      "models": { "fake-model": { "name": "fake model", "tool_call": true } }
    }
  },
  "model": "fake/fake-model",
  "small_model": "fake/fake-model",
  "autoupdate": false,
  "share": "disabled"
}
EOF
    export OPENCODE_DISABLE_MODELS_FETCH=true OPENCODE_DISABLE_AUTOUPDATE=true
    export OPENCODE_DISABLE_LSP_DOWNLOAD=true
    ;;
  aider)
    export OPENAI_API_KEY=sk-fake OPENAI_API_BASE="http://127.0.0.1:$FAKE_PORT/v1"
    export AIDER_MODEL=openai/gpt-4o AIDER_CHECK_UPDATE=false AIDER_ANALYTICS=false
    export AIDER_SHOW_RELEASE_NOTES=false LITELLM_LOCAL_MODEL_COST_MAP=True
    ;;
esac
