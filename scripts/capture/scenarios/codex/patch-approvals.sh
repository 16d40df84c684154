# on-request + read-only: every apply_patch asks. A patch adding, updating and deleting files,
# a move, "don't ask again for these files" (then an edit of greet.py that does not ask), a
# command the harness refuses (justification without sandbox_permissions) and one the sandbox
# stops (no CommandExecution item), at 72 columns; a changelog patch rejected with Esc.
mkdir -p "$CAP_DIR/proj"
printf 'import sys\n\n\ndef greet(name):\n    return "Hi " + name\n\n\nprint(greet(sys.argv[1] if len(sys.argv) > 1 else "world"))\n' > "$CAP_DIR/proj/greet.py"
printf 'obsolete\n' > "$CAP_DIR/proj/old.txt"
printf 'todo\n' > "$CAP_DIR/proj/notes.txt"
start_codex -a on-request -s read-only
waitfor 'Ask Codex to do anything' 40; pause 1
send 'add usage docs and fix the greeting'
waitfor 'Press enter to confirm' 30; pause 0.5; shot 01-patch-multi
keys Down; pause 0.7; shot 02-patch-multi-down; keys Enter
waitfor 'Moving the notes' 30; waitfor 'Press enter to confirm' 30; pause 0.5; shot 03-patch-move
resize 72 45; pause 1; shot 04-patch-move-narrow; keys a
waitfor 'inside the sandbox' 30; waitfor "Press enter to confirm|Worked for" 30; pause 0.5; shot 05-exec-sandboxed; screen_now | grep -q "Press enter to confirm" && keys y
waitfor 'Worked for' 30; pause 1; shot 06-done
resize 120 45; pause 1
send 'add a changelog'
waitfor 'Press enter to confirm' 30; pause 0.5; shot 07-patch-changelog
keys Escape; waitfor 'Conversation interrupted' 20; pause 1; shot 08-after-reject
send 'skip it'
waitfor 'No changelog then' 30; waitfor 'Worked for' 20; pause 1; shot 09-done
