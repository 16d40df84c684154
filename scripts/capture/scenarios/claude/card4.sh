# The card's fourth round (issue 40): AskUserQuestion with previews and the cursor on "Chat
# about this"; a long answer interrupted while it streams (three rows of prose); a message
# queued while the agent works ("Queued · ctrl+x ctrl+s to send now"); prose with inline code,
# bold and links that Claude Code wraps short of the pane's width; a Bash permission prompt
# ("Yes, and switch to auto mode · auto mode handles …") and the /model picker (descriptions).
start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'Pick a layout'
waitfor 'settings page' 60; pause 1; shot 01-preview-first
keys Down; pause 0.5; keys Down; pause 1; shot 02-preview-chat-about-this
keys Up; pause 0.5; keys Up; pause 0.5; keys Enter
waitfor 'Two columns it is' 60; waitfor 'for [0-9]+s' 20; pause 1
send 'Explain the proxy'
waitfor 'terminates TLS' 60; pause 2; shot 03-long-answer-streaming
keys Escape; waitfor 'Interrupted' 30; pause 1.5; shot 04-long-answer-interrupted
send 'Run the slow check'
waitfor 'esc to interrupt' 60; pause 1
send 'also count the lines'
waitfor 'Queued' 30; pause 1; shot 05-queued
waitfor 'The slow check passed' 90; waitfor 'line count is 42' 90; waitfor 'for [0-9]+s' 20; pause 1; shot 06-after-queue
send 'Describe the wrapping'
waitfor 'the end of the note' 60; waitfor 'for [0-9]+s' 20; pause 1; shot 07-prose-short-wraps
send 'Touch the stamp file'
waitfor 'Do you want to proceed' 60; pause 1; shot 08-bash-prompt-descriptions
keys Down; pause 0.5; keys Down; pause 1; shot 09-bash-prompt-descriptions-down
keys Escape; waitfor 'Interrupted' 30; pause 1
send '/model'
waitfor 'Select model' 30; pause 1; shot 10-model-picker
keys Escape; pause 1
