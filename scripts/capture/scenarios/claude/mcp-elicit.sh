# An MCP tool whose server asks the user through an elicitation (a form the server defines):
# the tool's permission dialog, then the elicitation form (a field, then Accept / Decline), cancelled.
cat > "$CAP_DIR/mcp.json" <<JSON
{"mcpServers":{"tracker":{"command":"node","args":["$HERE/mock-mcp.mjs","--elicit"]}}}
JSON
start --permission-mode default --mcp-config "$CAP_DIR/mcp.json"
waitfor 'manual mode on' 40; pause 1
send 'Set the priority of issue 42'
waitfor 'Tool: \(MCP\)' 40; waitfor '1\. Yes' 30; pause 0.5; shot 01-mcp-prompt; keys 1
waitfor 'Which priority' 30; pause 1; shot 02-elicitation
keys Down; pause 0.5; shot 03-elicitation-down
keys Escape
waitfor 'priority is set' 30; waitfor 'for [0-9]+s' 10; shot 04-done
