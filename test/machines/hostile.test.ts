// What real use and a broken or hostile remote show: a home paired with too few
// scopes there, machines.json edited by hand, a machine removed while its ssh
// tunnel is still opening, a local program that takes the tunnel's port first.
import { afterEach, expect, test } from 'bun:test'
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN, FrameQueue, startBridge, tempDir, waitFor } from '../support/harness'
import { listenerOf, openTunnel } from '../../src/machines/ssh'
import { readMachines, writeMachines } from '../../src/machines/store'

import { addMachine, deafRemote, fakeRemote, startHome } from './support'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

type Listed = { id: string; state: string; error?: string }

test('a remote that grants the home no read scope: attention saying so, not offline', async () => {
  const home = await startHome([])
  cleanups.push(() => home.stop())
  const laptop = await startBridge({ herdrSocket: true, state: { panes: [] } })
  cleanups.push(() => laptop.stop())
  await addMachine(home, 'laptop', laptop, ['answer'])
  const m = await waitFor(
    async () => {
      const l = (await home.json('/machines')).machines[1] as Listed
      return l?.error ? l : undefined
    },
    5000,
    'a state with a reason',
  )
  expect(m.state).toBe('attention')
  expect(m.error).toContain('read')
})

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

test('a machine removed while its ssh tunnel is still opening: the ssh it started does not outlive it', async () => {
  const dir = tempDir('gothalo-fake-ssh-')
  // an ssh that takes its time: it listens on its -L port only once the test says go
  const ssh = join(dir, 'ssh')
  writeFileSync(
    ssh,
    `#!${process.execPath}
import { existsSync, writeFileSync } from 'node:fs'
const l = process.argv[process.argv.indexOf('-L') + 1]
writeFileSync(${JSON.stringify(join(dir, 'pid'))}, String(process.pid))
while (!existsSync(${JSON.stringify(join(dir, 'go'))})) await Bun.sleep(20)
Bun.listen({ hostname: '127.0.0.1', port: Number(l.split(':')[1]), socket: { data() {} } })
writeFileSync(${JSON.stringify(join(dir, 'listening'))}, '')
setInterval(() => {}, 1000)
`,
  )
  chmodSync(ssh, 0o755)
  const home = await startHome([], {}, { ssh, readyMs: 20_000 })
  cleanups.push(() => home.stop())
  writeMachines(home.dataDir, [{ label: 'box', target: 'ssh://box.example', device_id: 'd', token: 't', added_at: 0 }])
  const pid = await waitFor(async () => existsSync(join(dir, 'pid')) && Number(readFileSync(join(dir, 'pid'), 'utf8')), 5000, 'ssh started')
  cleanups.push(() => alive(pid) && process.kill(pid, 'SIGKILL'))
  writeMachines(home.dataDir, [])
  await waitFor(async () => (await home.json('/machines')).machines.length === 1, 5000, 'box removed')
  writeFileSync(join(dir, 'go'), '')
  await waitFor(async () => existsSync(join(dir, 'listening')), 5000, 'the tunnel listening')
  await waitFor(async () => !alive(pid), 3000, 'the ssh of a removed machine ended')
})

