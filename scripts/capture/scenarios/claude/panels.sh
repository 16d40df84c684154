# Panels and pickers the slash commands open over the composer (herdr: not blocked; the card
# reads the conversation above them): /resume, /permissions, /context, /usage, /hooks,
# /agents, /memory, /config, /help, /effort, /rewind (the message picker), /clear's result.
cat > "$CAP_DIR/mcp.json" <<JSON
{"mcpServers":{"tracker":{"command":"node","args":["$HERE/mock-mcp.mjs"]}}}
JSON
start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'Say something'
waitfor 'first answer' 30; waitfor 'for [0-9]+s' 10; pause 0.5
n=0
for cmd in resume permissions context usage hooks agents memory config help effort rewind; do
  n=$((n + 1))
  send "/$cmd"; pause 2.5; shot "$(printf '%02d' "$n")-$cmd"
  keys Escape; pause 1; keys Escape; pause 1
done
pause 1; shot 12-after-panels
send 'And again'
waitfor 'after the panels' 30; waitfor 'for [0-9]+s' 10; shot 13-done
