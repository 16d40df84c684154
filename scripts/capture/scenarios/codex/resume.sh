# The corpus scenario codex-resume (the shared capture corpus, recorded 2026-12-02 with its
# tools' codex-corpus.sh), ported to this runner so check-live.sh can record it again and
# compare with fixtures/screens/codex-resume. Those fixtures are the corpus copies (paths under
# /home/me): run this scenario with check-live.sh, not capture.sh into the fixtures.
start_codex
waitfor 'Ask Codex to do anything' 20; pause 1; shot 00-startup-a
send "remember the number 42"
waitfor 'Worked for' 20; pause 2; shot 01-done-a
send "/quit"; waitfor 'EXITED' 20; pause 0.5; shot 02-exit-a; pause 2
codex_again
waitfor 'Ask Codex to do anything' 20; pause 1; shot 03-startup-b
send "what is 6 times 7?"
waitfor 'Worked for' 20; pause 2; shot 04-done-b
send "/quit"; waitfor 'EXITED' 20; pause 0.5; shot 05-exit-b; pause 2
codex_again resume
waitfor 'Resume a previous session' 20; pause 1; shot 06-resume-picker
keys Down; pause 0.7; shot 07-resume-picker-down
keys Enter
waitfor 'Ask Codex to do anything' 20; pause 1.5; shot 08-resumed-a
send "what number did I ask you to remember?"
waitfor 'You asked me' 20; pause 2; shot 09-done-resumed
send "/quit"; waitfor 'EXITED' 20; pause 0.5; shot 10-exit-resumed
