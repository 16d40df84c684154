# The corpus scenario codex-patch (the shared capture corpus, recorded 2026-12-02 with its
# tools' codex-corpus.sh), ported to this runner so check-live.sh can record it again and
# compare with fixtures/screens/codex-patch. Those fixtures are the corpus copies (paths under
# /home/me): run this scenario with check-live.sh, not capture.sh into the fixtures.
start_codex -a on-request -s read-only
waitfor 'Ask Codex to do anything' 20; pause 1; shot 00-startup
send "write a hello module"
waitfor 'Press enter to confirm' 20; pause 0.5; shot 01-patch-approval
keys Enter
waitfor 'friendlier' 20; waitfor 'Press enter to confirm' 20; pause 0.5; shot 02-patch-approval-update
keys Down; pause 0.7; shot 03-patch-approval-down
keys Enter
waitfor 'Worked for' 20; pause 1; shot 04-done
send "also add a README"
waitfor 'Press enter to confirm' 20; pause 0.5; shot 05-patch-approval-readme
keys Escape; pause 3; shot 06-after-reject
send "no README, thanks"
waitfor 'no README then' 20; pause 2; shot 07-done
