# pi has no permission prompts and no question tool: what it shows instead. An overloaded API
# retried (the SDK tries 3 times, then pi shows "Retrying (1/3) in 2s..."), the answer after it; Esc on a held stream ("Operation
# aborted"); a request the API refuses (the error under the turn); the user's /model
# selector; a finished turn at 60 columns; Esc while pi waits to retry ("Error: Retry failed after 1 attempts: Retry
# cancelled").
mkdir -p "$CAP_DIR/proj"; printf 'TODO\n- add a --verbose flag\n- document the config format\n' > "$CAP_DIR/proj/notes.txt"
start_pi
waitfor 'claude-mock-1' 40; pause 1
send 'what is in the notes?'
waitfor 'Retrying' 30; pause 0.5; shot 01-retrying
waitfor 'Recovered after a retry' 60; pause 1.5; shot 02-done-after-retry
send 'explain the layout'
waitfor 'long explanation' 30; pause 1; shot 03-streaming-held
keys Escape; waitfor 'aborted' 20; pause 1; shot 04-aborted
send 'try once more'
waitfor 'rejected this request' 60; pause 1.5; shot 05-error
send '/model'
waitfor 'claude-mock-1' 10; pause 1.5; shot 06-model-selector
keys Escape; pause 1
resize 60 45; pause 1.5; shot 07-error-narrow
resize 120 45; pause 1
send 'one more time'
waitfor 'Retrying' 40; pause 0.5; shot 08-retrying-again
keys Escape; waitfor 'Retry failed after' 20; pause 1; shot 09-retry-cancelled
