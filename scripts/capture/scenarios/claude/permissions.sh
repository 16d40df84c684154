# Manual mode: every permission dialog, answered "Yes" (1) in turn.
echo "seed" > "$CAP_DIR/outside.txt"
cat > "$CAP_DIR/mcp.json" <<JSON
{"mcpServers":{"tracker":{"command":"node","args":["$HERE/mock-mcp.mjs"]}}}
JSON
start --permission-mode default --mcp-config "$CAP_DIR/mcp.json"
waitfor 'manual mode on' 40
shot 00-idle-manual
send 'Set up the notes, then file an issue'
waitfor 'Do you want to proceed\?' 30; pause 0.5; shot 01-bash-prompt; keys 1
waitfor 'heredoc|notes\.md' 30; waitfor 'Do you want to proceed\?' 30; pause 0.5; shot 02-bash-heredoc-prompt; keys 1
waitfor 'git init' 30; waitfor 'Do you want to proceed\?' 30; pause 0.5; shot 03-bash-compound-prompt; keys 1
waitfor 'outside\.txt' 30; waitfor 'Do you want to proceed\?' 30; pause 0.5; shot 04-bash-outside-prompt; keys 1
waitfor 'make this edit' 40; pause 0.5; shot 05-edit-prompt; keys 1
waitfor 'create plan\.txt' 30; pause 0.5; shot 06-write-prompt; keys 1
waitfor 'fetch' 30; waitfor '1\. Yes' 30; pause 0.5; shot 07-webfetch-prompt; keys 1
waitfor 'Tool: \(MCP\)' 40; waitfor '1\. Yes' 30; pause 0.5; shot 08-mcp-prompt; keys 1
waitfor 'All done' 40; waitfor 'for [0-9]+s' 10; shot 09-done
