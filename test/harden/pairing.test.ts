// Pairing brute force (issue 10, item 12): behind `tailscale serve` every
// request is 127.0.0.1, so failures from "one address" are everyone's. Wrong
// codes must not lock the owner out, a code dies after a few wrong tries, and
// the counters survive a restart.
import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { PAIR_CODE_MAX_FAILURES, REDEEM_GLOBAL_MAX_FAILURES, REDEEM_MAX_FAILURES, createAuthStore, type SqliteAuthStore } from '../../src/auth/store'
import { startBridge, tempDir, type Bridge } from '../support/harness'

let b: Bridge | undefined
const stores: SqliteAuthStore[] = []
afterEach(async () => {
  await b?.stop()
  b = undefined
  for (const s of stores.splice(0)) s.close()
})

function open(dbPath: string, clock: { now: number }) {
  const s = createAuthStore({ dbPath, adminToken: 'admin', clock: () => clock.now })
  stores.push(s)
  return s
}

describe('over a real socket, everyone on 127.0.0.1', () => {
  test('after many wrong codes from anyone, a fresh code still pairs', async () => {
    b = await startBridge()
    const pair = (code: string) => b!.post('/pair', { code, device_name: 'phone' }, null)
    const statuses: number[] = []
    for (let i = 0; i < REDEEM_MAX_FAILURES + 3; i++) statuses.push((await pair('AAAA-AAAA')).status)
    expect(statuses.slice(0, REDEEM_MAX_FAILURES)).toEqual(Array(REDEEM_MAX_FAILURES).fill(403))
    expect(statuses.slice(REDEEM_MAX_FAILURES)).toEqual([429, 429, 429])
    const { code } = (await (await b.post('/pair/code', {})).json()) as { code: string }
    const r = await pair(code)
    expect(r.status).toBe(200)
    expect(((await r.json()) as { token: string }).token).toBeString()
  })
})

describe('per code and global limits', () => {
  test(`a code dies after ${PAIR_CODE_MAX_FAILURES} wrong tries; the next code works`, () => {
    const clock = { now: 1_700_000_000_000 }
    const store = open(join(tempDir(), 'gothalo.db'), clock)
    const { code } = store.createPairCode()
    // from many addresses, so no per-address limit is involved
    for (let i = 0; i < PAIR_CODE_MAX_FAILURES; i++) expect(store.redeem('AAAA-AAAA', 'p', `10.0.0.${i}`).ok).toBe(false)
    expect(store.redeem(code, 'p', '10.0.1.1')).toEqual({ ok: false, reason: 'invalid' })
    expect(store.redeem(store.createPairCode().code, 'p', '10.0.1.1').ok).toBe(true)
  })

  test('a code made after the wrong tries starts with none against it', () => {
    const clock = { now: 1_700_000_000_000 }
    const store = open(join(tempDir(), 'gothalo.db'), clock)
    for (let i = 0; i < PAIR_CODE_MAX_FAILURES - 1; i++) store.redeem('AAAA-AAAA', 'p', `10.0.0.${i}`)
    const { code } = store.createPairCode()
    for (let i = 0; i < PAIR_CODE_MAX_FAILURES - 1; i++) store.redeem('AAAA-AAAA', 'p', `10.0.2.${i}`)
    expect(store.redeem(code, 'p', '10.0.1.1').ok).toBe(true)
  })

  test(`${REDEEM_GLOBAL_MAX_FAILURES} wrong codes from many addresses: further wrong codes are 429 from any address`, () => {
    const clock = { now: 1_700_000_000_000 }
    const store = open(join(tempDir(), 'gothalo.db'), clock)
    for (let i = 0; i < REDEEM_GLOBAL_MAX_FAILURES; i++) expect(store.redeem('AAAA-AAAA', 'p', `10.1.${i}.1`)).toEqual({ ok: false, reason: 'invalid' })
    expect(store.redeem('AAAA-AAAA', 'p', '10.9.9.9')).toEqual({ ok: false, reason: 'rate_limited' })
    expect(store.redeem(store.createPairCode().code, 'p', '10.9.9.9').ok).toBe(true)
  })
})

describe('counters survive a restart', () => {
  test('a code killed before the restart stays dead; an address limited before it stays limited', () => {
    const clock = { now: 1_700_000_000_000 }
    const db = join(tempDir(), 'gothalo.db')
    const first = open(db, clock)
    const { code } = first.createPairCode()
    for (let i = 0; i < REDEEM_MAX_FAILURES; i++) first.redeem('AAAA-AAAA', 'p', '127.0.0.1')
    first.close()
    stores.splice(stores.indexOf(first), 1)
    const second = open(db, clock)
    expect(second.redeem('AAAA-AAAA', 'p', '127.0.0.1')).toEqual({ ok: false, reason: 'rate_limited' })
    expect(second.redeem(code, 'p', '127.0.0.2')).toEqual({ ok: false, reason: 'invalid' })
    expect(second.redeem(second.createPairCode().code, 'p', '127.0.0.1').ok).toBe(true)
  })

  test('a database from before the failure count opens, and its live code still works', () => {
    const { Database } = require('bun:sqlite') as typeof import('bun:sqlite')
    const db = join(tempDir(), 'gothalo.db')
    const old = new Database(db, { create: true })
    old.exec('CREATE TABLE pair_codes (code_hash TEXT PRIMARY KEY, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, used INTEGER NOT NULL DEFAULT 0)')
    const { createHash } = require('node:crypto') as typeof import('node:crypto')
    old.query('INSERT INTO pair_codes VALUES (?, ?, ?, 0)').run(createHash('sha256').update('K7QX-2M9D').digest('hex'), 0, 2_000_000_000_000)
    old.close()
    const store = open(db, { now: 1_700_000_000_000 })
    expect(store.redeem('k7qx 2m9d', 'p', 'x').ok).toBe(true)
  })
})
