// --tailscale-user: behind `tailscale serve` (which connects from this machine and
// names the tailnet login in Tailscale-User-Login), any other login is refused,
// whatever token it holds; the header counts only on a loopback connection.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { ADMIN, WS_HANDSHAKE, startBridge, type Bridge } from '../support/harness'

let b: Bridge
beforeAll(async () => {
  b = await startBridge({ deps: { tailscaleUser: 'me@github' } })
})
afterAll(() => b?.stop())

const get = (path: string, login?: string, extra: Record<string, string> = {}) =>
  fetch(`${b.base}${path}`, { headers: { authorization: `Bearer ${ADMIN}`, ...(login ? { 'tailscale-user-login': login } : {}), ...extra } })

test('another tailnet login is refused, token or not; the named one and direct local requests pass', async () => {
  const other = await get('/snapshot', 'teammate@github')
  expect([other.status, await other.text()]).toEqual([403, 'forbidden: tailnet user teammate@github is not allowed here'])
  expect((await get('/snapshot', 'me@github')).status).toBe(200)
  expect((await get('/snapshot')).status).toBe(200)
  // before the token is even looked at, and for sockets at their upgrade
  expect((await fetch(`${b.base}/snapshot`, { headers: { 'tailscale-user-login': 'teammate@github' } })).status).toBe(403)
  expect((await get('/events', 'teammate@github', WS_HANDSHAKE)).status).toBe(403)
  // a public route too: nothing of the bridge is served to another login
  expect((await fetch(`${b.base}/healthz`, { headers: { 'tailscale-user-login': 'teammate@github' } })).status).toBe(403)
})

test('without --tailscale-user the header means nothing', async () => {
  const plain = await startBridge()
  try {
    const r = await fetch(`${plain.base}/snapshot`, { headers: { authorization: `Bearer ${ADMIN}`, 'tailscale-user-login': 'teammate@github' } })
    expect(r.status).toBe(200)
  } finally {
    await plain.stop()
  }
})
