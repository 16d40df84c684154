# AskUserQuestion variants askuser.sh does not reach: options without descriptions, the
# cursor on "Type something." and an answer typed into it, a multi-select whose own-answer
# row is typed in (Enter there would untick it: Down to Submit instead), three questions (three tabs), and Esc on a question (declined).
start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'Set up the service'
waitfor 'Which runtime' 30; pause 0.5; shot 01-no-descriptions
keys Down; pause 0.2; keys Down; pause 0.2; keys Down; pause 0.2; keys Down; pause 0.5; shot 02-type-something-focused
_tm send-keys -t cap -l 'Node 20 LTS'; pause 0.8; shot 03-type-something-typed
keys Enter
waitfor 'Which files should' 30; pause 0.5; shot 04-multi-two
keys Down; pause 0.2; keys Down; pause 0.5; _tm send-keys -t cap -l 'scripts'; pause 0.8; shot 05-multi-own-answer-typed
keys Down; pause 0.5; shot 06-multi-submit-focused
keys Enter
waitfor 'Review your answers' 30; pause 0.5; shot 07-multi-review; keys 1
waitfor 'Which licence' 30; pause 0.5; shot 08-three-tabs-first
keys Right; pause 0.5; shot 09-three-tabs-second
keys Escape; pause 1
waitfor 'Declined to answer' 30; pause 1; shot 10-declined
send 'Carry on without those'
waitfor 'wait for you' 30; waitfor 'for [0-9]+s' 10; shot 11-done
