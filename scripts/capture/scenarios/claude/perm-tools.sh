# Manual mode: the permission dialogs of the tools permissions.sh does not reach: WebSearch,
# Read outside the project, Write over an existing file, NotebookEdit, a piped Bash command,
# a compound one with two prefixes, an rm whose target is a variable; then a skill and EnterPlanMode,
# which 2.1.332 runs without asking. Some are
# answered with the cursor moved first (Down) to show the highlighted row elsewhere. (The
# WebSearch tool's own request carries a tool, so the mock serves it the second step.)
echo "seed" > "$CAP_DIR/outside-notes.txt"
mkdir -p "$CAP_DIR/proj" "$CAP_DIR/home/.claude/skills/greet"
echo "old line" > "$CAP_DIR/proj/existing.txt"
printf 'b\na\nb\n' > "$CAP_DIR/proj/notes.txt"
cat > "$CAP_DIR/proj/analysis.ipynb" <<'NB'
{"cells":[{"cell_type":"code","id":"cell-a","metadata":{},"execution_count":null,"outputs":[],"source":["print('hello')"]}],"metadata":{"language_info":{"name":"python"}},"nbformat":4,"nbformat_minor":5}
NB
cat > "$CAP_DIR/home/.claude/skills/greet/SKILL.md" <<'MD'
---
name: greet
description: Greet the user by name
---
Say hello to the user.
MD
start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'Try the other tools'
waitfor 'search the web for' 30; pause 0.5; shot 01-websearch-prompt; keys 1
waitfor '^ Read\(' 30; pause 0.5; shot 02-read-outside-prompt
keys Down; pause 0.5; shot 03-read-outside-prompt-down; keys Up; pause 0.3; keys 1
waitfor 'Overwrite file' 30; pause 0.5; shot 04-overwrite-prompt; keys 1
waitfor 'Edit notebook' 30; pause 0.5; shot 05-notebook-prompt; keys 1
waitfor '^ cat notes\.txt' 30; pause 0.5; shot 06-bash-pipe-prompt; keys 1
waitfor '^ npm run build' 30; pause 0.5; shot 07-bash-two-prefixes-prompt
keys Down; pause 0.3; keys Down; pause 0.5; shot 08-bash-two-prefixes-down; keys 1
waitfor "can't be checked" 30; pause 0.5; shot 09-bash-unchecked-variable-prompt
keys Down; pause 0.3; keys Down; pause 0.5; shot 10-bash-unchecked-variable-down; keys Up; pause 0.3; keys Up; pause 0.3; keys 1
# the skill loads and EnterPlanMode enters plan mode without asking (2.1.332)
waitfor 'every tool' 40; waitfor 'for [0-9]+s' 10; shot 11-done-plan
