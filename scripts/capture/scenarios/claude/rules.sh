# Permission rules in settings change the dialogs: an "ask" rule on a command that would run
# unasked (ls), a "deny" rule (curl: no dialog, a denial), an "allow" rule (echo: no
# dialog); a Write outside the project; then a Bash prompt with Tab (amend: type feedback)
# and one answered No.
mkdir -p "$CAP_DIR/home/.claude" "$CAP_DIR/elsewhere"
cat > "$CAP_DIR/home/.claude/settings.json" <<'JSON'
{"permissions":{"ask":["Bash(ls:*)"],"deny":["Bash(curl:*)"],"allow":["Bash(echo:*)"]}}
JSON
start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'Look around, then make the files'
waitfor '^ ls -la' 30; pause 0.5; shot 01-ask-rule-prompt; keys 1
waitfor 'Write\(|out\.txt' 40; waitfor '1\. Yes' 30; pause 0.5; shot 02-write-outside-prompt; keys 1
waitfor '^ touch amended' 30; pause 0.5; shot 03-bash-prompt
keys Tab; pause 0.8; shot 04-bash-amend
_tm send-keys -t cap -l 'and tell me when done'; pause 0.8; shot 05-bash-amend-typed
keys Enter
waitfor '^ touch rejected' 30; pause 0.5; keys 4; pause 0.5
waitfor 'stop here|Interrupted|What should Claude do' 30; pause 1; shot 06-after-no
