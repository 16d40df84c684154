import { describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EntrySchema, type Draft } from '../../../../src/transcript/entry'
import {
  isSettledMessage,
  normalizeOpencodeLegacy,
  normalizeOpencodeMessage,
  normalizeOpencodeMessages,
  settledDrafts,
} from '../../../../src/transcript/kinds/opencode/normalize'

const FIX = join(import.meta.dir, '../../../../fixtures/opencode')
const DEMO = 'ses_dc9c81e7effeFPj4Gy4Pf06H0I'
const PERMS = 'ses_dc9c6f3f6ffeaI7KYi9o9i7LPb'
const json = (p: string) => JSON.parse(readFileSync(join(FIX, p), 'utf8'))
/** Real 1.x captures of GET /session/<id>/message. */
const legacy = (id: string) => json(`api/session-${id}-message.json`) as { info: unknown; parts: unknown[] }[]
/** The same conversations in the v2 projected shape (derived, see fixtures/opencode/derive.ts). */
const v2 = (id: string) => json(`v2/api-session-${id}-message.json`).data as unknown[]

function checkAll(drafts: Draft[]) {
  for (const d of drafts) expect(Value.Check(EntrySchema, { ...d, seq: 1 })).toBe(true)
  expect(new Set(drafts.map((d) => d.id)).size).toBe(drafts.length)
  const calls = drafts.filter((d) => d.kind === 'tool_call').map((d) => d.tool!.id)
  const results = drafts.filter((d) => d.kind === 'tool_result').map((d) => d.result!.for_id)
  expect(results.sort()).toEqual(calls.sort())
}

describe.each([DEMO, PERMS])('session %s', (id) => {
  test('1.x shape: valid, unique, paired, deterministic', () => {
    const drafts = normalizeOpencodeMessages(legacy(id))
    expect(drafts.length).toBeGreaterThan(5)
    checkAll(drafts)
    expect(normalizeOpencodeMessages(legacy(id))).toEqual(drafts)
    expect(drafts.every((d) => d.parsed)).toBe(true)
  })

  test('v2 shape tells the same conversation', () => {
    const a = normalizeOpencodeMessages(legacy(id))
    const b = normalizeOpencodeMessages(v2(id))
    checkAll(b)
    const view = (ds: Draft[]) => ds.map((d) => [d.role, d.kind, d.text, d.tool?.id, d.tool?.command, d.tool?.file, d.result])
    expect(view(b)).toEqual(view(a))
  })
})

describe('1.x details', () => {
  const drafts = normalizeOpencodeMessages(legacy(DEMO))

  test('the demo turn in order', () => {
    expect(drafts.slice(0, 8).map((d) => `${d.role}/${d.kind}`)).toEqual([
      'user/message',
      'assistant/message',
      'assistant/tool_call',
      'user/tool_result',
      'assistant/message',
      'assistant/tool_call',
      'user/tool_result',
      'assistant/message',
    ])
  })

  test('ids are <part id>#k, parent is the user message, ts ISO', () => {
    const call = drafts[2]
    expect(call.id).toBe('prt_23637eb46001rjrAVZkpoGq9qM#0')
    expect(drafts[3].id).toBe('prt_23637eb46001rjrAVZkpoGq9qM#1')
    expect(call.parent_id).toBe('msg_23637e1ab001ehbH8166RahuKu')
    expect(call.ts).toBe(new Date(1796205964121).toISOString())
    expect(call.tool).toEqual({
      id: 'toolu_mock000004',
      name: 'bash',
      title: 'bash',
      command: 'ls -la && echo listed',
      input_summary: 'ls -la && echo listed',
      subtitle: 'List project files',
    })
  })

  test('edit: preview from the input, applied metadata.diff on the result (headers dropped)', () => {
    expect(drafts[5].tool!.file).toBe('hello.txt')
    expect(drafts[5].tool!.diff).toBe('@@ -1,1 +1,1 @@\n-hello world\n+hello opencode')
    expect(drafts[6].result).toEqual({
      for_id: 'toolu_mock000007',
      ok: true,
      output_summary: 'Edit applied successfully.',
      diff: '@@ -1,1 +1,1 @@\n-hello world\n+hello opencode',
    })
  })

  test('a rejected permission is ok:false with the reason', () => {
    const d = normalizeOpencodeMessages(legacy(PERMS)).find((x) => x.result?.for_id === 'toolu_mock000007')!
    expect(d.result).toEqual({
      for_id: 'toolu_mock000007',
      ok: false,
      output_summary: 'The user rejected permission to use this specific tool call.',
    })
  })

  test('question and todowrite tools still get a card with an input summary', () => {
    const q = drafts.find((d) => d.tool?.name === 'question')!
    expect(q.tool!.input_summary).toContain('Which greeting style')
    expect(q.tool!.subtitle).toBe('Asked 1 question')
  })
})

