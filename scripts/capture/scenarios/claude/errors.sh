# API errors: an overloaded API retried until it answers; a half-streamed answer interrupted
# with Esc; then an error that does not go away (the CLI retries a 400 a few times, then shows it).
start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'Say hello'
waitfor 'attempt|Retrying|retry' 40; pause 0.3; shot 01-retrying
waitfor 'fourth attempt' 90; waitfor 'for [0-9]+s' 10; shot 02-recovered
send 'Explain the module layout'
waitfor 'long explanation' 30; pause 1; shot 03-streaming-held
keys Escape
waitfor 'Interrupted' 20; pause 0.5; shot 04-interrupted
send 'Try again'
waitfor 'API Error|rejected' 120; pause 1; shot 05-api-error
