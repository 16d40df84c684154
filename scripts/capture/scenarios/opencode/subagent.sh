# A subagent (the task tool) whose bash command asks permission: Reject there opens a reason
# field ("Tell OpenCode what to do differently"), which a top-level Reject does not.
mkdir -p "$CAP_DIR/proj"; echo hello > "$CAP_DIR/proj/hello.txt"
OPENCODE_PERMISSION='{"bash":"ask"}' start_opencode
waitfor 'Ask anything|ctrl\+p' 60; pause 2; shot 00-startup
send 'List the project through a subagent'
waitfor 'Permission required' 60; pause 1; shot 01-subagent-bash
keys Right Right; pause 0.7; shot 02-reject-selected; keys Enter
pause 1.5; shot 03-reject-reason
send 'use plain ls'
waitfor "could not list the files" 40; waitfor "Mock Claude · [0-9.]+m?s" 20; pause 1; shot 04-done
