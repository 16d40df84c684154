# Background work: a background shell and a background agent (agents panel, "1 shell"
# footer), then /compact.
start --dangerously-skip-permissions
waitfor 'Yes, I accept' 40; keys Down; pause 0.3; keys Enter
waitfor 'bypass permissions on' 30; pause 1
send 'Start the checks'
waitfor 'in the background' 30; pause 2; shot 01-background-running
keys Down; pause 1; shot 02-agents-panel
keys Escape; pause 1
send 'How is it going?'
waitfor 'Waiting for the background' 30; pause 1; shot 03-idle-with-background
send '/compact'
waitfor 'Compacting|compact' 20; pause 0.5; shot 04-compacting
waitfor 'Compacted|compacted' 60; pause 1; shot 05-compacted
pause 25; shot 06-after-background
