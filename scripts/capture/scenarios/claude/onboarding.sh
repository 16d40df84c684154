# The first-run flow of a fresh install (no hasCompletedOnboarding in ~/.claude.json): each
# screen it shows before the first prompt (theme picker, security notes), answered with Enter. start() marks onboarding
# done, so this scenario writes the config itself and launches the same way.
mkdir -p "$CAP_DIR/home" "$CAP_DIR/proj" "$CAP_DIR/screens"
cat > "$CAP_DIR/home/.claude.json" <<JSON
{"customApiKeyResponses":{"approved":["${CC_KEY: -20}"],"rejected":[]},"projects":{"$CAP_DIR/proj":{"hasTrustDialogAccepted":true,"allowedTools":[]}}}
JSON
_tm new-session -d -s cap -x 120 -y 45 -c "$CAP_DIR/proj" \
  "env IS_SANDBOX=1 HOME=$CAP_DIR/home ANTHROPIC_API_KEY=$CC_KEY ANTHROPIC_BASE_URL=http://127.0.0.1:$CAP_PORT CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 $CLAUDE_BIN; echo EXITED \$?; sleep 600"
waitfor 'text style' 40; pause 1; shot 00-theme-picker
keys Enter
waitfor 'Press Enter to continue' 30; pause 0.5; shot 01-security-notes
keys Enter
waitfor 'mode on' 30; pause 1; shot 02-idle-after-onboarding
