// Seeded line fuzz for codex's normalizer: real rollout lines (fixtures/codex) plus record
// shapes the corpus does not show, mutated where the normalizer decides things.
import { join } from 'node:path'
import { jsonlFiles, linesOf, mutatedLines, type Steering } from '../../../support/fuzz'

export const FIX = join(import.meta.dir, '../../../../fixtures/codex')

/** The kind's corpus: every .jsonl under fixtures/codex. */
export const codexCorpusFiles = (): string[] => jsonlFiles(FIX)

const ts = '2026-12-02T16:00:10.000Z'
const item = (payload: object) => JSON.stringify({ timestamp: ts, ordinal: 1, type: 'response_item', payload })
const event = (payload: object) => JSON.stringify({ timestamp: ts, ordinal: 1, type: 'event_msg', payload })

/** Record shapes codex writes (reference + older builds) that the corpus rollouts do not contain. */
export const SHAPE_SEEDS: string[] = [
  item({ type: 'function_call', name: 'shell', arguments: '{"command":["bash","-lc","ls -la"],"workdir":"/p"}', call_id: 'c_shell' }),
  item({ type: 'function_call_output', call_id: 'c_shell', output: '{"output":"a\\nb\\n","metadata":{"exit_code":2,"duration_seconds":0.1}}' }),
  item({ type: 'function_call', name: 'shell_command', arguments: '{"command":"git status"}', call_id: 'c_sc' }),
  item({ type: 'function_call_output', call_id: 'c_sc', output: 'Exit code: 1\nWall time: 0.2 seconds\nOutput:\nfatal: not a git repository\n' }),
  item({ type: 'function_call', name: 'write_stdin', arguments: '{"session_id":12630,"chars":"y\\n"}', call_id: 'c_ws' }),
  item({ type: 'function_call', name: 'write_stdin', arguments: '{"session_id":12630,"chars":"","yield_time_ms":5000}', call_id: 'c_poll' }),
  item({ type: 'local_shell_call', call_id: 'c_ls', status: 'completed', action: { type: 'exec', command: ['echo', 'hi'] } }),
  item({
    type: 'function_call',
    name: 'apply_patch',
    arguments: JSON.stringify({
      input: '*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@ top\n x\n-y\n+z\n*** Delete File: old.txt\n*** End Patch\n',
    }),
    call_id: 'c_ap',
  }),
  item({ type: 'function_call', name: 'view_image', arguments: '{"path":"/p/shot.png"}', call_id: 'c_vi' }),
  item({ type: 'function_call', name: 'mcp__db__query', arguments: '{"sql":"select 1"}', call_id: 'c_mcp' }),
  item({
    type: 'function_call_output',
    call_id: 'c_vi',
    output: [
      { type: 'input_text', text: 'seen' },
      { type: 'input_image', image_url: 'data:x' },
    ],
  }),
  item({ type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'bun sqlite' } }),
  item({
    type: 'message',
    role: 'user',
    content: [
      { type: 'input_text', text: 'look at this' },
      { type: 'input_image', image_url: 'data:image/png;base64,AA' },
    ],
  }),
  item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/p</cwd>\n</environment_context>' }] }),
  item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: '# AGENTS.md instructions for /p\n\nbe nice' }] }),
  item({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>' }] }),
  item({ type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'raw thoughts' }], encrypted_content: null }),
  item({ type: 'reasoning', summary: [], content: null, encrypted_content: 'gAAAA' }),
  item({ type: 'ghost_snapshot', ghost_commit: { id: 'abc' } }),
  JSON.stringify({ timestamp: ts, type: 'compacted', payload: { message: 'summary of the work so far' } }),
  event({ type: 'error', message: 'unexpected status 401 Unauthorized' }),
  event({ type: 'turn_aborted', reason: 'replaced' }),
  event({ type: 'thread_rolled_back', num_turns: 2 }),
  event({
    type: 'item_completed',
    item: {
      type: 'CommandExecution',
      id: 'c_us',
      command: ['/bin/bash', '-lc', 'ls'],
      source: 'user_shell',
      status: 'completed',
      aggregated_output: 'a\n',
      exit_code: 0,
    },
  }),
  event({
    type: 'item_completed',
    item: {
      type: 'FileChange',
      id: 'c_fc',
      changes: {
        '/p/a.txt': { type: 'update', unified_diff: '@@ -1 +1 @@\n-a\n+b\n', move_path: '/p/b.txt' },
        '/p/old.txt': { type: 'delete', content: 'gone\n' },
      },
      status: 'failed',
      stdout: '',
      stderr: 'permission denied',
    },
  }),
  event({ type: 'some_future_event', x: 1 }),
]

/** Values that steer codex's decisions: types, roles, call ids, outputs, wrong shapes. */
const POOL: unknown[] = [
  null,
  true,
  false,
  0,
  1,
  -1,
  '',
  ' ',
  'x',
  'response_item',
  'event_msg',
  'session_meta',
  'turn_context',
  'compacted',
  'world_state',
  'hologram',
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
  'item_completed',
  'task_complete',
  'turn_aborted',
  'error',
  'CommandExecution',
  'FileChange',
  'AgentMessage',
  'user',
  'assistant',
  'developer',
  'harness',
  'user_shell',
  'exec_command',
  'apply_patch',
  'update_plan',
  'shell',
  'write_stdin',
  'completed',
  'failed',
  'interrupted',
  'Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\nok\n',
  'aborted by user',
  'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA x\n',
  'Plan updated',
  '{"answers":{"q":{"answers":["a"]}}}',
  '*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n',
  '{"cmd":"ls"}',
  '{not json',
  [],
  {},
  [null],
  [{ type: 'input_text', text: ' ' }],
  [{ type: 'output_text', text: 'hi' }],
  [{ type: 'summary_text', text: 'why' }],
  { type: 'user' },
  { type: 'harness' },
  { message: 'boom' },
  { '/p/a': { type: 'add', content: 'x' } },
  { type: 'CommandExecution', id: 'z' },
]

const CODEX: Steering = {
  pool: POOL,
  bias: 0.75,
  recordish: '"type":"response_item",',
  keys: /^(type|payload|role|content|text|name|arguments|input|call_id|id|output|item|source|exit_code|status|aggregated_output|changes|provenance|summary|reason|error|message|plan|action|command)$/,
}

/** `n` mutated lines drawn from the corpus and the shape seeds. */
export const fuzzLines = (n: number, seed: number): string[] =>
  mutatedLines([...codexCorpusFiles().flatMap((f) => linesOf(f).map((l) => l.line)), ...SHAPE_SEEDS], CODEX, n, seed)

/** Inputs a reader must survive: torn, not JSON, not objects, wrong shapes. */
export const BAD_LINES: string[] = [
  '',
  '   \t\r ',
  '{"type":"response_item","payload":{"type":"message"',
  'not json at all',
  '\u0000\u0001\u00ff\ufffd binary',
  '42',
  '[1,2]',
  'null',
  '{"no":"type"}',
  '{"type":7}',
  '{"type":"response_item"}',
  '{"type":"response_item","payload":"string"}',
  '{"type":"response_item","payload":{"type":"message","role":"wizard","content":[]}}',
  '{"type":"response_item","payload":{"type":"function_call","name":"x"}}',
  '{"type":"response_item","payload":{"type":"function_call_output","output":"no call id"}}',
  '{"type":"event_msg","payload":{"type":"item_completed"}}',
  '{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution"}}}',
  '{"type":"something_new","payload":{}}',
  '{"type":"response_item","payload":{"type":"brand_new_item"}}',
]
