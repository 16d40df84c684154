// The socket protocol against an in-memory timeline: ordering, paging
// arithmetic, live tail, rotation, resets and backpressure (send → -1 / drain).
import { describe, expect, test } from 'bun:test'
import type { Entry } from '../../src/transcript/entry'
import type { ServerFrame } from '../../src/transcript/frames'
import type { Subagent } from '../../src/transcript/roster'
import type { Resolved } from '../../src/transcript/source'
import { TranscriptStream, type SendResult } from '../../src/transcript/stream'
import type { Timeline } from '../../src/transcript/timeline'
import { waitFor } from '../support/wait'

class MemoryTimeline implements Timeline {
  entries: Entry[] = []
  grow = new Set<(e: Entry[]) => void>()
  reset = new Set<() => void>()
  released = 0
  reads = 0
  constructor(
    n: number,
    readonly tag = 's',
  ) {
    this.append(n, false)
  }
  append(n: number, notify = true) {
    const added: Entry[] = []
    for (let i = 0; i < n; i++) {
      const seq = this.entries.length + 1
      const e: Entry = { id: `${this.tag}-${seq}#0`, seq, role: 'user', kind: 'message', text: `m${seq}`, parsed: true }
      this.entries.push(e)
      added.push(e)
    }
    if (notify) for (const l of this.grow) l(added)
  }
  total() {
    return this.entries.length
  }
  async read(from: number, to: number) {
    this.reads++
    await Promise.resolve()
    return this.entries.slice(Math.max(0, from - 1), Math.max(0, to))
  }
  onGrow(l: (e: Entry[]) => void) {
    this.grow.add(l)
    return () => this.grow.delete(l)
  }
  onReset(l: () => void) {
    this.reset.add(l)
    return () => this.reset.delete(l)
  }
  release() {
    this.released++
  }
}

function resolved(tl: Timeline, sessionId = 'sess-1', roster?: () => Promise<Subagent[] | undefined>): Resolved {
  return { ok: true, sessionId, timeline: tl, roster }
}

/** A socket whose send() pushes back after `window` frames until drained. */
class FakeSocket {
  frames: ServerFrame[] = []
  window = Infinity
  sinceDrain = 0
  waiters: (() => void)[] = []
  send = (f: ServerFrame): SendResult => {
    this.frames.push(JSON.parse(JSON.stringify(f)))
    this.sinceDrain++
    for (const w of this.waiters.splice(0)) w()
    return this.sinceDrain >= this.window ? -1 : 10
  }
  closes: [number, string][] = []
  io = { send: this.send, close: (c: number, r: string) => this.closes.push([c, r]), log: () => {} }
  async until(pred: (fs: ServerFrame[]) => boolean, ms = 2000) {
    const end = Date.now() + ms
    while (!pred(this.frames)) {
      if (Date.now() > end) throw new Error(`timed out; frames: ${this.frames.map((f) => f.type).join(',')}`)
      await new Promise<void>((r) => {
        this.waiters.push(r)
        setTimeout(r, 20)
      })
    }
  }
}

const types = (fs: ServerFrame[]) => fs.map((f) => f.type)
const seqs = (fs: ServerFrame[]) => fs.filter((f) => f.type === 'entry').map((f) => (f as any).entry.seq)

describe('opening sequence', () => {
  test('hello → newest 150 oldest first → backlog_complete', async () => {
    const sock = new FakeSocket()
    const tl = new MemoryTimeline(400)
    const s = new TranscriptStream(sock.io, 'w1:p2', 'claude', resolved(tl))
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    expect(sock.frames[0]).toEqual({
      type: 'hello',
      protocol: 5,
      pane: 'w1:p2',
      agent_kind: 'claude',
      session_id: 'sess-1',
      backlog_count: 150,
      total: 400,
      has_more: true,
      oldest_loaded_seq: 251,
      has_older: true,
    })
    expect(seqs(sock.frames)).toEqual(Array.from({ length: 150 }, (_, i) => 251 + i))
    expect(sock.frames.filter((f) => f.type === 'entry').every((f) => (f as any).live === false)).toBe(true)
    expect(sock.frames.at(-1)).toEqual({ type: 'backlog_complete', count: 150, has_more: true })
    s.close()
  })

  test('an empty session: hello with zeros, no entries', async () => {
    const sock = new FakeSocket()
    const s = new TranscriptStream(sock.io, 'w1:p2', 'pi', resolved(new MemoryTimeline(0)))
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    expect(sock.frames).toEqual([
      {
        type: 'hello',
        protocol: 5,
        pane: 'w1:p2',
        agent_kind: 'pi',
        session_id: 'sess-1',
        backlog_count: 0,
        total: 0,
        has_more: false,
        oldest_loaded_seq: 0,
        has_older: false,
      },
      { type: 'backlog_complete', count: 0, has_more: false },
    ])
  })

  test('hello carries the roster and the ?subagent= echo', async () => {
    const sock = new FakeSocket()
    const row: Subagent = { agent_id: 'a1', tool_use_id: 't1', agent_type: 'Explore', description: 'x', spawn_depth: 1, done: false }
    const s = new TranscriptStream(
      sock.io,
      'w1:p2',
      'claude',
      resolved(new MemoryTimeline(3), 'sess-1', async () => [row]),
      'a1',
    )
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    expect((sock.frames[0] as any).subagent).toBe('a1')
    expect((sock.frames[0] as any).subagents).toEqual([row])
  })
})

