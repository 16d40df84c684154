# opencode with every permission set to "ask": a compound bash command (allow once), a
# heredoc (allow always, then its "This will allow …" confirmation), an edit at 72 columns,
# a read outside the project (external_directory), a webfetch rejected, then a question
# tool dialog.
mkdir -p "$CAP_DIR/proj" "$CAP_DIR/common"
echo hello > "$CAP_DIR/proj/hello.txt"
echo "indent = 2" > "$CAP_DIR/common/config.txt"
OPENCODE_PERMISSION='{"bash":"ask","edit":"ask","webfetch":"ask","external_directory":"ask","read":"allow"}' start_opencode
waitfor 'Ask anything|ctrl\+p' 60; pause 2
send 'Tidy the project'
waitfor 'Permission required' 60; pause 1; shot 01-bash; keys Enter
waitfor 'Write notes.txt|heredoc' 30; waitfor 'Permission required' 30; pause 1; shot 02-bash-multiline
keys Right; pause 0.7; shot 03-bash-multiline-always; keys Enter
waitfor 'This will allow' 20; pause 0.7; shot 04-always-confirm; keys Enter
waitfor 'Changing the greeting' 30; waitfor 'Permission required' 30; pause 1
resize 72 45; pause 1.5; shot 05-edit-narrow; resize 120 45; pause 1; keys Enter
waitfor 'outside the project' 30; waitfor 'Permission required' 30; pause 1; shot 06-external-directory; keys Enter
waitfor 'style guide' 30; waitfor 'Permission required' 30; pause 1; shot 07-webfetch
keys Right Right; pause 0.7; shot 08-webfetch-reject-selected; keys Enter
gone 'Permission required' 20; pause 3; shot 09-after-reject
send 'ok, go on without it'
waitfor 'no fetch' 40; waitfor 'Mock Claude · [0-9.]+m?s' 20; pause 1; shot 10-done
send 'tidy the files'
waitfor 'Which files' 40; pause 1; shot 11-question
keys Down; pause 0.7; shot 12-question-down
keys Enter; waitfor 'as you chose' 30; pause 2; shot 13-done
