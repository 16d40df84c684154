// Several machines from one phone, end to end: a home bridge and one or two
// remote bridges (each a real app with its own fake herdr), merged into the
// home's /machines, /snapshot and /events.
import { afterEach, expect, test } from 'bun:test'
import { ADMIN, FrameQueue, claudePane, fakePane, startBridge, waitFor, type Bridge } from '../support/harness'
import { addMachine, pairDevice, removeMachine, startHome } from './support'
import { Value } from '@sinclair/typebox/value'
import { EventsHelloFrame, MachineEventFrame, PaneEventFrame, PaneRemovedFrame } from '../../src/events/frames'

const FRAMES = { hello: EventsHelloFrame, machine: MachineEventFrame, pane: PaneEventFrame, pane_removed: PaneRemovedFrame }
const wellFormed = (f: { type: keyof typeof FRAMES }) => Value.Check(FRAMES[f.type], f)

const bridges: Bridge[] = []
const queues: FrameQueue[] = []
afterEach(async () => {
  for (const q of queues.splice(0)) q.close()
  for (const b of bridges.splice(0)) await b.stop().catch(() => {})
})

async function track<B extends Bridge>(b: Promise<B>): Promise<B> {
  const x = await b
  bridges.push(x)
  return x
}

async function events(b: Bridge, token = ADMIN, query = '') {
  const q = new FrameQueue(`${b.wsBase}/events?token=${token}${query}`)
  queues.push(q)
  await q.opened
  return q
}

const remotePanes = () => [claudePane({ pane_id: 'w1:p1' }), fakePane('codex', { pane_id: 'w1:p2', agent: { agent_status: 'working', state_change_seq: 2 } })]

test('a single machine is unchanged byte for byte: /snapshot and the /events hello with machines configured but none added', async () => {
  const panes = [claudePane({ pane_id: 'w1:p1' }), claudePane({ pane_id: 'w2:p1', workspace_id: 'w2', tab_id: 'w2:t1' })]
  const plain = await track(startBridge({ state: { panes }, herdrSocket: true }))
  const home = await track(startHome(panes))
  expect(await (await home.get('/snapshot')).text()).toBe(await (await plain.get('/snapshot')).text())
  const [a, b] = [await (await events(plain)).next(), await (await events(home)).next()]
  expect(JSON.stringify({ ...b, epoch: 'E' })).toBe(JSON.stringify({ ...a, epoch: 'E' }))
  expect(b.machines).toBeUndefined()
  const m = await home.json('/machines')
  expect(m.machines).toEqual([{ id: 'local', label: 'local', state: 'online', last_seen: expect.any(Number), version: 'test', panes: 2 }])
})

test('an added machine is picked up without a restart: /machines, /snapshot and every phone socket get its rows as LABEL/PANE; one socket to it whatever the phones', async () => {
  const home = await track(startHome([claudePane({ pane_id: 'w1:p1' })]))
  const laptop = await track(startBridge({ state: { panes: remotePanes() }, herdrSocket: true }))
  const phone = await pairDevice(home, 'Pixel 9')
  const phones = [await events(home, phone.token), await events(home, phone.token), await events(home)]
  const hellos = await Promise.all(phones.map((q) => q.next()))
  expect(hellos[0].panes.map((r: { pane_id: string }) => r.pane_id)).toEqual(['w1:p1'])

  await addMachine(home, 'laptop', laptop, ['read', 'answer'])
  // each phone hears the machine come online, then its two rows, numbered on from its hello
  for (const [i, q] of phones.entries()) {
    const got = await q.until((f) => f.type === 'pane' && f.pane.pane_id === 'laptop/w1:p2')
    const seqs = got.map((f: { seq: number }) => f.seq)
    expect(seqs).toEqual(seqs.map((_: number, k: number) => hellos[i].seq + 1 + k))
    expect(got[0]).toMatchObject({ type: 'machine', machine: { id: 'laptop', state: 'online' } })
    expect(
      got.filter((f: { type: string }) => f.type === 'pane').map((f: { pane: { pane_id: string; machine: string } }) => [f.pane.pane_id, f.pane.machine]),
    ).toEqual([
      ['laptop/w1:p1', 'laptop'],
      ['laptop/w1:p2', 'laptop'],
    ])
  }
  const ms = (await home.json('/machines')).machines
  expect(ms.map((m: { id: string; state: string; panes: number }) => [m.id, m.state, m.panes])).toEqual([
    ['local', 'online', 1],
    ['laptop', 'online', 2],
  ])
  expect(ms[1]).toMatchObject({ label: 'laptop', target: laptop.base, version: 'test' })
  const snap = await home.json('/snapshot')
  expect(snap.panes.map((r: { pane_id: string; machine?: string }) => [r.pane_id, r.machine])).toEqual([
    ['w1:p1', undefined],
    ['laptop/w1:p1', 'laptop'],
    ['laptop/w1:p2', 'laptop'],
  ])
  // a phone connecting now gets the machines in its hello
  const late = await events(home, phone.token)
  const hello = await late.next()
  expect(hello.machines.map((m: { id: string }) => m.id)).toEqual(['local', 'laptop'])
  expect(hello.panes).toHaveLength(3)

  // a change on the remote reaches every phone, qualified
  laptop.updatePane('w1:p1', (p) => {
    p.agent!.agent_status = 'working'
    p.agent!.state_change_seq = 8
  })
  for (const q of [...phones, late]) {
    const [e] = await q.until((f) => f.type === 'pane' && f.pane.pane_id === 'laptop/w1:p1' && f.pane.agent_status === 'working')
    void e
  }
  // four phone sockets at home, one /events socket at the remote
  const opened = laptop.logLines.filter((l) => l.msg === 'socket open' && l.socket === 'events')
  expect(opened).toHaveLength(1)

  // removed: its rows go, the phones hear it
  await removeMachine(home, 'laptop')
  const gone = await phones[0].until((f) => f.type === 'machine' && f.machine.removed === true)
  expect([hello, ...gone].every(wellFormed)).toBe(true)
  expect(gone.filter((f: { type: string }) => f.type === 'pane_removed').map((f: { pane_id: string }) => f.pane_id)).toEqual(['laptop/w1:p1', 'laptop/w1:p2'])
  expect((await home.json('/snapshot')).panes.map((r: { pane_id: string }) => r.pane_id)).toEqual(['w1:p1'])
})

