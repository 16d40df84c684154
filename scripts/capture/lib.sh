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
