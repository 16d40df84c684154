# A narrow pane (64 columns): the permission dialogs and AskUserQuestion forms whose option
# labels wrap onto a second row, and the composer's footer at that width.
printf '# Notes\n- first point\n- second point\n' > "$CAP_DIR/proj/notes.md" 2>/dev/null || { mkdir -p "$CAP_DIR/proj"; printf '# Notes\n- first point\n- second point\n' > "$CAP_DIR/proj/notes.md"; }
cat > "$CAP_DIR/mcp.json" <<JSON
{"mcpServers":{"tracker":{"command":"node","args":["$HERE/mock-mcp.mjs"]}}}
JSON
COLS=64 ROWS=40 start --permission-mode default --mcp-config "$CAP_DIR/mcp.json"
waitfor 'manual mode on' 40; pause 1; shot 00-idle-manual-64
send 'Set up the notes'
waitfor '^ touch created' 30; pause 0.5; shot 01-bash-prompt-64
keys Down; pause 0.5; shot 02-bash-prompt-64-down; keys Up; pause 0.3; keys 1
waitfor '^ git init' 30; pause 0.5; shot 03-bash-compound-prompt-64; keys 1
waitfor 'make this edit' 40; pause 0.5; shot 04-edit-prompt-64
keys Down; pause 0.5; shot 05-edit-prompt-64-down; keys Up; pause 0.3; keys 1
waitfor 'fetch this content' 30; pause 0.5; shot 06-webfetch-prompt-64; keys 1
waitfor 'Tool: \(MCP\)|\(MCP\)' 40; waitfor '1\. Yes' 30; pause 0.5; shot 07-mcp-prompt-64; keys 1
waitfor 'Which database' 30; pause 0.5; shot 08-askuser-single-64
keys Down; pause 0.5; shot 09-askuser-single-64-down; keys Up; pause 0.3; keys Enter
waitfor 'Which checks' 30; pause 0.5; shot 10-askuser-multi-64
keys 1; pause 0.3; keys 3; pause 0.5; shot 11-askuser-multi-64-checked
keys Down; pause 0.3; keys Down; pause 0.3; keys Down; pause 0.3; keys Down; pause 0.5; shot 12-askuser-multi-64-submit-row
keys Enter
waitfor 'Review your answers' 30; pause 0.5; shot 13-askuser-review-64; keys 1
waitfor 'narrow pane' 40; waitfor 'for [0-9]+s' 10; pause 0.5; shot 14-done-64
