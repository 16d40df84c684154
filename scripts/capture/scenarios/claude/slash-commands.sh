# Local slash commands and their output (/model picker and switch, /fast, /mcp, /status),
# and a turn after them.
cat > "$CAP_DIR/mcp.json" <<JSON
{"mcpServers":{"tracker":{"command":"node","args":["$HERE/mock-mcp.mjs"]}}}
JSON
start --mcp-config "$CAP_DIR/mcp.json"
waitfor 'mode on' 40; pause 1
send 'Say something'
waitfor 'first answer' 30; waitfor 'for [0-9]+s' 10; shot 00-done
send '/model'
waitfor 'Select model|model' 20; pause 1; shot 01-model-picker
keys Down; pause 0.5; shot 02-model-picker-down
keys Enter; pause 2; shot 03-after-model-switch
send '/fast'; pause 2; shot 04-fast
keys Escape; pause 1
send '/mcp'; pause 2; shot 05-mcp
keys Escape; pause 1; shot 06-after-mcp
send '/status'; pause 2; shot 07-status
keys Escape; pause 1; shot 08-after-status
send 'Are you still there?'
waitfor 'Still here' 30; waitfor 'for [0-9]+s' 10; shot 09-done-after-commands
