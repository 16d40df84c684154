# AskUserQuestion: single question with descriptions, multi-select with its Submit row,
# two questions with tabs and the review page, options with a preview pane.
start --permission-mode default
waitfor 'manual mode on' 40
send 'Set up the project'
waitfor 'Which database' 30; pause 0.5; shot 01-single
keys Down; pause 0.5; shot 02-single-down
keys Up; pause 0.3; keys Enter
waitfor 'Which checks' 30; pause 0.5; shot 03-multi
keys Enter; pause 0.5; keys Down; pause 0.3; keys Down; pause 0.3; keys Enter; pause 0.5; shot 04-multi-checked
keys Down; pause 0.3; keys Down; pause 0.3; keys Down; pause 0.5; shot 05-multi-submit-row
keys Enter
waitfor 'package manager' 30; pause 0.5; shot 06-tabs-first
keys Enter
waitfor 'build output' 30; pause 0.5; shot 07-tabs-second
keys Enter
waitfor 'Review your answers|Submit answers' 30; pause 0.5; shot 08-review
keys Enter
waitfor 'settings page' 30; pause 0.5; shot 09-preview
keys Down; pause 0.5; shot 10-preview-down
keys Enter
waitfor 'everything I need' 30; waitfor 'for [0-9]+s' 10; shot 11-done
