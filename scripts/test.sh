#!/usr/bin/env bash
# The whole test suite: the type checks (the bridge, then the web client in web/),
# Biome's lint and format check of the tree (npm run format fixes what it can), the
# import-cycle check of src/ (scripts/import-cycles.ts),
# then bun test. Prints bun's report, each failure's error again (CI shows only
# the end of the log), then the one summary line CI reads
# ("N passed, N failed", the type check, the lint and the cycle check each counted as one), and
# exits non-zero when anything failed or no test ran.
set -o pipefail
cd "$(dirname "$0")/.."
BUN=node_modules/.bin/bun
status=0
if "$BUN" check && "$BUN" check -p web; then typecheck=pass; else typecheck=fail; status=1; fi
if node_modules/.bin/biome check --max-diagnostics=50 .; then lint=pass; else lint=fail; status=1; fi
if "$BUN" scripts/import-cycles.ts; then cycles=pass; else cycles=fail; status=1; fi
log=$(mktemp)
# Every temp file the tests make (bridges' data dirs, fake homes, sockets, built binaries) goes
# under one directory of this run, removed when it ends: a run leaves nothing in /tmp.
suite_tmp=$(mktemp -d "${TMPDIR:-/tmp}/gothalo-suite.XXXXXX")
trap 'rm -rf "$suite_tmp"' EXIT
TMPDIR="$suite_tmp" "$BUN" test --timeout 20000 "$@" 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
passed=$(grep -Eo '^ *[0-9]+ pass$' "$log" | tail -1 | tr -dc 0-9)
failed=$(grep -Eo '^ *[0-9]+ fail$' "$log" | tail -1 | tr -dc 0-9)
awk -f scripts/failures.awk "$log"
rm -f "$log"
passed=${passed:-0}
failed=${failed:-0}
[ "$passed" -gt 0 ] || status=1 # no test ran is a failure, not a pass
if [ "$typecheck" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
if [ "$lint" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
if [ "$cycles" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
echo "$passed passed, $failed failed"
exit "$status"
