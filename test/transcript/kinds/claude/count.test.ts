// countClaudeLine is what the index is built with; normalizeClaudeLine is what
// pages are read with. A disagreement makes pages come back short (or an entry
// silently missing when the counter says 0), so they must agree on every line:
// every real corpus line, every bad input, and thousands of mutated real lines.
import { describe, expect, test } from 'bun:test'
import { countClaudeLine, normalizeClaudeLine } from '../../../../src/transcript/kinds/claude/normalize'
import { claudeFileFold } from '../../../../src/transcript/kinds/claude/file-fold'
import { corpusFiles, linesOf } from './corpus'
import { agreement, indexedCount, mutateBytes, mutateStructure, pageDrafts, rng, type Steering } from '../../../support/fuzz'

/** The line's count as the index pass makes it, with or without the roster fold (test/support/fuzz.ts). */
const indexed = (line: string, withFold: boolean) => indexedCount(line, countClaudeLine, normalizeClaudeLine, withFold ? claudeFileFold : undefined)

/** Lines a page read took from their bytes, in agree() (the equality below held on each). */
let fromBytes = 0

function agree(line: string, offset = 7): { count: number; drafts: number } {
  const count = countClaudeLine(line, offset)
  const drafts = normalizeClaudeLine(line, offset)
  // one line in, one line indexed: the bytes path counts as the text path does,
  // and a page read, from the line's bytes, gives the drafts the text gives
  if (!line.includes('\n')) {
    expect({ line: line.slice(0, 200), bytes: indexed(line, false), folded: indexed(line, true) }).toEqual({
      line: line.slice(0, 200),
      bytes: count,
      folded: count,
    })
    const page = pageDrafts(line, normalizeClaudeLine, offset)
    expect(page.drafts).toEqual(page.text)
    if (page.fromBytes) fromBytes++
  }
  return { count, drafts: drafts.length }
}

