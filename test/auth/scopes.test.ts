// Device scopes at the route edge: every route declares what it needs (walked
// from the app's own routes and from the OpenAPI document), and every guarded
// route refuses every scope but its own with 403, the body unread and no herdr
// call made. Pairing with scopes, and a database made by the release before scopes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAuthStore } from '../../src/auth/store'
import { DEFAULT_SCOPES, SCOPES, needOf, type Scope } from '../../src/auth/scopes'
import { createPushStore } from '../../src/push/store'
import { ADMIN, ROOT, WS_HANDSHAKE, claudePane, pairDevice, startBridge, tempDir, type Bridge } from '../support/harness'

let b: Bridge
/** one device per scope, holding only that scope */
const only = new Map<Scope, { device_id: string; token: string }>()

beforeAll(async () => {
  b = await startBridge({ push: true, state: { panes: [claudePane({ pane_id: 'w1:p2', agent: { agent_status: 'blocked', state_change_seq: 3 } })] } })
  for (const s of SCOPES) only.set(s, await pairDevice(b, `only ${s}`, [s]))
})
afterAll(() => b?.stop())

type Route = { method: string; path: string; hooks?: { detail?: unknown } }
const routes = (): Route[] => (b.app as unknown as { routes: Route[] }).routes
/** the swagger plugin's own generator routes: answered 404 to anyone but the bridge itself */
const GENERATOR = ['/swagger/generated.json', '/swagger/generated']

describe('every route declares what it needs', () => {
  test('each route of the app: public, any token, or exactly one scope', () => {
    const undeclared = routes()
      .filter((r) => !GENERATOR.includes(r.path))
      .filter((r) => needOf(r.hooks?.detail) === undefined)
      .map((r) => `${r.method} ${r.path}`)
    expect(undeclared).toEqual([])
    // and the set of scoped routes is what docs/bridge.md's table says
    const byScope = Object.fromEntries(SCOPES.map((s) => [s, [] as string[]]))
    for (const r of routes()) {
      const need = needOf(r.hooks?.detail)
      if (need && need !== 'public' && need !== 'token') byScope[need].push(`${r.method} ${r.path}`)
    }
    expect(byScope).toEqual({
      read: [
        'GET /snapshot',
        'GET /agent-state',
        'WS /agent-transcript',
        'WS /events',
        'GET /push/vapid-public-key',
        'POST /push/subscriptions',
        'GET /push/subscriptions',
        'DELETE /push/subscriptions/:id',
        'GET /projects',
        'GET /dirs',
        'GET /usage',
        'GET /machines',
        'GET /sessions',
        'GET /search',
      ],
      code: ['GET /changes', 'GET /changes/diff', 'GET /files'],
      answer: ['POST /approve', 'POST /answer', 'POST /agent-mode/cycle'],
      type: ['POST /send', 'POST /attachments'],
      terminal: ['WS /attach'],
      start: ['POST /agent-start', 'POST /agent-stop'],
      admin: ['POST /pair/code', 'GET /devices', 'DELETE /devices/:id', 'GET /audit'],
    })
  })

  test('each operation of the OpenAPI document names its scope in security (or none: public)', async () => {
    const doc = (await b.json('/swagger/json')) as { paths: Record<string, Record<string, { security?: unknown }>> }
    const seen: string[] = []
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        const need = needOf(op)
        expect({ op: `${method} ${path}`, need }).toEqual({ op: `${method} ${path}`, need: expect.any(String) })
        seen.push(`${method.toUpperCase()} ${path}`)
      }
    expect(seen).toContain('POST /approve')
    expect(seen).toContain('GET /audit')
  })

  test('a route that declares nothing is refused, whoever asks', async () => {
    const { Elysia } = await import('elysia')
    const { authGuard, declarations } = await import('../../src/auth/guard')
    const ctx = { auth: createAuthStore({ dbPath: ':memory:', adminToken: 'a' }) } as never
    // the guard reads the app's routes at the first request, once they are all mounted
    let routes = (): never => [] as never
    const app = new Elysia()
      .use(
        authGuard(
          ctx,
          declarations(() => routes()),
        ),
      )
      .get('/forgot', () => 'should not answer')
      .listen({ hostname: '127.0.0.1', port: 0 })
    routes = () => app.routes as never
    try {
      const r = await fetch(`http://127.0.0.1:${app.server!.port}/forgot`, { headers: { authorization: 'Bearer a' } })
      expect([r.status, await r.text()]).toEqual([403, 'forbidden: this route declares no scope'])
    } finally {
      await app.stop(true)
    }
  })
})

