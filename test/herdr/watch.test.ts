// The one herdr watcher: herdr's socket API where it is reachable (pushed, no
// polling), else one CLI poll per second for all panes; and the calls it makes
// stay flat however many sockets read from it.
import { afterEach, describe as bunDescribe, expect, test } from 'bun:test'
// each describe runs against herdr 0.8.2 (protocol 20) and 0.9.3 (protocol 22)
import { describe, inHerdrMode } from '../support/herdr-modes'
import { readFileSync, writeFileSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { createHerdrClient } from '../../src/herdr/client'
import { HerdrWatch } from '../../src/herdr/watch'
import { startFakeHerdrSocket, type FakeHerdrSocket } from '../../src/demo/fake-herdr-socket'
import type { FakePane, FakeState } from '../../src/demo/fake-herdr'
import type { Snapshot } from '../../src/herdr/types'
import { FAKE_HERDR, claudePane, tempDir, waitFor } from '../support/harness'

function setup(panes: FakePane[]) {
  const dir = tempDir('gothalo-watch-')
  const statePath = join(dir, 'state.json')
  const logPath = join(dir, 'calls.jsonl')
  const write = (s: FakeState) => {
    writeFileSync(statePath + '.tmp', JSON.stringify(s))
    renameSync(statePath + '.tmp', statePath)
  }
  let state: FakeState = inHerdrMode({ panes })
  write(state)
  const herdr = createHerdrClient({
    bin: FAKE_HERDR,
    env: { ...process.env, FAKE_HERDR_BUN: process.execPath, FAKE_HERDR_STATE: statePath, FAKE_HERDR_LOG: logPath },
  })
  return {
    dir,
    statePath,
    logPath,
    herdr,
    socketPath: join(dir, 'herdr.sock'),
    setStatus(pane: string, status: NonNullable<FakePane['agent']>['agent_status'], seq: number) {
      state = structuredClone(state)
      const p = state.panes.find((x) => x.pane_id === pane)!
      p.agent!.agent_status = status
      p.agent!.state_change_seq = seq
      write(state)
    },
    setVersion(version: string, protocol: number) {
      state = { ...state, version, protocol }
      write(state)
    },
    setPanes(next: FakePane[]) {
      state = { ...state, panes: next }
      write(state)
    },
  }
}

/** Resolves with the first snapshot the watcher reports that satisfies `ok`. */
function nextSnapshot(w: HerdrWatch, ok: (s: Snapshot) => boolean, ms = 5000): { done: Promise<Snapshot>; release: () => void } {
  let release = () => {}
  const done = new Promise<Snapshot>((res, rej) => {
    const t = setTimeout(() => rej(new Error('timed out waiting for a snapshot')), ms)
    release = w.use((s) => {
      if (ok(s)) {
        clearTimeout(t)
        res(s)
      }
    })
  })
  return { done, release: () => release() }
}

const statusOf = (s: Snapshot, pane: string) => s.agents.find((a) => a.pane_id === pane)?.agent_status

/** How many socket requests of `method` the fake herdr saw. */
const socketCalls = (logPath: string, method: string) =>
  readFileSync(logPath, 'utf8')
    .split('\n')
    .filter((l) => l && JSON.parse(l).argv.join(' ') === `socket ${method}`).length

const cleanup: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

describe('socket API', () => {
  test('a status change is pushed: no CLI call, one agent.get, state_change_seq filled in', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' }), claudePane({ pane_id: 'w1:p2', agent: { agent_status: 'working', state_change_seq: 3 } })])
    const sock: FakeHerdrSocket = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath, logPath: s.logPath })
    cleanup.push(() => sock.close())
    const w = new HerdrWatch(s.herdr, { socketPath: s.socketPath, pollMs: 1000 })
    cleanup.push(() => w.close())
    const first = nextSnapshot(w, (x) => statusOf(x, 'w1:p2') === 'working')
    await first.done
    await waitFor(() => w.mode === 'socket' && sock.subscribers() === 1, 3000, 'subscribed')
    const before = { ...w.counters }
    const blocked = nextSnapshot(w, (x) => statusOf(x, 'w1:p2') === 'blocked')
    const t0 = performance.now()
    s.setStatus('w1:p2', 'blocked', 4)
    const snap = await blocked.done
    const latency = performance.now() - t0
    blocked.release()
    first.release()
    expect(snap.agents.find((a) => a.pane_id === 'w1:p2')!.state_change_seq).toBe(4)
    expect(w.counters.cliSnapshots).toBe(0)
    expect(w.counters.events).toBeGreaterThan(before.events)
    // herdr's tick is 100 ms; the fake's too. Generous for a loaded machine, still far under a poll.
    expect(latency).toBeLessThan(1000)
    console.log(`socket API: status change reached the watcher in ${latency.toFixed(0)} ms`)
  })

  test('a pane appearing and one closing re-subscribe (status subscriptions are per pane)', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' })])
    const sock = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath })
    cleanup.push(() => sock.close())
    const w = new HerdrWatch(s.herdr, { socketPath: s.socketPath })
    cleanup.push(() => w.close())
    const hold = w.use()
    cleanup.push(hold)
    await waitFor(() => w.mode === 'socket', 3000, 'socket mode')
    const subs = w.counters.subscriptions
    const added = nextSnapshot(w, (x) => x.panes.some((p) => p.pane_id === 'w1:p3'))
    s.setPanes([claudePane({ pane_id: 'w1:p1' }), claudePane({ pane_id: 'w1:p3' })])
    await added.done
    added.release()
    await waitFor(() => w.counters.subscriptions > subs, 3000, 're-subscription')
    // the new pane's status is pushed too
    const blocked = nextSnapshot(w, (x) => statusOf(x, 'w1:p3') === 'blocked')
    s.setPanes([claudePane({ pane_id: 'w1:p1' }), claudePane({ pane_id: 'w1:p3', agent: { agent_status: 'blocked', state_change_seq: 9 } })])
    await blocked.done
    blocked.release()
    const gone = nextSnapshot(w, (x) => !x.panes.some((p) => p.pane_id === 'w1:p1'))
    s.setPanes([claudePane({ pane_id: 'w1:p3', agent: { agent_status: 'blocked', state_change_seq: 9 } })])
    await gone.done
    gone.release()
    expect(w.counters.cliSnapshots).toBe(0)
  })

  test('a pane closing between the read and the subscription naming it: subscribed again without it, no CLI fallback', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' })])
    const sock = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath, logPath: s.logPath })
    cleanup.push(() => sock.close())
    const logs: string[] = []
    // every slow path far away: only the socket can bring the changes in time
    const w = new HerdrWatch(s.herdr, { socketPath: s.socketPath, resyncMs: 60_000, pollMs: 60_000, retrySocketMs: 60_000, log: (m) => logs.push(m) })
    cleanup.push(() => w.close())
    cleanup.push(w.use())
    await waitFor(() => w.mode === 'socket' && sock.subscribers() === 1, 3000, 'subscribed')
    // a pane appears; the read its event asks for answers while it is still there...
    const held = sock.hold('session.snapshot')
    s.setPanes([claudePane({ pane_id: 'w1:p1' }), claudePane({ pane_id: 'w1:p3' })])
    await held.reached
    // ...and it closes before the subscription naming it reaches herdr (pane_not_found)
    s.setPanes([claudePane({ pane_id: 'w1:p1' })])
    held.release()
    const gone = nextSnapshot(w, (x) => statusOf(x, 'w1:p1') === 'blocked' && !x.panes.some((p) => p.pane_id === 'w1:p3'), 3000)
    await waitFor(() => socketCalls(s.logPath, 'events.subscribe') >= 2, 3000, 'a subscription naming the closed pane')
    s.setStatus('w1:p1', 'blocked', 9)
    await gone.done
    gone.release()
    expect(w.mode).toBe('socket')
    expect(w.counters.cliSnapshots).toBe(0)
    expect(logs.filter((m) => m.includes('socket API unavailable'))).toEqual([])
  })

  test("pushed lines that do not fit herdr's event schemas change nothing: the subscription stays, only herdr's statuses reach the state", async () => {
    // w1:p1 is a shell: agent.get cannot refresh it, so a status event for it could only be patched in from the event itself
    const s = setup([{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ \n' }, claudePane({ pane_id: 'w1:p2' })])
    const sock = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath, logPath: s.logPath })
    cleanup.push(() => sock.close())
    const w = new HerdrWatch(s.herdr, { socketPath: s.socketPath, resyncMs: 60_000 })
    cleanup.push(() => w.close())
    const statuses: unknown[] = []
    cleanup.push(w.use((x) => statuses.push(...x.panes.map((p) => p.agent_status), ...x.agents.map((a) => a.agent_status))))
    const fullReads = () => socketCalls(s.logPath, 'session.snapshot')
    // the first read, and the one right after subscribing
    await waitFor(() => w.mode === 'socket' && sock.subscribers() === 1 && fullReads() >= 2, 3000, 'subscribed')
    const subscriptions = w.counters.subscriptions
    const read = fullReads()
    for (const line of ['{"event":"pane.agent_status_changed"}', '{"event":"pane.agent_status_changed","data":null}', '{"event":7,"data":{}}', '[1,2]', 'null'])
      sock.push(line)
    // a status of the wrong type: not a status event, so everything is read again instead of patching it in
    sock.push('{"event":"pane.agent_status_changed","data":{"pane_id":"w1:p1","agent_status":42}}')
    await waitFor(() => fullReads() > read, 3000, 'the full read the last line asks for')
    const blocked = nextSnapshot(w, (x) => statusOf(x, 'w1:p2') === 'blocked')
    s.setStatus('w1:p2', 'blocked', 8)
    await blocked.done
    blocked.release()
    expect(statuses.filter((x) => typeof x !== 'string')).toEqual([])
    expect(w.mode).toBe('socket')
    expect(w.counters.subscriptions).toBe(subscriptions)
    expect(w.counters.cliSnapshots).toBe(0)
  })

  test('the socket going away falls back to the CLI poll, which still sees changes', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' })])
    const sock = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath })
    const w = new HerdrWatch(s.herdr, { socketPath: s.socketPath, pollMs: 100, retrySocketMs: 60_000 })
    cleanup.push(() => w.close())
    const hold = w.use()
    cleanup.push(hold)
    await waitFor(() => w.mode === 'socket', 3000, 'socket mode')
    await sock.close()
    await waitFor(() => w.mode === 'poll', 3000, 'poll mode')
    const done = nextSnapshot(w, (x) => statusOf(x, 'w1:p1') === 'done')
    s.setStatus('w1:p1', 'done', 8)
    await done.done
    done.release()
    expect(w.counters.cliSnapshots).toBeGreaterThan(0)
  })
  test('a herdr server restarted while subscribed (a new socket at the same path): subscribed again, pushing again', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' })])
    const first = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath })
    const w = new HerdrWatch(s.herdr, { socketPath: s.socketPath, pollMs: 100, retrySocketMs: 300 })
    cleanup.push(() => w.close())
    cleanup.push(w.use())
    await waitFor(() => w.mode === 'socket', 3000, 'socket mode')
    const subscriptions = w.counters.subscriptions
    await first.close()
    const second = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath })
    cleanup.push(() => second.close())
    await waitFor(() => w.mode === 'socket' && second.subscribers() === 1, 5000, 'subscribed to the new server')
    expect(w.counters.subscriptions).toBe(subscriptions + 1)
    const done = nextSnapshot(w, (x) => statusOf(x, 'w1:p1') === 'done', 3000)
    s.setStatus('w1:p1', 'done', 8)
    await done.done
    done.release()
  })
})

