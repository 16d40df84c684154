// opencode panes through the real app and the fake herdr: WS /agent-transcript
// served from a REAL loopback opencode service (service.json under a temp
// XDG_STATE_HOME), and from opencode's SQLite store when the service is down.
import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { EntrySchema } from '../../../../src/transcript/entry'
import { normalizeOpencodeMessages } from '../../../../src/transcript/kinds/opencode/normalize'
import { startBridge, waitFor, type Bridge, type FrameQueue } from '../../../support/harness'
import {
  agentPane,
  connect,
  expectContiguous,
  FAST,
  pageToStart,
  readOpening,
  setSession,
  upgradeStatus,
  expectAwaiting,
} from '../../../support/transcript-socket'
import { startFakeOpencode, type FakeOpencodeService } from '../../../support/opencode-service'

const FIX = join(import.meta.dir, '../../../../fixtures/opencode')
const DEMO = 'ses_dc9c81e7effeFPj4Gy4Pf06H0I'
const PERMS = 'ses_dc9c6f3f6ffeaI7KYi9o9i7LPb'
const CWD = '/home/me/oc/proj'
const PANE = 'w1:p2'
const json = (p: string) => JSON.parse(readFileSync(join(FIX, p), 'utf8'))
const SESSIONS: any[] = json('api/api-session-list.json').data
const V2: Record<string, any[]> = {
  [DEMO]: json(`v2/api-session-${DEMO}-message.json`).data,
  [PERMS]: json(`v2/api-session-${PERMS}-message.json`).data,
}
const DEMO_TOTAL = normalizeOpencodeMessages(V2[DEMO]).length
const PERMS_TOTAL = normalizeOpencodeMessages(V2[PERMS]).length

const root = mkdtempSync(join(tmpdir(), 'oc-src-'))
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const f of cleanups.splice(0).reverse()) await f()
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

interface Setup {
  b: Bridge
  svc?: FakeOpencodeService
  dataHome: string
  stateHome: string
}

/** A bridge whose opencode service (if any) is real and registered, with an optional copy of the real store. */
async function setup(
  o: { service?: 'up' | 'down' | 'none'; store?: boolean | 'json'; pane?: ReturnType<typeof agentPane>; messages?: Record<string, any[]> } = {},
): Promise<Setup> {
  const dir = mkdtempSync(join(root, 'case-'))
  const stateHome = join(dir, 'state')
  const dataHome = join(dir, 'data')
  if (o.store) cpSync(join(FIX, o.store === 'json' ? 'legacy-json' : 'data'), dataHome, { recursive: true })
  let svc: FakeOpencodeService | undefined
  if ((o.service ?? 'up') !== 'none') {
    svc = startFakeOpencode({ sessions: structuredClone(SESSIONS), messages: structuredClone(o.messages ?? V2) })
    svc.register(stateHome)
    if (o.service === 'down')
      await svc.stop() // service.json left behind, nobody listening
    else cleanups.push(() => svc!.stop())
  }
  const b = await startBridge({
    state: { panes: [o.pane ?? agentPane('opencode', CWD, { kind: 'id', value: DEMO })] },
    homes: { xdgStateHome: stateHome, xdgDataHome: dataHome },
    timing: FAST,
  })
  cleanups.push(() => b.stop())
  return { b, svc, dataHome, stateHome }
}

async function open(b: Bridge, extra = ''): Promise<FrameQueue> {
  const q = await connect(b, PANE, extra)
  cleanups.push(() => q.close())
  return q
}

/** DEMO's messages cloned `copies` times with fresh ids: a long session. */
function longDemo(copies: number): any[] {
  const out: any[] = []
  for (let k = 0; k < copies; k++) for (const m of V2[DEMO]) out.push({ ...structuredClone(m), id: `${m.id}_${String(k).padStart(3, '0')}` })
  return out
}

