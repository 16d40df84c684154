# The card's fourth round (issue 40), codex: an approval of a long heredoc (40 lines with
# "## Added" headings) under "Would you like to run the following command?", and a command
# interrupted while it runs ("aborted by user" in the rollout).
start_codex -a on-request -s workspace-write
waitfor 'Ask Codex to do anything' 60; pause 1
send 'write the changelog'
waitfor 'Press enter to confirm' 60; pause 1; shot 01-heredoc-approval
keys Escape; waitfor 'Conversation interrupted' 30; pause 1; shot 02-after-reject
send 'run the long job'
waitfor 'Starting the long job' 60; pause 4; shot 03-command-running
keys Escape; pause 3; shot 04-interrupted-command
send 'just say ok'
waitfor '• OK\.' 60; pause 2; shot 05-done
