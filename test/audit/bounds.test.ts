// The audit log is bounded by what it stores (docs/bridge.md "The audit log's
// bounds"; issue 37, items 5 and 6): a row's detail is at most 2 KiB, a body that
// fails validation is kept as its length and SHA-256, requests without a valid token
// are counted (one row per address per minute) and never push genuine rows out, a
// write with a malformed target is still a row, and `gothalo audit` prints every
// field escaped.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { Database } from 'bun:sqlite'
import { mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { DETAIL_MAX_BYTES, boundDetail } from '../../src/audit/actions'
import { createAuditLog } from '../../src/audit/log'
import { auditTable, runAdminCommand } from '../../src/cli/admin'
import type { Settings } from '../../src/cli/config'
import { ROOT, claudePane, pairDevice, startBridge, tempDir, type Bridge } from '../support/harness'

const S = (f: string) => join(ROOT, 'fixtures/screens-bridge', f)
const MARKER = 'typed-MARKER-b0c4'

let b: Bridge
let phone: { device_id: string; token: string }
let viewer: { device_id: string; token: string }

beforeAll(async () => {
  b = await startBridge({
    state: {
      panes: [
        claudePane({ pane_id: 'w1:p2', screen_file: S('bash-prompt.txt'), agent: { agent_status: 'blocked', state_change_seq: 3 } }),
        { pane_id: 'w1:p3', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ ' },
      ],
    },
    deps: { projectRoots: [] },
  })
  phone = await pairDevice(b, 'phone')
  viewer = await pairDevice(b, 'viewer', ['read'])
})
afterAll(() => b?.stop())

type Row = { id: number; ts: number; device_id: string; action: string; pane: string | null; detail: Record<string, unknown>; status: number }
const rows = async (): Promise<Row[]> => ((await b.json('/audit?limit=1000')) as { rows: Row[] }).rows
const newest = async () => (await rows())[0]!
const sha = (s: string) => createHash('sha256').update(s).digest('hex')
/** The database file's size once its write-ahead log is folded in (the log's own file is reused, bounded by SQLite's checkpoints). */
const dbBytes = () => {
  const db = new Database(join(b.dir, 'gothalo.db'))
  db.exec('PRAGMA busy_timeout = 5000')
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  return statSync(join(b.dir, 'gothalo.db')).size
}
const postRaw = (path: string, body: string, token: string) =>
  fetch(b.base + path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body })

describe('what a row keeps', () => {
  test('a flood of 50 unauthenticated POST /pair with a 60 KB device_name: one counted row, a few KiB, no genuine row pushed out', async () => {
    const genuine = await rows()
    const bytesBefore = dbBytes()
    const name = MARKER + 'n'.repeat(60_000)
    for (let i = 0; i < 50; i++) {
      const r = await b.post('/pair', { code: 'ABCD-EFGH', device_name: name }, null)
      expect(r.status).toBe(400)
    }
    const after = await rows()
    const added = after.filter((r) => !genuine.some((g) => g.id === r.id))
    // one row per address per minute: two if the flood crossed a minute
    expect(added.length).toBeLessThanOrEqual(2)
    expect(added.every((r) => r.action === 'unauthenticated' && r.device_id === '-')).toBe(true)
    expect(added.reduce((n, r) => n + (r.detail.count as number), 0)).toBe(50)
    expect(added[0]!.detail).toMatchObject({ address: '127.0.0.1', requests: { 'pair 400': expect.any(Number) } })
    for (const r of after) expect(Buffer.byteLength(JSON.stringify(r.detail))).toBeLessThanOrEqual(DETAIL_MAX_BYTES)
    expect(JSON.stringify(after)).not.toContain(MARKER)
    // every genuine row is still there, unchanged
    for (const g of genuine) expect(after).toContainEqual(g)
    // the flood grew the database by a page or two (by over 3 MB when each body was a row)
    const grown = dbBytes() - bytesBefore
    expect(grown).toBeLessThanOrEqual(8 * 1024)
  })

  test('requests with a wrong token: counted on one row, with how many and what they asked', async () => {
    for (let i = 0; i < 20; i++) expect((await b.post('/send', { pane: 'w1:p3', text: MARKER }, `wrong-${i}`)).status).toBe(401)
    const row = await newest()
    expect(row).toMatchObject({ device_id: '-', action: 'unauthenticated', status: 401, detail: { address: '127.0.0.1', requests: { 'send 401': 20 } } })
    expect(row.pane).toBeNull()
  })

  test('a body that fails validation is kept as its length and SHA-256, never verbatim', async () => {
    const bodies: [string, string][] = [
      ['/answer', JSON.stringify({ pane: 'w1:p2', seq: 3, fingerprint: 'f', choose: `${MARKER} typed as a choice` })],
      ['/agent-start', JSON.stringify({ kind: 'claude', cwd: `${MARKER}${'x'.repeat(5000)}` })],
      ['/agent-start', JSON.stringify({ kind: 'claude', cwd: 42, prompt: MARKER })],
      ['/send', JSON.stringify({ pane: `${MARKER} as a pane`, text: 7 })],
    ]
    for (const [path, body] of bodies) {
      const r = await postRaw(path, body, phone.token)
      expect([path, r.status]).toEqual([path, 400])
      const row = await newest()
      expect(row).toMatchObject({ device_id: phone.device_id, status: 400, detail: { invalid_body: { length: Buffer.byteLength(body), sha256: sha(body) } } })
      // a pane that could not be one is not kept either
      expect([path, row.pane]).toEqual([path, path === '/answer' ? 'w1:p2' : null])
      expect(JSON.stringify(row)).not.toContain(MARKER)
    }
  })

  test('a start refused for its directory keeps the directory as its digest', async () => {
    const cwd = `/nowhere/${MARKER}`
    const r = await b.post('/agent-start', { kind: 'claude', cwd }, phone.token)
    expect(r.status).toBe(404)
    expect(await newest()).toMatchObject({ action: 'agent.start', status: 404, detail: { kind: 'claude', cwd: { length: cwd.length, sha256: sha(cwd) } } })
  })

  test('a write whose target is malformed is still a row', async () => {
    const cases: [string, unknown, string][] = [
      ['/send', { pane: 'bad pane id', text: 'x' }, 'send'],
      ['/agent-stop', { pane: 'a b' }, 'agent.stop'],
      ['/approve', { agent: '-rf', seq: 1 }, 'approve'],
    ]
    for (const [path, body, action] of cases) {
      const before = (await newest()).id
      const r = await b.post(path, body, phone.token)
      expect([path, r.status]).toEqual([path, 404])
      const row = await newest()
      expect(row.id).toBeGreaterThan(before)
      expect(row).toMatchObject({ device_id: phone.device_id, action, status: 404 })
    }
    // /answer's text refused before its target is looked at: a row too
    const card = (await b.json('/agent-state?pane=w1:p2')) as { blocked: { fingerprint: string } }
    const bad = await b.post('/answer', { pane: 'w1:p2', seq: 3, fingerprint: card.blocked.fingerprint, choose: [1], text: 'a\u001bb' }, phone.token)
    expect(bad.status).toBe(400)
    expect(await newest()).toMatchObject({ action: 'answer', status: 400, detail: { text: { length: 3, sha256: sha('a\u001bb') } } })
  })
})

describe('gothalo audit cannot be made to lie', () => {
  test('a pane with colour codes and a newline prints escaped, one row per line', async () => {
    const r = await fetch(`${b.base}/send?pane=%1B%5B31mRED%0AFAKE-ROW`, {
      method: 'POST',
      headers: { authorization: `Bearer ${viewer.token}`, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(r.status).toBe(403)
    expect((await newest()).pane).toBe('\u001b[31mRED\nFAKE-ROW')
    const settings: Settings = { command: 'audit', host: '127.0.0.1', port: 0, herdr: 'herdr', dataDir: b.dir, demo: false, herdrTimeoutMs: 5000 }
    for (const json of [false, true]) {
      const out: string[] = []
      expect(await runAdminCommand({ ...settings, json }, (l) => out.push(l))).toBe(0)
      const all = await rows()
      expect(out.length).toBe(all.length + (json ? 0 : 1))
      for (const line of out) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
      const line = out.find((l) => l.includes('FAKE-ROW'))!
      expect(line).toContain(json ? '\\u001b[31mRED\\nFAKE-ROW' : '\\x1b[31mRED\\x0aFAKE-ROW')
      if (json) expect(JSON.parse(line).pane).toBe('\u001b[31mRED\nFAKE-ROW')
    }
  })

  test('every field is escaped: C1 controls, bidi overrides and line separators too', () => {
    const lines = auditTable([
      { id: 1, ts: 0, device_id: 'dev\u009b31m', action: 'send', pane: 'a\u202eb\u2028c\\x1b', detail: { name: 'n\u0085\u200f' }, status: 200 },
    ])
    expect(lines.length).toBe(2)
    expect(lines[1]).toContain('dev\\x9b31m')
    expect(lines[1]).toContain('a\\u{202e}b\\u{2028}c\\\\x1b')
    expect(lines[1]).toContain('{"name":"n\\u0085\\u200f"}')
    expect(lines[1]).not.toMatch(/[\u0080-\u009f\u2028\u202e\u200f]/)
  })
})

describe('the bounds, in the log itself', () => {
  test('a detail over 2 KiB: long strings as digests, and a detail still too large as the digest of its JSON', () => {
    const long = 'p'.repeat(5000)
    expect(boundDetail({ kind: 'claude', cwd: long })).toEqual({ kind: 'claude', cwd: { length: 5000, sha256: sha(long) } })
    const many = { ids: Array.from({ length: 200 }, (_, i) => `id-${i}-${'z'.repeat(20)}`) }
    const cut = boundDetail(many)
    expect(cut).toEqual({ oversize: { length: Buffer.byteLength(JSON.stringify(many)), sha256: sha(JSON.stringify(many)) } })
    const small = { seq: 3, choose: [1] }
    expect(boundDetail(small)).toBe(small)
    const dir = tempDir('gothalo-audit-bounds-')
    const log = createAuditLog(join(dir, 'a.db'))
    log.record({ device_id: 'd', action: 'send', pane: null, detail: many, status: 200 })
    expect(Buffer.byteLength(JSON.stringify(log.list()[0]!.detail))).toBeLessThanOrEqual(DETAIL_MAX_BYTES)
    log.close()
  })

  test('a flood of counted requests is not a disk write each: the count is written at most once a second', () => {
    const dir = tempDir('gothalo-audit-flood-')
    const log = createAuditLog(join(dir, 'a.db'))
    const wal = () => statSync(join(dir, 'a.db-wal')).size
    log.count({ address: '10.1.1.1', action: 'pair', status: 400 })
    const before = wal()
    for (let i = 0; i < 500; i++) log.count({ address: '10.1.1.1', action: 'pair', status: 400 })
    // one page a write: 500 writes were ~2 MB of log
    expect(wal() - before).toBeLessThan(16 * 1024)
    expect(log.list({ limit: 1 })[0]!.detail).toMatchObject({ address: '10.1.1.1', count: 501 })
    log.close()
  })

  test('counted rows: one per address per minute, at most 100 addresses a minute, and pruned to their own cap before any genuine row', async () => {
    let now = Date.UTC(2026, 0, 1)
    const dir = tempDir('gothalo-audit-count-')
    mkdirSync(dir, { recursive: true })
    const log = createAuditLog(join(dir, 'a.db'), () => now, { maxRows: 50, maxCountedRows: 10 })
    for (let i = 0; i < 5; i++) log.record({ device_id: 'd', action: 'send', pane: null, detail: { genuine: i }, status: 200 })
    // 200 addresses in one minute: 100 rows of their own, the rest on `other`
    for (let a = 0; a < 200; a++) log.count({ address: `10.0.0.${a}`, action: 'pair', status: 403 })
    log.count({ address: '10.0.0.1', action: 'send', status: 401 })
    const counted = log.list({ limit: 1000 }).filter((r) => r.action === 'unauthenticated')
    expect(counted.length).toBe(101)
    expect(counted.find((r) => r.detail.address === '10.0.0.1')!.detail).toMatchObject({ count: 2, requests: { 'pair 403': 1, 'send 401': 1 } })
    expect(counted.find((r) => r.detail.address === 'other')!.detail.count).toBe(100)
    // the next minute: a new row for the same address
    now += 60_000
    log.count({ address: '10.0.0.1', action: 'pair', status: 403 })
    expect(log.list({ limit: 1 })[0]!.detail).toMatchObject({ address: '10.0.0.1', count: 1 })
    await log.prune()
    const left = log.list({ limit: 1000 })
    expect(left.filter((r) => r.action === 'unauthenticated').length).toBe(10)
    expect(left.filter((r) => r.action === 'send').map((r) => r.detail.genuine)).toEqual([4, 3, 2, 1, 0])
    log.close()
  })
})
