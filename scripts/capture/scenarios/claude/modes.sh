# Every mode footer, idle and while working, and the transient hints that replace the
# footer for a moment (a second Ctrl+C exits; Esc clears the draft).
start
waitfor 'auto mode on' 40; pause 1; shot 00-idle-auto
keys BTab; waitfor 'manual mode on'; pause 0.5; shot 01-idle-manual
keys BTab; waitfor 'accept edits on'; pause 0.5; shot 02-idle-accept-edits
keys BTab; waitfor 'plan mode on'; pause 0.5; shot 03-idle-plan
keys BTab; waitfor 'auto mode on'; pause 0.5
send 'Think about the design'
waitfor 'esc to interrupt' 20; pause 0.5; shot 04-working-auto
keys BTab; waitfor 'manual mode on'; pause 0.5; shot 05-working-manual
keys BTab; waitfor 'accept edits on'; pause 0.5; shot 06-working-accept-edits
keys BTab; waitfor 'plan mode on'; pause 0.5; shot 07-working-plan
waitfor 'nothing needs to change' 40; waitfor 'for [0-9]+s' 10; shot 08-done-plan
keys C-c; pause 0.3; shot 09-ctrl-c-hint
pause 3
_tm send-keys -t cap -l 'a draft I will clear'; pause 0.5; shot 10-typing-draft
keys Escape; pause 0.3; shot 11-esc-hint
keys Escape; pause 2; shot 12-after-esc