describe('CLI poll fallback', () => {
  test('no socket: one `api snapshot` per poll for all panes, and a change is seen', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' }), claudePane({ pane_id: 'w1:p2' }), claudePane({ pane_id: 'w1:p3' })])
    const w = new HerdrWatch(s.herdr, { socketPath: join(s.dir, 'nothing-here.sock'), pollMs: 100 })
    cleanup.push(() => w.close())
    const first = nextSnapshot(w, () => true)
    await first.done
    expect(w.mode).toBe('poll')
    const t0 = performance.now()
    const blocked = nextSnapshot(w, (x) => statusOf(x, 'w1:p2') === 'blocked')
    s.setStatus('w1:p2', 'blocked', 12)
    await blocked.done
    console.log(`CLI poll (100 ms here): status change reached the watcher in ${(performance.now() - t0).toFixed(0)} ms`)
    blocked.release()
    first.release()
    // no per-pane call: only snapshots
    const calls = require('node:fs')
      .readFileSync(s.logPath, 'utf8')
      .trim()
      .split('\n')
      .map((l: string) => JSON.parse(l).argv.join(' '))
    expect(new Set(calls)).toEqual(new Set(['api snapshot']))
  })

  test('stopped when nobody uses it; /snapshot-style reads share one call', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' })])
    const w = new HerdrWatch(s.herdr, { pollMs: 1000 })
    const [a, b, c] = await Promise.all([w.snapshot(), w.snapshot(), w.snapshot()])
    expect(a).toBe(b)
    expect(b).toBe(c)
    expect(w.counters.cliSnapshots).toBe(1)
    expect(w.mode).toBe('stopped')
    // within pollMs the cached read is reused
    await w.snapshot()
    expect(w.counters.cliSnapshots).toBe(1)
  })
})