describe('countClaudeLine equals normalizeClaudeLine(line).length', () => {
  for (const file of corpusFiles()) {
    const name = file.split('/fixtures/claude/')[1]!
    test(`every line of ${name}`, () => {
      fromBytes = 0
      const lines = linesOf(file)
      const wrong = lines.map(({ line, offset }) => ({ offset, ...agree(line, offset) })).filter((r) => r.count !== r.drafts)
      expect(wrong).toEqual([])
      // the file is not trivially all-zero: the equality means something
      expect(lines.reduce((n, { line, offset }) => n + countClaudeLine(line, offset), 0)).toBeGreaterThan(0)
      // and its records were read from their bytes: the page equality compared both paths
      expect(fromBytes).toBeGreaterThan(0)
    })
  }

  const bad: [string, string, number][] = [
    ['empty', '', 0],
    ['whitespace', '  \t\r ', 0],
    ['half a JSON line', '{"parentUuid":"x","type":"user","message":{"role":"us', 1],
    ['garbage', 'hello world', 1],
    ['binary', '\u0000\u0001\u00ff\ufffd\u0007PNG', 1],
    ['a JSON number', '42', 1],
    ['a JSON string', '"user"', 1],
    ['a JSON array', '[1,2,3]', 1],
    ['JSON null', 'null', 1],
    ['user without message', '{"type":"user","uuid":"u"}', 1],
    ['user isMeta', '{"type":"user","uuid":"u","isMeta":true,"message":{"content":"x"}}', 0],
    ['assistant with non-array content', '{"type":"assistant","uuid":"u","message":{"content":7}}', 1],
    ['assistant blank text', '{"type":"assistant","uuid":"u","message":{"content":[{"type":"text","text":" \\n"}]}}', 0],
    [
      'assistant blocks of every kind',
      JSON.stringify({
        type: 'assistant',
        uuid: 'u',
        message: {
          content: [
            { type: 'text', text: 'a' },
            { type: 'thinking', thinking: '' },
            { type: 'thinking', thinking: 'hm' },
            { type: 'redacted_thinking' },
            { type: 'tool_use', id: 't', name: 'Edit', input: { old_string: 1 } },
            { type: 'server_tool_use', id: 's', name: 'web_search' },
            { type: 'web_search_tool_result', tool_use_id: 's', content: [] },
            { type: 'hologram' },
            null,
            3,
          ],
        },
      }),
      6,
    ],
    [
      'user blocks of every kind',
      JSON.stringify({
        type: 'user',
        uuid: 'u',
        message: {
          content: [
            { type: 'text', text: '<system-reminder>x</system-reminder>' },
            { type: 'text', text: 'hi' },
            { type: 'tool_result', tool_use_id: 't' },
            { type: 'image' },
            { type: 'document' },
            { type: 'hologram' },
            'x',
            null,
          ],
        },
      }),
      5,
    ],
    ['attachment without attachment', '{"type":"attachment","uuid":"u"}', 1],
    ['queued prompt, mid-turn delivery (shown at its enqueue)', '{"type":"attachment","uuid":"u","attachment":{"type":"queued_command","prompt":"do it"}}', 0],
    ['queued prompt, enqueue', '{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"do it"}', 1],
    ['queued prompt, enqueue as blocks', '{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":[{"type":"text","text":"do it"}]}', 1],
    ['queued slash command, enqueue', '{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"/mcp"}', 0],
    ['queued prompt, new-turn delivery', '{"type":"user","uuid":"u","promptSource":"queued","message":{"role":"user","content":"do it"}}', 0],
    ['queue remove with content', '{"type":"queue-operation","operation":"remove","sessionId":"s","content":"do it"}', 0],
    ['queue enqueue with junk content', '{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":{"x":1}}', 0],
    [
      'api-request-blob (2.1.332)',
      '{"type":"api-request-blob","sessionId":"s","hash":"h","message":{"role":"system","content":[{"type":"text","text":"sys"}]}}',
      0,
    ],
    [
      'local command line',
      '{"type":"system","subtype":"local_command","content":"<command-name>/model</command-name>\\n<command-message>model</command-message>\\n<command-args></command-args>"}',
      1,
    ],
    [
      'TaskOutput result without toolUseResult',
      JSON.stringify({
        type: 'user',
        uuid: 'u',
        message: {
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't',
              content: '<retrieval_status>success</retrieval_status>\n\n<status>completed</status>\n\n<output>\nok\n</output>',
            },
          ],
        },
      }),
      1,
    ],
    ['local command, empty stdout', '{"type":"system","subtype":"local_command","content":"<local-command-stdout></local-command-stdout>"}', 0],
    ['unknown system subtype without content', '{"type":"system","subtype":"new_thing"}', 0],
    ['compact boundary with junk metadata', '{"type":"system","subtype":"compact_boundary","compactMetadata":"x"}', 1],
    ['pr-link without url', '{"type":"pr-link","prNumber":3}', 0],
    ['pr-link', '{"type":"pr-link","prNumber":3,"prUrl":"https://x/3"}', 1],
    ['unknown type with content', '{"type":"hologram","uuid":"h","content":"beam me up"}', 0],
    ['unknown flat bookkeeping', '{"type":"shiny-new-sidecar","sessionId":"s"}', 0],
    ['sidecar', '{"type":"file-history-snapshot","messageId":"m","snapshot":{}}', 0],
    ['sidecar with a later duplicate type key (last one wins)', '{"type":"file-history-snapshot","type":"assistant","uuid":"u","message":{"content":"hi"}}', 1],
    ['no type at all', '{"foo":"bar"}', 1],
    ['deeply nested', '['.repeat(5000) + ']'.repeat(5000), 1],
    // what a parser of bytes could read otherwise than JSON.parse of the text: the index must not
    ['a BOM before a record', '\ufeff{"type":"assistant","uuid":"u","message":{"content":"hi"}}', 1],
    ['two records on one line', '{"type":"assistant","uuid":"u","message":{"content":"hi"}} {"type":"assistant","uuid":"v","message":{"content":"yo"}}', 1],
    ['a record and garbage after it', '{"type":"assistant","uuid":"u","message":{"content":"hi"}}xyz', 1],
    ['a record between spaces', '  {"type":"assistant","uuid":"u","message":{"content":"hi"}}  ', 1],
    ['a record with non-ASCII text and an escaped lone surrogate', '{"type":"assistant","uuid":"u","message":{"content":"é ✓ \\ud800"}}', 1],
  ]
  for (const [name, line, n] of bad) {
    test(`${name} → ${n}, and the normalizer agrees`, () => {
      expect(agree(line)).toEqual({ count: n, drafts: n })
    })
  }
})

test('a block whose build throws is still one entry (parsed:false), so the count holds', () => {
  // JSON.parse takes 100 000 levels of nesting; JSON.stringify (the input
  // summary) overflows the stack on them. Before the plan/build split this
  // turned the whole line into one unplaced entry while its blocks counted 2.
  const deep = '['.repeat(100_000) + ']'.repeat(100_000)
  const line = `{"type":"assistant","uuid":"u","message":{"content":[{"type":"tool_use","id":"t","name":"Zap","input":{"x":${deep}}},{"type":"text","text":"hi"}]}}`
  const drafts = normalizeClaudeLine(line, 0)
  expect(countClaudeLine(line, 0)).toBe(2)
  expect(drafts.map((d) => [d.id, d.role, d.kind, d.text, d.parsed])).toEqual([
    ['u#0', 'assistant', 'message', '[unreadable block]', false],
    ['u#1', 'assistant', 'message', 'hi', true],
  ])
})

