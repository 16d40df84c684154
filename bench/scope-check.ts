// What the scope check costs a request (issue 27: "adds no measurable time to
// /snapshot"). The check is two lookups of the route's declaration and two
// refusal checks per request (the parse hook and the transform each make one);
// the token lookup was there before scopes. Measured in the same run:
//  - /snapshot p50 through the whole bridge (in-process herdr), with a device
//    token that holds `read`, and with the admin token;
//  - the check alone, the same calls a request makes, in a loop;
//  - "without" = the p50 less the check's own time.
// Target: the check is under 1% of /snapshot's p50.
// Usage: bun bench/scope-check.ts
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { declarations, refusalOf } from '../src/auth/guard'
import { createAuthStore } from '../src/auth/store'
import type { HerdrClient } from '../src/herdr/client'
import { runFake } from '../src/demo/fake-herdr'
import { benchBridge, busyWorkspace } from './workspace'
import { check, finish, info, loadNote } from './verdict'

const dir = mkdtempSync(join(tmpdir(), 'gothalo-bench-scope-'))
const ADMIN = 'bench-admin'
// Ten panes, answered by the fake herdr's own code in this process (no spawn): what the bridge itself costs.
const state = busyWorkspace(resolve(import.meta.dir, '..'))
const herdr = {
  snapshot: async () => JSON.parse(runFake(['api', 'snapshot'], structuredClone(state), dir).out.stdout).result.snapshot,
  version: async () => '0.8.2',
} as unknown as HerdrClient
const auth = createAuthStore({ dbPath: join(dir, 'g.db'), adminToken: ADMIN })
const app = benchBridge({ herdr, auth, dir })
const base = `http://127.0.0.1:${app.server!.port}`
const code = auth.createPairCode(['read'])
const dev = auth.redeem(code.code, 'bench phone', '127.0.0.1')
if (!dev.ok) throw new Error('pairing failed')

const get = async (token: string) => {
  const r = await fetch(`${base}/snapshot`, { headers: { authorization: `Bearer ${token}` } })
  if (r.status !== 200) throw new Error(`/snapshot: ${r.status} ${await r.text()}`)
  await r.arrayBuffer()
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!

for (let i = 0; i < 300; i++) await Promise.all([get(dev.token), get(ADMIN)])
const N = 3000
const withDevice: number[] = []
const withAdmin: number[] = []
for (let i = 0; i < N; i++) {
  let t0 = performance.now()
  await get(dev.token)
  withDevice.push(performance.now() - t0)
  t0 = performance.now()
  await get(ADMIN)
  withAdmin.push(performance.now() - t0)
}

// The check alone: what the guard runs for one request, twice (parse hook and transform).
const declared = declarations(() => (app as unknown as { routes: never }).routes)
const principal = auth.identify(dev.token)!
const request = new Request(`${base}/snapshot`)
const LOOPS = 500_000
let refused = 0
for (let i = 0; i < 10_000; i++) refused += refusalOf(principal, declared(request, '/snapshot')?.need) ? 1 : 0
const t0 = performance.now()
for (let i = 0; i < LOOPS; i++) {
  if (refusalOf(principal, declared(request, '/snapshot')?.need)) refused++
  if (refusalOf(principal, declared(request, '/snapshot')?.need)) refused++
}
const checkUs = ((performance.now() - t0) * 1000) / LOOPS
if (refused) throw new Error('the read device was refused /snapshot')

const p50Device = pct(withDevice, 50)
const p50Admin = pct(withAdmin, 50)
const us = (ms: number) => `${Math.round(ms * 1000)} µs`
console.log(`scope-check: ${loadNote()}`)
info('/snapshot p50, device token (read)', `${us(p50Device)} (p99 ${us(pct(withDevice, 99))})`)
info('/snapshot p50, admin token', `${us(p50Admin)} (p99 ${us(pct(withAdmin, 99))})`)
info('/snapshot p50 without the check (p50 less the check)', us(p50Device - checkUs / 1000))
check(
  'the scope check per request',
  checkUs / 1000 < p50Device * 0.01,
  `${checkUs.toFixed(3)} µs = ${((checkUs / 1000 / p50Device) * 100).toFixed(3)}% of p50`,
  '< 1% of /snapshot p50',
)
await app.stop(true)
auth.close()
rmSync(dir, { recursive: true, force: true })
finish('scope-check')