/** A request to a route that a device of each scope makes: a body that would be 400 if it were read. */
function requestFor(r: Route, token: string): [string, RequestInit] {
  const path = r.path.replace(/:id\b/, 'x')
  if (r.method === 'WS') {
    // a query its schema refuses: an allowed scope gets 400 from validation, never an open socket
    const bad = r.path === '/events' ? 'since=nonsense' : 'nope=1'
    return [`${b.base}${path}?${bad}&token=${token}`, { headers: WS_HANDSHAKE }]
  }
  const init: RequestInit = { method: r.method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }
  if (r.method !== 'GET') init.body = '{"pane": "w1:p2", '
  return [`${b.base}${path}${r.method === 'GET' ? '?pane=w1:p2&since=x' : ''}`, init]
}

describe('every guarded route × every scope', () => {
  test('allowed: not 403; denied: 403 needs scope, the body unread, no herdr call', async () => {
    const guarded = routes().filter((r) => {
      const need = needOf(r.hooks?.detail)
      return need !== undefined && need !== 'public' && need !== 'token'
    })
    expect(guarded.length).toBeGreaterThan(15)
    const outcomes: string[] = []
    for (const r of guarded) {
      const need = needOf(r.hooks?.detail) as Scope
      for (const s of SCOPES) {
        const before = b.calls().length
        const res = await fetch(...requestFor(r, only.get(s)!.token))
        const text = await res.text()
        const row = `${r.method} ${r.path} as ${s}`
        if (s === need) {
          outcomes.push(`${row}: ${res.status === 403 ? `403 ${text}` : 'allowed'}`)
        } else {
          // the body was never parsed (that would be 400 bad request body) and herdr never asked
          outcomes.push(`${row}: ${res.status} ${text}${b.calls().length === before ? '' : ' (herdr called)'}`)
        }
      }
    }
    const expected = guarded.flatMap((r) => {
      const need = needOf(r.hooks?.detail) as Scope
      return SCOPES.map((s) => `${r.method} ${r.path} as ${s}: ${s === need ? 'allowed' : `403 forbidden: needs scope ${need}`}`)
    })
    expect(outcomes).toEqual(expected)
  })

  test('the admin token has every scope; a device with several has each', async () => {
    const both = await pairDevice(b, 'read and answer', ['read', 'answer'])
    expect((await b.get('/snapshot', both.token)).status).toBe(200)
    expect((await b.get('/snapshot')).status).toBe(200)
    const send = await b.post('/send', { pane: 'w1:p2', text: 'hi' }, both.token)
    expect([send.status, await send.text()]).toEqual([403, 'forbidden: needs scope type'])
    expect((await b.get('/audit')).status).toBe(200)
  })

  test('GET /devices/me: any token reads its own scopes', async () => {
    expect(await b.json('/devices/me', only.get('terminal')!.token)).toEqual({
      device_id: only.get('terminal')!.device_id,
      name: 'only terminal',
      scopes: ['terminal'],
    })
    expect(await b.json('/devices/me')).toEqual({ device_id: null, name: 'admin', scopes: [...SCOPES] })
    expect((await b.get('/devices/me', null)).status).toBe(401)
  })
})

describe('pairing with scopes', () => {
  test('POST /pair/code {scopes}: the device gets them; the default is every scope but admin; bad lists are 400', async () => {
    const r = await b.post('/pair/code', { scopes: ['read'] })
    const code = (await r.json()) as { code: string; scopes: string[] }
    expect(code.scopes).toEqual(['read'])
    const dev = (await (await b.post('/pair', { code: code.code, device_name: 'viewer' }, null)).json()) as { device_id: string; scopes: string[] }
    expect(dev.scopes).toEqual(['read'])
    const listed = ((await b.json('/devices')) as { device_id: string; scopes: string[] }[]).find((d) => d.device_id === dev.device_id)
    expect(listed?.scopes).toEqual(['read'])
    expect(((await (await b.post('/pair/code', {})).json()) as { scopes: string[] }).scopes).toEqual([...DEFAULT_SCOPES])
    for (const bad of [{ scopes: [] }, { scopes: ['root'] }, { scopes: ['read', 'read'] }, { scopes: 'read' }]) {
      const res = await b.post('/pair/code', bad)
      expect(res.status).toBe(400)
      expect(await res.text()).toMatch(
        /^(scopes: a list of read, code, answer, type, terminal, start, admin, at least one, no repeats|want \{"scopes"\?: \["read", …\]\})$/,
      )
    }
  })
})

