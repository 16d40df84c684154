# fixtures/screens/codex-digits (recorded 2026-12-02 by hand with the shared tools, no scenario
# file kept), its model steps rebuilt from its screens so check-live.sh can record it again:
# in Plan mode a request_user_input question answered by typing "2" (no Enter), then
# "Implement this plan?" answered by typing "3" (stays in Plan mode). Run it with
# check-live.sh, not capture.sh into the fixtures.
start_codex
waitfor 'Ask Codex to do anything' 40; pause 1
keys BTab; waitfor 'Plan mode \(shift' 10; pause 1
send 'plan a rename'
waitfor 'enter to submit' 30; pause 0.5; shot 01-question; keys 2
waitfor 'Implement this plan' 30; pause 1; shot 02-after-digit-2; keys 3
waitfor 'Plan mode \(shift' 20; pause 1; shot 04-after-digit-3
