// Several machines (docs/bridge.md "Several machines from one phone"), measured
// against floors taken in the same run:
//  - a forwarded request: GET /agent-state for a remote pane through the home
//    bridge vs the same request to the remote directly (the floor); the p50 the
//    home adds must be under 10 ms over loopback;
//  - /snapshot at a home merging 10 machines × 20 panes, warm: under 50 ms p50
//    (floor: the home's /snapshot of its own panes alone);
//  - sockets: however many phones hold /events at the home, each remote sees one.
// Every bridge runs in this process with herdr answered in-process (the fake's
// own code): what the bridges themselves cost.
// Usage: bun bench/machines.ts
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createApp } from '../src/app'
import { createAuthStore } from '../src/auth/store'
import { createLogger } from '../src/server/log'
import { writeMachines, type StoredMachine } from '../src/machines/store'
import type { FakeState } from '../src/demo/fake-herdr'
import { busyWorkspace, inProcessHerdr } from './workspace'
import { check, finish, info, loadNote } from './verdict'

const ROOT = resolve(import.meta.dir, '..')
const dir = mkdtempSync(join(tmpdir(), 'gothalo-bench-machines-'))
const ADMIN = 'bench-admin'

/** `n` panes like the busy workspace's (its screens, two in ten blocked). */
function workspaceOf(n: number): FakeState {
  const ten = busyWorkspace(ROOT)
  return { ...ten, panes: Array.from({ length: n }, (_, i) => ({ ...ten.panes[i % 10]!, pane_id: `w1:p${i + 1}` })) }
}

type Bridge = { base: string; socketsOpened: () => number; stop: () => Promise<void>; pair: () => { device_id: string; token: string } }

function bridge(name: string, state: FakeState, machinesDir?: string): Bridge {
  const d = join(dir, name)
  mkdirSync(d, { recursive: true })
  const auth = createAuthStore({ dbPath: join(d, 'g.db'), adminToken: ADMIN })
  let opened = 0
  const logger = createLogger({
    level: 'info',
    format: 'json',
    write: (l) => {
      if (l.includes('"socket open"') && l.includes('"socket":"events"')) opened++
    },
  })
  const app = createApp({
    logger,
    herdr: inProcessHerdr(state, d),
    auth,
    homes: { home: d, claudeDir: d, piDir: d, xdgStateHome: d, xdgDataHome: d },
    version: 'bench',
    log: () => {},
    machines: machinesDir ? { dataDir: machinesDir, pollMs: 100, backoffMs: { min: 100, max: 1000 } } : undefined,
  }).listen({ port: 0, hostname: '127.0.0.1' })
  return {
    base: `http://127.0.0.1:${app.server!.port}`,
    socketsOpened: () => opened,
    stop: async () => (await app.stop(true), auth.close()),
    pair: () => {
      const r = auth.redeem(auth.createPairCode().code, 'bench home', '127.0.0.1')
      if (!r.ok) throw new Error('pairing failed')
      return r
    },
  }
}

const get = async (url: string): Promise<number> => {
  const t0 = performance.now()
  const r = await fetch(url, { headers: { authorization: `Bearer ${ADMIN}` } })
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${await r.text()}`)
  await r.arrayBuffer()
  return performance.now() - t0
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!
const ms = (x: number) => `${x.toFixed(2)} ms`

async function waitUntil(what: string, ok: () => Promise<boolean>, limitMs = 20_000): Promise<void> {
  const end = Date.now() + limitMs
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`)
    await Bun.sleep(50)
  }
}

console.log(`machines: ${loadNote()}`)

// 1. A forwarded request.
{
  const remote = bridge('r1', workspaceOf(10))
  const homeDir = join(dir, 'home1-machines')
  const home = bridge('home1', workspaceOf(1), homeDir)
  const p = remote.pair()
  writeMachines(homeDir, [{ label: 'r1', target: remote.base, device_id: p.device_id, token: p.token, added_at: Date.now() }])
  await waitUntil('r1 online', async () => {
    const r = await fetch(`${home.base}/machines`, { headers: { authorization: `Bearer ${ADMIN}` } })
    return ((await r.json()) as { machines: { state: string }[] }).machines[1]?.state === 'online'
  })
  const direct: number[] = []
  const forwarded: number[] = []
  for (let i = 0; i < 50; i++) await Promise.all([get(`${remote.base}/agent-state?pane=w1:p3`), get(`${home.base}/agent-state?pane=r1/w1:p3`)])
  for (let i = 0; i < 400; i++) {
    direct.push(await get(`${remote.base}/agent-state?pane=w1:p3`))
    forwarded.push(await get(`${home.base}/agent-state?pane=r1%2Fw1:p3`))
  }
  const added = pct(forwarded, 50) - pct(direct, 50)
  info('GET /agent-state at the remote directly (floor) p50', `${ms(pct(direct, 50))} (p99 ${ms(pct(direct, 99))})`)
  info('the same through the home bridge p50', `${ms(pct(forwarded, 50))} (p99 ${ms(pct(forwarded, 99))})`)
  check('a forwarded request adds, p50', added < 10, ms(added), '< 10 ms over loopback')
  await home.stop()
  await remote.stop()
}

// 2. /snapshot over 10 machines × 20 panes, and 3. one socket per remote whatever the phones.
{
  const remotes = Array.from({ length: 10 }, (_, i) => bridge(`m${i}`, workspaceOf(20)))
  const homeDir = join(dir, 'home2-machines')
  const home = bridge('home2', workspaceOf(20), homeDir)
  const stored: StoredMachine[] = remotes.map((r, i) => {
    const p = r.pair()
    return { label: `m${i}`, target: r.base, device_id: p.device_id, token: p.token, added_at: Date.now() }
  })
  const floor: number[] = []
  for (let i = 0; i < 30; i++) await get(`${home.base}/snapshot`)
  for (let i = 0; i < 200; i++) floor.push(await get(`${home.base}/snapshot`))
  writeMachines(homeDir, stored)
  await waitUntil('220 rows at the home', async () => {
    const r = await fetch(`${home.base}/snapshot`, { headers: { authorization: `Bearer ${ADMIN}` } })
    return ((await r.json()) as { panes: unknown[] }).panes.length === 220
  })
  const merged: number[] = []
  for (let i = 0; i < 30; i++) await get(`${home.base}/snapshot`)
  for (let i = 0; i < 200; i++) merged.push(await get(`${home.base}/snapshot`))
  info("the home's /snapshot of its own 20 panes (floor) p50", ms(pct(floor, 50)))
  check('/snapshot over 10 machines × 20 panes, warm, p50', pct(merged, 50) < 50, `${ms(pct(merged, 50))} (p99 ${ms(pct(merged, 99))})`, '< 50 ms')

  const phones: WebSocket[] = []
  for (let i = 0; i < 20; i++) {
    const ws = new WebSocket(`${home.base.replace('http', 'ws')}/events?token=${ADMIN}`)
    await new Promise<void>((res, rej) => {
      ws.onmessage = () => res()
      ws.onerror = () => rej(new Error('phone socket failed'))
    })
    phones.push(ws)
  }
  const perRemote = remotes.map((r) => r.socketsOpened())
  info('phones holding /events at the home', String(phones.length))
  check(
    '/events sockets each remote sees',
    perRemote.every((n) => n === 1),
    `${perRemote.join(', ')}`,
    '1 per remote whatever the phones',
  )
  for (const ws of phones) ws.close()
  await home.stop()
  for (const r of remotes) await r.stop()
}

rmSync(dir, { recursive: true, force: true })
finish('machines')
