// Web Push end to end: the real app, the fake herdr, and a push-service
// stand-in on 127.0.0.1 that decrypts each message (RFC 8291, aes128gcm) with
// the subscription's private key and checks the VAPID JWT (RFC 8292).
import { afterEach, describe, expect, test } from 'bun:test'
import { createECDH, createPublicKey, randomBytes, verify } from 'node:crypto'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import ece from 'http_ece'
import { ADMIN, ROOT, claudePane, startBridge, waitFor, type Bridge } from '../support/harness'
import { loadOrCreateVapidKeys } from '../../src/push/vapid'

const S = (f: string) => join(ROOT, 'fixtures/screens-bridge', f)

interface Received {
  path: string
  headers: Record<string, string>
  body: Buffer
}

/** A push service: records requests; `reply` decides each answer (a status, or 'hang'). */
function pushService(reply: (n: number) => number | 'hang' = () => 201) {
  const got: Received[] = []
  const hanging: (() => void)[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const body = Buffer.from(await req.arrayBuffer())
      got.push({ path: new URL(req.url).pathname, headers: Object.fromEntries(req.headers), body })
      const r = reply(got.length)
      if (r === 'hang') return new Promise<Response>((res) => hanging.push(() => res(new Response(null, { status: 201 }))))
      return new Response(null, { status: r })
    },
  })
  return {
    got,
    url: (path: string) => `http://127.0.0.1:${server.port}${path}`,
    stop() {
      for (const h of hanging.splice(0)) h()
      server.stop(true)
    },
  }
}

/** A browser's PushSubscription: its keys, and how to read what was sent to it. */
function browserSubscription(endpoint: string) {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  const auth = randomBytes(16)
  return {
    json: { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } },
    decrypt: (body: Buffer) =>
      JSON.parse(ece.decrypt(body, { version: 'aes128gcm', privateKey: ecdh, authSecret: auth.toString('base64url') }).toString('utf8')),
  }
}

/** Checks the VAPID Authorization header; returns the JWT claims. */
function checkVapid(header: string, publicKey: string) {
  const m = /^vapid t=([^,]+), k=(.+)$/.exec(header)
  expect(m).not.toBeNull()
  const [, jwt, k] = m!
  expect(k).toBe(publicKey)
  const [h, p, sig] = jwt.split('.')
  expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ typ: 'JWT', alg: 'ES256' })
  const raw = Buffer.from(k, 'base64url')
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') },
    format: 'jwk',
  })
  expect(verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url'))).toBe(true)
  return JSON.parse(Buffer.from(p, 'base64url').toString())
}

const cleanup: (() => unknown)[] = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

async function setup(reply?: (n: number) => number | 'hang', sender?: Record<string, number>) {
  const svc = pushService(reply)
  cleanup.push(() => svc.stop())
  const b = await startBridge({
    state: { panes: [claudePane({ pane_id: 'w1:p2', screen_file: S('mode-default.txt'), agent: { agent_status: 'working', state_change_seq: 3 } })] },
    herdrSocket: true,
    push: { backoffMs: 50, timeoutMs: 2000, ...sender },
  })
  cleanup.push(() => b.stop())
  const code = ((await (await b.post('/pair/code', {})).json()) as any).code
  const dev = (await (await b.post('/pair', { code, device_name: 'phone' }, null)).json()) as any
  const sub = browserSubscription(svc.url('/push/abc'))
  const key = ((await b.json('/push/vapid-public-key', dev.token)) as any).key
  return { svc, b, dev, sub, key }
}

const block = (b: Bridge, seq: number) =>
  b.updatePane('w1:p2', (p) => {
    p.screen_file = S('bash-prompt.txt')
    p.agent!.agent_status = 'blocked'
    p.agent!.state_change_seq = seq
  })
const work = (b: Bridge, seq: number) =>
  b.updatePane('w1:p2', (p) => {
    p.screen_file = S('mode-default.txt')
    p.agent!.agent_status = 'working'
    p.agent!.state_change_seq = seq
  })

