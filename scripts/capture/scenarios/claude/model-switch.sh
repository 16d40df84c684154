# Switching the model mid-conversation: the picker, the "Switch model?" confirmation the CLI
# asks because the conversation is cached for the current model, then a turn on the new model.
start
waitfor 'mode on' 40; pause 1
send 'Say something'
waitfor 'first answer' 30; waitfor 'for [0-9]+s' 10
send '/model'
waitfor 'Select model' 20; pause 0.5
keys Down; pause 0.3; keys Down; pause 0.3; keys Down; pause 0.5
shot 01-model-picker-sonnet
keys Enter
waitfor 'Switch model\?' 20; pause 0.5; shot 02-switch-confirmation
keys Enter
waitfor 'Set model to' 20; pause 1; shot 03-after-switch
send 'And now?'
waitfor 'new model\.' 30; waitfor 'for [0-9]+s' 10; shot 04-done-on-new-model
