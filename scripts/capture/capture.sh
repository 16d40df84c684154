#!/usr/bin/env bash
# Record Claude Code (and codex, opencode, pi: AGENT/NAME) scenarios into fixtures/screens/: one command per release.
#
#   CLAUDE_BIN=/path/to/claude scripts/capture/capture.sh [NAME…]     (default: every scenario)
#
# Each scenario is scenarios/claude/NAME.json (the mock model's script: one step per main
# request) and scenarios/claude/NAME.sh (keys to press, screens to wait for, shots to take).
# The run happens in a fresh HOME and project under $CAP_ROOT, with the mock on a random
# loopback port; then the screens, the session files (~/.claude/projects/…) and the mock's
# log are copied to fixtures/screens/cc<patch>-NAME/ (cc332-… for 2.1.332; FIXTURE_PREFIX
# overrides). expected.json there is ground truth written by a person reading each screen:
# it is never overwritten; labels it lacks are added with agent_status "TODO", which
# fails the corpus test until someone fills them in.
#
# Needs: tmux, node, and a Claude Code install (npm i @anthropic-ai/claude-code; CLAUDE_BIN
# defaults to the `claude` on PATH). No network: the mock answers on 127.0.0.1.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
command -v tmux >/dev/null || { echo "tmux is needed (apt-get install tmux)" >&2; exit 2; }
CAP_ROOT_GIVEN=${CAP_ROOT:-}
CAP_ROOT=${CAP_ROOT:-${TMPDIR:-/tmp}/gothalo-capture}
OUT_ROOT=${OUT_ROOT:-$REPO/fixtures/screens}

# A name is NAME (Claude Code, scenarios/claude/NAME) or AGENT/NAME with AGENT one of codex,
# opencode, pi (scenarios/AGENT/NAME; the binary from CODEX_BIN, OPENCODE_BIN, PI_BIN or PATH).
names=("$@")
failed=()
if [ ${#names[@]} -eq 0 ]; then
  for f in "$HERE"/scenarios/claude/*.sh; do names+=("$(basename "$f" .sh)"); done
fi

# agent_setup AGENT: sets AGENT_BIN, VERSION, PREFIX and MOCK for that agent
agent_setup() {
  local var
  case $1 in
    claude) var=CLAUDE_BIN ;; codex) var=CODEX_BIN ;; opencode) var=OPENCODE_BIN ;; pi) var=PI_BIN ;;
    *) echo "unknown agent $1 (claude, codex, opencode, pi)" >&2; exit 2 ;;
  esac
  AGENT_BIN=${!var:-$(command -v "$1" || true)}
  [ -x "$AGENT_BIN" ] || { echo "set $var to the $1 executable" >&2; exit 2; }
  VERSION=$("$AGENT_BIN" --version 2>&1 | grep -Eo '[0-9]+\.[0-9]+\.[0-9]+' | head -1)
  case $1 in
    claude) PREFIX=${FIXTURE_PREFIX:-cc${VERSION##*.}}; MOCK=$HERE/mock-anthropic.mjs ;;
    codex)
      PREFIX=${FIXTURE_PREFIX:-codex}; MOCK=$HERE/mock-openai.mjs
      # codex refuses to create its sandbox helper (codex-linux-sandbox) under the temp dir:
      # with HOME there, a sandboxed command fails ("bwrap: execvp codex-linux-sandbox")
      [ -n "$CAP_ROOT_GIVEN" ] || CAP_ROOT=${XDG_CACHE_HOME:-$HOME/.cache}/gothalo-capture ;;
    opencode) PREFIX=${FIXTURE_PREFIX:-opencode}; MOCK=$HERE/mock-anthropic.mjs ;;
    pi) PREFIX=${FIXTURE_PREFIX:-pi}; MOCK=$HERE/mock-anthropic.mjs ;;
  esac
  CLAUDE_BIN=$AGENT_BIN
  export MOCK
}

for arg in "${names[@]}"; do
  case $arg in */*) agent=${arg%%/*}; name=${arg#*/} ;; *) agent=claude; name=$arg ;; esac
  agent_setup "$agent"
  scen=$HERE/scenarios/$agent/$name
  [ -f "$scen.sh" ] && [ -f "$scen.json" ] || { echo "no scenario $name ($scen.sh + .json)" >&2; exit 2; }
  run=$PREFIX-$name
  # the shared corpus's one opencode scenario is fixtures/screens/opencode: opencode/opencode
  [ "$name" = "$agent" ] && run=$PREFIX
  CAP_DIR=$CAP_ROOT/$run
  CAP_SOCKET=gothalo-cap-$run-$$
  CAP_PORT=${CAP_PORT:-$((20000 + RANDOM % 10000))}
  rm -rf "$CAP_DIR"; mkdir -p "$CAP_DIR"
  # {{PROJ}} in a scenario is the run's project dir (file tools want absolute paths)
  sed "s|{{PROJ}}|$CAP_DIR/proj|g" "$scen.json" > "$CAP_DIR/scenario.json"
  echo "== $run ($agent $VERSION, mock on :$CAP_PORT, run in $CAP_DIR)" >&2
  if ! (
    # shellcheck source=lib.sh
    source "$HERE/lib.sh"
    trap stop_run EXIT
    start_mock
    # shellcheck disable=SC1090
    source "$scen.sh"
  ); then
    echo "== $run FAILED: nothing copied (the run is left in $CAP_DIR)" >&2
    failed+=("$arg"); unset CAP_PORT; continue
  fi
  out=$OUT_ROOT/$run
  mkdir -p "$out"
  rm -f "$out"/*.txt "$out"/*.ansi; rm -rf "$out/session"
  cp "$CAP_DIR"/screens/* "$out/"
  cp "$CAP_DIR/scenario.json" "$CAP_DIR/mock.log" "$out/"
  # the session files, as below ~/.claude/projects or ~/.pi/agent/sessions; codex rollouts go
  # to fixtures/codex/RUN/sessions/ (the codex transcript tests' corpus) when recording into
  # the fixtures, else beside the screens
  for sess in .claude/projects .pi/agent/sessions; do
    if [ -d "$CAP_DIR/home/$sess" ]; then
      mkdir -p "$out/session" && cp -r "$CAP_DIR/home/$sess/." "$out/session/"
    fi
  done
  if [ -d "$CAP_DIR/home/.codex/sessions" ]; then
    rollouts=$out/session
    [ "$OUT_ROOT" = "$REPO/fixtures/screens" ] && rollouts=$REPO/fixtures/codex/$run/sessions && rm -rf "$rollouts"
    mkdir -p "$rollouts" && cp -r "$CAP_DIR/home/.codex/sessions/." "$rollouts/"
  fi
  node "$HERE/expected-skeleton.mjs" "$out" "$agent" "$VERSION"
  unset CAP_PORT
  echo "== $run: $(ls "$CAP_DIR"/screens/*.txt | grep -vc recent) screens → ${out#"$REPO"/}" >&2
done
if [ ${#failed[@]} -gt 0 ]; then echo "failed: ${failed[*]}" >&2; exit 1; fi
