// WS /agent-transcript for Claude Code panes, end to end: the real app on port
// 0, the fake herdr, and writable copies of the real corpus sessions.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { appendFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { ADMIN, FrameQueue, WS_HANDSHAKE, claudePane, startBridge, waitFor, type Bridge } from '../../../support/harness'
import { EntrySchema } from '../../../../src/transcript/entry'
import type { FakePane } from '../../../../src/demo/fake-herdr'
import { claudeHome, claudeSessionRef, paneOn, type ClaudeHome } from '../../../support/claude-home'

const TIMING = { tailPollMs: 40, sessionPollMs: 80, rosterPollMs: 80 }

/** The real app over a fixture CLAUDE_CONFIG_DIR, herdr reporting these panes. */
const bridgeOn = (home: ClaudeHome, panes: FakePane[]) => startBridge({ homes: { claudeDir: home.dir }, timing: TIMING, state: { panes } })

async function connect(b: Bridge, query: string) {
  const q = new FrameQueue(`${b.wsBase}/agent-transcript?${query}&token=${ADMIN}`)
  await q.opened
  return q
}

describe('a long real session (cc-long, 3.8 MB)', () => {
  let b: Bridge
  let home: ClaudeHome
  beforeAll(async () => {
    home = claudeHome('cc-long')
    b = await bridgeOn(home, [paneOn(home)])
  })
  afterAll(() => b.stop())

  test('opening sequence, then paging to the start with no gap or duplicate', async () => {
    const q = await connect(b, 'pane=w1:p2')
    const hello = await q.next()
    expect(hello).toMatchObject({ type: 'hello', protocol: 5, pane: 'w1:p2', agent_kind: 'claude', session_id: home.sessions[0] })
    expect(hello.backlog_count).toBe(150)
    expect(hello.total).toBeGreaterThan(500)
    expect(hello.oldest_loaded_seq).toBe(hello.total - 149)
    expect(hello.has_more).toBe(true)
    expect(hello.has_older).toBe(true)
    expect(hello.subagents).toBeUndefined()
    const page = await q.until((f) => f.type === 'backlog_complete')
    expect(page.at(-1)).toEqual({ type: 'backlog_complete', count: 150, has_more: true })
    const entries = page.filter((f) => f.type === 'entry')
    expect(entries.map((f) => f.entry.seq)).toEqual(Array.from({ length: 150 }, (_, i) => hello.oldest_loaded_seq + i))
    expect(entries.every((f) => f.live === false)).toBe(true)

    const seen = new Map<number, string>(entries.map((f) => [f.entry.seq, f.entry.id]))
    let cursor = hello.oldest_loaded_seq
    for (let limit = 500; ; ) {
      q.send(JSON.stringify({ type: 'load_older', before_seq: cursor, limit }))
      const frames = await q.until((f) => f.type === 'page_complete')
      const pc = frames.at(-1)
      expect(pc.requested_before_seq).toBe(cursor)
      for (const f of frames.slice(0, -1)) {
        expect(f.type).toBe('entry')
        expect(f.live).toBe(false)
        expect(seen.has(f.entry.seq)).toBe(false)
        seen.set(f.entry.seq, f.entry.id)
      }
      cursor = pc.oldest_loaded_seq
      if (!pc.has_older) break
    }
    expect(cursor).toBe(1)
    expect([...seen.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: hello.total }, (_, i) => i + 1))
    expect(new Set(seen.values()).size).toBe(hello.total)
    q.close()
  })

  test('every entry of the whole session is valid against the schema', async () => {
    const q = await connect(b, 'pane=w1:p2')
    const hello = await q.next()
    await q.until((f) => f.type === 'backlog_complete')
    const all: any[] = []
    let cursor = hello.oldest_loaded_seq
    while (cursor > 1) {
      q.send(JSON.stringify({ type: 'load_older', before_seq: cursor, limit: 500 }))
      const frames = await q.until((f) => f.type === 'page_complete')
      all.push(...frames.slice(0, -1).map((f) => f.entry))
      cursor = frames.at(-1).oldest_loaded_seq
    }
    const bad = all.filter((e) => !Value.Check(EntrySchema, e))
    expect(bad).toEqual([])
    q.close()
  })

  test('a client that disconnects mid-page costs nothing: the file is released', async () => {
    // Earlier sockets of this file may still be closing: start from none held.
    await waitFor(() => b.app.decorator.jsonl.holding().heldFiles === 0, 5000, 'earlier sockets released')
    const q = await connect(b, 'pane=w1:p2')
    await q.next()
    expect(b.app.decorator.jsonl.holding().heldFiles).toBe(1)
    q.send(JSON.stringify({ type: 'load_older', before_seq: 1000, limit: 500 }))
    q.ws.close(1000)
    await q.closed
    await waitFor(() => b.app.decorator.jsonl.holding().heldFiles === 0, 5000, 'release')
    // The bridge still serves.
    const r = await b.get('/healthz', null)
    expect(r.status).toBe(200)
  })
})