describe('opencode via the service', () => {
  test('opening sequence: hello, every entry oldest first, backlog_complete', async () => {
    const { b, svc } = await setup()
    const q = await open(b)
    const { hello, entries, complete } = await readOpening(q)
    expect(hello).toMatchObject({ pane: PANE, agent_kind: 'opencode', session_id: DEMO, total: DEMO_TOTAL, backlog_count: DEMO_TOTAL, has_older: false })
    expect('subagents' in hello).toBe(false)
    expect(complete).toEqual({ type: 'backlog_complete', count: DEMO_TOTAL, has_more: false })
    expectContiguous(
      entries.map((e) => e.seq),
      DEMO_TOTAL,
    )
    for (const e of entries) expect(Value.Check(EntrySchema, e)).toBe(true)
    expect(entries[0]).toMatchObject({ role: 'user', kind: 'message', id: 'msg_23637e1ab001ehbH8166RahuKu#0' })
    const call = entries.find((e) => e.kind === 'tool_call' && e.tool.id === 'toolu_mock000004')
    expect(call.tool).toMatchObject({ name: 'bash', command: 'ls -la && echo listed', subtitle: 'List project files' })
    expect(entries.find((e) => e.kind === 'tool_result' && e.result.for_id === 'toolu_mock000004').result.ok).toBe(true)
    // It authenticated, and asked for this session by id.
    expect(svc!.seen).toContain(`/api/session/${DEMO}`)
  })

  test('a long session: newest 150, then load_older to the start, no gap, no duplicate', async () => {
    const long = longDemo(25)
    const total = normalizeOpencodeMessages(long).length
    expect(total).toBeGreaterThan(300)
    const { b } = await setup({ messages: { [DEMO]: long, [PERMS]: V2[PERMS] } })
    const q = await open(b)
    const { hello, entries } = await readOpening(q)
    expect(hello).toMatchObject({ total, backlog_count: 150, has_older: true, oldest_loaded_seq: total - 149 })
    const older = await pageToStart(q, hello.oldest_loaded_seq, 500)
    const all = [...older, ...entries].sort((x, y) => x.seq - y.seq)
    expectContiguous(
      all.map((e) => e.seq),
      total,
    )
    expect(new Set(all.map((e) => e.id)).size).toBe(total)
  })

  test('live: a new message streams; a message still being written streams only once complete', async () => {
    const { b, svc } = await setup()
    const q = await open(b)
    await readOpening(q)
    const msgs = svc!.messages.get(DEMO)!
    msgs.push({ id: 'msg_zz01', type: 'user', text: 'and now?', time: { created: 1796206200000 } })
    expect(await q.next()).toMatchObject({ type: 'entry', live: true, entry: { seq: DEMO_TOTAL + 1, id: 'msg_zz01#0', role: 'user', text: 'and now?' } })
    // The model starts answering: a half-written text block, no time.completed.
    const turn: any = {
      id: 'msg_zz02',
      type: 'assistant',
      agent: 'build',
      model: { id: 'm', providerID: 'p' },
      time: { created: 1796206200100 },
      content: [{ type: 'text', id: 'prt_a', text: 'Look' }],
    }
    msgs.push(turn)
    await svc!.afterMessageReads(DEMO, 3) // the bridge has polled the half-written turn (at least twice)
    turn.content[0].text = 'Looking at it now.'
    turn.content.push({
      type: 'tool',
      id: 'call_9',
      name: 'bash',
      state: { status: 'completed', input: { command: 'true' }, content: [{ type: 'text', text: '' }], structured: { exit: 0 } },
      time: { created: 1, completed: 2 },
    })
    turn.time.completed = 1796206201000
    // The first thing after the user prompt is the FINAL text (the partial one was never sent).
    const text = await q.next()
    expect(text.entry).toMatchObject({ seq: DEMO_TOTAL + 2, id: 'msg_zz02#0', text: 'Looking at it now.' })
    const call = await q.next()
    const result = await q.next()
    expect([call.entry.seq, call.entry.kind, call.entry.tool.id]).toEqual([DEMO_TOTAL + 3, 'tool_call', 'call_9'])
    expect([result.entry.seq, result.entry.kind, result.entry.result.for_id]).toEqual([DEMO_TOTAL + 4, 'tool_result', 'call_9'])
  })

  test('the service restarts on another port: the tail follows service.json', async () => {
    const { b, svc, stateHome } = await setup()
    const q = await open(b)
    await readOpening(q)
    await svc!.stop()
    const again = startFakeOpencode({ sessions: structuredClone(SESSIONS), messages: { [DEMO]: structuredClone(svc!.messages.get(DEMO)!) } })
    cleanups.push(() => again.stop())
    again.messages.get(DEMO)!.push({ id: 'msg_zz10', type: 'user', text: 'after the restart', time: { created: 1796206400000 } })
    again.register(stateHome)
    expect(await q.next()).toMatchObject({ type: 'entry', live: true, entry: { seq: DEMO_TOTAL + 1, text: 'after the restart' } })
  })

  test('history rewritten (revert): the cache is rebuilt and the opening sequence replayed', async () => {
    const { b, svc } = await setup()
    const q = await open(b)
    await readOpening(q)
    // Undo the last turn: its messages disappear from the service.
    const msgs = svc!.messages.get(DEMO)!
    msgs.splice(msgs.length - 4)
    const reset = await q.next()
    expect(reset).toEqual({ type: 'session_changed', pane: PANE, from: DEMO, to: DEMO })
    const { hello, entries } = await readOpening(q)
    const total = normalizeOpencodeMessages(msgs).length
    expect(total).toBeLessThan(DEMO_TOTAL)
    expect([hello.session_id, hello.total]).toEqual([DEMO, total])
    expectContiguous(
      entries.map((e) => e.seq),
      total,
    )
  })

  test('rotation: herdr reports another session → session_changed, then its hello and backlog', async () => {
    const { b } = await setup()
    const q = await open(b)
    await readOpening(q)
    setSession(b, PANE, { kind: 'id', value: PERMS }, 'opencode')
    expect(await q.next()).toEqual({ type: 'session_changed', pane: PANE, from: DEMO, to: PERMS })
    const { hello, entries } = await readOpening(q)
    expect([hello.session_id, hello.total, entries.length]).toEqual([PERMS, PERMS_TOTAL, PERMS_TOTAL])
  })

  test('no session reported: the newest top-level session of the cwd (a newer child session is not it)', async () => {
    const { b, svc } = await setup({ pane: agentPane('opencode', CWD) })
    svc!.sessions.push({ ...structuredClone(SESSIONS[1]), id: 'ses_child', parentID: PERMS, time: { created: 1, updated: 9e12 } })
    svc!.sessions.push({ ...structuredClone(SESSIONS[1]), id: 'ses_elsewhere', location: { directory: '/other' }, time: { created: 1, updated: 9e12 } })
    const q = await open(b)
    expect((await readOpening(q)).hello.session_id).toBe(PERMS)
  })

  test('a reported id the service does not know (stale) reads like none: the newest session of the cwd', async () => {
    const { b } = await setup({ pane: agentPane('opencode', CWD, { kind: 'id', value: 'ses_gone' }) })
    const q = await open(b)
    expect((await readOpening(q)).hello.session_id).toBe(PERMS)
  })

  test('two sockets share one timeline; the poll stops when the last closes', async () => {
    const { b } = await setup()
    const before = { ...b.app.decorator.opencode.holding(), ...b.app.decorator.counters.opencode }
    const q1 = await open(b)
    const q2 = await open(b)
    const [o1, o2] = await Promise.all([readOpening(q1), readOpening(q2)])
    expect(o1.entries).toEqual(o2.entries)
    expect(b.app.decorator.opencode.holding().heldSessions).toBe(before.heldSessions + 1)
    expect(b.app.decorator.counters.opencode.activePollers).toBe(before.activePollers + 1)
    q1.close()
    q2.close()
    await Promise.all([q1.closed, q2.closed])
    await waitFor(() => b.app.decorator.counters.opencode.activePollers === before.activePollers, 3000, 'poller stopped')
  })

  test("a session of another directory is not this pane's transcript: the socket opens empty", async () => {
    const { b } = await setup({ pane: agentPane('opencode', '/home/me/other', { kind: 'id', value: DEMO }) })
    await expectAwaiting(b, PANE)
  })

  test('?subagent= on an opencode pane: 404 (no roster)', async () => {
    const { b } = await setup()
    expect(await upgradeStatus(b, PANE, '&subagent=ses_child')).toEqual({ status: 404, body: 'no transcript file for pane' })
  })

  test('the service answers 500 on the session read: 500 read transcript failed', async () => {
    const { b, svc } = await setup({ store: true })
    svc!.failMessages = true
    expect(await upgradeStatus(b, PANE)).toEqual({ status: 500, body: 'read transcript failed' })
  })
})