// ── fuzz: real lines, mutated ───────────────────────────────────────────────

/** Values that steer the decisions: types, wrappers, blank text, wrong shapes. */
const POOL: unknown[] = [
  null,
  true,
  0,
  7,
  -1,
  1.5,
  '',
  ' ',
  '\n\t',
  'x',
  'user',
  'assistant',
  'system',
  'attachment',
  'pr-link',
  'mode',
  'file-history-snapshot',
  'hologram',
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'server_tool_use',
  'mcp_tool_use',
  'tool_result',
  'web_search_tool_result',
  'image',
  'document',
  'queued_command',
  'local_command',
  'compact_boundary',
  'informational',
  'turn_duration',
  'away_summary',
  'Edit',
  'Write',
  'MultiEdit',
  'Bash',
  'Agent',
  'AskUserQuestion',
  'TodoWrite',
  '<task-notification>\n<task-id>a</task-id><status>completed</status>',
  '<command-name>/x</command-name>',
  '<command-message>x</command-message>',
  '<local-command-stdout></local-command-stdout>',
  '<local-command-stdout>out</local-command-stdout>',
  '<system-reminder>x',
  '<local-command-caveat>x',
  '<bash-input>ls</bash-input>',
  '<bash-stdout></bash-stdout>',
  '[Request interrupted by user]',
  'User rejected tool use',
  'Exit code 1',
  [],
  {},
  [null],
  [{ type: 'text', text: ' ' }],
  [{ type: 'text', text: 'hi' }],
  { type: 'tool_use' },
  { type: 'tool_use', id: 't', name: 'Edit' },
  { type: 'tool_result', tool_use_id: 't' },
  { type: 'image' },
  { type: 'text', text: 5 },
  [{ oldStart: 'a', lines: 3 }],
  { structuredPatch: [null] },
  { type: 'create', content: 7 },
  { stdout: 1, stderr: null },
  { interrupted: true },
  // 2.1.3x/2.1.332 decisions: queue operations, queued deliveries, TaskOutput, bookkeeping types, escapes, reminders
  'queue-operation',
  'enqueue',
  'dequeue',
  'remove',
  'queued',
  'typed',
  'api-request-blob',
  'atis-latch',
  'tools-used',
  'progress',
  '/mcp',
  '/review x',
  '/etc/x',
  '\u001b[31mred\u001b[0m',
  'out\n<system-reminder>x</system-reminder>',
  '<retrieval_status>success</retrieval_status>\n<status>completed</status>\n<exit_code>1</exit_code>\n<output>\nx\n</output>',
  { retrieval_status: 'timeout', task: { status: 'running', output: 'x'.repeat(5000), exitCode: '3' } },
  { task: null },
]

const CLAUDE: Steering = {
  pool: POOL,
  bias: 0.7,
  recordish: '"type":"user",',
  // the decisions live near the top: aim at known keys
  keys: /^(type|subtype|message|content|text|thinking|isMeta|isCompactSummary|attachment|prompt|uuid|id|name|input|tool_use_id|toolUseResult|prUrl|is_error|operation|promptSource|retrieval_status|task|output|status|exitCode)$/,
}

test('fuzz: 4000 mutated real lines, count equals drafts, drafts stay schema-valid', () => {
  const rand = rng(20261202)
  const files = corpusFiles().map((f) =>
    linesOf(f)
      .map((l) => l.line)
      .filter((l) => l.trim() !== ''),
  )
  const lines: string[] = []
  for (let i = 0; i < 4000; i++) {
    const pool = files[Math.floor(rand() * files.length)]!
    const original = pool[Math.floor(rand() * pool.length)]!
    lines.push(rand() < 0.8 ? mutateStructure(original, rand, CLAUDE) : mutateBytes(original, rand, CLAUDE))
  }
  const r = agreement(lines, countClaudeLine, normalizeClaudeLine)
  expect(r.wrong).toEqual([])
  // and the index pass, parsing each line's bytes (with the roster fold), counts as the text does
  const indexedWrong = lines.filter((l) => !l.includes('\n') && indexed(l, true) !== countClaudeLine(l, 0)).map((l) => l.slice(0, 300))
  expect(indexedWrong).toEqual([])
  // the fuzz reaches both sides of the decisions
  expect(lines.length - r.none).toBeGreaterThan(1000)
  expect(r.unplaced).toBeGreaterThan(200)
  expect(r.fromBytes).toBeGreaterThan(1000) // the page read's bytes path was compared on them too
})