describe('live tail', () => {
  test('growth during the backlog is delivered once, after backlog_complete', async () => {
    const sock = new FakeSocket()
    const tl = new MemoryTimeline(10)
    const s = new TranscriptStream(sock.io, 'p', 'claude', resolved(tl))
    const started = s.start()
    tl.append(2) // lands while the page is being read
    await started
    await sock.until((fs) => seqs(fs).includes(12))
    tl.append(1)
    await sock.until((fs) => seqs(fs).includes(13))
    const bc = types(sock.frames).indexOf('backlog_complete')
    const after = sock.frames.slice(bc + 1)
    expect(after.every((f) => f.type === 'entry' && (f as any).live === true)).toBe(true)
    expect(seqs(sock.frames)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1))
  })
})

describe('live tail sharing', () => {
  test('a caught-up socket sends the entries the timeline handed it, without reading them again', async () => {
    const sock = new FakeSocket()
    const tl = new MemoryTimeline(10)
    const s = new TranscriptStream(sock.io, 'p', 'claude', resolved(tl))
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    await new Promise((r) => setTimeout(r, 0)) // let the opening pump finish
    const reads = tl.reads
    tl.append(3)
    await sock.until((fs) => seqs(fs).includes(13))
    expect(tl.reads).toBe(reads)
    expect(seqs(sock.frames).slice(-3)).toEqual([11, 12, 13])
    s.close()
  })
})

describe('load_older', () => {
  test('pages to the start with no gap or duplicate', async () => {
    const sock = new FakeSocket()
    const tl = new MemoryTimeline(1000)
    const s = new TranscriptStream(sock.io, 'p', 'claude', resolved(tl))
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    let cursor = (sock.frames[0] as any).oldest_loaded_seq
    const limits = [0, 150, 1000, 7, undefined]
    let i = 0
    for (;;) {
      const n = sock.frames.length
      s.loadOlder({ type: 'load_older', before_seq: cursor, limit: limits[i++ % limits.length] })
      await sock.until((fs) => fs.slice(n).some((f) => f.type === 'page_complete'))
      const page = sock.frames.slice(n)
      const pc = page.at(-1) as any
      expect(pc.requested_before_seq).toBe(cursor)
      const ps = seqs(page)
      if (ps.length) expect(pc.oldest_loaded_seq).toBe(ps[0])
      expect(ps.length).toBeLessThanOrEqual(500)
      cursor = pc.oldest_loaded_seq
      if (!pc.has_older) break
    }
    const all = seqs(sock.frames).sort((a, b) => a - b)
    expect(all).toEqual(Array.from({ length: 1000 }, (_, k) => k + 1))
  })

  test('limit: omitted/0 → 150, large → 500; before_seq ≤ 1 → empty page', async () => {
    const sock = new FakeSocket()
    const s = new TranscriptStream(sock.io, 'p', 'claude', resolved(new MemoryTimeline(2000)))
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    const page = async (req: any) => {
      const n = sock.frames.length
      s.loadOlder({ type: 'load_older', ...req })
      await sock.until((fs) => fs.slice(n).some((f) => f.type === 'page_complete'))
      return sock.frames.slice(n)
    }
    expect(seqs(await page({ before_seq: 1851 })).length).toBe(150)
    expect(seqs(await page({ before_seq: 1851, limit: 0 })).length).toBe(150)
    expect(seqs(await page({ before_seq: 1851, limit: 9999 })).length).toBe(500)
    expect(await page({ before_seq: 1 })).toEqual([{ type: 'page_complete', requested_before_seq: 1, oldest_loaded_seq: 0, has_older: false }])
    expect(await page({ before_seq: -5 })).toEqual([{ type: 'page_complete', requested_before_seq: -5, oldest_loaded_seq: 0, has_older: false }])
    const tail = await page({ before_seq: 3 })
    expect(seqs(tail)).toEqual([1, 2])
    expect(tail.at(-1)).toEqual({ type: 'page_complete', requested_before_seq: 3, oldest_loaded_seq: 1, has_older: false })
  })
})