describe('live tail, truncation, garbage frames (cc-bash-prompt)', () => {
  let b: Bridge
  let home: ClaudeHome
  let file: string
  const line = (uuid: string, text: string) =>
    JSON.stringify({
      parentUuid: null,
      type: 'assistant',
      uuid,
      timestamp: '2026-12-02T10:00:00.000Z',
      message: { role: 'assistant', content: [{ type: 'text', text }] },
    }) + '\n'
  beforeAll(async () => {
    home = claudeHome('cc-bash-prompt')
    file = home.file
    b = await bridgeOn(home, [paneOn(home)])
  })
  afterAll(() => b.stop())

  test('appends stream live; a line written in two halves arrives once, whole', async () => {
    const q = await connect(b, 'pane=w1:p2')
    const hello = await q.next()
    await q.until((f) => f.type === 'backlog_complete')
    appendFileSync(file, line('live-1', 'first live line'))
    const f1 = await q.next()
    expect(f1).toMatchObject({ type: 'entry', live: true, entry: { id: 'live-1#0', seq: hello.total + 1, text: 'first live line' } })
    // Keys in the order the contract shows them: id, parent_id, seq, ts, role, kind, …
    expect(Object.keys(f1.entry).slice(0, 5)).toEqual(['id', 'seq', 'ts', 'role', 'kind'])
    const whole = line('live-2', 'written in two halves ✓')
    const cut = Buffer.from(whole).subarray(0, 60)
    appendFileSync(file, cut)
    // Let the tailer see the half line at least twice; it must not emit it.
    const pumps = b.app.decorator.counters.jsonl.pumps
    await waitFor(() => b.app.decorator.counters.jsonl.pumps >= pumps + 2, 5000, 'tailer passes')
    expect(q.pending()).toBe(0)
    appendFileSync(file, Buffer.from(whole).subarray(60))
    const f2 = await q.next()
    expect(f2).toMatchObject({ type: 'entry', live: true, entry: { id: 'live-2#0', seq: hello.total + 2, text: 'written in two halves ✓' } })
    q.close()
  })

  test('a transcript truncated and rewritten replays the opening sequence', async () => {
    const q = await connect(b, 'pane=w1:p2')
    await q.until((f) => f.type === 'backlog_complete')
    truncateSync(file, 0)
    writeFileSync(file, line('new-1', 'rewritten one') + line('new-2', 'rewritten two'))
    const frames = await q.until((f) => f.type === 'backlog_complete', 8000)
    const sc = frames.findIndex((f) => f.type === 'session_changed')
    expect(sc).toBeGreaterThanOrEqual(0)
    expect(frames[sc].from).toBe(frames[sc].to)
    const hello = frames[sc + 1]
    expect(hello).toMatchObject({ type: 'hello', total: 2, backlog_count: 2, has_older: false })
    expect(frames.slice(sc + 2, -1).map((f) => f.entry.id)).toEqual(['new-1#0', 'new-2#0'])
    q.close()
  })

  test('garbage inbound frames close the socket with 1000 "unrecognized control frame"', async () => {
    const garbage: (string | Uint8Array)[] = [
      'hello',
      '42',
      '{"type":"nope"}',
      '{"type":"load_older","before_seq":"10"}',
      '{"type":"load_older","before_seq":10,"limit":-1}',
      '[1,2]',
      new Uint8Array([0, 255, 1]),
    ]
    for (const g of garbage) {
      const q = await connect(b, 'pane=w1:p2')
      await q.until((f) => f.type === 'backlog_complete')
      q.send(g)
      expect(await q.closed).toEqual({ code: 1000, reason: 'unrecognized control frame' })
    }
  })
})

