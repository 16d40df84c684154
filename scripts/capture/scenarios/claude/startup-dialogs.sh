# Dialogs before the first prompt: a project .mcp.json server (use it?), a custom API key
# the CLI has not seen (use it?), then in a second launch the folder trust dialog at 64
# columns, and in a third the bypass-permissions warning at 64 columns.
mkdir -p "$CAP_DIR/proj"
cat > "$CAP_DIR/proj/.mcp.json" <<JSON
{"mcpServers":{"tracker":{"command":"node","args":["$HERE/mock-mcp.mjs"]}}}
JSON
# a key other than the one start() pre-approves in ~/.claude.json
CAP_ENV="ANTHROPIC_API_KEY=sk-ant-api03-otherkeyotherkeyotherkeyotherkeyotherkeyotherkeyotherkeyotherkeyotherkey-BBBBBB" start
waitfor 'New MCP server' 40; pause 0.5; shot 00-mcp-json-server
keys Up; pause 0.5; shot 01-mcp-json-server-up
keys Up; pause 0.3; keys Enter
waitfor 'Do you want to use this API key' 30; pause 0.5; shot 02-api-key
keys Up; pause 0.5; shot 03-api-key-up
keys Enter
waitfor 'mode on' 30; pause 1; shot 04-idle-after-dialogs
send 'Say hello'
waitfor 'MCP server\.' 30; waitfor 'for [0-9]+s' 10; shot 05-done
_tm kill-server; pause 1
rm -f "$CAP_DIR/proj/.mcp.json"
TRUST=0 COLS=64 ROWS=40 start
waitfor 'trust this folder' 40; pause 0.5; shot 06-folder-trust-64
keys Down; pause 0.5; shot 07-folder-trust-64-down
_tm kill-server; pause 1
COLS=64 ROWS=40 start --dangerously-skip-permissions
waitfor 'Yes, I accept' 40; pause 0.5; shot 08-bypass-warning-64