test('machines.json edited by hand: a label that is not one, `local`, a second `lap`: each skipped with a log line, the rest merged', async () => {
  const first = fakeRemote({})
  const second = fakeRemote({})
  cleanups.push(first.stop, second.stop)
  const home = await startHome([])
  cleanups.push(() => home.stop())
  const entry = (label: string, target: string) => ({ label, target, device_id: 'd', token: 't', added_at: 0, note: 'an unknown field' })
  writeFileSync(
    join(home.dataDir, 'machines.json'),
    JSON.stringify({
      version: 1,
      machines: [entry('Laptop', first.base), entry('local', first.base), entry('a/b', first.base), entry('lap', first.base), entry('lap', second.base)],
    }),
  )
  await waitFor(async () => (await home.json('/machines')).machines[1]?.state === 'online', 5000, 'lap online')
  const listed = (await home.json('/machines')).machines as (Listed & { target?: string })[]
  expect(listed.map((m) => [m.id, m.target])).toEqual([
    ['local', undefined],
    ['lap', first.base],
  ])
  const said = home.logLines.map((l) => String(l.msg ?? ''))
  for (const why of ['"Laptop"', 'local is', '"a/b"', 'label taken: lap'])
    expect(said.some((l) => l.startsWith('machines.json: skipped') && l.includes(why))).toBe(true)
  // its panes are reachable as LABEL/PANE
  expect((await home.json('/snapshot')).panes.map((p: { pane_id: string }) => p.pane_id)).toEqual(['lap/w1:p1'])
  // a save that does not parse: said, and nothing lost
  writeFileSync(join(home.dataDir, 'machines.json'), '{"version": 1, "machines": [')
  await waitFor(async () => home.logLines.some((l) => String(l.msg ?? '').startsWith('machines: ')), 5000, 'the parse error said')
  expect(((await home.json('/machines')).machines as Listed[]).map((m) => [m.id, m.state])).toEqual([
    ['local', 'online'],
    ['lap', 'online'],
  ])
})

/** A remote bridge that is online (/healthz, WS /events) and says hello with `panes`. */
function remoteSaying(hello: () => Record<string, unknown>, then: unknown[] = [], version = () => 'hostile') {
  const sockets = new Set<{ close(code?: number, reason?: string): void }>()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req, srv) {
      const path = new URL(req.url).pathname
      if (path === '/healthz') return Response.json({ ok: true, version: version() })
      if (path === '/events') return srv.upgrade(req) ? undefined : new Response('no', { status: 400 })
      return new Response('not found', { status: 404 })
    },
    websocket: {
      open(ws) {
        sockets.add(ws)
        ws.send(JSON.stringify(hello()))
        for (const f of then) ws.send(JSON.stringify(f))
      },
      message() {},
      close(ws) {
        sockets.delete(ws)
      },
    },
  })
  return {
    base: `http://127.0.0.1:${server.port}`,
    stop: () => server.stop(true),
    dropSockets: () => {
      for (const s of sockets) s.close(1001, 'going away')
    },
  }
}

const row = (pane_id: string, title = 't') => ({
  pane_id,
  workspace_id: 'w1',
  tab_id: 'w1:t1',
  workspace_label: title,
  tab_label: 't',
  focused: false,
  agent_status: 'idle',
})

test('a remote that sends more rows than any bridge has: refused, and every phone keeps its /events', async () => {
  const flood = remoteSaying(() => ({
    type: 'hello',
    protocol: 1,
    epoch: 'e1',
    seq: 0,
    resume: 'new',
    panes: Array.from({ length: 5000 }, (_, i) => row(`w1:p${i}`, 'x'.repeat(1000))),
  }))
  cleanups.push(flood.stop)
  const home = await startHome([])
  cleanups.push(() => home.stop())
  writeMachines(home.dataDir, [{ label: 'flood', target: flood.base, device_id: 'd', token: 't', added_at: 0 }])
  const m = await waitFor(
    async () => {
      const l = (await home.json('/machines')).machines[1] as Listed | undefined
      return l?.error ? l : undefined
    },
    5000,
    'the flood refused',
  )
  expect(m.state).toBe('offline')
  expect(m.error).toBe('it sent a frame larger than 1048576 bytes')
  expect((await home.json('/snapshot')).panes).toEqual([])
  const phone = new FrameQueue(`${home.wsBase}/events?token=${ADMIN}`)
  cleanups.push(() => phone.close())
  const hello = await phone.next()
  expect([hello.type, hello.panes]).toEqual(['hello', []])
})

