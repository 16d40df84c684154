// WS /agent-transcript?session=KIND:ID (docs/bridge.md, "Every past conversation"):
// a session no pane shows, by its GET /sessions row, with the same entries as a pane
// socket on it (every kind's corpus session), ?around= and load_newer, the live tail
// once caught up, and the bad ids that never open anything.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { appendFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ADMIN, FrameQueue, startBridge, waitFor, WS_HANDSHAKE, type Bridge } from '../support/harness'
import { agentPane, connect, FAST, pageToStart, readOpening } from '../support/transcript-socket'
import { historyHome, piUserLine, type HistoryHome } from '../support/history-home'

let b: Bridge
let h: HistoryHome
let opencodeId = ''
const BIG_ID = '01a30000-0000-7000-8000-000000000001'
let bigFile = ''

beforeAll(async () => {
  h = historyHome()
  bigFile = join(dirname(h.files.pi), `2026-12-03T00-00-00-000Z_${BIG_ID}.jsonl`)
  let text = `${JSON.stringify({ type: 'session', version: 3, id: BIG_ID, timestamp: '2026-12-03T00:00:00.000Z', cwd: h.dirs.pi })}\n`
  for (let i = 1; i <= 400; i++) text += piUserLine(i, `message number ${i}`)
  writeFileSync(bigFile, text)
  b = await startBridge({ homes: h.homes, deps: { projectRoots: [h.home] }, timing: FAST })
  const { sessions } = (await b.json('/sessions?kind=opencode')) as { sessions: { session_id: string; title: string }[] }
  opencodeId = sessions.find((s) => s.title === 'Opencode demo')!.session_id
})
afterAll(() => b?.stop())

const sessionUrl = (ref: string, extra = '') => `${b.wsBase}/agent-transcript?session=${encodeURIComponent(ref)}&token=${ADMIN}${extra}`
async function openSession(ref: string, extra = ''): Promise<FrameQueue> {
  const q = new FrameQueue(sessionUrl(ref, extra))
  await q.opened
  return q
}
async function upgrade(query: string): Promise<{ status: number; body: string }> {
  const r = await fetch(`${b.base}/agent-transcript?${query}`, { headers: { ...WS_HANDSHAKE, authorization: `Bearer ${ADMIN}` } })
  return { status: r.status, body: await r.text() }
}

/** Every entry of a socket's session: its opening page, then paged up to the start. */
async function allEntries(q: FrameQueue): Promise<any[]> {
  const o = await readOpening(q)
  const older = o.hello.has_older ? await pageToStart(q, o.hello.oldest_loaded_seq) : []
  return [...older, ...o.entries]
}

