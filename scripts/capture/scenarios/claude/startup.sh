# First launch in an untrusted folder: the trust dialog (cursor on "No, exit", then moved), then
# the idle screen with 2.1.3xx's notices (auto mode is the new default), and one short turn.
TRUST=0 start
waitfor 'Yes, I trust this folder' 40
shot 00-folder-trust
keys Down
waitfor '❯ Yes, I trust'
shot 01-folder-trust-down
keys Enter
waitfor '(mode on|for shortcuts)' 30
pause 2
shot 02-idle-after-trust
send 'Say hello'
waitfor 'ready\.' 30
waitfor 'for [0-9]+s' 10
shot 03-done
