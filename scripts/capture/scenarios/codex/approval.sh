# The corpus scenario codex-approval (the shared capture corpus, recorded 2026-12-02 with its
# tools' codex-corpus.sh), ported to this runner so check-live.sh can record it again and
# compare with fixtures/screens/codex-approval. Those fixtures are the corpus copies (paths under
# /home/me): run this scenario with check-live.sh, not capture.sh into the fixtures.
start_codex -a on-request -s workspace-write
waitfor 'Ask Codex to do anything' 20; pause 1; shot 00-startup
send "create a build stamp with today's date"
waitfor 'Press enter to confirm' 20; pause 0.5; shot 01-approval
keys Down; pause 0.7; shot 02-approval-down
keys Up; pause 0.7; keys Enter
waitfor 'Worked for' 20; pause 1; shot 03-done
send "now delete the build folder"
waitfor 'Press enter to confirm' 20; pause 0.5; shot 04-approval-rm
keys Escape; pause 3; shot 05-after-reject
send "ok, keep it"
waitfor 'left the build folder' 20; pause 2; shot 06-done
