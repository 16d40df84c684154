# Hook output lines: a PostToolUse hook that prints, a Stop hook that prints, a
# UserPromptSubmit hook; bypass mode so no dialog comes between.
mkdir -p "$CAP_DIR/home/.claude"
cat > "$CAP_DIR/home/.claude/settings.json" <<'JSON'
{"hooks":{
 "UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo 'prompt hook: noted'"}]}],
 "PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo 'post hook: command logged' >&2; exit 2"}]}],
 "Stop":[{"hooks":[{"type":"command","command":"echo '{\"systemMessage\":\"stop hook: session saved\"}'"}]}]
}}
JSON
start --dangerously-skip-permissions
waitfor 'Yes, I accept' 40; keys Down; pause 0.3; keys Enter
waitfor 'bypass permissions on' 30; pause 1
send 'Lint the project'
waitfor 'linter is clean' 40; waitfor 'for [0-9]+s' 10; pause 1; shot 01-done-with-hooks
