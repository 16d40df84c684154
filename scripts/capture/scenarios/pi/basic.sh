# The shared corpus scenario pi-basic (captured 2026-12-02), ported to this runner so check-live.sh
# can record it again and compare with fixtures/screens/pi-basic (the corpus copies, paths under
# /home/me): run it with check-live.sh, not capture.sh into the fixtures.
start_pi
waitfor 'claude-mock-1' 40; pause 1; shot 00-startup
send 'Give me a quick tour'
pause 2; shot 01-working
pause 2; shot 02-working-b
waitfor 'Elapsed [0-9]' 40; pause 1.5; shot 03-bash-running
waitfor 'notes.md is now final' 40; pause 1.5; shot 04-done
