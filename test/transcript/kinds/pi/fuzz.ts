// Seeded line fuzz for pi's normalizer: real pi lines (fixtures/pi) plus the
// record shapes the corpus does not show (docs/reference/pi-opencode-codex.md), mutated where the
// normalizer decides things. Deterministic: the same seed gives the same lines,
// so a snapshot of their drafts can be compared across refactors.
import { join } from 'node:path'
import { jsonlFiles, linesOf, mutatedLines, type Steering } from '../../../support/fuzz'

export const FIX = join(import.meta.dir, '../../../../fixtures/pi')

/** The kind's corpus: every .jsonl under fixtures/pi. */
export const piCorpusFiles = (): string[] => jsonlFiles(FIX)

/** Record shapes pi writes that the corpus sessions do not contain (docs/reference/pi-opencode-codex.md). */
export const SHAPE_SEEDS: string[] = [
  { type: 'compaction', id: 'c1', parentId: 'p', timestamp: '2026-12-02T10:04:19.969Z', summary: '# Checkpoint\nkept', firstKeptEntryId: 'x', tokensBefore: 1 },
  { type: 'branch_summary', id: 'b1', parentId: 'p', timestamp: '2026-12-02T10:04:19.969Z', fromId: 'root', summary: 'went elsewhere' },
  {
    type: 'custom_message',
    id: 'cm',
    parentId: 'p',
    customType: 'x',
    content: [
      { type: 'text', text: 'shown' },
      { type: 'image', data: 'AA' },
    ],
    display: true,
  },
  { type: 'custom_message', id: 'cm2', customType: 'x', content: 'hidden', display: false },
  {
    type: 'message',
    id: 'be',
    parentId: 'p',
    timestamp: 1796205863897,
    message: { role: 'bashExecution', command: 'ls -la', output: 'a\nb', exitCode: 2, cancelled: false, truncated: true },
  },
  { type: 'message', id: 'be2', message: { role: 'bashExecution', command: 'sleep 9' } },
  { type: 'message', id: 'cu', message: { role: 'custom', customType: 'x', content: 'ext says hi', display: true } },
  { type: 'message', id: 'hm', message: { role: 'hookMessage', content: [{ type: 'text', text: 'hook' }], display: false } },
  { type: 'message', id: 'ab', message: { role: 'assistant', content: [{ type: 'text', text: 'partial' }], stopReason: 'aborted' } },
  { type: 'message', id: 'er', message: { role: 'assistant', content: [], stopReason: 'error', errorMessage: 'overloaded' } },
  {
    type: 'message',
    id: 'im',
    message: {
      role: 'user',
      content: [
        { type: 'text', text: 'see' },
        { type: 'image', data: 'AA', mimeType: 'image/png' },
      ],
    },
  },
  { type: 'message', id: 'us', message: { role: 'user', content: 'plain string prompt', timestamp: 1796205863897 } },
  {
    type: 'message',
    id: 'ed',
    message: {
      role: 'assistant',
      content: [
        { type: 'toolCall', id: 't1', name: 'edit', arguments: { path: '/p/a.ts', oldText: 'a\nb\nc', newText: 'a\nB\nc' } },
        { type: 'toolCall', id: 't2', name: 'grep', arguments: { pattern: 'x', path: 'src/' } },
        { type: 'toolCall', id: 't3', name: 'mcp_thing', arguments: { q: 1 } },
      ],
    },
  },
  {
    type: 'message',
    id: 'tr',
    message: {
      role: 'toolResult',
      toolCallId: 't1',
      content: [{ type: 'text', text: 'ok' }],
      details: { patch: '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n', diff: '-1 a\n+1 b' },
      isError: false,
    },
  },
  {
    type: 'message',
    id: 'tr2',
    message: { role: 'toolResult', toolCallId: 't1', content: 'ok', details: { diff: ' 1 a\n-2 b\n+2 B\n   ...\n 9 z' }, isError: false },
  },
  { type: 'label', id: 'l1', targetId: 'x', label: 'mark' },
  { type: 'session_info', id: 's1', name: 'named' },
].map((r) => JSON.stringify(r))

/** Values that steer pi's decisions: types, roles, blank text, wrong shapes. */
const POOL: unknown[] = [
  null,
  true,
  false,
  0,
  7,
  -1,
  1.5,
  '',
  ' ',
  '\n\t',
  'x',
  'message',
  'session',
  'model_change',
  'custom',
  'label',
  'compaction',
  'branch_summary',
  'custom_message',
  'hologram',
  'user',
  'assistant',
  'toolResult',
  'bashExecution',
  'hookMessage',
  'wizard',
  'text',
  'thinking',
  'toolCall',
  'image',
  'bash',
  'edit',
  'write',
  'read',
  'ls',
  'error',
  'aborted',
  'stop',
  '2026-12-02T10:04:19.969Z',
  'not a date',
  1796205863897,
  '/a/b/c.ts',
  '/',
  'Status: draft',
  'a\nb\n',
  ' 1 a\n-2 b\n+2 c',
  '+x y',
  '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b',
  [],
  {},
  [null],
  [{ type: 'text', text: ' ' }],
  [{ type: 'text', text: 'hi' }],
  [{ type: 'image' }],
  { type: 'toolCall' },
  { type: 'toolCall', id: 't', name: 'edit' },
  { type: 'text', text: 5 },
  { oldText: 'a', newText: 'b' },
  [{ oldText: 'a', newText: 'a' }, 3],
  { role: 'user', content: 'x' },
  { command: 1 },
  { path: 7, file_path: 'q/r' },
]

const PI: Steering = {
  pool: POOL,
  bias: 0.75,
  recordish: '"type":"message",',
  keys: /^(type|id|parentId|timestamp|message|role|content|text|thinking|name|arguments|path|file_path|command|edits|oldText|newText|stopReason|errorMessage|toolCallId|isError|details|diff|patch|output|exitCode|cancelled|truncated|display|summary)$/,
}

/** `n` mutated lines drawn from the corpus and the shape seeds. */
export const fuzzLines = (n: number, seed: number): string[] =>
  mutatedLines([...piCorpusFiles().flatMap((f) => linesOf(f).map((l) => l.line)), ...SHAPE_SEEDS], PI, n, seed)

/** Inputs a reader must survive: torn, not JSON, not objects, wrong shapes. */
export const BAD_LINES: string[] = [
  '',
  '   \t\r ',
  '{"type":"message","id":"x"',
  'not json at all',
  '\u0000\u0001\u00ff\ufffd binary',
  '42',
  '"message"',
  '[1,2]',
  'null',
  '{"no":"type"}',
  '{"type":7}',
  '{"type":"message","id":"abc","message":{"role":"wizard"}}',
  '{"type":"message","id":"abc","message":"string"}',
  '{"type":"something_new","id":"n1"}',
  '{"type":"message","id":"abc","message":{"role":"assistant","content":"not an array"}}',
  '{"type":"message","id":"abc","message":{"role":"user","content":7}}',
  '{"type":"compaction","id":"c"}',
  '{"type":"branch_summary","id":"c","summary":3}',
  '{"type":"custom_message","id":"c","content":[]}',
  '{"type":"message","message":{"role":"toolResult"}}',
  '{"type":"message","message":{"role":"bashExecution","cancelled":true}}',
  '{"type":"session","type":"message","id":"dup","message":{"role":"user","content":"last key wins"}}',
  '['.repeat(5000) + ']'.repeat(5000),
]
