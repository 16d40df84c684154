# The Bash dialog in each permission mode and from a subagent, in a wide pane (200 columns):
# accept edits (npm install), plan (npm view: the auto-mode check cannot run against the mock,
# so a cursor menu "❯ No / Yes" asks), auto (curl | sh: first the notice that auto mode cannot
# check actions here, "Enter to stay in auto mode", then the same No / Yes menu), then manual
# mode with a subagent whose command needs approval.
COLS=200 ROWS=50 start --permission-mode acceptEdits
waitfor 'accept edits on' 40; pause 1
send 'Install left-pad'
waitfor '^ npm install left-pad' 30; pause 0.5; shot 01-bash-accept-edits-200; keys 1
waitfor 'accept-edits mode' 30; waitfor 'for [0-9]+s' 10
keys BTab; waitfor 'plan mode on' 10; pause 0.5
send 'Check the registry'
waitfor '^ npm view' 30; pause 0.5; shot 02-bash-plan-200
keys Down; pause 0.5; shot 03-bash-plan-200-down; keys Enter
waitfor 'in plan mode\.' 30; waitfor 'for [0-9]+s' 10
keys BTab; waitfor 'auto mode on' 10; pause 0.5
send 'Run the installer'
waitfor 'stay in auto mode|^ curl' 60; pause 1; shot 04-auto-unavailable-200
keys Enter
waitfor '^ curl' 30; pause 0.5; shot 05-bash-auto-200
keys Down; pause 0.3; keys Enter
waitfor 'installer step is over' 30; waitfor 'for [0-9]+s' 10
keys BTab; waitfor 'manual mode on' 10; pause 0.5
send 'Have a helper run the tests'
waitfor '^ npm test' 60; pause 1; shot 06-bash-subagent-200; keys 1
waitfor 'reported back' 60; waitfor 'for [0-9]+s' 10; shot 07-done