describe('a database made by the release before scopes', () => {
  const FIX = join(ROOT, 'fixtures/db')
  const made = JSON.parse(readFileSync(join(FIX, 'release-0.1.0.json'), 'utf8'))

  test('its devices keep working with the default scopes, revoked stay revoked, subscriptions stay; opening twice changes nothing', () => {
    const db = join(tempDir('gothalo-migrate-'), 'gothalo.db')
    copyFileSync(join(FIX, 'release-0.1.0.db'), db)
    for (let i = 0; i < 2; i++) {
      const auth = createAuthStore({ dbPath: db, adminToken: 'x' })
      const push = createPushStore(db)
      try {
        expect(auth.identify(made.device.token)).toEqual({ kind: 'device', deviceId: made.device.device_id, scopes: [...DEFAULT_SCOPES] })
        expect(auth.identify(made.revoked.token)).toBeUndefined()
        expect(auth.listDevices().map((d) => [d.device_id, d.name, d.scopes])).toEqual([[made.device.device_id, made.device.name, [...DEFAULT_SCOPES]]])
        expect(push.list(made.device.device_id).map((s) => s.events)).toEqual([['blocked', 'done']])
        // a code made now carries its scopes into the old file
        const code = auth.createPairCode(['read'])
        const r = auth.redeem(code.code, 'new viewer', '127.0.0.1')
        if (!r.ok) throw new Error('redeem failed')
        expect(auth.device(r.device_id)?.scopes).toEqual(['read'])
        auth.revoke(r.device_id)
      } finally {
        push.close()
        auth.close()
      }
    }
  })
})

test('a bridge started on the old database serves its device', async () => {
  const dir = tempDir('gothalo-migrate-app-')
  const made = JSON.parse(readFileSync(join(ROOT, 'fixtures/db/release-0.1.0.json'), 'utf8'))
  // the bridge's auth store on a copy of the old file
  copyFileSync(join(ROOT, 'fixtures/db/release-0.1.0.db'), join(dir, 'gothalo.db'))
  const auth = createAuthStore({ dbPath: join(dir, 'gothalo.db'), adminToken: ADMIN })
  try {
    const b2 = await startBridge({ deps: { auth } })
    try {
      expect(await b2.json('/devices/me', made.device.token)).toEqual({ device_id: made.device.device_id, name: made.device.name, scopes: [...DEFAULT_SCOPES] })
      expect((await b2.get('/snapshot', made.device.token)).status).toBe(200)
    } finally {
      await b2.stop()
    }
  } finally {
    auth.close()
  }
})

describe('the code scope, added after the default set was stored', () => {
  test('a device and a live code holding the old default gain `code`, once; other sets stay as they were', () => {
    const { Database } = require('bun:sqlite') as typeof import('bun:sqlite')
    const db = join(tempDir('gothalo-code-scope-'), 'gothalo.db')
    const first = createAuthStore({ dbPath: db, adminToken: 'x' })
    const pair = (scopes: Scope[]) => {
      const r = first.redeem(first.createPairCode(scopes).code, `with ${scopes.join(' ')}`, '127.0.0.1')
      if (!r.ok) throw new Error('redeem failed')
      return r
    }
    const old = pair(['read'])
    const viewer = pair(['read'])
    const pending = first.createPairCode(['read'])
    first.close()
    // as the release before `code` left the file: the default set stored without it, no migration recorded
    const raw = new Database(db)
    raw.query('UPDATE devices SET scopes = ? WHERE id = ?').run('read,answer,type,terminal,start', old.device_id)
    raw.query('UPDATE pair_codes SET scopes = ?').run('read,answer,type,terminal,start')
    raw.exec('DROP TABLE IF EXISTS store_migrations')
    raw.close()
    const withCode: Scope[] = ['read', 'code', 'answer', 'type', 'terminal', 'start']
    const again = createAuthStore({ dbPath: db, adminToken: 'x' })
    try {
      expect(again.identify(old.token)).toEqual({ kind: 'device', deviceId: old.device_id, scopes: withCode })
      expect(again.identify(viewer.token)).toEqual({ kind: 'device', deviceId: viewer.device_id, scopes: ['read'] })
      const late = again.redeem(pending.code, 'late', '127.0.0.1')
      if (!late.ok) throw new Error('redeem failed')
      expect(again.device(late.device_id)?.scopes).toEqual(withCode)
      // paired now with the old default on purpose: it stays without `code` when the file is opened again
      const chosen = again.redeem(again.createPairCode(['read', 'answer', 'type', 'terminal', 'start']).code, 'chosen', '127.0.0.1')
      if (!chosen.ok) throw new Error('redeem failed')
      again.close()
      const third = createAuthStore({ dbPath: db, adminToken: 'x' })
      expect(third.device(chosen.device_id)?.scopes).toEqual(['read', 'answer', 'type', 'terminal', 'start'])
      expect(third.device(old.device_id)?.scopes).toEqual(withCode)
      third.close()
    } catch (e) {
      again.close()
      throw e
    }
  })
})

describe('a viewer sees no file content', () => {
  test('a device paired --scopes read: /changes, /changes/diff and /files are 403 needs scope code; with code they answer', async () => {
    const viewer = only.get('read')!.token
    const coder = only.get('code')!.token
    for (const path of ['/changes?pane=w1:p2', '/changes/diff?pane=w1:p2&path=a.txt', '/files?pane=w1:p2&path=a.txt']) {
      const r = await b.get(path, viewer)
      expect([path, r.status, await r.text()]).toEqual([path, 403, 'forbidden: needs scope code'])
      expect([path, (await b.get(path, coder)).status]).not.toEqual([path, 403])
    }
  })
})
