# /compact after a turn: the summary (a request without tools, answered at once, so its
# "Compacting context..." loader is too quick to capture) leaves a "[compaction]" block
# ("Compacted from N tokens (ctrl+o to expand)"); then one more turn.
mkdir -p "$CAP_DIR/proj"; printf 'TODO\n- add a --verbose flag\n- document the config format\n' > "$CAP_DIR/proj/notes.txt"
start_pi
waitfor 'claude-mock-1' 40; pause 1; shot 00-startup
send 'what do the notes say?'
waitfor 'config docs' 40; pause 1.5; shot 01-done
send '/compact'
waitfor 'Compacted from' 20; pause 1.5; shot 02-compacted
send 'and now?'
waitfor 'after the compaction' 30; pause 1.5; shot 03-done-after-compact