test('a machine that goes away mid-/events: a machine event (offline), its rows stay stale, its panes answer 503 at once', async () => {
  const home = await track(startHome([claudePane({ pane_id: 'w1:p1' })]))
  const laptop = await startBridge({ state: { panes: remotePanes() }, herdrSocket: true })
  await addMachine(home, 'laptop', laptop)
  const q = await events(home)
  await waitFor(async () => (await home.json('/snapshot')).panes.length === 3, 5000, 'the laptop rows')
  await q.next()
  await laptop.stop()
  const [off] = (await q.until((f) => f.type === 'machine' && f.machine.state !== 'online')).slice(-1)
  expect(off.machine).toMatchObject({ id: 'laptop', state: 'offline', last_seen: expect.any(Number) })
  const snap = await home.json('/snapshot')
  expect(snap.panes.slice(1).map((r: { pane_id: string; stale?: boolean }) => [r.pane_id, r.stale])).toEqual([
    ['laptop/w1:p1', true],
    ['laptop/w1:p2', true],
  ])
  const t0 = performance.now()
  const r = await home.get('/agent-state?pane=laptop/w1:p1')
  expect([r.status, await r.text()]).toEqual([503, 'machine laptop is offline'])
  expect(performance.now() - t0).toBeLessThan(2000)
  const s = await home.post('/send', { pane: 'laptop/w1:p1', text: 'hi' })
  expect([s.status, await s.text()]).toEqual([503, 'machine laptop is offline'])
  const m = (await home.json('/machines')).machines[1]
  expect(m).toMatchObject({ state: 'offline', panes: 2 })
})

test("a remote that revokes the home bridge's device: state attention with the reason, retried with backoff, no crash loop", async () => {
  const home = await track(startHome([claudePane({ pane_id: 'w1:p1' })]))
  const laptop = await track(startBridge({ state: { panes: remotePanes() }, herdrSocket: true }))
  await addMachine(home, 'laptop', laptop)
  await waitFor(async () => (await home.json('/machines')).machines[1]?.state === 'online', 5000, 'online')
  const device = (await laptop.json('/devices')).find((d: { name: string }) => d.name.startsWith('gothalo bridge on '))
  expect((await fetch(`${laptop.base}/devices/${device.device_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(200)
  const m = await waitFor(async () => {
    const x = (await home.json('/machines')).machines[1]
    return x.state === 'attention' && x
  })
  expect(m.error).toBe("the remote bridge refused this bridge's token (revoked there?): pair again with gothalo machines remove/add")
  // one log line for the change, not one per retry
  const seen = () => home.logLines.filter((l) => l.machine === 'laptop' && l.state === 'attention').length
  const tries = () => laptop.logLines.filter((l) => l.path === '/devices/me').length
  await waitFor(() => tries() >= 3, 5000, 'retries')
  expect(seen()).toBe(1)
  // backoff: the retries slow down (min 50 ms doubling to 400 ms): far fewer than a tight loop would make
  const before = tries()
  await Bun.sleep(800) // a span to count retries over (not synchronisation)
  expect(tries() - before).toBeLessThanOrEqual(4)
  expect((await home.get('/healthz')).status).toBe(200)
})
