# API errors errors.sh does not reach: a prompt too long (400; the composer's placeholder
# changes), a rate limit (429) retried until it clears, a rejected key (401) that stays.
start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'First question'
waitfor 'Prompt is too long' 60; pause 1.5; shot 01-prompt-too-long
send 'Second question'
waitfor 'retrying|Retrying|rate limit|429' 40; pause 0.3; shot 02-rate-limit-retrying
waitfor 'limit cleared' 90; waitfor 'for [0-9]+s' 10; shot 03-recovered
send 'Third question'
waitfor '401|API key|/login' 90; pause 1.5; shot 04-auth-error
