# The card's fourth round (issue 40): prose rows that look short of the pane's width. Emoji
# and CJK characters take two columns each, so a row holding them is full on screen though it
# has fewer characters than the pane has columns; a list, a quote and a table beside them.
start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'Probe one'
waitfor 'END-ONE' 60; waitfor 'for [0-9]+s' 20; pause 1; shot 01-emoji-rows
send 'Probe two'
waitfor 'END-TWO' 60; waitfor 'for [0-9]+s' 20; pause 1; shot 02-list-and-quote
send 'Probe three'
waitfor 'END-THREE' 60; waitfor 'for [0-9]+s' 20; pause 1; shot 03-table-and-cjk
