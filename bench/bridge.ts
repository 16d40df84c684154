import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createAuthStore } from '../src/auth/store'
import { createHerdrClient, runCommand, type HerdrClient } from '../src/herdr/client'
import type { FakeState } from '../src/demo/fake-herdr'
import { benchBridge, busyWorkspace, inProcessHerdr } from './workspace'

const ROOT = resolve(import.meta.dir, '..')
const FAKE = join(ROOT, 'fixtures/herdr/herdr')
const TOKEN = 'bench-token'
const dir = mkdtempSync(join(tmpdir(), 'gothalo-bench-'))
/** removed before exit: the bench leaves nothing behind */
const tempDirs = [dir]
const statePath = join(dir, 'state.json')

// Ten panes with real screens, like a busy workspace.
const state: FakeState = busyWorkspace(ROOT)
writeFileSync(statePath, JSON.stringify(state))
const env = { ...process.env, FAKE_HERDR_BUN: process.execPath, FAKE_HERDR_STATE: statePath }

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}
const r2 = (x: number) => Math.round(x * 100) / 100

async function seq(n: number, f: () => Promise<unknown>): Promise<number[]> {
  const t: number[] = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    await f()
    t.push(performance.now() - t0)
  }
  return t
}

async function concurrent(clients: number, total: number, f: () => Promise<unknown>) {
  const lat: number[] = []
  let left = total
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (left-- > 0) {
        const a = performance.now()
        await f()
        lat.push(performance.now() - a)
      }
    }),
  )
  const secs = (performance.now() - t0) / 1000
  return { rps: Math.round(lat.length / secs), p50: r2(pct(lat, 50)), p99: r2(pct(lat, 99)) }
}

function serve(herdr: HerdrClient) {
  const dbDir = mkdtempSync(join(tmpdir(), 'gothalo-bench-db-'))
  tempDirs.push(dbDir)
  const auth = createAuthStore({ dbPath: join(dbDir, 'g.db'), adminToken: TOKEN })
  const app = benchBridge({ herdr, auth, dir })
  const base = `http://127.0.0.1:${app.server!.port}`
  const get = async (p: string) => {
    const r = await fetch(base + p, { headers: { authorization: `Bearer ${TOKEN}` } })
    if (r.status !== 200) throw new Error(`${p}: ${r.status} ${await r.text()}`)
    await r.arrayBuffer()
  }
  return { get, stop: async () => (await app.stop(true), auth.close()) }
}

const N = 60
const out: Record<string, unknown> = {}

// Floors (the fake herdr alone) and the bridge, interleaved call by call so
// that load from anything else on the machine hits both alike.
const real = serve(createHerdrClient({ bin: FAKE, env }))
await real.get('/snapshot') // warm up
const floorSnap: number[] = [],
  snapSeq: number[] = [],
  floorCard: number[] = [],
  cardSeq: number[] = []
for (let i = 0; i < N; i++) {
  floorSnap.push(...(await seq(1, () => runCommand([FAKE, 'api', 'snapshot'], 5000, env))))
  snapSeq.push(...(await seq(1, () => real.get('/snapshot'))))
  floorCard.push(
    ...(await seq(1, async () => {
      await runCommand([FAKE, 'agent', 'get', 'w1:p1'], 5000, env)
      await runCommand([FAKE, 'agent', 'read', 'w1:p1', '--source', 'visible'], 5000, env)
    })),
  )
  cardSeq.push(...(await seq(1, () => real.get('/agent-state?pane=w1:p1'))))
}
const diff = (a: number[], b: number[]) => a.map((x, i) => x - b[i])
out.floor_ms = { snapshot_p50: r2(pct(floorSnap, 50)), card_two_calls_p50: r2(pct(floorCard, 50)) }
out.sequential_ms = {
  snapshot_p50: r2(pct(snapSeq, 50)),
  snapshot_overhead_p50: r2(pct(diff(snapSeq, floorSnap), 50)),
  agent_state_p50: r2(pct(cardSeq, 50)),
  agent_state_overhead_p50: r2(pct(diff(cardSeq, floorCard), 50)),
}
out.c50_with_fake_herdr = {
  snapshot: await concurrent(50, 500, () => real.get('/snapshot')),
  healthz: await concurrent(50, 5000, () => real.get('/healthz')),
}
await real.stop()

const mem = serve(inProcessHerdr(state, dir))
await mem.get('/snapshot')
const hz = await seq(2000, () => mem.get('/healthz'))
const sn = await seq(2000, () => mem.get('/snapshot'))
const cs = await seq(2000, () => mem.get('/agent-state?pane=w1:p1'))
out.bridge_only_sequential_ms = {
  healthz: { p50: r2(pct(hz, 50)), p99: r2(pct(hz, 99)) },
  snapshot: { p50: r2(pct(sn, 50)), p99: r2(pct(sn, 99)) },
  agent_state: { p50: r2(pct(cs, 50)), p99: r2(pct(cs, 99)) },
}
out.bridge_only_c50 = {
  healthz: await concurrent(50, 20000, () => mem.get('/healthz')),
  snapshot: await concurrent(50, 10000, () => mem.get('/snapshot')),
  agent_state: await concurrent(50, 10000, () => mem.get('/agent-state?pane=w1:p1')),
}
await mem.stop()

console.log(JSON.stringify({ bench: 'bridge', ...out }))
const f = out.floor_ms as any,
  s = out.sequential_ms as any,
  b = out.bridge_only_sequential_ms as any,
  c = out.c50_with_fake_herdr as any
console.log(
  `bridge: fake herdr alone p50 ${f.snapshot_p50} ms (snapshot), ${f.card_two_calls_p50} ms (agent get + read)\n` +
    `  through the bridge p50 ${s.snapshot_p50} ms /snapshot (+${s.snapshot_overhead_p50}), ${s.agent_state_p50} ms /agent-state (+${s.agent_state_overhead_p50})\n` +
    `  bridge alone (in-process herdr) p50: /healthz ${b.healthz.p50} ms, /snapshot ${b.snapshot.p50} ms, /agent-state ${b.agent_state.p50} ms\n` +
    `  c=50 with the fake: /snapshot ${c.snapshot.rps} req/s p50 ${c.snapshot.p50} p99 ${c.snapshot.p99} ms; /healthz ${c.healthz.rps} req/s p50 ${c.healthz.p50} p99 ${c.healthz.p99} ms`,
)
for (const d of tempDirs) rmSync(d, { recursive: true, force: true })
process.exit(0)
