# Esc on an answer that streams after a retry: pi ends it with "Aborted after 1 retry
# attempt" (where a first try says "Operation aborted").
start_pi
waitfor 'claude-mock-1' 40; pause 1; shot 00-startup
send 'tell me a long story'
waitfor 'Retrying \(1/3\)' 60; pause 0.5; shot 01-retrying
waitfor 'starting a long answer' 30; pause 1; shot 02-streaming-after-retry
keys Escape; waitfor 'Aborted after' 20; pause 1; shot 03-aborted-after-retry
