// A read-only viewer's token against another machine through the home (docs/bridge.md
// "Several machines"): every forwarded route is refused at the home with the scope the
// route itself declares (its OpenAPI `security`), and nothing reaches the remote; what
// does reach it carries the home's headers only, none of the phone's.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { claudePane, waitFor, WS_HANDSHAKE } from '../support/harness'
import { writeMachines } from '../../src/machines/store'
import { fakeRemote, pairDevice, startHome, type Home } from './support'

let home: Home
let remote: ReturnType<typeof fakeRemote>
/** every request that reached the remote, past its /healthz and /events */
const reached: { path: string; headers: Record<string, string> }[] = []

beforeAll(async () => {
  // a remote that answers every route, and records it
  const answers = new Proxy({} as Record<string, (req: Request) => Response>, {
    get: () => (req: Request) => {
      const u = new URL(req.url)
      reached.push({ path: u.pathname + u.search, headers: Object.fromEntries(req.headers) })
      return Response.json({ ok: true })
    },
  })
  remote = fakeRemote(answers)
  home = await startHome([claudePane({ pane_id: 'w1:p1' })])
  writeMachines(home.dataDir, [{ label: 'odd', target: remote.base, device_id: 'dev_home', token: 'tok_home', added_at: 0 }])
  await waitFor(async () => (await home.json('/machines')).machines.find((m: { id: string }) => m.id === 'odd')?.state === 'online', 5000, 'odd online')
})
afterAll(async () => {
  await home?.stop()
  remote?.stop()
})

const P = 'odd/w1:p1'
/** every route that reaches another machine, as a phone asks it */
const FORWARDED: { method: 'GET' | 'POST'; route: string; ask: string; body?: unknown }[] = [
  { method: 'GET', route: '/agent-state', ask: `/agent-state?pane=${P}` },
  { method: 'GET', route: '/usage', ask: `/usage?pane=${P}` },
  { method: 'GET', route: '/changes', ask: `/changes?pane=${P}` },
  { method: 'GET', route: '/changes/diff', ask: `/changes/diff?pane=${P}&path=a&staged=0` },
  { method: 'GET', route: '/files', ask: `/files?pane=${P}&path=a&raw=1` },
  { method: 'POST', route: '/approve', ask: '/approve', body: { agent: P, decision: 'approve' } },
  { method: 'POST', route: '/answer', ask: '/answer', body: { pane: P, choice: 1 } },
  { method: 'POST', route: '/send', ask: '/send', body: { pane: P, text: 'rm -rf ~' } },
  { method: 'POST', route: '/agent-mode/cycle', ask: '/agent-mode/cycle', body: { pane: P } },
  { method: 'POST', route: '/agent-stop', ask: '/agent-stop', body: { pane: P } },
  { method: 'POST', route: '/agent-start', ask: '/agent-start', body: { machine: 'odd', cwd: '/tmp', agent: 'claude' } },
  { method: 'GET', route: '/projects', ask: '/projects?machine=odd' },
  { method: 'GET', route: '/dirs', ask: '/dirs?machine=odd' },
  { method: 'GET', route: '/sessions', ask: '/sessions?machine=odd' },
  { method: 'GET', route: '/search', ask: '/search?machine=odd&q=secret' },
]

test('a viewer (read only) is refused every forwarded route the route does not grant it, with the scope it declares; the remote hears nothing of it', async () => {
  const viewer = await pairDevice(home, 'viewer', ['read'])
  const oas = (await (await fetch(`${home.base}/swagger/json`)).json()) as { paths: Record<string, Record<string, { security: { bearer: string[] }[] }>> }
  const scopeOf = (method: string, route: string): string => oas.paths[route][method.toLowerCase()].security[0].bearer[0]
  const refused: string[] = []
  for (const f of FORWARDED) {
    const scope = scopeOf(f.method, f.route)
    const r = await fetch(home.base + f.ask, {
      method: f.method,
      headers: { authorization: `Bearer ${viewer.token}`, 'content-type': 'application/json' },
      body: f.body === undefined ? undefined : JSON.stringify(f.body),
    })
    const said = await r.text()
    if (scope === 'read') expect({ route: f.route, status: r.status }).toEqual({ route: f.route, status: 200 })
    else {
      expect({ route: f.route, status: r.status, said }).toEqual({ route: f.route, status: 403, said: `forbidden: needs scope ${scope}` })
      refused.push(f.route)
    }
  }
  // the writes and the working tree are not a viewer's
  expect(refused.sort()).toEqual(['/agent-mode/cycle', '/agent-start', '/agent-stop', '/answer', '/approve', '/changes', '/changes/diff', '/files', '/send'])
  const paths = reached.map((r) => new URL(`http://x${r.path}`).pathname)
  for (const route of refused) expect({ route, reached: paths.includes(route) }).toEqual({ route, reached: false })
  // the raw terminal is not a viewer's either
  const attach = await fetch(`${home.base}/attach?pane=${P}&token=${viewer.token}`, { headers: WS_HANDSHAKE })
  expect([attach.status, await attach.text()]).toEqual([403, 'forbidden: needs scope terminal'])
})

test("the phone's own headers and token never reach the remote: its name goes as the home's X-Gothalo-Via, the home's token as the bearer", async () => {
  const phone = await pairDevice(home, 'Pixel 9')
  reached.length = 0
  const r = await fetch(`${home.base}/agent-state?pane=${P}&token=${phone.token}`, {
    headers: { 'x-gothalo-via': 'the boss', cookie: 'session=1', 'x-forwarded-for': '10.9.9.9', 'x-forwarded-host': 'evil' },
  })
  expect(r.status).toBe(200)
  const s = await (
    await fetch(`${home.base}/sessions?machine=odd`, { headers: { authorization: `Bearer ${phone.token}`, 'x-gothalo-via': 'the boss' } })
  ).text()
  expect(s).toContain('ok')
  expect(reached.map((x) => x.path)).toEqual(['/agent-state?pane=w1%3Ap1', '/sessions'])
  for (const x of reached) {
    expect(x.headers.authorization).toBe('Bearer tok_home')
    expect(x.headers['x-gothalo-via']).toBe('Pixel 9')
    expect(Object.keys(x.headers).filter((h) => h === 'cookie' || h.startsWith('x-forwarded'))).toEqual([])
  }
})

test('odd machine values (climbing, case, NUL, unicode, very long, an object key) name no machine: 404, the remote never asked', async () => {
  const phone = await pairDevice(home, 'Pixel 9')
  reached.length = 0
  for (const label of ['../odd', 'odd/', 'ODD', 'odd\u0000', 'ödd', 'x'.repeat(5000), '__proto__', 'constructor', ' odd', '']) {
    const r = await fetch(`${home.base}/sessions?machine=${encodeURIComponent(label)}`, { headers: { authorization: `Bearer ${phone.token}` } })
    expect([label.slice(0, 12), r.status, await r.text()]).toEqual([label.slice(0, 12), 404, 'no such machine'])
    const s = await fetch(`${home.base}/agent-start`, {
      method: 'POST',
      headers: { authorization: `Bearer ${phone.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ machine: label, kind: 'claude', cwd: '/tmp' }),
    })
    expect([label.slice(0, 12), s.status, await s.text()]).toEqual([label.slice(0, 12), 404, 'no such machine'])
  }
  expect(reached).toEqual([])
})
