# An rm whose target is a command substitution: the "Dangerous rm operation" warning in a
# "│ " quote bar, and only Yes / No. (Grep and Glob are not offered as tools in 2.1.332.)
mkdir -p "$CAP_DIR/proj"
echo "old.log" > "$CAP_DIR/proj/stale-files.txt"
start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'Clean up'
waitfor '^ rm -rf' 30; pause 0.5; shot 01-bash-rm-substitution-prompt
keys Down; pause 0.5; shot 02-bash-rm-substitution-prompt-down; keys Up; pause 0.3; keys 1
waitfor 'Cleaned up the listed' 30; waitfor 'for [0-9]+s' 10; shot 03-done
