# --dangerously-skip-permissions: the warning dialog, then a turn that works for a while
# (spinner while the model is slow, a Bash command running), then done.
start --dangerously-skip-permissions
waitfor 'Yes, I accept' 40; pause 0.5; shot 00-bypass-warning
keys Down; pause 0.5; shot 01-bypass-warning-down; keys Enter
waitfor 'bypass permissions on' 30; pause 1; shot 02-idle-bypass
send 'Build the project'
waitfor 'esc to interrupt|…' 20; pause 1.5; shot 03-working-thinking
waitfor 'sleep 6' 20; pause 1.5; shot 04-working-bash
waitfor 'compiled cleanly' 30; waitfor 'for [0-9]+s' 10; shot 05-done
