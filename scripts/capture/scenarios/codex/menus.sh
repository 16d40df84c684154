# The user's own menus after a turn: /model ("Select Model and Effort") and /review's presets.
# Nobody asked the user anything: idle, the conversation heads the card. /model opens
# scrolled to the current model at the bottom of a list longer than 9, whose rows past 9 have
# no number; that state is not recorded (docs/dialog-inventory.md, codex row 30): Down wraps
# the cursor to the top, where every visible row is numbered.
start_codex
waitfor 'Ask Codex to do anything' 40; pause 1
send 'hello'
waitfor 'project folder is empty' 30; waitfor 'Worked for' 20; pause 1; shot 01-done
send '/model'
waitfor 'Select Model and Effort' 10; pause 1; keys Down; pause 0.7; shot 02-model-menu-top
keys Escape; pause 1
send '/review'
waitfor 'Select a review preset' 10; pause 1; shot 03-review-menu
keys Escape; pause 1.5; shot 04-after-escape
