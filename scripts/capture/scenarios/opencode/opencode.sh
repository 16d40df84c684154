# The shared corpus's opencode scenario (captured 2026-12-02 in one folder with the mock
# restarted per turn), rebuilt as one script so check-live.sh can record it again and compare
# with fixtures/screens/opencode (the corpus copies): session A with default permissions
# (bash + edit, a slow turn, the question tool), then opencode restarted with bash/edit = ask
# (a bash permission allowed once, an edit permission rejected), a follow-up, ctrl+c.
# The corpus's last turn (through `opencode serve`) has no screen. Run it with check-live.sh.
mkdir -p "$CAP_DIR/proj"; echo 'hello world' > "$CAP_DIR/proj/hello.txt"
start_opencode
waitfor 'Ask anything|ctrl\+p' 60; pause 2; shot 00-startup
send 'Change the greeting in hello.txt'
waitfor 'now says hello opencode' 60; waitfor 'Mock Claude · [0-9.]+m?s' 20; pause 1; shot 01-after-prompt
send 'Run the slow check, then ask me about the style'
pause 3; shot 02-working
pause 2; shot 03-working-b
waitfor 'sleep 8' 30; pause 2; shot 04-bash-running
waitfor 'Which greeting style' 40; pause 1; shot 05-question
keys Down; pause 0.7; shot 06-question-down
keys Enter; waitfor 'all done' 30; pause 2; shot 07-done
_tm kill-session -t cap
OPENCODE_PERMISSION='{"bash":"ask","edit":"ask"}' start_opencode
waitfor 'Ask anything|ctrl\+p' 60; pause 2; shot 08-second-startup
send 'Create a marker and change the greeting'
waitfor 'Permission required' 60; pause 1; shot 09-bash-permission
keys Right; pause 0.7; shot 10-bash-permission-right; keys Left; pause 0.5; keys Enter
waitfor 'editing hello.txt again' 30; waitfor 'Permission required' 30; pause 1; shot 11-edit-permission
keys Right Right; pause 0.7; shot 12-edit-permission-reject-selected; keys Enter
gone 'Permission required' 20; pause 3; shot 13-after-reject
send 'Leave hello.txt as it is'
waitfor 'left hello.txt unchanged' 40; waitfor 'Mock Claude · [0-9.]+m?s' 20; pause 1; shot 14-done
keys C-c; waitfor 'EXITED' 20; pause 1; shot 15-exit
