import { expect, test } from 'bun:test'
import {
  emptyTranscript,
  forReconnect,
  MAX_GAP_FILL,
  mergeEntries,
  olderRequest,
  reduce,
  resultsByCall,
  type Entry,
  type TranscriptState,
} from '../src/transcript-state'

const e = (seq: number, over: Partial<Entry> = {}): Entry => ({
  id: `u${seq}#0`,
  seq,
  role: 'assistant',
  kind: 'message',
  text: `m${seq}`,
  parsed: true,
  ...over,
})
const hello = (over: Record<string, unknown> = {}) => ({
  type: 'hello',
  protocol: 5,
  pane: 'w1:p1',
  agent_kind: 'claude',
  session_id: 'S1',
  backlog_count: 3,
  total: 10,
  has_more: true,
  oldest_loaded_seq: 8,
  has_older: true,
  ...over,
})

function run(frames: any[], s: TranscriptState = emptyTranscript()) {
  const requests: any[] = []
  for (const f of frames) {
    const r = reduce(s, f)
    s = r.state
    if (r.request) requests.push(r.request)
  }
  return { s, requests }
}

test('opening sequence: newest page in seq order, then the cursor for the page above', () => {
  const { s } = run([
    hello(),
    { type: 'entry', live: false, entry: e(8) },
    { type: 'entry', live: false, entry: e(9) },
    { type: 'entry', live: false, entry: e(10) },
    { type: 'backlog_complete', count: 3, has_more: true },
  ])
  expect(s.entries.map((x) => x.seq)).toEqual([8, 9, 10])
  expect(s.backlogDone).toBe(true)
  expect(olderRequest(s)).toEqual({ type: 'load_older', before_seq: 8, limit: 150 })
})

test('an older page goes above, out-of-order and duplicate seqs settle to one entry each', () => {
  let { s } = run([hello(), { type: 'entry', entry: e(8) }, { type: 'entry', entry: e(9) }, { type: 'entry', entry: e(10) }, { type: 'backlog_complete' }])
  s = { ...s, pendingOlder: 8 }
  ;({ s } = run(
    [
      { type: 'entry', live: true, entry: e(11) },
      { type: 'entry', entry: e(5) },
      { type: 'entry', entry: e(6) },
      { type: 'entry', entry: e(7) },
      { type: 'entry', entry: e(9, { text: 'again' }) },
      { type: 'page_complete', requested_before_seq: 8, oldest_loaded_seq: 5, has_older: true },
    ],
    s,
  ))
  expect(s.entries.map((x) => x.seq)).toEqual([5, 6, 7, 8, 9, 10, 11])
  expect(s.entries.find((x) => x.seq === 9)!.text).toBe('again')
  expect(s.pendingOlder).toBeNull()
  expect(olderRequest(s)!.before_seq).toBe(5)
  ;({ s } = run([{ type: 'page_complete', requested_before_seq: 5, oldest_loaded_seq: 0, has_older: false }], { ...s, pendingOlder: 5 }))
  expect(olderRequest(s)).toBeNull()
})

test('one request in flight at a time, none before the backlog is complete', () => {
  const { s } = run([hello()])
  expect(olderRequest(s)).toBeNull()
  const done = run([{ type: 'entry', entry: e(8) }, { type: 'backlog_complete' }], s).s
  expect(olderRequest({ ...done, pendingOlder: 8 })).toBeNull()
})

test('session_changed drops everything: seq restarts at 1', () => {
  const { s } = run([
    hello(),
    { type: 'entry', entry: e(8) },
    { type: 'backlog_complete' },
    { type: 'session_changed', from: 'S1', to: 'S2' },
    hello({ session_id: 'S2', total: 1, oldest_loaded_seq: 1, has_older: false }),
    { type: 'entry', entry: e(1, { text: 'new' }) },
    { type: 'backlog_complete' },
  ])
  expect(s.sessionId).toBe('S2')
  expect(s.entries.map((x) => [x.seq, x.text])).toEqual([[1, 'new']])
})