describe('reading ahead', () => {
  /** A memory timeline that records what is read ahead of it. */
  const aheadTimeline = (n: number) => {
    const ahead: [number, number][] = []
    const tl = Object.assign(new MemoryTimeline(n), { prefetch: (from: number, to: number) => void ahead.push([from, to]) })
    return { tl, ahead }
  }
  const pagesOf = (sock: FakeSocket) => sock.frames.filter((f) => f.type === 'page_complete').length

  test("a page up reads the page above it ahead, in the request's size, once the socket is quiet; none above seq 1", async () => {
    const sock = new FakeSocket()
    const { tl, ahead } = aheadTimeline(400)
    const s = new TranscriptStream(sock.io, 'w1:p2', 'claude', resolved(tl), undefined, undefined, 0)
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    s.loadOlder({ type: 'load_older', before_seq: 251, limit: 100 })
    await waitFor(() => ahead.length === 1, 2000, 'the first read ahead')
    expect(ahead).toEqual([[51, 150]])
    s.loadOlder({ type: 'load_older', before_seq: 151, limit: 100 })
    await waitFor(() => ahead.length === 2, 2000, 'the second read ahead')
    expect(ahead[1]).toEqual([1, 50])
    s.loadOlder({ type: 'load_older', before_seq: 51, limit: 100 }) // the oldest page: nothing above it
    await sock.until(() => pagesOf(sock) === 3)
    expect(seqs(sock.frames).slice(-50)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    s.loadOlder({ type: 'load_older', before_seq: 351, limit: 100 }) // a page whose read ahead would be [151, 250]
    await sock.until(() => pagesOf(sock) === 4)
    await waitFor(() => ahead.length === 3, 2000, 'the third read ahead')
    s.loadOlder({ type: 'load_older', before_seq: 401, limit: 500 }) // a reconnect's gap fill: 1..400, nothing above
    await sock.until(() => pagesOf(sock) === 5)
    s.loadOlder({ type: 'load_older', before_seq: 391, limit: 200 }) // larger than a page: one page is read ahead
    await sock.until(() => pagesOf(sock) === 6)
    await waitFor(() => ahead.length === 4, 2000, 'the fourth read ahead')
    expect(ahead).toEqual([
      [51, 150],
      [1, 50],
      [151, 250],
      [41, 190],
    ]) // the oldest page asked for none, and the opening for none
    s.close()
  })

  test('a request before the socket was quiet, a close, or a rotation drops the read ahead', async () => {
    // Each is done as soon as its page_complete is seen (the timer was set when it was sent, in the
    // same turn). A last stream's read ahead, set after all of them with the same delay, fires after
    // theirs would have: once it has, theirs did not.
    const DELAY = 30
    const open = async (n = 400) => {
      const sock = new FakeSocket()
      const at = aheadTimeline(n)
      const s = new TranscriptStream(sock.io, 'w1:p2', 'claude', resolved(at.tl), undefined, undefined, DELAY)
      await s.start()
      await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
      return { sock, s, ahead: at.ahead }
    }
    const pageUp = async (o: { sock: FakeSocket; s: TranscriptStream }, before: number, n: number) => {
      o.s.loadOlder({ type: 'load_older', before_seq: before, limit: 100 })
      await o.sock.until(() => pagesOf(o.sock) === n)
    }
    const asked = await open()
    await pageUp(asked, 251, 1)
    await pageUp(asked, 151, 2) // back to back: the first read ahead is dropped…
    const closed = await open()
    await pageUp(closed, 251, 1)
    closed.s.close() // …a close drops it…
    const rotated = await open()
    await pageUp(rotated, 251, 1)
    const next = aheadTimeline(10)
    await rotated.s.rotate(resolved(next.tl, 'sess-2')) // …and so does a rotation
    const control = await open()
    await pageUp(control, 251, 1)
    await waitFor(() => control.ahead.length === 1, 2000, 'the control read ahead')
    expect({ asked: asked.ahead, closed: closed.ahead, rotated: rotated.ahead, next: next.ahead }).toEqual({
      asked: [[1, 50]], // the second page's, once quiet
      closed: [],
      rotated: [],
      next: [],
    })
    asked.s.close()
    rotated.s.close()
    control.s.close()
  })
})

describe('backpressure', () => {
  test('stops at -1, resumes on drain, loses and doubles nothing', async () => {
    const sock = new FakeSocket()
    sock.window = 7
    const tl = new MemoryTimeline(300)
    const s = new TranscriptStream(sock.io, 'p', 'claude', resolved(tl))
    await s.start()
    await sock.until((fs) => fs.length >= 7)
    await new Promise((r) => setTimeout(r, 30))
    // Paused: nothing more was sent, and only a chunk was read ahead.
    expect(sock.frames.length).toBe(7)
    const readsWhilePaused = tl.reads
    for (let round = 0; round < 100 && !sock.frames.some((f) => f.type === 'backlog_complete'); round++) {
      const n = sock.frames.length
      sock.sinceDrain = 0
      s.drain()
      await sock.until((fs) => fs.length > n)
    }
    expect(tl.reads).toBeGreaterThan(readsWhilePaused)
    expect(seqs(sock.frames)).toEqual(Array.from({ length: 150 }, (_, i) => 151 + i))
    expect(types(sock.frames).filter((t) => t === 'backlog_complete').length).toBe(1)
    s.close()
  })
})

describe('rotation and reset', () => {
  test('session_changed, then a full opening sequence for the new session', async () => {
    const sock = new FakeSocket()
    const a = new MemoryTimeline(5, 'a')
    const s = new TranscriptStream(sock.io, 'w1:p2', 'claude', resolved(a, 'A'))
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    const n = sock.frames.length
    const bTl = new MemoryTimeline(3, 'b')
    await s.rotate(resolved(bTl, 'B'))
    await sock.until((fs) => fs.slice(n).some((f) => f.type === 'backlog_complete'))
    const after = sock.frames.slice(n)
    expect(types(after)).toEqual(['session_changed', 'hello', 'entry', 'entry', 'entry', 'backlog_complete'])
    expect(after[0]).toEqual({ type: 'session_changed', pane: 'w1:p2', from: 'A', to: 'B' })
    expect((after[1] as any).session_id).toBe('B')
    expect(a.released).toBe(1)
    // The old timeline's growth no longer reaches the socket; the new one's does.
    a.append(1)
    bTl.append(1)
    await sock.until((fs) => fs.some((f) => f.type === 'entry' && (f as any).live && (f as any).entry.id === 'b-4#0'))
    expect(sock.frames.some((f) => f.type === 'entry' && (f as any).entry.id.startsWith('a-6'))).toBe(false)
  })

  test('a page requested before a rotation is not delivered after it', async () => {
    const sock = new FakeSocket()
    const a = new MemoryTimeline(1000, 'a')
    const s = new TranscriptStream(sock.io, 'p', 'claude', resolved(a, 'A'))
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    s.loadOlder({ type: 'load_older', before_seq: 851, limit: 500 })
    await s.rotate(resolved(new MemoryTimeline(2, 'b'), 'B'))
    await sock.until((fs) => fs.filter((f) => f.type === 'backlog_complete').length === 2)
    const sc = types(sock.frames).indexOf('session_changed')
    const after = sock.frames.slice(sc)
    expect(after.some((f) => f.type === 'page_complete')).toBe(false)
    expect(after.filter((f) => f.type === 'entry').every((f) => (f as any).entry.id.startsWith('b-'))).toBe(true)
  })

  test('a reset of the same file replays the opening sequence with from == to', async () => {
    const sock = new FakeSocket()
    const a = new MemoryTimeline(5, 'a')
    const s = new TranscriptStream(sock.io, 'p', 'claude', resolved(a, 'A'))
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    a.entries = a.entries.slice(0, 2)
    for (const l of a.reset) l()
    await sock.until((fs) => fs.filter((f) => f.type === 'backlog_complete').length === 2)
    const sc = types(sock.frames).indexOf('session_changed')
    expect(sock.frames[sc]).toEqual({ type: 'session_changed', pane: 'p', from: 'A', to: 'A' })
    expect((sock.frames[sc + 1] as any).total).toBe(2)
    expect(a.released).toBe(0)
  })
})

describe('roster', () => {
  test('resends only on change; an empty roster is a real update', async () => {
    const sock = new FakeSocket()
    const row: Subagent = { agent_id: 'a1', tool_use_id: 't1', agent_type: 'Explore', description: 'x', spawn_depth: 1, done: false }
    let now: Subagent[] | undefined = [row]
    const s = new TranscriptStream(
      sock.io,
      'p',
      'claude',
      resolved(new MemoryTimeline(1), 'A', async () => now),
    )
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    await s.refreshRoster()
    expect(types(sock.frames)).not.toContain('subagents')
    now = [{ ...row, done: true }]
    await s.refreshRoster()
    await sock.until((fs) => fs.some((f) => f.type === 'subagents'))
    now = []
    await s.refreshRoster()
    await sock.until((fs) => fs.filter((f) => f.type === 'subagents').length === 2)
    expect(sock.frames.filter((f) => f.type === 'subagents')).toEqual([
      { type: 'subagents', pane: 'p', subagents: [{ ...row, done: true }] },
      { type: 'subagents', pane: 'p', subagents: [] },
    ])
  })

  test('age alone is not a change: a roster whose only difference is last_activity_ts is not re-sent', async () => {
    const sock = new FakeSocket()
    const row: Subagent = { agent_id: 'a1', tool_use_id: 't1', agent_type: 'Explore', description: 'x', spawn_depth: 1, done: false, last_activity_ts: 1000 }
    let now: Subagent[] | undefined = [row]
    const s = new TranscriptStream(
      sock.io,
      'p',
      'claude',
      resolved(new MemoryTimeline(1), 'A', async () => now),
    )
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    for (const ts of [2000, 3000, 4000]) {
      now = [{ ...row, last_activity_ts: ts }]
      await s.refreshRoster()
    }
    now = [{ ...row }]
    delete now[0]!.last_activity_ts // undatable now: still only age
    await s.refreshRoster()
    expect(types(sock.frames)).not.toContain('subagents')
    now = [{ ...row, done: true, last_activity_ts: 5000 }]
    await s.refreshRoster()
    await sock.until((fs) => fs.some((f) => f.type === 'subagents'))
    // the frame a real change sends carries the newest age with it
    expect(sock.frames.filter((f) => f.type === 'subagents')).toEqual([
      { type: 'subagents', pane: 'p', subagents: [{ ...row, done: true, last_activity_ts: 5000 }] },
    ])
  })

  test('a failing roster costs nothing but the roster', async () => {
    const sock = new FakeSocket()
    const s = new TranscriptStream(
      sock.io,
      'p',
      'claude',
      resolved(new MemoryTimeline(2), 'A', async () => {
        throw new Error('disk on fire')
      }),
    )
    await s.start()
    await sock.until((fs) => fs.some((f) => f.type === 'backlog_complete'))
    expect((sock.frames[0] as any).subagents).toBeUndefined()
    expect(seqs(sock.frames)).toEqual([1, 2])
  })
})

describe('flow control', () => {
  test('stops reading the client only with too many pages queued (not merely backed up: a paused socket hears no close); reads again when they flow', async () => {
    const sock = new FakeSocket()
    const calls: string[] = []
    const io = { ...sock.io, pauseReading: () => calls.push('pause'), resumeReading: () => calls.push('resume') }
    const tl = new MemoryTimeline(5000)
    const s = new TranscriptStream(io, 'p', 'claude', resolved(tl))
    sock.window = 5
    await s.start()
    await sock.until((fs) => fs.length >= 5)
    // Backed up, a few requests queued: still reading (a close frame or a FIN would be heard).
    for (let k = 0; k < 10; k++) s.loadOlder({ type: 'load_older', before_seq: 4000 - k * 10, limit: 10 })
    expect(calls).toEqual([])
    // Many requests while backed up: paused, nothing sent.
    for (let k = 10; k < 40; k++) s.loadOlder({ type: 'load_older', before_seq: 4000 - k * 10, limit: 10 })
    expect(calls).toEqual(['pause'])
    // Let everything flow.
    sock.window = Infinity
    sock.sinceDrain = 0
    s.drain()
    await sock.until((fs) => fs.filter((f) => f.type === 'page_complete').length === 40)
    expect(calls.at(-1)).toBe('resume')
    s.close()
  })
})

describe('ordering', () => {
  test('a load_older that comes before the opening sequence is served after it', async () => {
    const sock = new FakeSocket()
    let release!: () => void
    const slowRoster = () => new Promise<undefined>((r) => (release = () => r(undefined)))
    const s = new TranscriptStream(sock.io, 'p', 'claude', resolved(new MemoryTimeline(400), 'A', slowRoster))
    const started = s.start()
    s.loadOlder({ type: 'load_older', before_seq: 251, limit: 10 })
    release()
    await started
    await sock.until((fs) => fs.some((f) => f.type === 'page_complete'))
    expect(types(sock.frames).filter((t) => t !== 'entry')).toEqual(['hello', 'backlog_complete', 'page_complete'])
    expect(seqs(sock.frames).slice(-10)).toEqual([241, 242, 243, 244, 245, 246, 247, 248, 249, 250])
    s.close()
  })
})
