import { afterEach, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  LAST_SEEN_THROTTLE_MS,
  PAIR_CODE_ALPHABET,
  PAIR_CODE_MAX_FAILURES,
  PAIR_CODE_TTL_MS,
  REDEEM_GLOBAL_MAX_FAILURES,
  REDEEM_MAX_FAILURES,
  REDEEM_WINDOW_MS,
  createAuthStore,
  deviceNameProblem,
  newPairCode,
  normalizePairCode,
  type SqliteAuthStore,
} from '../../src/auth/store'
import { loadOrCreateAdminToken } from '../../src/auth/admin-token'
import { DEFAULT_SCOPES } from '../../src/auth/scopes'

const ADMIN = 'admin-secret-token-0123456789'
const dirs: string[] = []
const stores: SqliteAuthStore[] = []

function tempDir() {
  const d = mkdtempSync(join(tmpdir(), 'gothalo-auth-'))
  dirs.push(d)
  return d
}

function open(dbPath: string, clock: () => number) {
  const s = createAuthStore({ dbPath, adminToken: ADMIN, clock })
  stores.push(s)
  return s
}

/** A store on a fresh file with a hand-driven clock. */
function fixture(start = 1_700_000_000_000) {
  const clock = { now: start }
  const dbPath = join(tempDir(), 'gothalo.db')
  const store = open(dbPath, () => clock.now)
  return { store, clock, dbPath }
}