describe('lingering and reads in flight', () => {
  const watchers: HerdrWatch[] = []
  afterEach(() => {
    for (const w of watchers.splice(0)) w.close()
  })

  test('with lingerMs it keeps running after the last user left, and a new user within it finds it running', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' })])
    const w = new HerdrWatch(s.herdr, { pollMs: 100, lingerMs: 400 })
    watchers.push(w)
    const first = nextSnapshot(w, () => true)
    await first.done
    first.release()
    expect(w.mode).toBe('poll')
    // a user coming back within the linger joins the running watcher: no new start, its agent is live at once
    w.use()()
    expect(w.agent('w1:p1')?.pane_id).toBe('w1:p1')
    await waitFor(() => w.mode === 'stopped', 3000, 'the linger to end')
    expect(w.agent('w1:p1')).toBeUndefined()
  })

  test('without lingerMs it stops with its last user', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' })])
    const w = new HerdrWatch(s.herdr, { pollMs: 100 })
    watchers.push(w)
    const first = nextSnapshot(w, () => true)
    await first.done
    first.release()
    expect(w.mode).toBe('stopped')
  })

  test('agentSoon waits for the read in flight of a watcher just started, instead of answering nothing', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' })])
    const w = new HerdrWatch(s.herdr, { pollMs: 1000 })
    watchers.push(w)
    w.use()
    expect(w.agent('w1:p1')).toBeUndefined() // nothing read yet
    const a = await w.agentSoon('w1:p1')
    expect(a?.pane_id).toBe('w1:p1')
    expect(w.counters.cliSnapshots).toBe(1)
  })

  test('agentSoon, socket mode starting: the first session.snapshot answers it', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' })])
    const sock = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath })
    try {
      const w = new HerdrWatch(s.herdr, { socketPath: s.socketPath })
      watchers.push(w)
      w.use()
      expect((await w.agentSoon('w1:p1'))?.pane_id).toBe('w1:p1')
      expect(w.counters.cliSnapshots).toBe(0)
    } finally {
      await sock.close()
    }
  })

  test('agentSoon: a stopped watcher, an unknown pane or a failing herdr answer undefined (the caller asks herdr itself)', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' })])
    const stopped = new HerdrWatch(s.herdr, { pollMs: 1000 })
    expect(await stopped.agentSoon('w1:p1')).toBeUndefined()
    expect(stopped.counters.cliSnapshots).toBe(0)
    const w = new HerdrWatch(s.herdr, { pollMs: 1000 })
    watchers.push(w)
    w.use()
    expect(await w.agentSoon('w1:p9')).toBeUndefined()
    const broken = new HerdrWatch(createHerdrClient({ bin: '/nonexistent/herdr' }), { pollMs: 1000 })
    watchers.push(broken)
    broken.use()
    const t0 = performance.now()
    expect(await broken.agentSoon('w1:p1', 5000)).toBeUndefined()
    expect(performance.now() - t0).toBeLessThan(4000) // woken by the failure, not by the time limit
  })
})

