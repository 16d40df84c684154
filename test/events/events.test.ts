// WS /events end to end: the real app, the fake herdr (socket API or CLI poll).
import { afterEach, expect, test } from 'bun:test'
// each describe runs against herdr 0.8.2 (protocol 20) and 0.9.3 (protocol 22)
import { describe } from '../support/herdr-modes'
import { join } from 'node:path'
import { ADMIN, FrameQueue, ROOT, WS_HANDSHAKE, claudePane, startBridge, waitFor, type Bridge } from '../support/harness'
import type { FakePane } from '../../src/demo/fake-herdr'
import { Value } from '@sinclair/typebox/value'
import { EventsHelloFrame, PaneEventFrame, PaneRemovedFrame } from '../../src/events/frames'
import { rawSocket } from '../support/raw-socket'

const S = (f: string) => join(ROOT, 'fixtures/screens-bridge', f)

const bridges: Bridge[] = []
const queues: FrameQueue[] = []
afterEach(async () => {
  for (const q of queues.splice(0)) q.close()
  for (const b of bridges.splice(0)) await b.stop()
})

async function bridge(panes: FakePane[], o: Parameters<typeof startBridge>[0] = {}) {
  const b = await startBridge({ state: { panes }, herdrSocket: true, ...o })
  bridges.push(b)
  return b
}

async function events(b: Bridge, query = '', token = ADMIN) {
  const q = new FrameQueue(`${b.wsBase}/events?token=${token}${query}`)
  queues.push(q)
  await q.opened
  return q
}

const _blockedPane = (id: string, seq: number) =>
  claudePane({ pane_id: id, screen_file: S('bash-prompt.txt'), agent: { agent_status: 'blocked', state_change_seq: seq } })