afterEach(() => {
  for (const s of stores.splice(0)) s.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('pair codes', () => {
  test('look like K7QX-2M9D and use only the unambiguous alphabet', () => {
    for (let i = 0; i < 200; i++) {
      const c = newPairCode()
      expect(c).toMatch(/^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/)
    }
    expect(PAIR_CODE_ALPHABET).not.toMatch(/[01OIL]/)
  })

  test('normalize forgives case, spaces and a missing dash; refuses look-alikes and junk', () => {
    expect(normalizePairCode('k7qx-2m9d')).toBe('K7QX-2M9D')
    expect(normalizePairCode(' K7QX 2M9D ')).toBe('K7QX-2M9D')
    expect(normalizePairCode('K7QX2M9D')).toBe('K7QX-2M9D')
    expect(normalizePairCode('K7QX-2M9O')).toBeUndefined()
    expect(normalizePairCode('K7QX-2M9')).toBeUndefined()
    expect(normalizePairCode('')).toBeUndefined()
    expect(normalizePairCode('\u0000\uffff💥')).toBeUndefined()
  })

  test('createPairCode answers a code expiring in 10 minutes', () => {
    const { store, clock } = fixture()
    const pc = store.createPairCode()
    expect(normalizePairCode(pc.code)).toBe(pc.code)
    expect(pc.expires_at).toBe(clock.now + PAIR_CODE_TTL_MS)
  })
})

describe('redeem and identify', () => {
  test('pair → redeem → identify the device', () => {
    const { store } = fixture()
    const { code } = store.createPairCode()
    const r = store.redeem(code, 'Pixel 9', '10.0.0.2')
    if (!r.ok) throw new Error(`redeem failed: ${r.reason}`)
    expect(r.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(store.identify(r.token)).toEqual({ kind: 'device', deviceId: r.device_id, scopes: [...DEFAULT_SCOPES] })
    expect(store.listDevices()).toEqual([
      { device_id: r.device_id, name: 'Pixel 9', created_at: expect.any(Number), last_seen_at: expect.any(Number), scopes: [...DEFAULT_SCOPES] },
    ])
  })

  test('a code typed in lower case without the dash still redeems', () => {
    const { store } = fixture()
    const { code } = store.createPairCode()
    expect(store.redeem(code.toLowerCase().replace('-', ''), 'phone', 'a').ok).toBe(true)
  })

  test('a code is single use', () => {
    const { store } = fixture()
    const { code } = store.createPairCode()
    expect(store.redeem(code, 'one', 'a').ok).toBe(true)
    expect(store.redeem(code, 'two', 'a')).toEqual({ ok: false, reason: 'invalid' })
    expect(store.listDevices().map((d) => d.name)).toEqual(['one'])
  })

  test('a code expires after 10 minutes (clock)', () => {
    const { store, clock } = fixture()
    const early = store.createPairCode()
    const late = store.createPairCode()
    clock.now += PAIR_CODE_TTL_MS - 1
    expect(store.redeem(early.code, 'in time', 'a').ok).toBe(true)
    clock.now += 1
    expect(store.redeem(late.code, 'too late', 'a')).toEqual({ ok: false, reason: 'invalid' })
  })

  test('wrong and garbage codes are invalid, never throw', () => {
    const { store } = fixture()
    store.createPairCode()
    for (const bad of ['', 'XXXX-XXXX', 'not a code at all', '\u0000'.repeat(8), '💥💥💥💥-💥💥💥💥'])
      expect(store.redeem(bad, 'n', `addr-${bad}`)).toEqual({ ok: false, reason: 'invalid' })
    expect(store.redeem(123 as unknown as string, 'n', 'x')).toEqual({ ok: false, reason: 'invalid' })
  })

  test('a bad device name is refused without spending the code', () => {
    const { store } = fixture()
    const { code } = store.createPairCode()
    expect(store.redeem(code, 'bad\nname', 'a')).toEqual({ ok: false, reason: 'invalid' })
    expect(store.redeem(code, '', 'a')).toEqual({ ok: false, reason: 'invalid' })
    expect(store.redeem(code, 'good', 'a').ok).toBe(true)
  })

  test('device names: 1..100 characters, no control characters', () => {
    expect(deviceNameProblem('Pixel 9')).toBeUndefined()
    expect(deviceNameProblem('📱'.repeat(50))).toBeUndefined()
    expect(deviceNameProblem('📱'.repeat(51))).toBeDefined()
    expect(deviceNameProblem('x'.repeat(100))).toBeUndefined()
    expect(deviceNameProblem('x'.repeat(101))).toBeDefined()
    expect(deviceNameProblem('')).toBeDefined()
    expect(deviceNameProblem('   ')).toBeDefined()
    expect(deviceNameProblem('a\tb')).toBeDefined()
    expect(deviceNameProblem('a\u001b[31mb')).toBeDefined()
    expect(deviceNameProblem('a\u0085b')).toBeDefined()
    expect(deviceNameProblem('a\u2028b')).toBeDefined()
  })

  test('unknown, empty and missing tokens identify nobody', () => {
    const { store } = fixture()
    expect(store.identify(undefined)).toBeUndefined()
    expect(store.identify(null)).toBeUndefined()
    expect(store.identify('')).toBeUndefined()
    expect(store.identify('nope')).toBeUndefined()
  })
})

describe('admin token', () => {
  test('the right token is admin; wrong ones of any length are not', () => {
    const { store } = fixture()
    expect(store.identify(ADMIN)).toEqual({ kind: 'admin' })
    expect(store.identify(ADMIN.slice(0, -1) + 'X')).toBeUndefined() // same length
    expect(store.identify(ADMIN.slice(0, -1))).toBeUndefined() // a prefix
    expect(store.identify(ADMIN + 'x')).toBeUndefined() // longer
    expect(store.identify('a')).toBeUndefined()
    expect(store.identify('x'.repeat(10_000))).toBeUndefined()
  })

  test('an empty admin token is refused at construction', () => {
    expect(() => createAuthStore({ dbPath: ':memory:', adminToken: '' })).toThrow()
  })
})

describe('last_seen_at', () => {
  test('is written on first use and then at most once a minute', () => {
    const { store, clock } = fixture()
    const { code } = store.createPairCode()
    const r = store.redeem(code, 'p', 'a')
    if (!r.ok) throw new Error('redeem failed')
    expect(store.listDevices()[0].last_seen_at).toBeNull()
    const t0 = clock.now
    store.identify(r.token)
    expect(store.listDevices()[0].last_seen_at).toBe(t0)
    clock.now += LAST_SEEN_THROTTLE_MS - 1
    store.identify(r.token)
    expect(store.listDevices()[0].last_seen_at).toBe(t0)
    clock.now += 1
    store.identify(r.token)
    expect(store.listDevices()[0].last_seen_at).toBe(t0 + LAST_SEEN_THROTTLE_MS)
  })
})

describe('rate limit', () => {
  test('5 failures from one address in 10 minutes → wrong codes are rate_limited until the window passes; a live right code still works', () => {
    const { store, clock } = fixture()
    for (let i = 0; i < REDEEM_MAX_FAILURES; i++) {
      expect(store.redeem('AAAA-AAAA', 'p', '10.0.0.9')).toEqual({ ok: false, reason: 'invalid' })
      clock.now += 1000
    }
    expect(store.redeem('AAAA-AAAA', 'p', '10.0.0.9')).toEqual({ ok: false, reason: 'rate_limited' })
    // a fresh right code is never refused for earlier failures: guessing is bounded per code instead
    expect(store.redeem(store.createPairCode().code, 'p', '10.0.0.9').ok).toBe(true)
    // another address is not affected
    expect(store.redeem('AAAA-AAAA', 'p', '10.0.0.10')).toEqual({ ok: false, reason: 'invalid' })
  })

  test('refused attempts while limited do not extend the lockout', () => {
    const { store, clock } = fixture()
    for (let i = 0; i < REDEEM_MAX_FAILURES; i++) store.redeem('AAAA-AAAA', 'p', 'x')
    for (let i = 0; i < 50; i++) {
      clock.now += 10_000
      expect(store.redeem('AAAA-AAAA', 'p', 'x').ok).toBe(false)
    }
    const start = clock.now - 50 * 10_000
    clock.now = start + REDEEM_WINDOW_MS
    expect(store.redeem('AAAA-AAAA', 'p', 'x')).toEqual({ ok: false, reason: 'invalid' })
  })

  test('a success clears the address failures', () => {
    const { store } = fixture()
    for (let i = 0; i < REDEEM_MAX_FAILURES - 1; i++) store.redeem('AAAA-AAAA', 'p', 'x')
    expect(store.redeem(store.createPairCode().code, 'p', 'x').ok).toBe(true)
    for (let i = 0; i < REDEEM_MAX_FAILURES - 1; i++) expect(store.redeem('AAAA-AAAA', 'p', 'x')).toEqual({ ok: false, reason: 'invalid' })
  })

  // Behind `tailscale serve` every request is 127.0.0.1, so failures from "one address" are everyone's:
  // guessing is bounded per code and globally instead, and the counts survive a restart.
  test(`a code dies after ${PAIR_CODE_MAX_FAILURES} wrong tries; the next code works`, () => {
    const { store } = fixture()
    const { code } = store.createPairCode()
    // from many addresses, so no per-address limit is involved
    for (let i = 0; i < PAIR_CODE_MAX_FAILURES; i++) expect(store.redeem('AAAA-AAAA', 'p', `10.0.0.${i}`).ok).toBe(false)
    expect(store.redeem(code, 'p', '10.0.1.1')).toEqual({ ok: false, reason: 'invalid' })
    expect(store.redeem(store.createPairCode().code, 'p', '10.0.1.1').ok).toBe(true)
  })

  test('a code made after the wrong tries starts with none against it', () => {
    const { store } = fixture()
    for (let i = 0; i < PAIR_CODE_MAX_FAILURES - 1; i++) store.redeem('AAAA-AAAA', 'p', `10.0.0.${i}`)
    const { code } = store.createPairCode()
    for (let i = 0; i < PAIR_CODE_MAX_FAILURES - 1; i++) store.redeem('AAAA-AAAA', 'p', `10.0.2.${i}`)
    expect(store.redeem(code, 'p', '10.0.1.1').ok).toBe(true)
  })

  test(`${REDEEM_GLOBAL_MAX_FAILURES} wrong codes from many addresses: further wrong codes are 429 from any address`, () => {
    const { store } = fixture()
    for (let i = 0; i < REDEEM_GLOBAL_MAX_FAILURES; i++) expect(store.redeem('AAAA-AAAA', 'p', `10.1.${i}.1`)).toEqual({ ok: false, reason: 'invalid' })
    expect(store.redeem('AAAA-AAAA', 'p', '10.9.9.9')).toEqual({ ok: false, reason: 'rate_limited' })
    expect(store.redeem(store.createPairCode().code, 'p', '10.9.9.9').ok).toBe(true)
  })

  test('after a restart, a code killed before it stays dead and an address limited before it stays limited', () => {
    const { store: first, clock, dbPath } = fixture()
    const { code } = first.createPairCode()
    for (let i = 0; i < REDEEM_MAX_FAILURES; i++) first.redeem('AAAA-AAAA', 'p', '127.0.0.1')
    first.close()
    stores.splice(stores.indexOf(first), 1)
    const second = open(dbPath, () => clock.now)
    expect(second.redeem('AAAA-AAAA', 'p', '127.0.0.1')).toEqual({ ok: false, reason: 'rate_limited' })
    expect(second.redeem(code, 'p', '127.0.0.2')).toEqual({ ok: false, reason: 'invalid' })
    expect(second.redeem(second.createPairCode().code, 'p', '127.0.0.1').ok).toBe(true)
  })

  test('a database from before the failure count opens, and its live code still works', () => {
    const db = join(tempDir(), 'gothalo.db')
    const old = new Database(db, { create: true })
    old.exec('CREATE TABLE pair_codes (code_hash TEXT PRIMARY KEY, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, used INTEGER NOT NULL DEFAULT 0)')
    old.query('INSERT INTO pair_codes VALUES (?, ?, ?, 0)').run(createHash('sha256').update('K7QX-2M9D').digest('hex'), 0, 2_000_000_000_000)
    old.close()
    const store = open(db, () => 1_700_000_000_000)
    expect(store.redeem('k7qx 2m9d', 'p', 'x').ok).toBe(true)
  })
})

describe('revoke', () => {
  test('revoke → identify undefined, listener called, device gone from the list', () => {
    const { store } = fixture()
    const r = store.redeem(store.createPairCode().code, 'p', 'a')
    if (!r.ok) throw new Error('redeem failed')
    const heard: string[] = []
    const off = store.onRevoke((id) => heard.push(id))
    store.onRevoke(() => {
      throw new Error('a broken listener')
    })
    const later: string[] = []
    store.onRevoke((id) => later.push(id))
    expect(store.revoke(r.device_id)).toBe(true)
    expect(heard).toEqual([r.device_id])
    expect(later).toEqual([r.device_id]) // the throwing listener did not stop it
    expect(store.identify(r.token)).toBeUndefined()
    expect(store.listDevices()).toEqual([])
    expect(store.revoke(r.device_id)).toBe(false)
    expect(store.revoke('dev_nope')).toBe(false)
    expect(heard).toEqual([r.device_id])
    off()
    const r2 = store.redeem(store.createPairCode().code, 'q', 'a')
    if (!r2.ok) throw new Error('redeem failed')
    store.revoke(r2.device_id)
    expect(heard).toEqual([r.device_id])
  })

  test('a revocation by another handle on the file reaches this handle after sync', () => {
    const { store, clock, dbPath } = fixture()
    const other = open(dbPath, () => clock.now)
    const r = store.redeem(store.createPairCode().code, 'p', 'a')
    if (!r.ok) throw new Error('redeem failed')
    const heard: string[] = []
    store.onRevoke((id) => heard.push(id))
    expect(store.syncExternalRevocations()).toEqual([])
    expect(other.revoke(r.device_id)).toBe(true)
    expect(store.identify(r.token)).toBeUndefined() // no cache: refused at once
    expect(store.syncExternalRevocations()).toEqual([r.device_id])
    expect(heard).toEqual([r.device_id])
    expect(store.syncExternalRevocations()).toEqual([])
    expect(heard).toEqual([r.device_id])
  })

  test("watchRevocationsMs announces another handle's revocation without a manual sync", async () => {
    const { store: writer, dbPath } = fixture()
    const watcher = createAuthStore({ dbPath, adminToken: ADMIN, watchRevocationsMs: 5 })
    stores.push(watcher)
    const r = writer.redeem(writer.createPairCode().code, 'p', 'a')
    if (!r.ok) throw new Error('redeem failed')
    const heard = new Promise<string>((resolve) => watcher.onRevoke(resolve))
    writer.revoke(r.device_id)
    expect(await heard).toBe(r.device_id)
  })
})

describe('storage', () => {
  test('tokens and codes are stored only as hashes', () => {
    const { store, dbPath } = fixture()
    const { code } = store.createPairCode()
    const spare = store.createPairCode()
    const r = store.redeem(code, 'p', 'a')
    if (!r.ok) throw new Error('redeem failed')
    store.close()
    const db = new Database(dbPath, { readonly: true })
    const rows = JSON.stringify([db.query('SELECT * FROM devices').all(), db.query('SELECT * FROM pair_codes').all()])
    db.close()
    expect(rows).toContain(r.device_id) // the dump is real
    for (const secret of [r.token, code, spare.code, code.replace('-', '')]) expect(rows).not.toContain(secret)
    // nor anywhere in the file, its WAL or its shared memory
    const dir = join(dbPath, '..')
    for (const f of readdirSync(dir)) {
      const bytes = readFileSync(join(dir, f)).toString('latin1')
      for (const secret of [r.token, spare.code]) expect(bytes.includes(secret)).toBe(false)
    }
  })

  test('the file is in WAL mode with a busy timeout', () => {
    const { store, dbPath } = fixture()
    store.close()
    const db = new Database(dbPath)
    expect(db.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    db.close()
  })

  test('two handles on one file: a code made by one is redeemed by the other', () => {
    const { store, clock, dbPath } = fixture()
    const other = open(dbPath, () => clock.now)
    const r = other.redeem(store.createPairCode().code, 'p', 'a')
    if (!r.ok) throw new Error('redeem failed')
    expect(store.identify(r.token)).toEqual({ kind: 'device', deviceId: r.device_id, scopes: [...DEFAULT_SCOPES] })
  })
})

test('the database and its WAL files are private to the user (0600, in a 0700 dir)', () => {
  const { mkdtempSync, statSync, readdirSync } = require('node:fs') as typeof import('node:fs')
  const { join } = require('node:path') as typeof import('node:path')
  const { tmpdir } = require('node:os') as typeof import('node:os')
  const dir = join(mkdtempSync(join(tmpdir(), 'gothalo-mode-')), 'fresh', 'data')
  const store = createAuthStore({ dbPath: join(dir, 'gothalo.db'), adminToken: 'a' })
  store.createPairCode()
  expect(statSync(dir).mode & 0o777).toBe(0o700)
  const files = readdirSync(dir)
  expect(files).toContain('gothalo.db')
  for (const f of files) expect({ f, mode: statSync(join(dir, f)).mode & 0o777 }).toEqual({ f, mode: 0o600 })
  store.close()
})

// Files made earlier with a loose mode are tightened on start, as the admin token is.
test('a pre-existing 0666 gothalo.db, -wal and -shm are 0600 once the store opens; the admin token too', () => {
  const mode = (f: string) => statSync(f).mode & 0o777
  const dir = tempDir()
  const db = join(dir, 'gothalo.db')
  // Another handle keeps the WAL files in place while the store opens.
  const other = new Database(db, { create: true })
  other.exec('PRAGMA journal_mode = WAL')
  other.exec('CREATE TABLE IF NOT EXISTS t (x)')
  other.exec('INSERT INTO t VALUES (1)')
  const files = [db, `${db}-wal`, `${db}-shm`]
  for (const f of files) {
    expect(existsSync(f)).toBe(true)
    chmodSync(f, 0o666)
  }
  writeFileSync(join(dir, 'admin-token'), 'tok\n')
  chmodSync(join(dir, 'admin-token'), 0o666)
  const store = createAuthStore({ dbPath: db, adminToken: loadOrCreateAdminToken(dir).token })
  try {
    expect(files.map(mode)).toEqual([0o600, 0o600, 0o600])
    expect(mode(join(dir, 'admin-token'))).toBe(0o600)
    // still the same database, readable through the store
    expect(store.identify('tok')).toEqual({ kind: 'admin' })
  } finally {
    store.close()
    other.close()
  }
})