describe('subscribe, then read: ordered against the events (herdr 0.9 replays nothing)', () => {
  test('the state is read after the subscription started, and the watcher is live only once that read is in', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1', agent: { agent_status: 'working', state_change_seq: 3 } })])
    const sock = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath, logPath: s.logPath })
    cleanup.push(() => sock.close())
    const first = sock.hold('session.snapshot')
    const w = new HerdrWatch(s.herdr, { socketPath: s.socketPath, resyncMs: 60_000 })
    cleanup.push(() => w.close())
    cleanup.push(w.use())
    await first.reached
    // a change while nothing is subscribed: herdr pushes no event for it, ever
    s.setStatus('w1:p1', 'done', 4)
    const second = sock.hold('session.snapshot')
    first.release()
    await second.reached
    expect(sock.subscribers()).toBe(1) // subscribed before this read was asked for
    expect(w.mode).not.toBe('socket')
    second.release()
    await waitFor(() => w.mode === 'socket', 3000, 'socket mode')
    expect(statusOf(w.latest()!, 'w1:p1')).toBe('done')
    expect(w.agent('w1:p1')?.state_change_seq).toBe(4)
  })

  test('an event that arrives while a read is in flight is not undone by that older read (no done → working → done)', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1', agent: { agent_status: 'working', state_change_seq: 3 } })])
    const sock = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath, logPath: s.logPath })
    cleanup.push(() => sock.close())
    const w = new HerdrWatch(s.herdr, { socketPath: s.socketPath, resyncMs: 60_000 })
    cleanup.push(() => w.close())
    const seen: string[] = []
    cleanup.push(w.use((x) => seen.push(statusOf(x, 'w1:p1') ?? '-')))
    await waitFor(() => w.mode === 'socket' && sock.subscribers() === 1, 3000, 'subscribed')
    // a read asked for now answers with the state of now: working
    const held = sock.hold('session.snapshot')
    w.invalidate()
    await held.reached
    const done = nextSnapshot(w, (x) => statusOf(x, 'w1:p1') === 'done')
    s.setStatus('w1:p1', 'done', 4)
    await done.done
    done.release()
    held.release()
    await w.snapshot() // the held read, and the one the watcher asked for after it, are in
    expect(seen.slice(seen.indexOf('done'))).toEqual(['done'])
    expect(statusOf(w.latest()!, 'w1:p1')).toBe('done')
    expect(w.agent('w1:p1')?.state_change_seq).toBe(4)
  })

  test("herdr's records are taken as they come: fields the bridge does not know pass through", async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' })])
    const sock = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath })
    cleanup.push(() => sock.close())
    const w = new HerdrWatch(s.herdr, { socketPath: s.socketPath })
    cleanup.push(() => w.close())
    cleanup.push(w.use())
    await waitFor(() => w.mode === 'socket', 3000, 'socket mode')
    const snap = w.latest()!
    const protocol = JSON.parse(readFileSync(s.statePath, 'utf8')).protocol ?? 20
    expect(snap.protocol).toBe(protocol)
    // 0.9.2's AgentInfo.completion_seq: in the agent as herdr sent it
    expect((snap.agents[0] as Record<string, unknown>).completion_seq).toBe(protocol >= 22 ? 0 : undefined)
  })
})