describe('Web Push', () => {
  test('VAPID keys: made once in the data dir (0600), the same on the next start', () => {
    const d = require('node:fs').mkdtempSync(join(require('node:os').tmpdir(), 'gothalo-vapid-'))
    const first = loadOrCreateVapidKeys(d)
    expect(first.created).toBe(true)
    expect(Buffer.from(first.keys.publicKey, 'base64url').length).toBe(65)
    expect(statSync(join(d, 'vapid.json')).mode & 0o777).toBe(0o600)
    const again = loadOrCreateVapidKeys(d)
    expect(again).toEqual({ keys: first.keys, created: false })
    require('node:fs').writeFileSync(join(d, 'vapid.json'), 'garbage')
    expect(() => loadOrCreateVapidKeys(d)).toThrow(/not a VAPID key file/)
  })

  test('blocked: one encrypted notification with the question and fingerprint, a valid VAPID JWT; answered elsewhere: a follow-up for the same pane', async () => {
    const { svc, b, dev, sub, key } = await setup()
    const r = await b.post('/push/subscriptions', { subscription: sub.json, events: ['blocked', 'done'] }, dev.token)
    expect(r.status).toBe(200)
    const { id } = (await r.json()) as any
    expect(((await b.json('/push/subscriptions', dev.token)) as any[]).map((s) => [s.id, s.events])).toEqual([[id, ['blocked', 'done']]])
    // the hub runs for the subscription: wait for its first list before changing anything
    await waitFor(() => b.app.decorator.events.ready, 5000, 'the event hub')

    block(b, 4)
    await waitFor(() => svc.got.length >= 1, 5000, 'a push')
    const msg = svc.got[0]
    expect(msg.path).toBe('/push/abc')
    expect(msg.headers['content-encoding']).toBe('aes128gcm')
    expect(Number(msg.headers.ttl)).toBeGreaterThan(0)
    expect(msg.headers.urgency).toBe('high')
    const claims = checkVapid(msg.headers.authorization, key)
    expect(claims.aud).toBe(new URL(svc.url('/')).origin)
    expect(claims.sub).toBe('mailto:test@example.com')
    expect(claims.exp * 1000).toBeGreaterThan(Date.now())
    expect(claims.exp * 1000).toBeLessThanOrEqual(Date.now() + 24 * 3600_000)
    const payload = sub.decrypt(msg.body)
    expect(Object.keys(payload).sort()).toEqual(['agent_kind', 'agent_status', 'fingerprint', 'headline', 'pane_id', 'question', 'seq'])
    expect(payload).toMatchObject({ pane_id: 'w1:p2', agent_kind: 'claude', agent_status: 'blocked', question: 'Do you want to proceed?' })
    const card = (await b.json('/agent-state?pane=w1:p2')) as any
    expect(payload.fingerprint).toBe(card.blocked.fingerprint)

    // answered from the terminal: working is not subscribed, so a follow-up (same pane) says so
    work(b, 5)
    await waitFor(() => svc.got.length >= 2, 5000, 'the follow-up')
    const follow = sub.decrypt(svc.got[1].body)
    expect(follow).toMatchObject({ pane_id: 'w1:p2', agent_status: 'working' })
    expect(follow.headline).toStartWith('Answered')
    expect(follow.seq).toBeGreaterThan(payload.seq)
    expect(svc.got[1].headers.topic).toBe(svc.got[0].headers.topic)
  })

  test('404/410 from the push service deletes the subscription; 5xx is retried with backoff', async () => {
    const { svc, b, dev, sub } = await setup((n) => (n === 1 ? 503 : n === 2 ? 201 : 410))
    await b.post('/push/subscriptions', { subscription: sub.json }, dev.token)
    await waitFor(() => b.app.decorator.events.ready, 5000, 'the event hub')
    block(b, 4)
    await waitFor(() => svc.got.length >= 2, 5000, 'the retry')
    expect(sub.decrypt(svc.got[1].body).agent_status).toBe('blocked')
    await waitFor(() => b.app.decorator.counters.push!.sent === 1, 5000, 'the retry acknowledged')
    expect(b.app.decorator.counters.push!).toMatchObject({ sent: 1, retried: 1 })
    work(b, 5) // follow-up: answered 410
    await waitFor(() => svc.got.length >= 3, 5000, 'the follow-up')
    await waitFor(async () => ((await b.json('/push/subscriptions', dev.token)) as any[]).length === 0, 5000, 'the subscription deleted')
  })

  test('a hanging push service does not slow /healthz or the API', async () => {
    const { svc, b, dev, sub } = await setup(() => 'hang', { timeoutMs: 60_000 })
    await b.post('/push/subscriptions', { subscription: sub.json }, dev.token)
    await waitFor(() => b.app.decorator.events.ready, 5000, 'the event hub')
    block(b, 4)
    await waitFor(() => svc.got.length >= 1, 5000, 'a push in flight')
    let worst = 0
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now()
      expect((await b.get('/healthz', null)).status).toBe(200)
      expect((await b.get('/push/subscriptions', dev.token)).status).toBe(200)
      worst = Math.max(worst, performance.now() - t0)
    }
    // a send in flight holds nothing a request needs
    expect(worst).toBeLessThan(2000)
    expect(svc.got.length).toBe(1)
  })

  test('revoking the device deletes its subscriptions; it hears nothing more', async () => {
    const { svc, b, dev, sub } = await setup()
    await b.post('/push/subscriptions', { subscription: sub.json }, dev.token)
    expect(((await b.json('/push/subscriptions')) as any[]).length).toBe(1)
    const del = await fetch(`${b.base}/devices/${dev.device_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } })
    expect(del.status).toBe(200)
    expect(await b.json('/push/subscriptions')).toEqual([])
    block(b, 4)
    // the watcher saw the change (a socket frame would prove it): /snapshot shows it; still no push
    await waitFor(async () => ((await b.json('/snapshot')) as any).panes[0].agent_status === 'blocked', 5000, 'the change')
    expect(svc.got).toEqual([])
  })

  test('bad subscriptions are 400; the admin token cannot subscribe (403); unknown id 404', async () => {
    const { b, dev, sub } = await setup()
    const bad = async (body: unknown) => {
      const r = await b.post('/push/subscriptions', body, dev.token)
      return [r.status, await r.text()]
    }
    expect(await bad({ subscription: { ...sub.json, endpoint: 'http://push.example.com/x' } })).toEqual([400, 'subscription.endpoint: must be https'])
    expect(await bad({ subscription: { ...sub.json, keys: { ...sub.json.keys, p256dh: 'AAAA' } } })).toEqual([
      400,
      'subscription.keys.p256dh: not a P-256 public key',
    ])
    expect((await bad({ subscription: sub.json, events: ['exploded'] }))[0]).toBe(400)
    expect((await bad({}))[0]).toBe(400)
    const admin = await b.post('/push/subscriptions', { subscription: sub.json })
    expect(admin.status).toBe(403)
    const del = await fetch(`${b.base}/push/subscriptions/sub_nope`, { method: 'DELETE', headers: { authorization: `Bearer ${dev.token}` } })
    expect([del.status, await del.text()]).toEqual([404, 'no such subscription'])
  })
})
