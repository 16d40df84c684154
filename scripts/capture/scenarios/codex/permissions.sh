# request_permissions (enabled with the request_permissions_tool feature): "Would you like to
# grant these permissions?" with four options, also at 64 columns with the cursor moved;
# declined with d, a second request granted for the session with a. Then the user's own
# menus: /permissions and its "Enable full access?" confirmation (idle: nobody asked the user).
CODEX_FEATURES='request_permissions_tool = true' start_codex -a on-request -s workspace-write
waitfor 'Ask Codex to do anything' 40; pause 1
send 'write the report'
waitfor 'Press enter to confirm' 30; pause 0.5; shot 01-permissions
resize 64 45; pause 1; shot 02-permissions-narrow
keys Down; pause 0.7; shot 03-permissions-narrow-down
resize 120 45; keys d
waitfor 'only the reports folder' 30; waitfor 'Press enter to confirm' 30; pause 0.5; shot 04-permissions-write; keys a
waitfor 'Worked for' 30; pause 1; shot 05-done
send '/permissions'
waitfor 'Update Model Permissions' 20; pause 0.5; shot 06-permissions-menu
keys 3; waitfor 'Enable full access\?' 20; pause 0.5; shot 07-full-access-confirm
keys 2; pause 1.5; shot 08-after-cancel
