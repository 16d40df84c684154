#!/usr/bin/env bash
# The whole test suite. Prints bun's report, then the one summary line CI reads
# ("N passed, N failed"), and exits with bun's status.
set -o pipefail
cd "$(dirname "$0")/.."
BUN=node_modules/.bin/bun
log=$(mktemp)
"$BUN" test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -Eo '^ *[0-9]+ pass$' "$log" | tail -1 | tr -dc 0-9)
failed=$(grep -Eo '^ *[0-9]+ fail$' "$log" | tail -1 | tr -dc 0-9)
rm -f "$log"
echo "${passed:-0} passed, ${failed:-0} failed"
# No test ran is a failure, not a pass.
[ "${passed:-0}" -gt 0 ] || status=1
exit "$status"