bunDescribe('events_lost (herdr 0.9.2, protocol 22)', () => {
  test('a subscriber told it fell behind subscribes and reads again at once: no CLI fallback, nothing lost stays lost', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' }), claudePane({ pane_id: 'w1:p2', restore_error: 'session file missing' })])
    s.setVersion('0.9.3', 22)
    const sock = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath, logPath: s.logPath })
    cleanup.push(() => sock.close())
    const info: string[] = []
    // every slow path far away: only a prompt resubscription can see the change in time
    const w = new HerdrWatch(s.herdr, { socketPath: s.socketPath, resyncMs: 60_000, pollMs: 60_000, retrySocketMs: 60_000, info: (m) => info.push(m) })
    cleanup.push(() => w.close())
    cleanup.push(w.use())
    await waitFor(() => w.mode === 'socket' && sock.subscribers() === 1, 3000, 'subscribed')
    expect((w.latest()!.panes[1] as Record<string, unknown>).restore_error).toBe('session file missing')
    const subscriptions = w.counters.subscriptions
    const t0 = performance.now()
    sock.loseEvents()
    // a change herdr dropped: only the read after the new subscription can bring it
    s.setStatus('w1:p1', 'blocked', 9)
    const blocked = nextSnapshot(w, (x) => statusOf(x, 'w1:p1') === 'blocked', 3000)
    await blocked.done
    blocked.release()
    console.log(`events_lost: resubscribed and read again in ${(performance.now() - t0).toFixed(0)} ms`)
    expect(w.counters.subscriptions).toBe(subscriptions + 1)
    expect(w.counters.cliSnapshots).toBe(0)
    expect(w.mode).toBe('socket')
    expect(info.some((m) => m.includes('event subscription fell behind'))).toBe(true)
    await waitFor(() => sock.subscribers() === 1, 3000, 'the new subscription')
    // and it goes on pushing
    const done = nextSnapshot(w, (x) => statusOf(x, 'w1:p2') === 'done', 3000)
    s.setStatus('w1:p2', 'done', 10)
    await done.done
    done.release()
  })

  test('the 0.8 stand-in has no events_lost (herdr 0.8 lost events silently)', async () => {
    const s = setup([claudePane({ pane_id: 'w1:p1' })])
    s.setVersion('0.8.2', 20)
    const sock = await startFakeHerdrSocket({ statePath: s.statePath, socketPath: s.socketPath })
    cleanup.push(() => sock.close())
    expect(() => sock.loseEvents()).toThrow('events_lost exists from herdr 0.9.2')
  })
})
