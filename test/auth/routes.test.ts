import { afterEach, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Ctx } from '../../src/server/ctx'
import { authGuard, declarations } from '../../src/auth/guard'
import { REDEEM_MAX_FAILURES, REDEEM_WINDOW_MS, createAuthStore, type SqliteAuthStore } from '../../src/auth/store'
import type { HerdrClient } from '../../src/herdr/client'
import { pairingRoutes, publicPairingRoutes } from '../../src/routes/pairing'
import { startBridge } from '../support/harness'

const ADMIN = 'admin-token-for-routes-test'
const herdr = { version: async () => null } as unknown as HerdrClient
const homes = { home: '/nonexistent', claudeDir: '/x', piDir: '/x', xdgStateHome: '/x', xdgDataHome: '/x' }

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})

function newStore(clock: () => number, dbPath?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'gothalo-routes-'))
  const store = createAuthStore({ dbPath: dbPath ?? join(dir, 'gothalo.db'), adminToken: ADMIN, clock })
  cleanups.push(() => {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return store
}

function ctxOf(auth: SqliteAuthStore, clock: () => number): Ctx {
  const timing = { tailPollMs: 250, sessionPollMs: 2000, rosterPollMs: 3000, attachPollMs: 100 }
  return { herdr, auth, homes, version: 'test', clock, timing, log: () => {}, sockets: {} } as unknown as Ctx
}

/**
 * The pairing plugins mounted the way createApp mounts them (public route,
 * guard, guarded routes) with createApp's error handler (plain text; a
 * schema's `error` → 400). Built here rather than imported so these tests do not
 * depend on every other route module loading; app-mount.test.ts checks the
 * real createApp.
 */
function pairingApp(auth: SqliteAuthStore, clock: () => number) {
  const ctx = ctxOf(auth, clock)
  const app: Elysia = new Elysia()
  return app
    .onError(({ code, error, set }) => {
      set.headers['content-type'] = 'text/plain;charset=utf-8'
      if (code === 'NOT_FOUND') return ((set.status = 404), 'not found')
      if (code === 'PARSE') return ((set.status = 400), 'bad request body')
      if (code === 'VALIDATION') {
        const custom = (error as { customError?: unknown }).customError
        return ((set.status = 400), typeof custom === 'string' ? custom : 'bad request')
      }
      set.status = 500
      return 'internal error'
    })
    .use(publicPairingRoutes(ctx))
    .use(
      authGuard(
        ctx,
        declarations(() => app.routes as never),
      ),
    )
    .use(pairingRoutes(ctx))
}

function fixture() {
  const clock = { now: 1_700_000_000_000 }
  const store = newStore(() => clock.now)
  const app = pairingApp(store, () => clock.now)
  const call = async (method: string, path: string, opts: { token?: string; body?: unknown; raw?: string } = {}) => {
    const headers: Record<string, string> = {}
    if (opts.token) headers.authorization = `Bearer ${opts.token}`
    let body: string | undefined
    if (opts.raw !== undefined) (body = opts.raw), (headers['content-type'] = 'application/json')
    else if (opts.body !== undefined) (body = JSON.stringify(opts.body)), (headers['content-type'] = 'application/json')
    const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }))
    const text = await res.text()
    return { status: res.status, text, type: res.headers.get('content-type') ?? '', json: () => JSON.parse(text) }
  }
  /** pair a device through HTTP, answering its id and token */
  const pairDevice = async (name = 'Pixel 9') => {
    const code = (await call('POST', '/pair/code', { token: ADMIN })).json().code as string
    const r = await call('POST', '/pair', { body: { code, device_name: name } })
    expect(r.status).toBe(200)
    return r.json() as { device_id: string; token: string }
  }
  return { clock, store, app, call, pairDevice }
}