describe('a session socket', () => {
  test('gives the same entries as a pane socket on that session, for all four kinds', async () => {
    const cases = [
      ['claude', h.dirs.claude, { kind: 'id' as const, value: h.ids.claude }, h.ids.claude],
      ['pi', h.dirs.pi, { kind: 'path' as const, value: h.files.pi }, h.ids.pi],
      ['codex', h.dirs.codex, { kind: 'id' as const, value: h.ids.codex[0]! }, h.ids.codex[0]!],
      ['opencode', h.dirs.opencode, { kind: 'id' as const, value: opencodeId }, opencodeId],
    ] as const
    b.setState({ panes: cases.map(([kind, cwd, ref], i) => agentPane(kind, cwd, ref, `w1:p${i + 1}`)) })
    // the watcher has seen the panes: GET /sessions marks every one live
    await waitFor(async () => ((await b.json('/sessions')) as { sessions: { pane_id?: string }[] }).sessions.filter((s) => s.pane_id).length === 4)
    for (const [i, [kind, , , id]] of cases.entries()) {
      const pane = await connect(b, `w1:p${i + 1}`)
      const fromPane = await allEntries(pane)
      pane.close()
      const s = await openSession(`${kind}:${id}`)
      const hello = (await s.next()) as any
      expect([kind, hello.session, hello.session_id, hello.has_newer, hello.pane]).toEqual([kind, `${kind}:${id}`, id, false, `w1:p${i + 1}`])
      // hello read: put the rest through the same reader
      const frames = await s.until((f) => f.type === 'backlog_complete')
      const opening = frames.slice(0, -1).map((f) => f.entry)
      const older = hello.has_older ? await pageToStart(s, hello.oldest_loaded_seq) : []
      s.close()
      const fromSession = [...older, ...opening]
      expect(fromSession.length).toBeGreaterThan(2)
      expect([kind, fromSession]).toEqual([kind, fromPane])
    }
    b.setState({ panes: [] })
  })

  test('?around=SEQ starts the first page there; load_newer pages down; the live tail flows once caught up', async () => {
    const q = await openSession(`pi:${BIG_ID}`, '&around=101')
    const o = await readOpening(q)
    expect([o.hello.pane, o.hello.total, o.hello.oldest_loaded_seq, o.hello.has_older, o.hello.has_newer, o.hello.backlog_count]).toEqual([
      '',
      400,
      101,
      true,
      true,
      150,
    ])
    expect(o.entries.map((e) => e.seq)).toEqual(Array.from({ length: 150 }, (_, i) => 101 + i))
    expect(o.entries[0].seq).toBe(101)
    expect(o.entries[0].text).toBe('message number 101')
    q.send(JSON.stringify({ type: 'load_newer', after_seq: 250, limit: 100 }))
    const page = await q.until((f) => f.type === 'newer_page_complete')
    const done = page.pop()
    expect(page.every((f) => f.type === 'entry' && f.live === false)).toBe(true)
    expect(page.map((f) => f.entry.seq)).toEqual(Array.from({ length: 100 }, (_, i) => 251 + i))
    expect(done).toEqual({ type: 'newer_page_complete', requested_after_seq: 250, newest_loaded_seq: 350, has_newer: true })
    // growth while the client is short of the newest entry is not pushed live: a second socket,
    // caught up, sees it live; the first gets it only by paging down
    const watcher = await openSession(`pi:${BIG_ID}`)
    await readOpening(watcher)
    appendFileSync(bigFile, piUserLine(401, 'message number 401'))
    expect((await watcher.next()).entry.seq).toBe(401)
    watcher.close()
    q.send(JSON.stringify({ type: 'load_newer', after_seq: 350 }))
    const last = await q.until((f) => f.type === 'newer_page_complete')
    expect(last.map((f) => (f.type === 'entry' ? f.entry.seq : f))).toEqual([
      ...Array.from({ length: 51 }, (_, i) => 351 + i),
      { type: 'newer_page_complete', requested_after_seq: 350, newest_loaded_seq: 401, has_newer: false },
    ])
    expect(last.every((f) => f.type !== 'entry' || f.live === false)).toBe(true)
    // caught up: the next record arrives live
    appendFileSync(bigFile, piUserLine(402, 'message number 402'))
    const live = await q.next()
    expect([live.type, live.live, live.entry.seq, live.entry.text]).toEqual(['entry', true, 402, 'message number 402'])
    // and load_older still pages up from the first page
    q.send(JSON.stringify({ type: 'load_older', before_seq: 101, limit: 5 }))
    const up = await q.until((f) => f.type === 'page_complete')
    expect(up.map((f) => (f.type === 'entry' ? f.entry.seq : f.oldest_loaded_seq))).toEqual([96, 97, 98, 99, 100, 96])
    q.close()
  })

  test('?around= past the end opens at the newest page; a session socket without around is the newest page, live at once', async () => {
    const q = await openSession(`pi:${BIG_ID}`, '&around=99999')
    const o = await readOpening(q)
    expect([o.hello.has_newer, o.entries.at(-1).seq]).toEqual([false, o.hello.total])
    q.close()
  })

  test('bad ids and parameters never open anything: 400 / 404', async () => {
    for (const [query, status, body] of [
      [`session=${encodeURIComponent(`pi:${h.ids.claude}`)}`, 404, 'no such session'],
      [`session=${encodeURIComponent(`claude:${h.ids.pi}`)}`, 404, 'no such session'],
      [`session=${encodeURIComponent('claude:00000000-0000-0000-0000-000000000000')}`, 404, 'no such session'],
      [`session=${encodeURIComponent('claude:../../x')}`, 404, 'no such session'],
      [`session=${encodeURIComponent(`pi:../${h.ids.pi}`)}`, 404, 'no such session'],
      // a file's path is never an id: 404, or 400 when it is longer than any id (200; the suite's TMPDIR can make it so)
      h.files.pi.length > 200
        ? ([`session=${encodeURIComponent(`pi:${h.files.pi}`)}`, 400, 'want ?session=<kind>:<session_id>'] as const)
        : ([`session=${encodeURIComponent(`pi:${h.files.pi}`)}`, 404, 'no such session'] as const),
      [`session=${encodeURIComponent('opencode:../../opencode.db')}`, 404, 'no such session'],
      [`session=${encodeURIComponent('vim:abc')}`, 400, 'want ?session=<kind>:<session_id>'],
      [`session=${encodeURIComponent('pi:')}`, 400, 'want ?session=<kind>:<session_id>'],
      [`session=${encodeURIComponent(h.ids.pi)}`, 400, 'want ?session=<kind>:<session_id>'],
      [`session=${encodeURIComponent(`pi:${h.ids.pi}`)}&pane=w1:p1`, 400, 'want ?session=<kind>:<session_id>'],
      [`session=${encodeURIComponent(`pi:${h.ids.pi}`)}&around=0`, 400, 'around: an entry seq, 1 or more'],
      [`session=${encodeURIComponent(`pi:${h.ids.pi}`)}&around=-3`, 400, 'around: an entry seq, 1 or more'],
      ['', 400, 'want ?pane=<pane_id>'],
    ] as const) {
      expect([query, await upgrade(query)]).toEqual([query, { status, body }])
    }
  })

  test('a session file truncated while its socket is open reopens it; deleted, the socket stays and the session is gone', async () => {
    const file = join(dirname(h.files.pi), `2026-12-03T00-00-01-000Z_${BIG_ID.replace(/1$/, '2')}.jsonl`)
    const id = BIG_ID.replace(/1$/, '2')
    writeFileSync(
      file,
      `${JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-12-03T00:00:01.000Z', cwd: h.dirs.pi })}\n${piUserLine(1, 'one')}${piUserLine(2, 'two')}`,
    )
    const q = await openSession(`pi:${id}`)
    const o = await readOpening(q)
    expect(o.entries.map((e) => e.text)).toEqual(['one', 'two'])
    writeFileSync(
      file,
      `${JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-12-03T00:00:01.000Z', cwd: h.dirs.pi })}\n${piUserLine(1, 'uno')}`,
    )
    const changed = await q.next()
    expect(changed.type).toBe('session_changed')
    const again = await readOpening(q)
    expect(again.entries.map((e) => e.text)).toEqual(['uno'])
    rmSync(file)
    expect(await upgrade(`session=${encodeURIComponent(`pi:${id}`)}`)).toEqual({ status: 404, body: 'no such session' })
    // the open socket is not torn down by its file going away
    expect(q.ws.readyState).toBe(WebSocket.OPEN)
    q.close()
  })
})
