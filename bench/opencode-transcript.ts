// Measures the opencode transcript source against an in-process opencode service
// (a real HTTP server on loopback, test/support/opencode-service.ts) holding one
// session of 5 000 messages (the corpus conversation repeated with fresh ids).
//   bun bench/opencode-transcript.ts [messages]     (default 5000)
// Figures: cold first page (resolve + newest 150), a reconnect while the cache is
// warm (resolve + one tail poll + newest 150), a cold reconnect (cache dropped), and
// how many requests a warm reconnect makes, against a floor measured in this run:
// JSON.parse of the whole session's message list as the service sends it (the
// least any reader of it does). Target: warm reconnect < 50 ms. Prints one JSON
// line, then a summary.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AgentInfo } from '../src/herdr/types'
import { createOpencodeSource } from '../src/transcript/kinds/opencode/source'
import { OpencodeSessions } from '../src/transcript/kinds/opencode/timeline'
import type { Resolved } from '../src/transcript/source'
import { startFakeOpencode } from '../test/support/opencode-service'
import { check, finish, info, loadNote } from './verdict'

const N = Number(process.argv[2] ?? 5000) || 5000
const FIX = join(import.meta.dir, '../fixtures/opencode')
const DEMO = 'ses_dc9c81e7effeFPj4Gy4Pf06H0I'
const sessions = JSON.parse(readFileSync(join(FIX, 'api/api-session-list.json'), 'utf8')).data
const demo: any[] = JSON.parse(readFileSync(join(FIX, `v2/api-session-${DEMO}-message.json`), 'utf8')).data
const messages: any[] = []
for (let k = 0; messages.length < N; k++)
  for (const m of demo) if (messages.length < N) messages.push({ ...structuredClone(m), id: `${m.id}_${k.toString().padStart(5, '0')}` })

const svc = startFakeOpencode({ sessions, messages: { [DEMO]: messages } })
const state = mkdtempSync(join(tmpdir(), 'oc-bench-'))
svc.register(state)
const homes = { home: state, claudeDir: '', piDir: '', xdgStateHome: state, xdgDataHome: join(state, 'data') }
const agent = {
  pane_id: 'w1:p1',
  agent: 'opencode',
  agent_status: 'idle',
  cwd: '/home/me/oc/proj',
  agent_session: { agent: 'opencode', kind: 'id', source: 'herdr:opencode', value: DEMO },
} as AgentInfo
// A long poll interval: the bench drives the one poll it measures.
const registry = new OpencodeSessions()
const source = createOpencodeSource(homes, { pollMs: 60_000, opencode: registry })
const ms = (t0: number) => performance.now() - t0
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

async function firstPage(): Promise<{ ms: number; r: Resolved & { ok: true } }> {
  const t0 = performance.now()
  const r = await source.resolve(agent, {})
  if (!r.ok) throw new Error(`resolve: ${r.body}`)
  const total = r.timeline.total()
  const page = await r.timeline.read(Math.max(1, total - 149), total)
  if (page.length !== Math.min(150, total)) throw new Error(`page of ${page.length}`)
  return { ms: ms(t0), r }
}

const colds: number[] = []
let total = 0
for (let i = 0; i < 3; i++) {
  registry.drop()
  const c = await firstPage()
  total = c.r.timeline.total()
  colds.push(c.ms)
  c.r.timeline.release()
  registry.drop()
}
const first = await firstPage()
first.r.timeline.release()
const warms: number[] = []
for (let i = 0; i < 5; i++) {
  const w = await firstPage()
  warms.push(w.ms)
  w.r.timeline.release()
}
// What one warm reconnect asks the service for (session lookup + one tail page).
const before = svc.seen.length
const again = await firstPage()
again.r.timeline.release()
const requests = svc.seen.length - before
await svc.stop()
rmSync(state, { recursive: true, force: true })

const payload = JSON.stringify({ data: messages })
const floors: number[] = []
for (let i = 0; i < 3; i++) {
  const t0 = performance.now()
  JSON.parse(payload)
  floors.push(ms(t0))
}
const floorMs = median(floors)
const figures = {
  bench: 'opencode-transcript',
  floor_parse_ms: +floorMs.toFixed(1),
  messages: N,
  entries: total,
  cold_first_page_ms: +median(colds).toFixed(1),
  warm_reconnect_ms: +median(warms).toFixed(1),
  requests_per_warm_reconnect: requests,
  loads: registry.counters.loads,
}
console.log(JSON.stringify(figures))
console.log(`opencode session of ${N} messages → ${total} entries, through a loopback service; ${loadNote()}`)
console.log(`  floor = JSON.parse of the session's whole message list (${(payload.length / 1048576).toFixed(1)} MB) = ${figures.floor_parse_ms} ms`)
info(
  'opencode first page with the cache dropped, same process (not a fresh process; resolve + load all + newest 150)',
  `${figures.cold_first_page_ms} ms = ${(figures.cold_first_page_ms / floorMs).toFixed(2)}× floor (no target)`,
)
check(
  'opencode reconnect, cache warm (resolve + one tail poll + newest 150)',
  figures.warm_reconnect_ms < 50,
  `${figures.warm_reconnect_ms} ms, ${requests} requests`,
  '< 50 ms',
)
finish('opencode-transcript')
