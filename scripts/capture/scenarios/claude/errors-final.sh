# Errors the CLI gives up on, with retries turned down (CLAUDE_CODE_MAX_RETRIES=1) and a
# short request timeout (API_TIMEOUT_MS=4000): a rejected key (401) and an answer that comes
# too late.
CAP_ENV="CLAUDE_CODE_MAX_RETRIES=1 API_TIMEOUT_MS=4000" start --permission-mode default
waitfor 'manual mode on' 40; pause 1
send 'First question'
waitfor 'Invalid API key|401|/login' 60; waitfor 'mode on' 30; pause 1.5; shot 01-invalid-api-key
send 'Second question'
# (between the two, the retry row reads "Request timed out. · retrying… · attempt 1/1" or
# "… · retrying in 1s · …" depending on the moment: not a stable screen to record)
waitfor 'Request timed out\. If' 60; pause 1.5; shot 02-request-timed-out
