# pi ≥ 1.0 asks before loading project-local settings (pi's own security notes, "project trust"): the
# project holds .pi/settings.json, so pi starts with its trust question (blocked). Then the
# thinking-level cycle (Shift+Tab, pi's only mode cycle) and one finished turn.
mkdir -p "$CAP_DIR/proj/.pi"; printf '{}\n' > "$CAP_DIR/proj/.pi/settings.json"
start_pi
waitfor '[Tt]rust' 40; pause 1.5; shot 00-trust-dialog
keys Down; pause 1; shot 01-trust-cursor-moved
keys Up; pause 0.5; keys Enter
waitfor 'claude-mock-1' 40; pause 1.5; shot 02-idle-trusted
keys BTab; pause 1.5; shot 03-thinking-cycled
send 'say hello'
waitfor 'Hello from the mock' 40; pause 1.5; shot 04-done
