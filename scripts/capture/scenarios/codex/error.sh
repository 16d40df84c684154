# The corpus scenario codex-error (the shared capture corpus, recorded 2026-12-02 with its
# tools' codex-corpus.sh), ported to this runner so check-live.sh can record it again and
# compare with fixtures/screens/codex-error. Those fixtures are the corpus copies (paths under
# /home/me): run this scenario with check-live.sh, not capture.sh into the fixtures.
start_codex
waitfor 'Ask Codex to do anything' 20; pause 1; shot 00-startup
send "what is 2 + 2?"
waitfor 'Worked for' 30; pause 1; shot 01-done-after-retries
send "and 3 + 3?"
waitfor 'Reconnecting\.\.\. 5/5' 60; pause 1.5; shot 02-reconnecting-last
pause 6; shot 03-error
send "try again"
waitfor 'Back again' 20; pause 2; shot 04-done-again
