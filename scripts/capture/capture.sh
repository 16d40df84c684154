#!/usr/bin/env bash
# Record Claude Code scenarios into fixtures/screens/: one command per release.
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
CLAUDE_BIN=${CLAUDE_BIN:-$(command -v claude || true)}
[ -x "$CLAUDE_BIN" ] || { echo "set CLAUDE_BIN to a Claude Code executable (npm i @anthropic-ai/claude-code)" >&2; exit 2; }
command -v tmux >/dev/null || { echo "tmux is needed (apt-get install tmux)" >&2; exit 2; }
VERSION=$("$CLAUDE_BIN" --version | awk '{print $1}')
PREFIX=${FIXTURE_PREFIX:-cc${VERSION##*.}}
CAP_ROOT=${CAP_ROOT:-${TMPDIR:-/tmp}/gothalo-capture}
OUT_ROOT=${OUT_ROOT:-$REPO/fixtures/screens}

names=("$@")
failed=()
if [ ${#names[@]} -eq 0 ]; then
  for f in "$HERE"/scenarios/claude/*.sh; do names+=("$(basename "$f" .sh)"); done
fi

for name in "${names[@]}"; do
  scen=$HERE/scenarios/claude/$name
  [ -f "$scen.sh" ] && [ -f "$scen.json" ] || { echo "no scenario $name ($scen.sh + .json)" >&2; exit 2; }
  run=$PREFIX-$name
  CAP_DIR=$CAP_ROOT/$run
  CAP_SOCKET=gothalo-cap-$run-$$
  CAP_PORT=${CAP_PORT:-$((20000 + RANDOM % 10000))}
  rm -rf "$CAP_DIR"; mkdir -p "$CAP_DIR"
  # {{PROJ}} in a scenario is the run's project dir (file tools want absolute paths)
  sed "s|{{PROJ}}|$CAP_DIR/proj|g" "$scen.json" > "$CAP_DIR/scenario.json"
  echo "== $run (Claude Code $VERSION, mock on :$CAP_PORT, run in $CAP_DIR)" >&2
  if ! (
    # shellcheck source=lib.sh
    source "$HERE/lib.sh"
    trap stop_run EXIT
    start_mock
    # shellcheck disable=SC1090
    source "$scen.sh"
  ); then
    echo "== $run FAILED: nothing copied (the run is left in $CAP_DIR)" >&2
    failed+=("$name"); unset CAP_PORT; continue
  fi
  out=$OUT_ROOT/$run
  mkdir -p "$out"
  rm -f "$out"/*.txt "$out"/*.ansi; rm -rf "$out/session"
  cp "$CAP_DIR"/screens/* "$out/"
  cp "$CAP_DIR/scenario.json" "$CAP_DIR/mock.log" "$out/"
  if [ -d "$CAP_DIR/home/.claude/projects" ]; then
    mkdir -p "$out/session" && cp -r "$CAP_DIR/home/.claude/projects/." "$out/session/"
  fi
  node "$HERE/expected-skeleton.mjs" "$out" claude "$VERSION"
  unset CAP_PORT
  echo "== $run: $(ls "$CAP_DIR"/screens/*.txt | grep -vc recent) screens → ${out#"$REPO"/}" >&2
done
if [ ${#failed[@]} -gt 0 ]; then echo "failed: ${failed[*]}" >&2; exit 1; fi
