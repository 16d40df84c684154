// The audit log end to end: each write from a phone (or the admin token) is one
// row in the bridge's database, written before the answer; typed text never is
// (its length and SHA-256 are); GET /audit and `gothalo audit` read it back; the
// retention prunes by age and count.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash, createECDH, randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAuditLog } from '../../src/audit/log'
import { runAdminCommand } from '../../src/cli/admin'
import type { Settings } from '../../src/cli/config'
import { ADMIN, FrameQueue, ROOT, claudePane, pairDevice, startBridge, tempDir, waitFor, type Bridge } from '../support/harness'

const S = (f: string) => join(ROOT, 'fixtures/screens-bridge', f)
/** typed by the tests; must never reach the bridge's database */
const MARKER = 'typed-MARKER-7f3a'

let b: Bridge
let phone: { device_id: string; token: string }
let viewer: { device_id: string; token: string }

beforeAll(async () => {
  b = await startBridge({
    push: true,
    timing: { attachPollMs: 1000 },
    state: {
      panes: [
        claudePane({ pane_id: 'w1:p2', screen_file: S('bash-prompt.txt'), agent: { agent_status: 'blocked', state_change_seq: 3 } }),
        claudePane({ pane_id: 'w1:p4', screen_file: S('mode-default.txt'), agent: { agent_status: 'idle', state_change_seq: 1 } }),
        { pane_id: 'w1:p3', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ ' },
      ],
    },
  })
  phone = await pairDevice(b, 'phone')
  viewer = await pairDevice(b, 'viewer', ['read'])
})
afterAll(() => b?.stop())

type Row = { ts: number; device_id: string; action: string; pane: string | null; detail: Record<string, unknown>; status: number }
const rows = async (q = ''): Promise<Row[]> => ((await b.json(`/audit${q}`)) as { rows: Row[] }).rows
const newest = async () => (await rows('?limit=1'))[0]
const sha = (s: string) => createHash('sha256').update(s).digest('hex')

describe('one row per write', () => {
  test('send: the text as its length and SHA-256', async () => {
    const text = `echo ${MARKER}`
    const r = await b.post('/send', { pane: 'w1:p3', text }, phone.token)
    expect(r.status).toBe(200)
    // written before the answer: there as soon as the answer is
    expect(await newest()).toMatchObject({
      device_id: phone.device_id,
      action: 'send',
      pane: 'w1:p3',
      detail: { text: { length: text.length, sha256: sha(text) } },
      status: 200,
    })
  })

  test('approve and answer: the seq, fingerprint and positions; a failure keeps its status', async () => {
    const card = (await b.json('/agent-state?pane=w1:p2')) as { blocked: { fingerprint: string } }
    const stale = await b.post('/approve', { agent: 'w1:p2', seq: 2 }, phone.token)
    expect(stale.status).toBe(409)
    expect(await newest()).toMatchObject({ action: 'approve', pane: 'w1:p2', detail: { seq: 2 }, status: 409 })
    const ans = await b.post('/answer', { pane: 'w1:p2', seq: 3, fingerprint: card.blocked.fingerprint, choose: [3] }, phone.token)
    expect(ans.status).toBe(200)
    expect(await newest()).toMatchObject({
      device_id: phone.device_id,
      action: 'answer',
      pane: 'w1:p2',
      detail: { seq: 3, fingerprint: card.blocked.fingerprint, choose: [3] },
      status: 200,
    })
    // a herdr failure answered by onError is a row too
    const gone = await b.post('/agent-mode/cycle', { pane: 'w1:p9' }, phone.token)
    expect(gone.status).toBe(404)
    expect(await newest()).toMatchObject({ action: 'mode.cycle', pane: 'w1:p9', status: 404 })
  })

  test('a refused write: 403 from the guard, its body unread, recorded without detail', async () => {
    const r = await b.post('/send', { pane: 'w1:p3', text: MARKER }, viewer.token)
    expect(r.status).toBe(403)
    expect(await newest()).toMatchObject({ device_id: viewer.device_id, action: 'send', detail: {}, status: 403 })
  })

  test('pairing, a code, a revocation, push subscriptions', async () => {
    const made = (await (await b.post('/pair/code', { scopes: ['read', 'answer'] })).json()) as { code: string }
    expect(await newest()).toMatchObject({ device_id: 'admin', action: 'pair.code', detail: { scopes: ['read', 'answer'] }, status: 200 })
    const wrong = await b.post('/pair', { code: 'ZZZZ-ZZZZ', device_name: 'intruder' }, null)
    expect(wrong.status).toBe(403)
    // without a valid token: counted on its address's row of the minute, its name not kept
    expect(await newest()).toMatchObject({ device_id: '-', action: 'unauthenticated', detail: { address: '127.0.0.1', requests: { 'pair 403': 1 } } })
    expect(JSON.stringify(await newest())).not.toContain('intruder')
    const dev = (await (await b.post('/pair', { code: made.code, device_name: 'tablet' }, null)).json()) as { device_id: string }
    expect(await newest()).toMatchObject({ device_id: dev.device_id, action: 'pair', detail: { name: 'tablet', scopes: ['read', 'answer'] }, status: 200 })
    const ecdh = createECDH('prime256v1')
    ecdh.generateKeys()
    const sub = {
      endpoint: 'https://push.example.com/send/abc',
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
    }
    const { id } = (await (await b.post('/push/subscriptions', { subscription: sub }, phone.token)).json()) as { id: string }
    expect(await newest()).toMatchObject({
      device_id: phone.device_id,
      action: 'push.subscribe',
      detail: { events: ['blocked', 'done'], push_service: 'push.example.com' },
    })
    await fetch(`${b.base}/push/subscriptions/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${phone.token}` } })
    expect(await newest()).toMatchObject({ action: 'push.unsubscribe', detail: { subscription: id }, status: 200 })
    await fetch(`${b.base}/devices/${dev.device_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } })
    expect(await newest()).toMatchObject({ device_id: 'admin', action: 'device.revoke', detail: { device: dev.device_id }, status: 200 })
  })

  test('a terminal session: one row when it ends, with the bytes typed', async () => {
    const q = new FrameQueue(`${b.wsBase}/attach?pane=w1:p3&token=${phone.token}`)
    await q.opened
    await q.next() // the screen
    q.send(`ls ${MARKER}\r`)
    q.send('é')
    await waitFor(() => b.calls().some((c) => c.includes('é') || c.join(' ').includes('é')), 5000, 'the typing')
    q.close()
    await q.closed
    await waitFor(async () => (await newest()).action === 'terminal', 5000, 'the session row')
    const row = await newest()
    expect(row).toMatchObject({ device_id: phone.device_id, action: 'terminal', pane: 'w1:p3', status: 101 })
    expect(row.detail.bytes_typed).toBe(Buffer.byteLength(`ls ${MARKER}\ré`))
  })

  test('the database holds no typed text anywhere', async () => {
    const bytes = ['gothalo.db', 'gothalo.db-wal']
      .map((f) => join(b.dir, f))
      .filter(existsSync)
      .map((f) => readFileSync(f))
    expect(bytes.length).toBeGreaterThan(0)
    for (const buf of bytes) expect(buf.includes(Buffer.from(MARKER))).toBe(false)
    // while the rows that stand for it are there
    expect((await rows('?limit=1000')).filter((r) => r.action === 'send' || r.action === 'terminal').length).toBeGreaterThanOrEqual(3)
  })
})

describe('reading it', () => {
  test('GET /audit: newest first, since and limit; admin only', async () => {
    const all = await rows('?limit=1000')
    expect(all.length).toBeGreaterThan(8)
    expect(all.map((r) => r.ts)).toEqual([...all.map((r) => r.ts)].sort((x, y) => y - x))
    expect((await rows('?limit=2')).length).toBe(2)
    const cut = all[2]!.ts
    expect((await rows(`?since=${cut}&limit=1000`)).every((r) => r.ts >= cut)).toBe(true)
    const denied = await b.get('/audit', phone.token)
    expect([denied.status, await denied.text()]).toEqual([403, 'forbidden: needs scope admin'])
    const bad = await b.get('/audit?limit=0')
    expect([bad.status, await bad.text()]).toEqual([400, 'want ?since=<unix ms>&limit=<1..1000>'])
  })

  test('gothalo audit prints the same from the shell (a table, or JSON lines)', async () => {
    const settings = (over: Partial<Settings>): Settings => ({
      command: 'audit',
      host: '127.0.0.1',
      port: 0,
      herdr: 'herdr',
      dataDir: b.dir,
      demo: false,
      herdrTimeoutMs: 5000,
      ...over,
    })
    const table: string[] = []
    expect(await runAdminCommand(settings({}), (l) => table.push(l))).toBe(0)
    expect(table[0]).toMatch(/^TIME +DEVICE +ACTION +PANE +STATUS +DETAIL$/)
    expect(table.some((l) => /\bsend\b.*\bw1:p3\b.*\b200\b.*"sha256"/.test(l))).toBe(true)
    const json: string[] = []
    await runAdminCommand(settings({ json: true, since: Date.now() + 60_000 }), (l) => json.push(l))
    expect(json).toEqual([])
    await runAdminCommand(settings({ json: true }), (l) => json.push(l))
    const first = JSON.parse(json[0]!)
    expect(first).toMatchObject({ action: expect.any(String), time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) })
    expect(json.join('\n')).not.toContain(MARKER)
  })
})

describe('retention', () => {
  test('rows past the age are pruned, then the oldest past the count', async () => {
    let now = Date.UTC(2026, 0, 1)
    const log = createAuditLog(join(tempDir('gothalo-audit-'), 'a.db'), () => now, { keepMs: 1000, maxRows: 3 })
    for (let i = 0; i < 5; i++) log.record({ device_id: 'd', action: 'send', pane: null, detail: { i }, status: 200, ts: now - 5000 })
    for (let i = 5; i < 10; i++) log.record({ device_id: 'd', action: 'send', pane: null, detail: { i }, status: 200 })
    expect(await log.prune()).toBe(5 + 2)
    expect(log.list().map((r) => r.detail.i)).toEqual([9, 8, 7])
    now += 2000
    expect(await log.prune()).toBe(3)
    expect(log.list()).toEqual([])
    log.close()
  })
})
