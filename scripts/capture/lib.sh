# Helpers a capture scenario uses to drive a real Claude Code TUI in tmux against the
# scripted mock model (mock-anthropic.mjs, beside this file), offline on loopback.
# Sourced by capture.sh; a scenario script (scenarios/claude/NAME.sh) calls:
#   start [claude args…]   start Claude Code in a fresh HOME + project (mock already running)
#   send TEXT              type TEXT literally, then Enter
#   keys KEY…              tmux key names: Enter Escape BTab Down Up Tab C-c 2 …
#   waitfor REGEX [SECS]   poll the screen until an extended regex matches (fails the run on timeout)
#   gone REGEX [SECS]      poll until the regex no longer matches
#   shot LABEL             save LABEL.txt (plain), LABEL.ansi (colours), LABEL.recent.txt (joined + scrollback)
#   resize COLS ROWS       resize the pane
#   pause SECS             let the TUI settle (only where no screen change can be awaited)
# Variables: CAP_DIR (this run's folder), CAP_PORT (mock port), CLAUDE_BIN, COLS/ROWS (start size),
# TRUST=0 (do not pre-accept the folder trust dialog), CAP_ENV="VAR=value …" (extra environment).
CC_KEY=sk-ant-api03-mockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmock-AAAAAA
MOCK=${MOCK:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/mock-anthropic.mjs}
_tm() { tmux -L "$CAP_SOCKET" "$@"; }

start_mock() {
  MOCK_LOG_TOOLS=1 node "$MOCK" "$CAP_PORT" "$CAP_DIR/scenario.json" "$CAP_DIR/mock.log" &
  echo $! > "$CAP_DIR/mock.pid"
  local i; for ((i = 0; i < 40; i++)); do grep -q listening "$CAP_DIR/mock.log" 2>/dev/null && return 0; sleep 0.1; done
  echo "mock did not start on port $CAP_PORT" >&2; exit 1
}

start() { # [claude args…]
  mkdir -p "$CAP_DIR/home" "$CAP_DIR/proj" "$CAP_DIR/screens"
  local trusted=true; [ "${TRUST:-1}" = 0 ] && trusted=false
  cat > "$CAP_DIR/home/.claude.json" <<JSON
{"hasCompletedOnboarding":true${CLAUDE_JSON_EXTRA:-},"theme":"dark","customApiKeyResponses":{"approved":["${CC_KEY: -20}"],"rejected":[]},"projects":{"$CAP_DIR/proj":{"hasTrustDialogAccepted":$trusted,"allowedTools":[]}}}
JSON
  local args=""; local a; for a in "$@"; do args+=" $(printf %q "$a")"; done
  _tm new-session -d -s cap -x "${COLS:-120}" -y "${ROWS:-45}" -c "$CAP_DIR/proj" \
    "env IS_SANDBOX=1 HOME=$CAP_DIR/home ANTHROPIC_API_KEY=$CC_KEY ANTHROPIC_BASE_URL=http://127.0.0.1:$CAP_PORT CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 ${CAP_ENV:-} $CLAUDE_BIN$args; echo EXITED \$?; sleep 600"
}

keys() { _tm send-keys -t cap "$@"; }
send() { _tm send-keys -t cap -l "$1"; sleep 0.3; _tm send-keys -t cap Enter; }
screen_now() { _tm capture-pane -p -t cap; }
shot() {
  _tm capture-pane -p -t cap > "$CAP_DIR/screens/$1.txt"
  _tm capture-pane -p -e -t cap > "$CAP_DIR/screens/$1.ansi"
  _tm capture-pane -p -J -S -200 -t cap > "$CAP_DIR/screens/$1.recent.txt"
  echo "  shot $1" >&2
}
waitfor() { # REGEX [SECS=30]
  local i
  for ((i = 0; i < ${2:-30} * 4; i++)); do
    screen_now | grep -Eq -- "$1" && return 0
    sleep 0.25
  done
  # exit, not return: a scenario runs in a subshell inside `if`, where set -e does not apply
  echo "waitfor: timed out waiting for /$1/; screen:" >&2; screen_now | grep -v '^\s*$' | tail -20 >&2; exit 1
}
gone() { # REGEX [SECS=30]
  local i
  for ((i = 0; i < ${2:-30} * 4; i++)); do
    screen_now | grep -Eq -- "$1" || return 0
    sleep 0.25
  done
  echo "gone: /$1/ still on screen" >&2; exit 1
}
resize() { _tm resize-window -t cap -x "$1" -y "$2"; sleep 0.5; }
pause() { sleep "$1"; }

stop_run() {
  _tm kill-server 2>/dev/null || true
  [ -f "$CAP_DIR/mock.pid" ] && kill "$(cat "$CAP_DIR/mock.pid")" 2>/dev/null || true
  rm -f "$CAP_DIR/mock.pid"
}

# ── other agents (capture.sh picks the start function from the scenario's folder) ──

