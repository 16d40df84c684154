# fixtures/screens/codex-live (recorded 2026-12-02 by hand with the shared tools, no scenario
# file kept): its model steps rebuilt from its rollout (fixtures/codex/codex-live), so
# check-live.sh can record it again. -a on-request -s read-only: the patch approval answered
# by typing "1" (a digit picks and confirms at once), the escalated command with "y", then
# Shift+Tab into Plan mode. Run it with check-live.sh, not capture.sh into the fixtures.
start_codex -a on-request -s read-only
waitfor 'Ask Codex to do anything' 40; pause 1; shot 00-startup
send 'write notes and a stamp'
waitfor 'Press enter to confirm' 30; pause 0.5; shot 01-patch; keys 1
waitfor 'Write stamp.txt' 30; waitfor 'Press enter to confirm' 30; pause 0.5; shot 02-after-digit; keys y
waitfor 'Worked for' 30; pause 1; shot 04-done
keys BTab; waitfor 'Plan mode \(shift' 10; pause 1; shot 05-plan-mode