describe('errors before the upgrade', () => {
  let b: Bridge
  let home: ClaudeHome
  beforeAll(async () => {
    home = claudeHome('cc-subagents')
    b = await bridgeOn(home, [
      paneOn(home),
      claudePane({ pane_id: 'w1:p3', cwd: '/nowhere', agent: { agent_session: claudeSessionRef('0f0f0f0f-aaaa-bbbb-cccc-000000000000') } }),
      { pane_id: 'w1:p4', workspace_id: 'w1', tab_id: 'w1:t1', cwd: '/x', agent: { agent: 'aider', agent_status: 'idle' } },
      { pane_id: 'w1:p5', workspace_id: 'w1', tab_id: 'w1:t1', cwd: '/x' },
    ])
  })
  afterAll(() => b.stop())

  const cases: [string, string, number, string][] = [
    ['no pane', `/agent-transcript?token=${ADMIN}`, 400, 'want ?pane=<pane_id>'],
    ['empty pane', `/agent-transcript?pane=&token=${ADMIN}`, 400, 'want ?pane=<pane_id>'],
    ['no token', `/agent-transcript?pane=w1:p2`, 401, 'unauthorized'],
    ['bad token', `/agent-transcript?pane=w1:p2&token=nope`, 401, 'unauthorized'],
    ['unknown pane', `/agent-transcript?pane=w1:p9&token=${ADMIN}`, 404, 'no such agent'],
    ['plain shell', `/agent-transcript?pane=w1:p5&token=${ADMIN}`, 404, 'no such agent'],
    ['flag-like pane', `/agent-transcript?pane=--help&token=${ADMIN}`, 404, 'no such agent'],
    ['kind without a source (aider)', `/agent-transcript?pane=w1:p4&token=${ADMIN}`, 404, 'transcript not supported for this agent kind'],
    ['traversal', `/agent-transcript?pane=w1:p2&subagent=../../x&token=${ADMIN}`, 404, 'no transcript file for pane'],
    ['absolute', `/agent-transcript?pane=w1:p2&subagent=/etc/passwd&token=${ADMIN}`, 404, 'no transcript file for pane'],
    ['encoded', `/agent-transcript?pane=w1:p2&subagent=%2e%2e%2f%2e%2e%2fx&token=${ADMIN}`, 404, 'no transcript file for pane'],
    ['unknown agent', `/agent-transcript?pane=w1:p2&subagent=agent-nope&token=${ADMIN}`, 404, 'no transcript file for pane'],
  ]
  for (const [name, path, status, body] of cases)
    test(`${name} → ${status} ${body}`, async () => {
      const r = await fetch(b.base + path, { headers: WS_HANDSHAKE })
      expect(r.status).toBe(status)
      expect(await r.text()).toBe(body)
    })

  test('herdr failing → 502 with its message', async () => {
    const s = b.state()
    b.setState({ ...s, fail: { 'agent get': { code: 'internal', message: 'kaput' } } })
    try {
      const r = await fetch(`${b.base}/agent-transcript?pane=w1:p2&token=${ADMIN}`, { headers: WS_HANDSHAKE })
      expect(r.status).toBe(502)
      expect(await r.text()).toBe('herdr agent get w1:p2: {"error":{"code":"internal","message":"kaput"},"id":"cli:agent:get"}')
    } finally {
      b.setState(s)
    }
  })

  test('an unreadable transcript is 500 read transcript failed', async () => {
    const { rmSync, symlinkSync } = await import('node:fs')
    // A symlink loop where the file should be: the read fails for a reason other than absence.
    const p = home.file
    const saved = readFileSync(p)
    rmSync(p)
    symlinkSync(p, p)
    try {
      const r = await fetch(`${b.base}/agent-transcript?pane=w1:p2&token=${ADMIN}`, { headers: WS_HANDSHAKE })
      expect(r.status).toBe(500)
      expect(await r.text()).toBe('read transcript failed')
    } finally {
      rmSync(p)
      writeFileSync(p, saved)
    }
  })

  // last: the open socket keeps the herdr watcher running, whose copy the tests above must not meet
  test('an agent with no session written yet: the socket opens, hello total 0 (docs/bridge.md, starting agents second round)', async () => {
    const q = await connect(b, 'pane=w1:p3')
    const hello = await q.next()
    expect(hello).toMatchObject({ type: 'hello', pane: 'w1:p3', session_id: '', total: 0, backlog_count: 0 })
    expect(await q.next()).toMatchObject({ type: 'backlog_complete' })
    q.close()
  })
})

