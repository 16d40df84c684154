# on-request + workspace-write: every escalated exec_command asks. Simple, multi-line (heredoc),
# compound with a prefix rule (also at 60 columns, cursor moved), a tty command and the
# write_stdin that types into it ("send input to terminal N?"), then a rejection with Esc.
start_codex -a on-request -s workspace-write
waitfor 'Ask Codex to do anything' 40; pause 1
send 'set up the workspace'
waitfor 'Press enter to confirm' 30; pause 0.5; shot 01-exec-simple; keys y
waitfor 'notes.txt with a heredoc' 30; waitfor 'Press enter to confirm' 30; pause 0.5; shot 02-exec-multiline; keys Enter
waitfor 'sorted file list' 30; waitfor 'Press enter to confirm' 30; pause 0.5; shot 03-exec-compound
resize 60 45; pause 1; shot 04-exec-compound-narrow
keys Down; pause 0.7; shot 05-exec-compound-narrow-down
keys Enter; resize 120 45
waitfor 'running the greeter' 30; waitfor 'Press enter to confirm' 30; pause 0.5; shot 06-exec-tty; keys y
waitfor 'send input to terminal' 30; pause 0.5; shot 07-write-stdin; keys y
waitfor 'Worked for' 30; pause 1; shot 08-done
send 'clean up the temporary files'
waitfor 'removing ready.flag' 30; waitfor 'Press enter to confirm' 30; pause 0.5; shot 09-exec-rm
keys Escape; waitfor 'Conversation interrupted' 20; pause 1; shot 10-after-reject
send 'ok, leave them'
waitfor 'temporary files stay' 30; waitfor 'Worked for' 20; pause 1; shot 11-done
