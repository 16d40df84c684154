# Plan mode dialogs plan.sh does not reach, at 70 columns: "Exit plan mode?" (ExitPlanMode
# before any plan file was written; answered No, which ends the turn); then in a second
# launch (the plan file's path is only announced in a launch's first plan-mode request) the
# plan review with the cursor on "Tell Claude what to change" and feedback typed there, and a
# second review (the mock reports 960k input tokens: the options do not change) declined with
# Esc, after which the footer shows how little context is left ("1% until auto-compact").
COLS=70 ROWS=45 start --permission-mode plan
waitfor 'plan mode on' 40; pause 1
send 'Leave plan mode'
waitfor 'Exit plan mode\?' 40; pause 0.5; shot 01-exit-plan-mode; keys 2
waitfor 'Rejected Claude' 30; pause 1; shot 02-exit-plan-rejected
_tm kill-server; pause 1
COLS=70 ROWS=45 start --permission-mode plan
waitfor 'plan mode on' 40; pause 1
send 'Plan a greeting script'
waitfor 'ready to execute' 40; pause 0.5; shot 03-plan-review-70
keys Down; pause 0.3; keys Down; pause 0.5; shot 04-plan-review-feedback-row
_tm send-keys -t cap -l 'make it shorter'; pause 0.8; shot 05-plan-review-feedback-typed
keys Enter
waitfor 'shorter plan' 40; waitfor 'ready to execute' 40; pause 0.5; shot 06-plan-review-again
keys Escape
waitfor 'Rejected Claude|User rejected' 40; waitfor 'until auto-compact' 20; pause 1; shot 07-after-esc-context-low
