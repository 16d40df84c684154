# Dialogs that settings and special paths bring: a PreToolUse hook that answers "ask" (the
# Bash dialog with the hook's reason), a Write into the project's .claude/ settings, /add-dir,
# and a billing error (credit balance too low).
mkdir -p "$CAP_DIR/home/.claude" "$CAP_DIR/elsewhere"
cat > "$CAP_DIR/home/.claude/settings.json" <<'JSON'
{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"the hook wants a person to look\"}}'"}]}]}}
JSON
start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'Print and configure'
waitfor '^ echo hooked' 30; pause 0.5; shot 01-hook-ask-prompt; keys 1
waitfor 'settings\.local\.json' 30; waitfor '1\. Yes' 30; pause 0.5; shot 02-write-claude-settings-prompt; keys 1
waitfor 'Both done' 30; waitfor 'for [0-9]+s' 10; pause 0.5
send "/add-dir $CAP_DIR/elsewhere"; pause 2.5; shot 03-add-dir
keys Enter; pause 2; shot 04-after-add-dir
send 'One more question'
waitfor 'redit balance' 60; pause 1.5; shot 05-credit-balance
