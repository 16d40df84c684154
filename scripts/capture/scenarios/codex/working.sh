# The corpus scenario codex-working (the shared capture corpus, recorded 2026-12-02 with its
# tools' codex-corpus.sh), ported to this runner so check-live.sh can record it again and
# compare with fixtures/screens/codex-working. Those fixtures are the corpus copies (paths under
# /home/me): run this scenario with check-live.sh, not capture.sh into the fixtures.
mkdir -p "$CAP_DIR/proj"
printf 'TODO\n- add a --verbose flag\n- document the config format\n' > "$CAP_DIR/proj/notes.txt"
printf 'echo "check 1 ok"\nsleep 3\necho "check 2 ok"\nsleep 3\necho "check 3 ok"\necho "3 of 3 checks ok"\n' > "$CAP_DIR/proj/run-tests.sh"
start_codex --dangerously-bypass-approvals-and-sandbox
waitfor 'Ask Codex to do anything' 20; pause 1; shot 00-startup
send "summarize the project and check the tests"
pause 2.5; shot 01-working
pause 3; shot 02-working-b
waitfor 'Running the test script' 20; pause 2.5; shot 03-command-running
waitfor 'Summary' 30; pause 1.2; shot 04-streaming-answer
waitfor 'Worked for' 30; pause 1; shot 05-done