describe('opencode via the store (service unreachable)', () => {
  test('service.json left by a stopped service: the SQLite store serves the same session', async () => {
    const { b } = await setup({ service: 'down', store: true })
    const q = await open(b)
    const { hello, entries } = await readOpening(q)
    expect([hello.agent_kind, hello.session_id]).toEqual(['opencode', DEMO])
    expect(hello.total).toBeGreaterThan(5)
    expectContiguous(
      entries.map((e) => e.seq),
      hello.total,
    )
    expect(entries[0]).toMatchObject({ role: 'user', kind: 'message' })
  })

  test('no service at all: the store, and its tail picks up rows opencode commits', async () => {
    const { b, dataHome } = await setup({ service: 'none', store: true })
    const q = await open(b)
    const { hello } = await readOpening(q)
    // Nothing committed: polls are answered by SQLite's data_version alone.
    const skipped = b.app.decorator.counters.opencode.skipped
    await waitFor(() => b.app.decorator.counters.opencode.skipped >= skipped + 2, 3000, 'skipped polls')
    const w = new Database(join(dataHome, 'opencode/opencode.db'))
    cleanups.push(() => w.close())
    w.run('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)', [
      'msg_zzzz_live',
      DEMO,
      1796206300000,
      1796206300000,
      JSON.stringify({ role: 'user', time: { created: 1796206300000 } }),
    ])
    w.run('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)', [
      'prt_zzzz_live',
      'msg_zzzz_live',
      DEMO,
      1796206300001,
      1796206300001,
      JSON.stringify({ type: 'text', text: 'typed while the service was down' }),
    ])
    const live = await q.next()
    expect(live).toMatchObject({ type: 'entry', live: true, entry: { seq: hello.total + 1, role: 'user', text: 'typed while the service was down' } })
  })

  test('an older install with only the legacy JSON storage', async () => {
    const { b } = await setup({ service: 'none', store: 'json' })
    const q = await open(b)
    const { hello, entries } = await readOpening(q)
    expect([hello.session_id, hello.total]).toEqual([DEMO, DEMO_TOTAL])
    expect(entries.map((e) => e.kind)).toEqual(normalizeOpencodeMessages(V2[DEMO]).map((d) => d.kind))
  })

  test('no service and no store (nothing written yet): the socket opens empty', async () => {
    const { b } = await setup({ service: 'down', store: false })
    await expectAwaiting(b, PANE)
  })

  test('the store checks the cwd too', async () => {
    const { b } = await setup({ service: 'none', store: true, pane: agentPane('opencode', '/home/me/other', { kind: 'id', value: DEMO }) })
    await expectAwaiting(b, PANE)
  })
})
