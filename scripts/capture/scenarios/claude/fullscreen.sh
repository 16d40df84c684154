# The fullscreen-renderer offer (forced: it is shown to new installs a few times), "Not now"
# and then, in a second launch, "Yes": the auto-mode notice, and a turn in fullscreen.
CAP_ENV="CLAUDE_CODE_FORCE_FULLSCREEN_UPSELL=1" start
waitfor 'fullscreen renderer' 40; pause 0.5; shot 00-fullscreen-offer
keys Down; pause 0.5; shot 01-fullscreen-offer-down
keys Enter
waitfor 'mode on' 20; pause 1; shot 02-idle-classic
_tm kill-server; pause 1
CAP_ENV="CLAUDE_CODE_FORCE_FULLSCREEN_UPSELL=1" start
waitfor 'fullscreen renderer' 40
keys Enter
waitfor 'mode on' 20; pause 1; shot 03-idle-fullscreen
send 'Say hello'
waitfor 'fullscreen renderer\.' 30; waitfor 'for [0-9]+s' 10; pause 0.5; shot 04-done-fullscreen
