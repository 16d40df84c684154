# The corpus scenario codex-interrupt (the shared capture corpus, recorded 2026-12-02 with its
# tools' codex-corpus.sh), ported to this runner so check-live.sh can record it again and
# compare with fixtures/screens/codex-interrupt. Those fixtures are the corpus copies (paths under
# /home/me): run this scenario with check-live.sh, not capture.sh into the fixtures.
mkdir -p "$CAP_DIR/proj"
printf 'TODO\n- add a --verbose flag\n- document the config format\n' > "$CAP_DIR/proj/notes.txt"
start_codex
waitfor 'Ask Codex to do anything' 20; pause 1; shot 00-startup
send "show the config file"
waitfor 'Worked for' 20; pause 1; shot 01-failed-done
send "run the long job"
waitfor 'Starting the long job' 20; pause 3; shot 02-command-running
keys Escape; pause 3; shot 03-interrupted-command
send "explain the project instead"
waitfor 'project is tiny' 20; pause 3; shot 04-streaming-held
keys Escape; pause 3; shot 05-interrupted-stream
send "never mind, just say ok"
waitfor '• OK\.' 20; pause 2; shot 06-done
for i in $(seq 90); do screen_now | grep -q 'background terminal' || break; pause 1; done
pause 1; shot 07-background-finished