describe('WS /events', () => {
  test('hello with the /snapshot rows, then pane events with gap-free seq; a pane that became blocked carries its card', async () => {
    const b = await bridge([
      claudePane({ pane_id: 'w1:p1' }),
      claudePane({ pane_id: 'w1:p2', screen_file: S('mode-default.txt'), agent: { agent_status: 'working', state_change_seq: 3 } }),
    ])
    const q = await events(b)
    const hello = await q.next()
    expect(hello).toMatchObject({ type: 'hello', protocol: 1, resume: 'new' })
    expect(typeof hello.epoch).toBe('string')
    expect(Number.isInteger(hello.seq)).toBe(true)
    const snap = await b.json('/snapshot')
    expect(hello.panes).toEqual(snap.panes)

    const t0 = performance.now()
    b.updatePane('w1:p2', (p) => {
      p.screen_file = S('bash-prompt.txt')
      p.agent!.agent_status = 'blocked'
      p.agent!.state_change_seq = 4
    })
    const ev = await q.next()
    console.log(`socket API: status change → /events frame in ${(performance.now() - t0).toFixed(0)} ms`)
    expect(ev).toMatchObject({ type: 'pane', seq: hello.seq + 1, pane: { pane_id: 'w1:p2', agent_status: 'blocked', state_change_seq: 4 } })
    expect(ev.pane.card.blocked.question).toBe('Do you want to proceed?')
    expect(typeof ev.pane.card.blocked.fingerprint).toBe('string')
    expect(ev.pane.card.blocked.options.length).toBeGreaterThan(1)

    b.updatePane('w1:p2', (p) => {
      p.agent!.agent_status = 'working'
      p.agent!.state_change_seq = 5
    })
    expect(Value.Check(EventsHelloFrame, hello)).toBe(true)
    expect(Value.Check(PaneEventFrame, ev)).toBe(true)
    const working = await q.next()
    expect(working).toMatchObject({ type: 'pane', seq: hello.seq + 2, pane: { pane_id: 'w1:p2', agent_status: 'working' } })
    expect(working.pane.card).toBeUndefined()

    b.setState({ ...b.state(), panes: b.state().panes.filter((p) => p.pane_id !== 'w1:p1') })
    const removed = await q.next()
    expect(removed).toEqual({ type: 'pane_removed', seq: hello.seq + 3, pane_id: 'w1:p1' })
    expect(Value.Check(PaneRemovedFrame, removed)).toBe(true)
    b.setState({ ...b.state(), panes: [...b.state().panes, claudePane({ pane_id: 'w1:p7' })] })
    expect(await q.next()).toMatchObject({ type: 'pane', seq: hello.seq + 4, pane: { pane_id: 'w1:p7', agent_kind: 'claude' } })
  })

  test('resume ok: the events after since follow and panes is omitted; other epoch: new; too old: gap', async () => {
    const b = await bridge([claudePane({ pane_id: 'w1:p1' })])
    const first = await events(b)
    const hello = await first.next()
    for (const [i, status] of (['working', 'done', 'working'] as const).entries()) {
      b.updatePane('w1:p1', (p) => {
        p.agent!.agent_status = status
        p.agent!.state_change_seq = 10 + i
      })
      await first.next()
    }
    first.close()
    const q = await events(b, `&since=${hello.epoch}:${hello.seq + 1}`)
    const back = await q.next()
    expect(back).toEqual({ type: 'hello', protocol: 1, epoch: hello.epoch, seq: hello.seq + 3, resume: 'ok' })
    expect((await q.next()).seq).toBe(hello.seq + 2)
    expect(await q.next()).toMatchObject({ seq: hello.seq + 3, pane: { agent_status: 'working', state_change_seq: 12 } })
    // and then live
    b.updatePane('w1:p1', (p) => {
      p.agent!.agent_status = 'done'
      p.agent!.state_change_seq = 13
    })
    expect(await q.next()).toMatchObject({ type: 'pane', seq: hello.seq + 4 })

    const other = await (await events(b, `&since=someotherepoch:5`)).next()
    expect(other).toMatchObject({ type: 'hello', resume: 'new', seq: hello.seq + 4 })
    expect(other.panes.map((p: any) => p.pane_id)).toEqual(['w1:p1'])
    const ahead = await (await events(b, `&since=${hello.epoch}:${hello.seq + 99}`)).next()
    expect(ahead).toMatchObject({ resume: 'gap' })
    expect(ahead.panes.length).toBe(1)
  })

  test('resume gap: more than 256 events since, so the ring no longer holds them', async () => {
    const many = Array.from({ length: 300 }, (_, i) => claudePane({ pane_id: `w1:p${i + 1}` }))
    const b = await bridge(many)
    const q = await events(b)
    const hello = await q.next()
    b.setState({ ...b.state(), panes: many.map((p) => ({ ...p, agent: { ...p.agent!, agent_status: 'working' as const, state_change_seq: 99 } })) })
    const frames = await q.until((f) => f.seq === hello.seq + 300, 10_000)
    expect(frames.map((f) => f.seq)).toEqual(Array.from({ length: 300 }, (_, i) => hello.seq + 1 + i))
    const gap = await (await events(b, `&since=${hello.epoch}:${hello.seq}`)).next()
    expect(gap).toMatchObject({ type: 'hello', resume: 'gap', seq: hello.seq + 300 })
    expect(gap.panes.length).toBe(300)
    expect(gap.panes.every((p: any) => p.agent_status === 'working')).toBe(true)
    // 256 back is still held
    const ok = await events(b, `&since=${hello.epoch}:${hello.seq + 300 - 256}`)
    expect(await ok.next()).toMatchObject({ resume: 'ok' })
    expect((await ok.until((f) => f.seq === hello.seq + 300)).length).toBe(256)
  }, 30_000)

  test('bad since: 400; no token: 401 (before the upgrade)', async () => {
    const b = await bridge([])
    const bad = await fetch(`${b.base}/events?token=${ADMIN}&since=nonsense`, { headers: WS_HANDSHAKE })
    expect(bad.status).toBe(400)
    expect(await bad.text()).toBe('want ?since=<epoch>:<seq>')
    const anon = await fetch(`${b.base}/events`, { headers: WS_HANDSHAKE })
    expect(anon.status).toBe(401)
  })

  test('revoking the device closes its /events socket', async () => {
    const b = await bridge([claudePane({ pane_id: 'w1:p1' })])
    const code = ((await (await b.post('/pair/code', {})).json()) as any).code
    const dev = (await (await b.post('/pair', { code, device_name: 'phone' }, null)).json()) as any
    const q = await events(b, '', dev.token)
    expect((await q.next()).type).toBe('hello')
    const del = await fetch(`${b.base}/devices/${dev.device_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } })
    expect(del.status).toBe(200)
    expect(await q.closed).toEqual({ code: 1000, reason: 'device revoked' })
    // and the token opens nothing any more
    const again = await fetch(`${b.base}/events?token=${dev.token}`, { headers: WS_HANDSHAKE })
    expect(again.status).toBe(401)
  })

  test('CLI poll fallback: the same frames, within a poll', async () => {
    const b = await bridge([claudePane({ pane_id: 'w1:p1' })], { herdrSocket: false })
    const q = await events(b)
    const hello = await q.next()
    await waitFor(() => b.app.decorator.watch.mode === 'poll', 5000, 'poll mode')
    const t0 = performance.now()
    b.updatePane('w1:p1', (p) => {
      p.agent!.agent_status = 'done'
      p.agent!.state_change_seq = 8
    })
    expect(await q.next()).toMatchObject({ type: 'pane', seq: hello.seq + 1, pane: { agent_status: 'done', state_change_seq: 8 } })
    console.log(`CLI poll (1 s): status change → /events frame in ${(performance.now() - t0).toFixed(0)} ms`)
  })
})

test('the server pings an open /events socket (every 30 s; 50 ms here)', async () => {
  const b = await bridge([claudePane({ pane_id: 'w1:p1' })], { timing: { eventsPingMs: 50 } })
  const sock = await rawSocket(b.base, `/events?token=${ADMIN}`)
  // server frames are unmasked: a ping is 0x89 then its length; the JSON hello holds no such byte
  const pinged = await new Promise<boolean>((res) => {
    const t = setTimeout(() => res(false), 5000)
    sock.on('data', (d: Buffer) => {
      if (d.includes(0x89)) {
        clearTimeout(t)
        res(true)
      }
    })
  })
  sock.destroy()
  expect(pinged).toBe(true)
})

describe('a client that does not read', () => {
  test('is dropped once more than 1 MiB waits for it; a reading client is not', async () => {
    const title = 'x'.repeat(4000)
    const panes = Array.from({ length: 100 }, (_, i) => claudePane({ pane_id: `w1:p${i + 1}`, agent: { title } }))
    // the CLI poll: one snapshot a flip (the socket API would make one agent.get per pane)
    const b = await bridge(panes, { herdrSocket: false, timing: { herdrPollMs: 100 } })
    const reader = await events(b)
    const hello = await reader.next()
    const stuck = await rawSocket(b.base, `/events?token=${ADMIN}`, { pauseAfterUpgrade: true })
    let seq = hello.seq
    const dropped = () => b.logs.some((l) => l.includes('queue over 1 MiB'))
    for (let flip = 0; flip < 40 && !dropped(); flip++) {
      const status = flip % 2 ? 'idle' : 'working'
      b.setState({ panes: panes.map((p) => ({ ...p, agent: { ...p.agent!, agent_status: status as 'idle', state_change_seq: flip + 10 } })) })
      seq += 100
      await reader.until((f) => f.seq === seq, 10_000) // ~400 KB a flip
    }
    expect(dropped()).toBe(true)
    // the reader heard everything, gap-free
    b.setState({ panes: panes.map((p) => ({ ...p, agent: { ...p.agent!, agent_status: 'done' as const, state_change_seq: 99 } })) })
    expect((await reader.until((f) => f.seq === seq + 100, 10_000)).length).toBe(100)
    stuck.destroy()
  }, 60_000)
})

describe('herdr calls stay flat in the number of /events sockets', () => {
  for (const socketApi of [false, true]) {
    test(`${socketApi ? 'socket API' : 'CLI poll'}: 1, 10 and 50 sockets make the same herdr calls`, async () => {
      const b = await bridge(
        [
          claudePane({ pane_id: 'w1:p1' }),
          claudePane({ pane_id: 'w1:p2', screen_file: S('mode-default.txt'), agent: { agent_status: 'working', state_change_seq: 3 } }),
        ],
        { herdrSocket: socketApi, timing: { herdrPollMs: 200 } },
      )
      const counts: string[] = []
      let seq = 3
      for (const n of [1, 10, 50]) {
        const qs: FrameQueue[] = []
        for (let i = 0; i < n; i++) qs.push(await events(b))
        for (const q of qs) await q.next()
        // one blocked transition, one back: every socket hears both
        const start = b.calls().length
        const t0 = performance.now()
        b.updatePane('w1:p2', (p) => {
          p.screen_file = S('bash-prompt.txt')
          p.agent!.agent_status = 'blocked'
          p.agent!.state_change_seq = ++seq
        })
        for (const q of qs) expect((await q.next()).pane.card.blocked).toBeDefined()
        b.updatePane('w1:p2', (p) => {
          p.agent!.agent_status = 'working'
          p.agent!.state_change_seq = ++seq
        })
        for (const q of qs) expect((await q.next()).pane.agent_status).toBe('working')
        const window = b.calls().slice(start)
        const secs = (performance.now() - t0) / 1000
        // per transition: the card's one screen read (per pane, not per socket) …
        expect(window.filter((c) => c[0] === 'agent' && c[1] === 'read').length).toBe(1)
        // … and otherwise only the watcher: snapshots (CLI poll) or socket requests, no per-socket call
        const other = window.filter((c) => !(c[0] === 'agent' && c[1] === 'read'))
        if (socketApi) expect(other.every((c) => c[0] === 'socket')).toBe(true)
        else expect(other.every((c) => c.join(' ') === 'api snapshot')).toBe(true)
        expect(other.length).toBeLessThanOrEqual(Math.ceil(secs / 0.2) + 6)
        counts.push(`${n} sockets: ${window.length} herdr calls over ${secs.toFixed(1)} s`)
        for (const q of qs) q.close()
      }
      console.log(`${socketApi ? 'socket API' : 'CLI poll (200 ms)'}: ${counts.join('; ')}`)
    }, 60_000)
  }
})