describe('hand-made shapes the corpus lacks', () => {
  const info = { id: 'msg_1', role: 'assistant', parentID: 'msg_0', time: { created: 1000 } }
  test('reasoning with text is thinking; empty reasoning and step parts are dropped', () => {
    const d = normalizeOpencodeLegacy(info, [
      { id: 'prt_1', type: 'step-start' },
      { id: 'prt_2', type: 'reasoning', text: 'pondering', time: { start: 1100, end: 1200 } },
      { id: 'prt_3', type: 'reasoning', text: '' },
      { id: 'prt_4', type: 'text', text: 'answer' },
    ])
    expect(d.map((x) => [x.id, x.kind, x.text])).toEqual([
      ['prt_2#0', 'thinking', 'pondering'],
      ['prt_4#0', 'message', 'answer'],
    ])
  })

  test('a completed bash that exited non-zero is ok:false; an interrupted one keeps its output', () => {
    const d = normalizeOpencodeLegacy({ ...info, time: { created: 1, completed: 2 } }, [
      {
        id: 'prt_a',
        type: 'tool',
        callID: 'c1',
        tool: 'bash',
        state: { status: 'completed', input: { command: 'false' }, output: 'boom', metadata: { exit: 1 } },
      },
      {
        id: 'prt_b',
        type: 'tool',
        callID: 'c2',
        tool: 'bash',
        state: { status: 'error', input: { command: 'sleep 9' }, error: 'Tool execution aborted', metadata: { interrupted: true, output: 'partial' } },
      },
    ])
    expect(d.filter((x) => x.kind === 'tool_result').map((x) => x.result)).toEqual([
      { for_id: 'c1', ok: false, output_summary: 'boom' },
      { for_id: 'c2', ok: false, output_summary: 'Tool execution aborted\npartial' },
    ])
  })

  test('a running tool has a call and no result yet; assistant error becomes a system note', () => {
    const d = normalizeOpencodeLegacy({ ...info, error: { name: 'MessageAbortedError', data: { message: 'Aborted' } } }, [
      { id: 'prt_a', type: 'tool', callID: 'c1', tool: 'read', state: { status: 'running', input: { filePath: '/x/a.ts' } } },
    ])
    expect(d.map((x) => [x.id, x.role, x.kind, x.tool?.file ?? x.text])).toEqual([
      ['prt_a#0', 'assistant', 'tool_call', 'a.ts'],
      ['msg_1#0', 'system', 'message', 'MessageAbortedError: Aborted'],
    ])
  })

  test('v2: reasoning, files, shell, compaction, switches, structured.files patch', () => {
    const msgs = [
      { id: 'msg_u', type: 'user', time: { created: 1 }, text: 'look', files: [{ mime: 'image/png', data: 'AA', source: { type: 'inline' } }] },
      { id: 'msg_s', type: 'shell', time: { created: 2, completed: 3 }, callID: 'sh1', command: 'ls', output: 'a' },
      { id: 'msg_m', type: 'model-switched', time: { created: 4 }, model: { id: 'x', providerID: 'y' } },
      {
        id: 'msg_a',
        type: 'assistant',
        agent: 'build',
        model: { id: 'm', providerID: 'p' },
        time: { created: 5, completed: 9 },
        content: [
          { type: 'reasoning', id: 'r', text: 'hmm' },
          {
            type: 'tool',
            id: 'call_e',
            name: 'edit',
            time: { created: 6, completed: 7 },
            state: {
              status: 'completed',
              input: { path: 'src/a.ts', oldString: 'x', newString: 'y' },
              content: [{ type: 'text', text: 'ok' }],
              structured: { files: [{ file: '/r/src/a.ts', patch: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-x\n+y\n' }] },
            },
          },
        ],
      },
      { id: 'msg_c', type: 'compaction', reason: 'auto', summary: 'sum', recent: '', time: { created: 10 } },
    ]
    const d = normalizeOpencodeMessages(msgs)
    checkAll(d)
    expect(d.map((x) => [x.id, x.role, x.kind])).toEqual([
      ['msg_u#0', 'user', 'message'],
      ['msg_u#1', 'user', 'attachment'],
      ['msg_s#0', 'user', 'tool_call'],
      ['msg_s#1', 'user', 'tool_result'],
      ['msg_a#0', 'assistant', 'thinking'],
      ['msg_a#2', 'assistant', 'tool_call'],
      ['msg_a#3', 'user', 'tool_result'],
      ['msg_c#0', 'system', 'message'],
    ])
    expect(d[5].tool!.file).toBe('a.ts')
    expect(d[6].result!.diff).toBe('@@ -1 +1 @@\n-x\n+y')
    expect(d[3].ts).toBe(new Date(3).toISOString())
  })
})

describe('settledness', () => {
  const running = {
    id: 'msg_a',
    type: 'assistant',
    agent: 'b',
    model: { id: 'm', providerID: 'p' },
    time: { created: 1 },
    content: [
      { type: 'text', id: 't1', text: 'first' },
      { type: 'tool', id: 'c1', name: 'bash', time: { created: 2 }, state: { status: 'pending', input: '{"comm' } },
    ],
  }
  test('a running turn: text followed by a block is final; a pending call is not', () => {
    expect(isSettledMessage(running)).toBe(false)
    expect(settledDrafts(running).map((s) => [s.draft.id, s.settled])).toEqual([
      ['msg_a#0', true],
      ['msg_a#2', false],
    ])
  })
  test('the last text of a running turn is not final', () => {
    const m = { ...running, content: [{ type: 'text', id: 't1', text: 'streaming…' }] }
    expect(settledDrafts(m).map((s) => s.settled)).toEqual([false])
    expect(isSettledMessage({ ...m, time: { created: 1, completed: 2 } })).toBe(true)
  })
  test('1.x: an assistant without time.completed is unsettled; users are always settled', () => {
    expect(isSettledMessage({ info: { id: 'm', role: 'assistant', time: { created: 1 } }, parts: [] })).toBe(false)
    expect(isSettledMessage({ info: { id: 'm', role: 'user', time: { created: 1 } }, parts: [] })).toBe(true)
  })
})

describe('bad input never throws', () => {
  const garbage: unknown[] = [null, 42, 'str', [], {}, { id: 5 }, { id: 'msg_x', type: 'wizard' }, { id: 'msg_y', type: 'assistant', content: 'nope' }]
  test.each(garbage.map((g) => [JSON.stringify(g), g]))('v2 %s', (_n, g) => {
    const d = normalizeOpencodeMessage(g)
    for (const x of d) expect(Value.Check(EntrySchema, { ...x, seq: 1 })).toBe(true)
  })
  test('unknown v2 types and id-less messages pass through as parsed:false', () => {
    expect(normalizeOpencodeMessage({ id: 'msg_x', type: 'wizard', time: { created: 1 } })[0]).toMatchObject({ id: 'msg_x#0', parsed: false, role: 'system' })
    expect(normalizeOpencodeMessage(42)[0].parsed).toBe(false)
  })
  test.each(garbage.map((g) => [JSON.stringify(g), g]))('1.x info %s', (_n, g) => {
    const d = normalizeOpencodeLegacy(g, [null, 3, { id: 'prt_z', type: 'tool' }, { type: 'text', text: 'no id' }])
    for (const x of d) expect(Value.Check(EntrySchema, { ...x, seq: 1 })).toBe(true)
  })
  test('odd parts in a valid message are skipped', () => {
    const d = normalizeOpencodeLegacy({ id: 'msg_1', role: 'user', time: { created: 'x' } }, [
      null,
      'text',
      { id: 'prt_1', type: 'text', text: 'hi' },
      { id: 'prt_2', type: 'tool', state: 'broken' },
    ])
    expect(d.map((x) => [x.id, x.kind])).toEqual([
      ['prt_1#0', 'message'],
      ['prt_2#0', 'tool_call'],
    ])
    expect(d[0].ts).toBeUndefined()
  })
})