start_codex() { # [codex args…]  e.g. -a on-request -s read-only | --dangerously-bypass-approvals-and-sandbox
  # CODEX_FEATURES: lines for [features]; CODEX_EXTRA_TOML: tables appended to config.toml
  # gpt-5.5 is the newest catalog model that still gets the classic tools (exec_command,
  # apply_patch, update_plan); the notice entry skips the "Meet GPT-6 Sol" upgrade screen.
  mkdir -p "$CAP_DIR/home/.codex" "$CAP_DIR/proj" "$CAP_DIR/screens"
  cat > "$CAP_DIR/home/.codex/config.toml" <<TOML
model = "${CODEX_MODEL:-gpt-5.5}"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = "http://127.0.0.1:$CAP_PORT/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"

[features]
daemon_auto_start = false
${CODEX_FEATURES:-}

[analytics]
enabled = false

[tui]
screen_reader_detection_done = true

[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"

${CODEX_EXTRA_TOML:-}
TOML
  # CODEX_TRUST=none: the project is not listed, so codex asks "Trust this folder?" at startup
  [ "${CODEX_TRUST:-trusted}" = none ] || printf '\n[projects."%s"]\ntrust_level = "%s"\n' "$CAP_DIR/proj" "${CODEX_TRUST:-trusted}" >> "$CAP_DIR/home/.codex/config.toml"
  codex_again "$@"
}

codex_again() { # [codex args…]  (re)start codex in this run's HOME and project, e.g. `codex_again resume`
  # codex warns when bubblewrap is not on PATH; the npm package ships one.
  local bw; bw=$(ls -d "$(dirname "$AGENT_BIN")"/../@openai/codex-*/vendor/*/codex-resources 2>/dev/null | head -1)
  local args=""; local a; for a in "$@"; do args+=" $(printf %q "$a")"; done
  _tm kill-session -t cap 2>/dev/null || true
  _tm new-session -d -s cap -x "${COLS:-120}" -y "${ROWS:-45}" -c "$CAP_DIR/proj" \
    "env HOME=$CAP_DIR/home MOCK_API_KEY=mockkey PATH=${bw:+$bw:}\$PATH ${CAP_ENV:-} $AGENT_BIN --no-daemon$args; echo EXITED \$?; sleep 600"
}

start_pi() { # [pi args…]
  mkdir -p "$CAP_DIR/home/.pi/agent" "$CAP_DIR/proj" "$CAP_DIR/screens"
  cat > "$CAP_DIR/home/.pi/agent/models.json" <<JSON
{"providers":{"mock":{"baseUrl":"http://127.0.0.1:$CAP_PORT","api":"anthropic-messages","apiKey":"mockkey","compat":{"supportsEagerToolInputStreaming":false},"models":[{"id":"claude-mock-1","name":"Mock Claude","reasoning":true,"input":["text"],"contextWindow":200000,"maxTokens":8000}]}}}
JSON
  local args=""; local a; for a in "$@"; do args+=" $(printf %q "$a")"; done
  _tm new-session -d -s cap -x "${COLS:-120}" -y "${ROWS:-45}" -c "$CAP_DIR/proj" \
    "env HOME=$CAP_DIR/home PI_OFFLINE=1 ${CAP_ENV:-} $AGENT_BIN --provider mock --model claude-mock-1$args; echo EXITED \$?; sleep 600"
}

start_opencode() { # [opencode args…]  OPENCODE_PERMISSION='{"bash":"ask"}' sets the permission block
  local h=$CAP_DIR/home
  mkdir -p "$h/.config/opencode" "$CAP_DIR/proj" "$CAP_DIR/screens"
  cat > "$h/.config/opencode/opencode.json" <<JSON
{"\$schema":"https://opencode.ai/config.json","model":"mock/claude-mock-1","small_model":"mock/claude-mock-1","autoupdate":false,"share":"disabled",
 "provider":{"mock":{"npm":"@ai-sdk/anthropic","name":"Mock Anthropic","options":{"baseURL":"http://127.0.0.1:$CAP_PORT/v1","apiKey":"mockkey"},
  "models":{"claude-mock-1":{"name":"Mock Claude","tool_call":true,"reasoning":false,"limit":{"context":200000,"output":8000}}}}},
 "permission":${OPENCODE_PERMISSION:-{\}}}
JSON
  local args=""; local a; for a in "$@"; do args+=" $(printf %q "$a")"; done
  _tm new-session -d -s cap -x "${COLS:-120}" -y "${ROWS:-45}" -c "$CAP_DIR/proj" \
    "env HOME=$h XDG_CONFIG_HOME=$h/.config XDG_DATA_HOME=$h/.local/share XDG_CACHE_HOME=$h/.cache XDG_STATE_HOME=$h/.local/state OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_SHARE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 ${CAP_ENV:-} $AGENT_BIN$args; echo EXITED \$?; sleep 600"
}
