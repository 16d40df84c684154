# Two escalated commands in one step (approvals queued one after the other, in either order:
# alpha or beta may ask first); in Plan mode a
# request_user_input with two questions, the second also at 70 columns; the same tool in
# Default mode, which codex refuses ("unavailable in Default mode").
start_codex -a on-request -s workspace-write
waitfor 'Ask Codex to do anything' 40; pause 1
send 'prepare two folders'
waitfor 'Press enter to confirm' 30; pause 0.5; shot 01-queue-first; keys y
waitfor 'You approved codex' 30; waitfor 'Press enter to confirm' 30; pause 0.5; shot 02-queue-second; keys Enter
waitfor 'Worked for' 30; pause 1; shot 03-done
keys BTab; waitfor 'Plan mode' 10; pause 1
send 'plan the project layout'
waitfor 'Where should the sources go' 30; pause 1; shot 04-question-1; keys 1
waitfor 'Which test runner' 20; pause 1; shot 05-question-2
resize 70 45; pause 1.5; shot 06-question-2-narrow; resize 120 45; pause 1; keys 2
waitfor 'as you chose' 30; waitfor 'Worked for' 20; pause 1; shot 07-done-plan
keys BTab; gone 'Plan mode \(shift' 10; pause 1
send 'ask me about the layout again'
waitfor 'use src/' 30; waitfor 'Worked for' 20; pause 1; shot 08-done-default