describe('device revocation', () => {
  let b: Bridge | undefined
  afterEach(async () => {
    await b?.stop()
  })
  test("revoking a device closes that device's open transcript socket", async () => {
    const home = claudeHome('cc-bash-prompt')
    b = await bridgeOn(home, [paneOn(home)])
    const { code } = (await (await b.post('/pair/code', {})).json()) as any
    const dev: any = await (await b.post('/pair', { code, device_name: 'phone' }, null)).json()
    const q = new FrameQueue(`${b.wsBase}/agent-transcript?pane=w1:p2&token=${dev.token}`)
    await q.opened
    await q.until((f) => f.type === 'backlog_complete')
    const del = await fetch(`${b.base}/devices/${dev.device_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } })
    expect(del.status).toBe(200)
    expect(await q.closed).toEqual({ code: 1000, reason: 'device revoked' })
    const again = await fetch(`${b.base}/agent-transcript?pane=w1:p2&token=${dev.token}`, { headers: WS_HANDSHAKE })
    expect(again.status).toBe(401)
  })
})

describe('shutdown', () => {
  test('stopping the server closes open streams with a normal 1000', async () => {
    const home = claudeHome('cc-bash-prompt')
    const b = await bridgeOn(home, [paneOn(home, { screen: '$\n' })])
    const tx = await connect(b, 'pane=w1:p2')
    await tx.until((f) => f.type === 'backlog_complete')
    const raw = new FrameQueue(`${b.wsBase}/attach?pane=w1:p2&token=${ADMIN}`)
    await raw.opened
    await raw.next()
    await b.stop()
    expect(await tx.closed).toEqual({ code: 1000, reason: 'server shutting down' })
    expect(await raw.closed).toEqual({ code: 1000, reason: 'server shutting down' })
  })
})

describe('two apps in one process share no state', () => {
  test('a file held and indexed by one bridge is neither held nor counted by the other', async () => {
    const home = claudeHome('cc-bash-prompt')
    const a = await bridgeOn(home, [paneOn(home)])
    const other = await bridgeOn(home, [paneOn(home)])
    try {
      const q = await connect(a, 'pane=w1:p2')
      await q.until((f) => f.type === 'backlog_complete')
      expect(a.app.decorator.jsonl.holding()).toMatchObject({ heldFiles: 1 })
      expect(a.app.decorator.counters.jsonl).toMatchObject({ indexBuilds: 1 })
      expect(other.app.decorator.jsonl.holding()).toMatchObject({ heldFiles: 0, cachedFiles: 0 })
      expect(other.app.decorator.counters.jsonl).toMatchObject({ indexBuilds: 0, reads: 0 })
      // the other bridge builds its own index: nothing it serves comes from the first one's memory
      const q2 = await connect(other, 'pane=w1:p2')
      await q2.until((f) => f.type === 'backlog_complete')
      expect(other.app.decorator.jsonl.holding()).toMatchObject({ heldFiles: 1 })
      expect(other.app.decorator.counters.jsonl).toMatchObject({ indexBuilds: 1 })
      q.close()
      q2.close()
    } finally {
      await a.stop()
      await other.stop()
    }
  })

  test('each app counts on its own: what one bridge does shows in its counters only', async () => {
    const home = claudeHome('cc-subagents')
    const a = await bridgeOn(home, [paneOn(home)])
    const other = await bridgeOn(home, [paneOn(home)])
    try {
      const mine = a.app.decorator.counters
      const theirs = other.app.decorator.counters
      // no counter group is shared between the two apps
      for (const group of Object.keys(mine) as (keyof typeof mine)[]) if (mine[group]) expect(theirs[group]).not.toBe(mine[group])
      const q = await connect(a, 'pane=w1:p2')
      const hello = await q.next()
      expect(hello.subagents.length).toBeGreaterThan(0)
      await q.until((f) => f.type === 'backlog_complete')
      expect(mine.jsonl).toMatchObject({ indexBuilds: 1, reads: 1 })
      expect(mine.roster.refreshes).toBeGreaterThan(0)
      expect(theirs).toMatchObject({
        jsonl: { indexBuilds: 0, reads: 0, pumps: 0, bytesScanned: 0 },
        roster: { refreshes: 0, listings: 0, parentBytesRead: 0 },
        stream: { pauses: 0, paused: 0 },
        transcript: { maxBufferedBytes: 0 },
        indexCache: { loads: 0, saves: 0 },
      })
      q.close()
    } finally {
      await a.stop()
      await other.stop()
    }
  })
})
