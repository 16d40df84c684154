# opencode with read, glob and grep set to "ask" (the same permission box, other tool rows),
# then a question tool call with two questions (tabs).
mkdir -p "$CAP_DIR/proj"; echo hello > "$CAP_DIR/proj/hello.txt"
OPENCODE_PERMISSION='{"read":"ask","glob":"ask","grep":"ask"}' start_opencode
waitfor 'Ask anything|ctrl\+p' 60; pause 2
send 'Look at the greeting'
waitfor 'Permission required' 60; pause 1; shot 01-read; keys Enter
waitfor 'text files' 30; waitfor 'Permission required' 30; pause 1; shot 02-glob; keys Enter
waitfor 'Searching for the greeting' 30; waitfor 'Permission required' 30; pause 1; shot 03-grep; keys Enter
waitfor 'Which greeting style' 40; pause 1; shot 04-questions-first
keys Enter; pause 1.5; shot 05-questions-second
keys Down; pause 0.7; shot 06-questions-second-down
keys Enter; pause 1.5; shot 07-questions-confirm
