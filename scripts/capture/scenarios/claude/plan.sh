# Plan mode: the footer, the plan review dialog (cursor moved), approval, the Write prompt
# that follows in manual-approve mode.
start --permission-mode plan
waitfor 'plan mode on' 40
shot 00-idle-plan
send 'Plan a greeting script'
waitfor 'Would you like to proceed|ready to execute|Ready to code' 40; pause 0.5; shot 01-plan-review
keys Down; pause 0.5; shot 02-plan-review-down
keys Enter
waitfor 'create hello\.sh' 30; pause 0.5; shot 03-write-prompt
keys 1
waitfor 'as planned' 30; waitfor 'for [0-9]+s' 10; shot 04-done
