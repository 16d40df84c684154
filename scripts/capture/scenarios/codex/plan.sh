# The corpus scenario codex-plan (the shared capture corpus, recorded 2026-12-02 with its
# tools' codex-corpus.sh), ported to this runner so check-live.sh can record it again and
# compare with fixtures/screens/codex-plan. Those fixtures are the corpus copies (paths under
# /home/me): run this scenario with check-live.sh, not capture.sh into the fixtures.
CODEX_EXTRA_TOML='
[tools.update_plan]
enabled = true' start_codex
waitfor 'Ask Codex to do anything' 20; pause 1; shot 00-startup
send "add a greeting script with a test"
waitfor 'Create greet.sh' 20; pause 2; shot 01-plan-shown
waitfor 'Added test_greet.sh' 20; pause 2; shot 02-plan-progress
waitfor 'Worked for' 30; pause 1; shot 03-done
keys BTab; pause 1.5; shot 04-plan-mode-idle
send "plan a rename of the greeting function"
waitfor 'enter to submit' 20; pause 0.5; shot 05-question
keys Down; pause 0.7; shot 06-question-down
keys Enter
waitfor 'Implement this plan' 20; pause 1; shot 07-proposed-plan
keys Enter
waitfor 'still passes' 20; pause 2; shot 08-done