test('a reconnect onto another session (no session_changed was seen) also resets', () => {
  const first = run([hello(), { type: 'entry', entry: e(8) }, { type: 'backlog_complete' }]).s
  const { s } = run(
    [hello({ session_id: 'S2', oldest_loaded_seq: 1, has_older: false }), { type: 'entry', entry: e(1, { text: 'other' }) }, { type: 'backlog_complete' }],
    forReconnect(first),
  )
  expect(s.entries.map((x) => x.text)).toEqual(['other'])
})

test('a reconnect to the same session fills the gap between what was held and the new page', () => {
  const held = run([hello(), ...[8, 9, 10].map((n) => ({ type: 'entry', entry: e(n) })), { type: 'backlog_complete' }]).s
  // Reconnected: 14 entries were written meanwhile, the newest page is 22..24.
  const { s, requests } = run(
    [hello({ total: 24, oldest_loaded_seq: 22 }), ...[22, 23, 24].map((n) => ({ type: 'entry', entry: e(n) })), { type: 'backlog_complete' }],
    forReconnect(held),
  )
  expect(requests).toEqual([{ type: 'load_older', before_seq: 22, limit: 11 }])
  expect(s.oldest).toBe(8)
  const filled = run(
    [
      ...[11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21].map((n) => ({ type: 'entry', entry: e(n) })),
      { type: 'page_complete', requested_before_seq: 22, oldest_loaded_seq: 11, has_older: true },
    ],
    s,
  )
  expect(filled.requests).toEqual([])
  expect(filled.s.entries.map((x) => x.seq)).toEqual(Array.from({ length: 17 }, (_, i) => i + 8))
  expect(olderRequest(filled.s)!.before_seq).toBe(8)
})

test('a gap too wide to page through drops the old entries instead', () => {
  const held = run([hello(), { type: 'entry', entry: e(8) }, { type: 'backlog_complete' }]).s
  const top = 8 + MAX_GAP_FILL + 10
  const { s, requests } = run(
    [hello({ total: top, oldest_loaded_seq: top }), { type: 'entry', entry: e(top) }, { type: 'backlog_complete' }],
    forReconnect(held),
  )
  expect(requests).toEqual([])
  expect(s.entries.map((x) => x.seq)).toEqual([top])
  expect(olderRequest(s)!.before_seq).toBe(top)
})

test('garbage frames change nothing', () => {
  const s0 = run([hello()]).s
  for (const f of [null, 42, 'x', {}, { type: 'entry' }, { type: 'entry', entry: { seq: 'x' } }, { type: 'nope' }]) expect(reduce(s0, f).state).toBe(s0)
})

test('roster frames replace the roster wholesale', () => {
  const { s } = run([
    hello({ subagents: [{ agent_id: 'a1', done: false }] }),
    {
      type: 'subagents',
      subagents: [
        { agent_id: 'a1', done: true },
        { agent_id: 'a2', done: false },
      ],
    },
  ])
  expect(s.subagents.map((x) => [x.agent_id, x.done])).toEqual([
    ['a1', true],
    ['a2', false],
  ])
  expect(run([{ type: 'subagents', subagents: [] }], s).s.subagents).toEqual([])
})

test('results pair with their calls by tool id', () => {
  const call = e(1, { kind: 'tool_call', tool: { id: 't1', name: 'Bash' } })
  const res = e(2, { kind: 'tool_result', role: 'user', result: { for_id: 't1', ok: false } })
  expect(resultsByCall([call, res]).get('t1')).toBe(res)
  expect(mergeEntries([call], [])).toEqual([call])
})

test('a command aborted by an interrupt stays failed when its process reports later (codex-interrupt rollout)', () => {
  const call = e(1, { kind: 'tool_call', tool: { id: 'call_mock000010', name: 'exec_command' } })
  const aborted = e(2, { kind: 'tool_result', role: 'user', result: { for_id: 'call_mock000010', ok: false, output_summary: 'aborted by user' } })
  const late = e(9, { kind: 'tool_result', role: 'user', result: { for_id: 'call_mock000010', ok: true, output_summary: 'job-done' } })
  expect(resultsByCall([call, aborted, late]).get('call_mock000010')?.result).toEqual({ for_id: 'call_mock000010', ok: false, output_summary: 'job-done' })
  // a single result is what it says
  expect(resultsByCall([call, late]).get('call_mock000010')).toBe(late)
})
