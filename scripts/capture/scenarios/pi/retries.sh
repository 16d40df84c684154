# An API that stays overloaded: the SDK tries 3 times per attempt, pi retries 3 times (2 s,
# 4 s, 8 s), then gives up with "Retry failed after 3 attempts: …"; a new prompt starts over,
# and Esc during its countdown cancels ("Retry failed after 1 attempts: Retry cancelled").
start_pi
waitfor 'claude-mock-1' 40; pause 1; shot 00-startup
send 'are you there?'
waitfor 'Retrying \(1/3\)' 60; pause 0.5; shot 01-retrying-first
waitfor 'Retrying \(2/3\)' 60; pause 0.5; shot 02-retrying-second
waitfor 'Retry failed after' 90; pause 1.5; shot 03-retries-exhausted
send 'still there?'
waitfor 'Retrying \(1/3\)' 60; pause 0.5; shot 04-new-prompt-retrying
keys Escape; waitfor 'Retry cancelled' 20; pause 1; shot 05-cancelled
