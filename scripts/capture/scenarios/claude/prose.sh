# Long prose: soft wraps at 80 and at 200 columns, and an answer taller than the pane so its
# first row (the ● bullet) has scrolled off.
COLS=80 ROWS=40 start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'Summarise the review'
waitfor 'week of guessing' 30; waitfor 'for [0-9]+s' 10; pause 0.5; shot 01-prose-80
resize 200 50; pause 1.5; shot 02-prose-200
resize 80 24; pause 1.5; shot 03-prose-80-short
resize 120 30
send 'Give me the long list'
waitfor 'nothing else is pending' 30; waitfor 'for [0-9]+s' 10; pause 0.5; shot 04-bullet-scrolled-off
resize 80 30; pause 1.5; shot 05-bullet-scrolled-off-80
