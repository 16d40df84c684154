// The pairing plugins as createApp really mounts them: public /pair before the
// guard, the rest behind it, createApp's plain-text error handler, OpenAPI.
import { afterEach, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { silentLogger } from '../../src/server/log'
import { createAuthStore } from '../../src/auth/store'
import type { HerdrClient } from '../../src/herdr/client'

const ADMIN = 'admin-token-for-app-mount'
const herdr = { version: async () => null } as unknown as HerdrClient
const homes = { home: '/nonexistent', claudeDir: '/x', piDir: '/x', xdgStateHome: '/x', xdgDataHome: '/x' }
const cleanups: (() => void)[] = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})

function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'gothalo-mount-'))
  const store = createAuthStore({ dbPath: join(dir, 'gothalo.db'), adminToken: ADMIN })
  cleanups.push(() => {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const app = createApp({ herdr, auth: store, homes, version: 'test', log: () => {}, logger: silentLogger })
  const call = async (method: string, path: string, init: { token?: string; body?: string } = {}) => {
    const headers: Record<string, string> = {}
    if (init.token) headers.authorization = `Bearer ${init.token}`
    if (init.body !== undefined) headers['content-type'] = 'application/json'
    const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body: init.body }))
    return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' }
  }
  return { store, call }
}

test('pair without a token, then use the device token; admin-only routes refuse it', async () => {
  const { call } = fixture()
  expect((await call('POST', '/pair/code')).status).toBe(401)
  const made = await call('POST', `/pair/code?token=${ADMIN}`)
  expect(made.status).toBe(200)
  const { code } = JSON.parse(made.text)
  const paired = await call('POST', '/pair', { body: JSON.stringify({ code, device_name: 'Pixel 9' }) })
  expect(paired.status).toBe(200)
  const dev = JSON.parse(paired.text) as { device_id: string; token: string }
  expect((await call('GET', '/devices/me', { token: dev.token })).status).toBe(200)
  const listing = await call('GET', '/devices', { token: dev.token })
  expect([listing.status, listing.text]).toEqual([403, 'forbidden: needs scope admin'])
  const denied = await call('POST', '/pair/code', { token: dev.token })
  expect([denied.status, denied.text]).toEqual([403, 'forbidden: needs scope admin'])
  const revoked = await call('DELETE', `/devices/${dev.device_id}`, { token: ADMIN })
  expect([revoked.status, revoked.text]).toEqual([200, '{"revoked":true}'])
  expect((await call('GET', '/devices/me', { token: dev.token })).status).toBe(401)
})

test('createApp answers bad bodies with the plain-text schema messages', async () => {
  const { call } = fixture()
  const parse = await call('POST', '/pair', { body: '{"code":' })
  expect([parse.status, parse.text]).toEqual([400, 'bad request body'])
  expect(parse.type).toStartWith('text/plain')
  const types = await call('POST', '/pair', { body: '{"code":1,"device_name":"x"}' })
  expect([types.status, types.text]).toEqual([400, 'want {"code","device_name"}'])
  const wrong = await call('POST', '/pair', { body: '{"code":"AAAA-AAAA","device_name":"x"}' })
  expect([wrong.status, wrong.text]).toEqual([403, 'invalid or expired code'])
})

test('the pairing routes are in the OpenAPI document, /pair without security', async () => {
  const { call } = fixture()
  const doc = JSON.parse((await call('GET', '/swagger/json')).text)
  expect(doc.paths['/pair'].post.security).toEqual([])
  expect(doc.paths['/pair'].post.tags).toEqual(['pairing'])
  expect(Object.keys(doc.paths['/pair'].post.responses).sort()).toEqual(['200', '400', '403', '429'])
  expect(doc.paths['/pair/code'].post.tags).toEqual(['pairing'])
  expect(doc.paths['/devices'].get.responses['200']).toBeDefined()
  expect(Object.keys(doc.paths['/devices/{id}'].delete.responses).sort()).toEqual(['200', '401', '403', '404'])
})
