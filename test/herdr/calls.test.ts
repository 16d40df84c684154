// herdr calls grow with panes, not with sockets: however many transcript (and
// /events) sockets are open, the bridge's herdr traffic is the one watcher's.
import { afterEach, describe, expect, test } from 'bun:test'
import { ADMIN, FrameQueue, claudePane, startBridge, waitFor, type Bridge } from '../support/harness'
import { claudeHome } from '../support/claude-home'

const bridges: Bridge[] = []
const queues: FrameQueue[] = []
afterEach(async () => {
  for (const q of queues.splice(0)) q.close()
  for (const b of bridges.splice(0)) await b.stop()
})

/** Opens `n` transcript sockets, then counts herdr calls over `ticks` watcher polls. */
async function measure(n: number, socketApi: boolean) {
  const home = claudeHome('cc-working')
  const panes = [1, 2, 3].map((i) =>
    claudePane({ pane_id: `w1:p${i}`, cwd: home.cwd, agent: { agent_session: { agent: 'claude', kind: 'id', source: 'herdr:claude', value: home.id } } }),
  )
  const b = await startBridge({
    homes: { claudeDir: home.dir },
    state: { panes },
    herdrSocket: socketApi,
    // rotation checks every 50 ms per pane: with a herdr call each, they would dwarf the watcher
    timing: { sessionPollMs: 50, herdrPollMs: 200, tailPollMs: 200, rosterPollMs: 1000 },
  })
  bridges.push(b)
  for (let i = 0; i < n; i++) {
    const q = new FrameQueue(`${b.wsBase}/agent-transcript?pane=w1:p${(i % 3) + 1}&token=${ADMIN}`)
    queues.push(q)
    await q.opened
    expect((await q.next()).type).toBe('hello')
  }
  await waitFor(() => b.app.decorator.watch.mode === (socketApi ? 'socket' : 'poll'), 5000, 'watcher running')
  if (socketApi) await waitFor(() => b.calls().at(-1)?.[1] === 'session.snapshot', 5000, 'first resync')
  const start = b.calls().length
  const t0 = performance.now()
  // a window of 5 watcher reads (CLI snapshots, or socket resyncs every 2 s → use elapsed time instead)
  if (socketApi) await new Promise((r) => setTimeout(r, 1500))
  else
    await waitFor(
      () =>
        b
          .calls()
          .slice(start)
          .filter((c) => c.join(' ') === 'api snapshot').length >= 5,
      10_000,
      '5 polls',
    )
  const window = b.calls().slice(start)
  const secs = (performance.now() - t0) / 1000
  for (const q of queues.splice(0)) q.close()
  return { window, perSec: window.length / secs }
}

describe('herdr calls stay flat in the number of transcript sockets', () => {
  test('CLI poll: only the watcher’s `api snapshot`, with 1 and with 12 sockets', async () => {
    for (const n of [1, 12]) {
      const { window, perSec } = await measure(n, false)
      expect(new Set(window.map((c) => c.join(' ')))).toEqual(new Set(['api snapshot']))
      console.log(`CLI poll, ${n} transcript sockets on 3 panes: ${perSec.toFixed(1)} herdr calls/s (poll 200 ms)`)
    }
  }, 30_000)

  test('socket API: no CLI call at all while sockets are open, with 1 and with 12 sockets', async () => {
    for (const n of [1, 12]) {
      const { window } = await measure(n, true)
      expect(window.filter((c) => c[0] !== 'socket')).toEqual([])
      // at most the slow resync (every 2 s) happened in the window: no call per socket or per check
      expect(window.filter((c) => c[1] !== 'session.snapshot')).toEqual([])
      expect(window.length).toBeLessThanOrEqual(2)
    }
  }, 30_000)
})

describe('connecting costs no herdr call of its own when the watcher has read herdr', () => {
  async function bridgeOn(o: { watchAtStart?: boolean; herdrLingerMs?: number }) {
    const home = claudeHome('cc-working')
    const pane = claudePane({
      pane_id: 'w1:p1',
      cwd: home.cwd,
      agent: { agent_session: { agent: 'claude', kind: 'id', source: 'herdr:claude', value: home.id } },
    })
    const b = await startBridge({
      homes: { claudeDir: home.dir },
      state: { panes: [pane] },
      timing: { herdrPollMs: 1000, herdrLingerMs: o.herdrLingerMs },
      deps: { watchAtStart: o.watchAtStart },
    })
    bridges.push(b)
    return b
  }
  async function connectOnce(b: Bridge) {
    const q = new FrameQueue(`${b.wsBase}/agent-transcript?pane=w1:p1&token=${ADMIN}`)
    await q.until((f) => f.type === 'backlog_complete')
    q.close()
    await q.closed
  }
  const agentGets = (b: Bridge) => b.calls().filter((c) => c[0] === 'agent' && c[1] === 'get').length

  test('a reconnect within the linger: the first connect starts the watcher, the next ones make no `agent get`', async () => {
    const b = await bridgeOn({ herdrLingerMs: 30_000 })
    await connectOnce(b)
    const after = agentGets(b)
    for (let i = 0; i < 3; i++) await connectOnce(b)
    expect(agentGets(b)).toBe(after)
  })

  test('without a linger every reconnect asks herdr again (what the linger saves)', async () => {
    const b = await bridgeOn({ herdrLingerMs: 0 })
    await connectOnce(b)
    const after = agentGets(b)
    await connectOnce(b)
    expect(agentGets(b)).toBe(after + 1)
  })

  test('watchAtStart: the first connect after the bridge starts shares the watcher’s read, no `agent get`', async () => {
    const b = await bridgeOn({ watchAtStart: true, herdrLingerMs: 30_000 })
    await connectOnce(b)
    expect(agentGets(b)).toBe(0)
    expect(b.calls().filter((c) => c.join(' ') === 'api snapshot').length).toBeGreaterThanOrEqual(1)
  })
})
