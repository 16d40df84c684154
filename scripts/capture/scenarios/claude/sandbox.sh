# The sandbox (settings sandbox.enabled; needs bubblewrap and socat): a Bash command that
# reaches for the network first gets the Bash dialog, then, inside the sandbox, the
# network proxy asks about the host ("Network request outside of sandbox"), answered No.
mkdir -p "$CAP_DIR/home/.claude"
cat > "$CAP_DIR/home/.claude/settings.json" <<'JSON'
{"sandbox":{"enabled":true}}
JSON
start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'Fetch the metadata'
waitfor '^ curl' 60; pause 1; shot 01-bash-prompt-sandboxed; keys 1
waitfor 'allow this connection' 30; pause 0.5; shot 02-sandbox-network
keys Down; pause 0.5; shot 03-sandbox-network-down; keys 3
waitfor 'sandboxed fetch is over' 60; waitfor 'for [0-9]+s' 10; pause 0.5; shot 04-done
