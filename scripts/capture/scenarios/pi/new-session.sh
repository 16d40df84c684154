# The shared corpus scenario pi-new-session (captured 2026-12-02), ported to this runner so check-live.sh
# can record it again and compare with fixtures/screens/pi-new-session (the corpus copies, paths under
# /home/me): run it with check-live.sh, not capture.sh into the fixtures.
start_pi
waitfor 'claude-mock-1' 40; pause 1
send 'What is in this project?'
waitfor 'First session answer' 40; pause 1.5; shot 01-first-done
keys -l '/new'; waitfor 'Start a new session' 10; pause 1; shot 02-typing-new
keys Enter; waitfor 'New session started' 10; pause 1.5; shot 03-after-new
send 'Hello again'
waitfor 'Second session answer' 40; pause 1.5; shot 04-second-done
