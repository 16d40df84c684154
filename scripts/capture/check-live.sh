#!/usr/bin/env bash
# Run the scenarios again on the installed agents and check that the cards of the fresh
# screens agree with the committed fixtures' expected.json (compare.ts). Times, ids and
# spinner verbs differ from run to run; the cards must not.
#   CLAUDE_BIN=… scripts/capture/check-live.sh [NAME…]              Claude Code scenarios
#   CODEX_BIN=… scripts/capture/check-live.sh codex/NAME…            (also opencode/NAME with
#   OPENCODE_BIN, pi/NAME with PI_BIN)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUN=$(mktemp -d "${TMPDIR:-/tmp}/gothalo-live-XXXXXX")
OUT_ROOT=$RUN "$HERE/capture.sh" "$@" || echo "(some scenarios failed to record; comparing what was recorded)" >&2
BUN=${BUN:-$(command -v bun || echo "$HERE/../../node_modules/.bin/bun")}
"$BUN" "$HERE/compare.ts" "$RUN" "$@"