describe('POST /pair/code', () => {
  test('admin gets a code and its expiry', async () => {
    const { call, clock } = fixture()
    const r = await call('POST', '/pair/code', { token: ADMIN })
    expect(r.status).toBe(200)
    expect(r.json()).toEqual({
      code: expect.stringMatching(/^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/),
      expires_at: clock.now + 600_000,
      scopes: ['read', 'code', 'answer', 'type', 'terminal', 'start'],
    })
  })

  test('admin token in ?token= works too', async () => {
    const { call } = fixture()
    expect((await call('POST', `/pair/code?token=${ADMIN}`)).status).toBe(200)
  })

  test('missing or wrong token → 401 plain text (header and query)', async () => {
    const { call } = fixture()
    for (const r of [
      await call('POST', '/pair/code'),
      await call('POST', '/pair/code', { token: 'wrong' }),
      await call('POST', '/pair/code?token=wrong'),
      await call('POST', '/pair/code?token='),
    ]) {
      expect(r.status).toBe(401)
      expect(r.text).toBe('unauthorized')
    }
  })

  test('a device token without the admin scope → 403 needs scope admin', async () => {
    const { call, pairDevice } = fixture()
    const dev = await pairDevice()
    const r = await call('POST', '/pair/code', { token: dev.token })
    expect(r.status).toBe(403)
    expect(r.text).toBe('forbidden: needs scope admin')
    expect(r.type).toStartWith('text/plain')
  })
})

describe('POST /pair', () => {
  test('redeems a code for a working device token, once', async () => {
    const { call } = fixture()
    const { code } = (await call('POST', '/pair/code', { token: ADMIN })).json()
    const r = await call('POST', '/pair', { body: { code, device_name: 'Pixel 9' } })
    expect(r.status).toBe(200)
    expect(r.type).toStartWith('application/json')
    const dev = r.json()
    expect(dev).toEqual({
      device_id: expect.any(String),
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      scopes: ['read', 'code', 'answer', 'type', 'terminal', 'start'],
    })
    const me = await call('GET', '/devices/me', { token: dev.token })
    expect([me.status, me.json()]).toEqual([
      200,
      { device_id: dev.device_id, name: 'Pixel 9', scopes: ['read', 'code', 'answer', 'type', 'terminal', 'start'] },
    ])
    const list = await call('GET', '/devices', { token: ADMIN })
    expect(list.json()).toEqual([
      {
        device_id: dev.device_id,
        name: 'Pixel 9',
        created_at: expect.any(Number),
        last_seen_at: expect.any(Number),
        scopes: ['read', 'code', 'answer', 'type', 'terminal', 'start'],
      },
    ])
    const again = await call('POST', '/pair', { body: { code, device_name: 'Other' } })
    expect(again.status).toBe(403)
    expect(again.text).toBe('invalid or expired code')
  })

  test('expired code → 403', async () => {
    const { call, clock } = fixture()
    const { code } = (await call('POST', '/pair/code', { token: ADMIN })).json()
    clock.now += 600_000
    const r = await call('POST', '/pair', { body: { code, device_name: 'late' } })
    expect(r.status).toBe(403)
    expect(r.text).toBe('invalid or expired code')
    expect(r.type).toStartWith('text/plain')
  })

  test('bad JSON → 400 plain text', async () => {
    const { call } = fixture()
    const r = await call('POST', '/pair', { raw: '{"code": "AAAA-' })
    expect(r.status).toBe(400)
    expect(r.text).toBe('bad request body')
  })

  test('wrong types, missing fields, garbage → 400 with the schema message', async () => {
    const { call } = fixture()
    for (const body of [{ code: 1, device_name: 'x' }, { code: 'AAAA-AAAA' }, {}, [], 'just a string', null, { code: '', device_name: 'x' }]) {
      const r = await call('POST', '/pair', { body })
      expect(r.status).toBe(400)
      expect(r.text).toBe('want {"code","device_name"}')
    }
    const binary = await call('POST', '/pair', { raw: '\u0000\u0001\uffff' })
    expect(binary.status).toBe(400)
  })

  test('bad device names → 400 and the code stays usable', async () => {
    const { call } = fixture()
    const { code } = (await call('POST', '/pair/code', { token: ADMIN })).json()
    for (const device_name of ['', '   ', 'a\nb', 'x'.repeat(101), '📱'.repeat(51), 'esc\u001b[2J', 'c1\u0085']) {
      const r = await call('POST', '/pair', { body: { code, device_name } })
      expect(r.status).toBe(400)
      expect(r.text).toBe('device_name: 1..100 characters, no control characters')
    }
    const notString = await call('POST', '/pair', { body: { code, device_name: 7 } })
    expect(notString.status).toBe(400)
    expect(notString.text).toBe('want {"code","device_name"}')
    expect((await call('POST', '/pair', { body: { code, device_name: 'ok' } })).status).toBe(200)
  })

  test('repeated failures → 429 too many attempts for wrong codes, until the window passes; a fresh code works meanwhile', async () => {
    const { call, clock } = fixture()
    for (let i = 0; i < REDEEM_MAX_FAILURES; i++) {
      const r = await call('POST', '/pair', { body: { code: 'AAAA-AAAA', device_name: 'x' } })
      expect(r.status).toBe(403)
    }
    const limited = await call('POST', '/pair', { body: { code: 'AAAA-AAAA', device_name: 'x' } })
    expect(limited.status).toBe(429)
    expect(limited.text).toBe('too many attempts')
    const { code } = (await call('POST', '/pair/code', { token: ADMIN })).json()
    expect((await call('POST', '/pair', { body: { code, device_name: 'x' } })).status).toBe(200)
    clock.now += REDEEM_WINDOW_MS
    expect((await call('POST', '/pair', { body: { code: 'AAAA-AAAA', device_name: 'x' } })).status).toBe(403)
  })
})

