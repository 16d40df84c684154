# An MCP server (mock-mcp.mjs more) under -a on-request -s workspace-write. Its tools are
# deferred behind codex's client-side tool_search (the mock's {"toolSearch": …} block), then
# called by namespace: each call asks "Allow the tracker MCP server to run tool …?" (four
# options with descriptions, "Field 1/1"); ask_priority's call asks the user for a value
# through an MCP elicitation ("Field 1/1 (1 required unanswered)"); create_issue's approval
# is cancelled (option 4), delete_issue's allowed at 72 columns.
CODEX_EXTRA_TOML="
[mcp_servers.tracker]
command = \"node\"
args = [\"$HERE/mock-mcp.mjs\", \"more\"]" start_codex -a on-request -s workspace-write
waitfor 'Ask Codex to do anything' 40; pause 1
send 'file the flaky test'
waitfor 'run tool "ask_priority"' 40; pause 0.5; shot 01-mcp-approval
keys Down; pause 0.7; shot 02-mcp-approval-down; keys Up; pause 0.5; keys Enter
waitfor 'required unanswered' 30; pause 0.5; shot 03-elicitation
keys Down; pause 0.7; shot 04-elicitation-down; keys Enter
waitfor 'run tool "create_issue"' 30; pause 0.5; shot 05-mcp-approval-create; keys 4
waitfor 'run tool "delete_issue"' 30; pause 0.5
resize 72 45; pause 1.5; shot 06-mcp-approval-narrow; resize 120 45; pause 1; keys 1
waitfor 'Worked for' 30; pause 1; shot 07-done
