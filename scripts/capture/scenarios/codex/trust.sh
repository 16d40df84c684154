# fixtures/screens/codex-trust (recorded 2026-12-02 by hand with the shared tools, no scenario
# file kept; two runs there), its model steps rebuilt from its rollout (fixtures/codex/
# codex-yield) so check-live.sh can record it again in one run: a git repo config.toml does
# not list, so "Trust this folder?" at startup; trusted, then a command that yields and ends
# in the background after the turn, and a second turn. Run it with check-live.sh.
mkdir -p "$CAP_DIR/proj"; git -C "$CAP_DIR/proj" init -q; echo notes > "$CAP_DIR/proj/notes.txt"
CODEX_TRUST=none start_codex
waitfor 'Trust this folder' 40; pause 1; shot 01-trust; keys Enter
waitfor 'Ask Codex to do anything' 30; pause 1
send 'run the slow job'
waitfor 'Worked for' 30; pause 1; shot 03-yielded
gone 'background terminal running' 30; pause 1; shot 04-bg-done
send 'list the files'
waitfor 'Done listing' 30; pause 2; shot 05-done