test('a row far larger than any bridge sends, too many rows or bytes of them, a hello without an epoch, a row without a pane id: refused one by one', async () => {
  for (const [hello, then, says] of [
    [{ panes: [row('w1:p1', 'x'.repeat(200_000))] }, [], 'a row larger than 65536 bytes'],
    [{ panes: Array.from({ length: 501 }, (_, i) => row(`w1:p${i}`)) }, [], 'more than 500 panes'],
    [{ panes: Array.from({ length: 20 }, (_, i) => row(`w1:p${i}`, 'x'.repeat(40_000))) }, [], 'more than 524288 bytes of rows'],
    [{}, [{ type: 'pane', seq: 1, pane: row('w1:p2', 'x'.repeat(600_000)) }], 'a row larger'],
    [{ epoch: undefined }, [], 'hello'],
    [{}, [{ type: 'pane', seq: 1, pane: { ...row('w1:p2'), pane_id: 7 } }], 'pane_id'],
    // an older or newer bridge's row that /snapshot's schema refuses (it made the home's /snapshot 400 for every phone)
    [{ panes: [{ ...row('w1:p1'), agent_status: undefined }] }, [], 'not a /snapshot row (/agent_status)'],
    [{}, [{ type: 'pane', seq: 1, pane: { ...row('w1:p2'), focused: 'yes' } }], 'not a /snapshot row (/focused)'],
  ] as const) {
    const bad = remoteSaying(() => ({ type: 'hello', protocol: 1, epoch: 'e1', seq: 0, resume: 'new', panes: [row('w1:p1')], ...hello }), [...then])
    const home = await startHome([])
    try {
      writeMachines(home.dataDir, [{ label: 'bad', target: bad.base, device_id: 'd', token: 't', added_at: 0 }])
      const m = await waitFor(
        async () => {
          const l = (await home.json('/machines')).machines[1] as Listed | undefined
          return l?.error?.includes(says) ? l : undefined
        },
        5000,
        `refused for ${says}`,
      )
      expect(m.state).toBe('offline')
      expect((await home.get('/snapshot')).status).toBe(200)
    } finally {
      await home.stop()
      bad.stop()
    }
  }
})

test('a remote that restarted upgraded (a new epoch): its new version is listed', async () => {
  let release = { epoch: 'e1', version: '1.0.0' }
  const remote = remoteSaying(
    () => ({ type: 'hello', protocol: 1, epoch: release.epoch, seq: 0, resume: 'new', panes: [row('w1:p1')] }),
    [],
    () => release.version,
  )
  cleanups.push(remote.stop)
  const home = await startHome([])
  cleanups.push(() => home.stop())
  writeMachines(home.dataDir, [{ label: 'lap', target: remote.base, device_id: 'd', token: 't', added_at: 0 }])
  await waitFor(async () => (await home.json('/machines')).machines[1]?.state === 'online', 5000, 'online')
  expect((await home.json('/machines')).machines[1].version).toBe('1.0.0')
  const phone = new FrameQueue(`${home.wsBase}/events?token=${ADMIN}`)
  cleanups.push(() => phone.close())
  await phone.next()
  release = { epoch: 'e2', version: '1.1.0' }
  remote.dropSockets()
  const heard = await phone.until((f) => f.type === 'machine' && f.machine.version === '1.1.0')
  expect(heard.at(-1).machine).toMatchObject({ id: 'lap', state: 'online', version: '1.1.0' })
  expect((await home.json('/machines')).machines[1].version).toBe('1.1.0')
})

/** A stand-in ssh: writes its -L port to `<dir>/port`, then listens on it itself only when `listens`. */
function portSsh(dir: string, listens: boolean): string {
  const ssh = join(dir, 'ssh')
  writeFileSync(
    ssh,
    `#!${process.execPath}
import { writeFileSync } from 'node:fs'
const port = Number(process.argv[process.argv.indexOf('-L') + 1].split(':')[1])
${listens ? "Bun.listen({ hostname: '127.0.0.1', port, socket: { data() {} } })" : ''}
writeFileSync(${JSON.stringify(join(dir, 'port'))}, String(port))
setInterval(() => {}, 1000)
`,
  )
  chmodSync(ssh, 0o755)
  return ssh
}

