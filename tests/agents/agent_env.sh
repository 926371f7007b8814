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
  aider)
    export OPENAI_API_KEY=sk-fake OPENAI_API_BASE="http://127.0.0.1:$FAKE_PORT/v1"
    export AIDER_MODEL=openai/gpt-4o AIDER_CHECK_UPDATE=false AIDER_ANALYTICS=false
    export AIDER_SHOW_RELEASE_NOTES=false LITELLM_LOCAL_MODEL_COST_MAP=True
    ;;
esac