describe('GET /devices and DELETE /devices/:id', () => {
  test('401 without a token', async () => {
    const { call } = fixture()
    expect((await call('GET', '/devices')).status).toBe(401)
    expect((await call('DELETE', '/devices/dev_x')).status).toBe(401)
  })

  test('admin revokes: 200, the token stops working, the list empties, a second revoke is 404', async () => {
    const { call, pairDevice, store } = fixture()
    const dev = await pairDevice()
    const heard: string[] = []
    store.onRevoke((id) => heard.push(id))
    const r = await call('DELETE', `/devices/${dev.device_id}`, { token: ADMIN })
    expect(r.status).toBe(200)
    expect(r.type).toStartWith('application/json')
    expect(r.json()).toEqual({ revoked: true })
    expect(heard).toEqual([dev.device_id])
    expect((await call('GET', '/devices', { token: dev.token })).status).toBe(401)
    expect((await call('GET', '/devices', { token: ADMIN })).json()).toEqual([])
    const again = await call('DELETE', `/devices/${dev.device_id}`, { token: ADMIN })
    expect(again.status).toBe(404)
    expect(again.text).toBe('no such device')
  })

  test('a device cannot revoke (403), not even itself', async () => {
    const { call, pairDevice } = fixture()
    const dev = await pairDevice()
    const r = await call('DELETE', `/devices/${dev.device_id}`, { token: dev.token })
    expect(r.status).toBe(403)
    expect(r.text).toBe('forbidden: needs scope admin')
    expect((await call('GET', '/devices', { token: ADMIN })).json()).toHaveLength(1)
  })
})

describe('over a real socket', () => {
  test('the client address comes from the server: failures from 127.0.0.1 are limited, not "unknown"', async () => {
    const clock = { now: 1_700_000_000_000 }
    const store = newStore(() => clock.now)
    const app = pairingApp(store, () => clock.now).listen({ hostname: '127.0.0.1', port: 0 })
    cleanups.unshift(() => void app.stop(true))
    const url = `http://127.0.0.1:${app.server!.port}/pair`
    const post = (code: string) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, device_name: 'x' }) })
    for (let i = 0; i < REDEEM_MAX_FAILURES; i++) expect((await post('AAAA-AAAA')).status).toBe(403)
    expect((await post('AAAA-AAAA')).status).toBe(429)
    // the in-process path (no socket) is a different address, so it is not limited
    expect(store.redeem('AAAA-AAAA', 'x', 'unknown')).toEqual({ ok: false, reason: 'invalid' })
    expect(store.redeem('AAAA-AAAA', 'x', '127.0.0.1')).toEqual({ ok: false, reason: 'rate_limited' })
  })

  // Behind `tailscale serve` every request is 127.0.0.1: wrong codes from "one address" must not lock the owner out.
  test('the whole bridge: after many wrong codes from anyone, a fresh code still pairs', async () => {
    const b = await startBridge()
    try {
      const pair = (code: string) => b.post('/pair', { code, device_name: 'phone' }, null)
      const statuses: number[] = []
      for (let i = 0; i < REDEEM_MAX_FAILURES + 3; i++) statuses.push((await pair('AAAA-AAAA')).status)
      expect(statuses.slice(0, REDEEM_MAX_FAILURES)).toEqual(Array(REDEEM_MAX_FAILURES).fill(403))
      expect(statuses.slice(REDEEM_MAX_FAILURES)).toEqual([429, 429, 429])
      const { code } = (await (await b.post('/pair/code', {})).json()) as { code: string }
      const r = await pair(code)
      expect(r.status).toBe(200)
      expect(((await r.json()) as { token: string }).token).toBeString()
    } finally {
      await b.stop()
    }
  })
})
