// Shared by the transcript end-to-end tests of every kind: an agent pane on a session
// for the fake herdr, the pre-upgrade status of /agent-transcript, opening a socket,
// reading its opening sequence and paging to the start.
import { expect } from 'bun:test'
import type { FakePane } from '../../src/demo/fake-herdr'
import { ADMIN, FrameQueue, WS_HANDSHAKE, fakePane, type Bridge } from './harness'

export const FAST = { tailPollMs: 50, sessionPollMs: 100, rosterPollMs: 100 }

/** A pane running `kind` in `cwd`, on the session herdr names (by id or path) if any. */
export function agentPane(kind: string, cwd: string, session?: { kind: 'id' | 'path'; value: string }, paneId = 'w1:p2'): FakePane {
  const agent_session = session && { agent: kind, kind: session.kind, source: `herdr:${kind}`, value: session.value }
  return fakePane(kind, { pane_id: paneId, cwd, agent: { state_change_seq: 1, cwd, ...(agent_session ? { agent_session } : {}) } })
}

export function setSession(b: Bridge, pane: string, session: { kind: 'id' | 'path'; value: string } | undefined, kind = 'pi') {
  b.updatePane(pane, (p) => {
    if (!p.agent) throw new Error('no agent')
    if (session) p.agent.agent_session = { agent: kind, kind: session.kind, source: `herdr:${kind}`, value: session.value }
    else delete p.agent.agent_session
  })
}

export function transcriptUrl(b: Bridge, pane: string, extra = ''): string {
  return `${b.wsBase}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${ADMIN}${extra}`
}

/** What the route answers before the upgrade: its status and body. */
export async function upgradeStatus(b: Bridge, pane: string, extra = ''): Promise<{ status: number; body: string }> {
  const res = await fetch(`${b.base}/agent-transcript?pane=${encodeURIComponent(pane)}${extra}`, {
    headers: { ...WS_HANDSHAKE, authorization: `Bearer ${ADMIN}` },
  })
  return { status: res.status, body: await res.text() }
}

export interface Opening {
  hello: any
  entries: any[]
  complete: any
}

/** hello → entry×N → backlog_complete, checked for shape. */
export async function readOpening(q: FrameQueue, ms = 5000): Promise<Opening> {
  const hello = await q.next(ms)
  expect(hello.type).toBe('hello')
  const frames = await q.until((f) => f.type === 'backlog_complete', ms)
  const complete = frames.pop()
  for (const f of frames) {
    expect(f.type).toBe('entry')
    expect(f.live).toBe(false)
  }
  return { hello, entries: frames.map((f) => f.entry), complete }
}

export async function connect(b: Bridge, pane: string, extra = ''): Promise<FrameQueue> {
  const q = new FrameQueue(transcriptUrl(b, pane, extra))
  await q.opened
  return q
}

/** Pages up with load_older until the start; returns every entry received from pages. */
export async function pageToStart(q: FrameQueue, oldest: number, limit?: number): Promise<any[]> {
  const got: any[] = []
  let before = oldest
  for (;;) {
    q.send(JSON.stringify({ type: 'load_older', before_seq: before, ...(limit ? { limit } : {}) }))
    const frames = await q.until((f) => f.type === 'page_complete')
    const done = frames.pop()
    for (const f of frames) if (f.type === 'entry' && !f.live) got.push(f.entry)
    expect(done.requested_before_seq).toBe(before)
    if (!done.has_older) return got
    before = done.oldest_loaded_seq
  }
}

/** 1..n, exactly once each, in order. */
export function expectContiguous(seqs: number[], n: number) {
  expect(seqs).toEqual(Array.from({ length: n }, (_, i) => i + 1))
}

/**
 * A pane whose agent has no session the bridge can open (not written yet, or
 * nothing trustworthy reported): the socket opens empty, hello total 0 and
 * session_id "", and nothing else comes (docs/bridge.md, starting agents second round).
 */
export async function expectAwaiting(b: Bridge, pane: string): Promise<void> {
  const q = await connect(b, pane)
  try {
    const { hello, entries } = await readOpening(q)
    expect(hello).toMatchObject({ type: 'hello', pane, session_id: '', total: 0 })
    expect(entries).toEqual([])
  } finally {
    q.close()
  }
}