test("another program that takes the tunnel's port before ssh listens on it: the tunnel is refused, never used", async () => {
  const dir = tempDir('gothalo-squat-ssh-')
  const opening = openTunnel({ kind: 'ssh', host: 'box.example', port: 22, remotePort: 8787 }, { ssh: portSsh(dir, false), readyMs: 10_000 })
  const port = await waitFor(() => existsSync(join(dir, 'port')) && Number(readFileSync(join(dir, 'port'), 'utf8')), 5000, 'ssh told its port')
  // the squatter: this test process, listening where ssh was to
  const squatter = Bun.listen({ hostname: '127.0.0.1', port, socket: { data() {} } })
  cleanups.push(() => squatter.stop(true))
  const t = await opening
  expect(t).toEqual({ ok: false, error: `port ${port} was taken by another program before ssh could listen on it: the tunnel was not used` })
})

test('the positive control: an ssh that listens on its own port is the tunnel', async () => {
  const dir = tempDir('gothalo-own-ssh-')
  const t = await openTunnel({ kind: 'ssh', host: 'box.example', port: 22, remotePort: 8787 }, { ssh: portSsh(dir, true), readyMs: 10_000 })
  if (!t.ok) throw new Error(t.error)
  cleanups.push(t.close)
  expect(t.base).toBe(`http://127.0.0.1:${readFileSync(join(dir, 'port'), 'utf8')}`)
  expect(listenerOf(process.pid, Number(new URL(t.base).port))).toBe(false)
})

test('a remote gone without a word (a laptop asleep: no FIN, no frame, no ping): offline once silent past the limit; a remote that pings stays online', async () => {
  const silent = deafRemote()
  cleanups.push(() => silent.stop())
  // the real bridge pings its /events sockets every 50 ms here (30 s for real)
  const pinging = await startBridge({ herdrSocket: true, state: { panes: [] }, timing: { eventsPingMs: 50 } })
  cleanups.push(() => pinging.stop())
  const home = await startHome([], {}, undefined, 400)
  cleanups.push(() => home.stop())
  const phone = new FrameQueue(`${home.wsBase}/events?token=${ADMIN}`)
  cleanups.push(() => phone.close())
  await phone.next()
  await addMachine(home, 'desk', pinging)
  const deskOnline = await phone.until((f) => f.type === 'machine' && f.machine.id === 'desk' && f.machine.state === 'online', 5000)
  writeMachines(home.dataDir, [
    ...readMachines(home.dataDir),
    { label: 'lap', target: `http://127.0.0.1:${await silent.listening}`, device_id: 'd', token: 't', added_at: 0 },
  ])
  await phone.until((f) => f.type === 'machine' && f.machine.id === 'lap' && f.machine.state === 'online', 5000)
  const gone = await phone.until((f) => f.type === 'machine' && f.machine.id === 'lap' && f.machine.state === 'offline', 5000)
  expect(gone.at(-1).machine.error).toBe('silent for 0.4 s (no frame, no ping): the connection is gone')
  // it comes back (its socket opens again) and goes silent again: twice the limit since the desk came online
  const again = await phone.until((f) => f.type === 'machine' && f.machine.id === 'lap' && f.machine.state === 'offline', 5000)
  // the desk, silent all that time but for its pings, stayed online
  const desk = [...deskOnline, ...gone, ...again].filter((f) => f.type === 'machine' && f.machine.id === 'desk')
  expect(desk.map((f) => f.machine.state)).toEqual(['online'])
  expect((await home.json('/machines')).machines.find((m: Listed) => m.id === 'desk').state).toBe('online')
})
