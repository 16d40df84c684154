// The pairing store: paired devices and one-time pair codes in one SQLite file.
// The server and the CLI (`gothalo pair`, `gothalo devices …`) open the same
// file at the same time, so it runs in WAL mode with a busy timeout, and every
// read goes to the database (no cache that another process could make stale).
import { isMemoryDb, openSharedDb } from '../server/sqlite'
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import type { AuthStore, Device, PairCode, Principal, RedeemResult } from './types'
import { DEFAULT_SCOPES, DEFAULT_SCOPES_BEFORE_CODE, formatScopes, isScope, parseScopes } from './scopes'

/** A pair code is good for this long (docs/bridge.md: 10 minutes). */
export const PAIR_CODE_TTL_MS = 10 * 60_000
/** last_seen_at is written at most this often per device, not on every request. */
export const LAST_SEEN_THROTTLE_MS = 60_000
/** Failed redeems allowed per address per window before wrong codes get 429. */
export const REDEEM_MAX_FAILURES = 5
/** Failed redeems allowed from everyone together per window (behind a proxy every request is 127.0.0.1). */
export const REDEEM_GLOBAL_MAX_FAILURES = 30
export const REDEEM_WINDOW_MS = 10 * 60_000
/**
 * Every wrong code counts against every code alive at that moment; a code
 * dies after this many. So no code can be guessed in more than this many
 * tries, whoever guesses and however slowly, and the right code is never
 * refused for others' failures: the owner's fresh code always works.
 */
export const PAIR_CODE_MAX_FAILURES = 5

/** No 0/O, 1/I/L: a code read aloud or off a screen cannot be mistyped between look-alikes. */
export const PAIR_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ'

export interface AuthStoreOptions {
  /** path of the SQLite file (`<dataDir>/gothalo.db`), or ':memory:' */
  dbPath: string
  adminToken: string
  /** unix ms; injected so expiry, throttling and rate limits are testable without sleeping */
  clock?: () => number
  /**
   * When set, poll the file this often for devices revoked by another process
   * (the CLI) and call the onRevoke listeners for them, so their sockets close.
   */
  watchRevocationsMs?: number
}

export interface SqliteAuthStore extends AuthStore {
  /**
   * Calls the onRevoke listeners for devices that another handle on the same
   * file revoked since the last call (cheap when nothing changed). Returns their ids.
   */
  syncExternalRevocations(): string[]
}

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex')
}

/** 32 random bytes, base64url (43 characters). */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url')
}

/** `K7QX-2M9D`: 8 characters of PAIR_CODE_ALPHABET, dash in the middle, uniformly random. */
export function newPairCode(): string {
  const n = PAIR_CODE_ALPHABET.length
  const limit = 256 - (256 % n) // rejection sampling keeps every character equally likely
  const out: string[] = []
  while (out.length < 8) {
    for (const b of randomBytes(16)) {
      if (b < limit && out.length < 8) out.push(PAIR_CODE_ALPHABET[b % n])
    }
  }
  return `${out.slice(0, 4).join('')}-${out.slice(4).join('')}`
}

/**
 * The canonical form of a code as typed by a person: case, spaces and the dash
 * do not matter. Returns undefined for anything that cannot be a code.
 */
export function normalizePairCode(input: string): string | undefined {
  const s = input.toUpperCase().replace(/[\s-]/g, '')
  if (s.length !== 8) return undefined
  for (const ch of s) if (!PAIR_CODE_ALPHABET.includes(ch)) return undefined
  return `${s.slice(0, 4)}-${s.slice(4)}`
}

/** Why a device name is refused, or undefined when it is fine: 1..100 characters, no control characters. */
export function deviceNameProblem(name: string): string | undefined {
  // counted in UTF-16 units, like the JSON schema's maxLength, so the route and the store agree
  if (name.trim() === '' || name.length > 100) return 'device_name: 1..100 characters'
  // C0, DEL, C1, and the line/paragraph separators that break a one-line table
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name)) return 'device_name: no control characters'
  return undefined
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS devices (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER,
  revoked INTEGER NOT NULL DEFAULT 0,
  revoked_at INTEGER,
  scopes TEXT
);
CREATE TABLE IF NOT EXISTS pair_codes (
  code_hash TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used INTEGER NOT NULL DEFAULT 0,
  scopes TEXT
);
CREATE TABLE IF NOT EXISTS redeem_failures (
  at INTEGER NOT NULL,
  address TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS redeem_failures_at ON redeem_failures (at);
`

/**
 * A database file made earlier with a looser mode (by hand, an old version, a
 * umask) is brought to 0600, with its -wal and -shm, before it is opened: the
 * device tokens' hashes and the pair codes are the user's alone.
 */
export function tightenModes(dbPath: string): void {
  if (isMemoryDb(dbPath)) return
  for (const f of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) {
    try {
      if (statSync(f).mode & 0o077) chmodSync(f, 0o600)
    } catch {
      // absent (no -wal yet), or not ours to change: SQLite will say if it cannot open it
    }
  }
}

/**
 * The `code` scope split the working tree off `read`: devices and live pair codes
 * holding the default set of before keep what they could do, once (a device paired
 * later with exactly that set, on purpose without `code`, keeps it that way).
 */
function addCodeScope(db: ReturnType<typeof openSharedDb>): void {
  db.exec('CREATE TABLE IF NOT EXISTS store_migrations (name TEXT PRIMARY KEY, at INTEGER NOT NULL)')
  db.transaction(() => {
    if (db.query('SELECT 1 FROM store_migrations WHERE name = ?').get('scope-code')) return
    const now = formatScopes([...DEFAULT_SCOPES])
    db.query('UPDATE devices SET scopes = ? WHERE scopes = ?').run(now, DEFAULT_SCOPES_BEFORE_CODE)
    db.query('UPDATE pair_codes SET scopes = ? WHERE scopes = ?').run(now, DEFAULT_SCOPES_BEFORE_CODE)
    db.query('INSERT INTO store_migrations (name, at) VALUES (?, ?)').run('scope-code', Date.now())
  }).immediate()
}

type DeviceRow = { id: string; name: string; created_at: number; last_seen_at: number | null; scopes: string | null }

const deviceOf = (r: DeviceRow): Device => ({
  device_id: r.id,
  name: r.name,
  created_at: r.created_at,
  last_seen_at: r.last_seen_at,
  scopes: parseScopes(r.scopes),
})

export function createAuthStore(opts: AuthStoreOptions): SqliteAuthStore {
  if (!opts.adminToken) throw new Error('admin token must not be empty')
  const clock = opts.clock ?? Date.now
  const adminDigest = createHash('sha256').update(opts.adminToken).digest()
  // The device registry is private to the user: a 0700 directory and a 0600
  // file (SQLite gives its -wal and -shm files the main file's mode).
  // an in-memory database has no file: creating one would leave a file named `:memory:` in the working directory
  if (!isMemoryDb(opts.dbPath)) {
    mkdirSync(dirname(opts.dbPath), { recursive: true, mode: 0o700 })
    closeSync(openSync(opts.dbPath, 'a', 0o600))
  }
  tightenModes(opts.dbPath)
  const db = openSharedDb(opts.dbPath)
  db.exec('PRAGMA synchronous = NORMAL')
  db.exec(SCHEMA)
  // Files from older releases get the columns added since. A device from before scopes has
  // scopes NULL: it keeps the default (every scope but admin), as docs/bridge.md promises.
  const hasColumn = (table: string, column: string) =>
    db
      .query<{ name: string }, []>(`PRAGMA table_info(${table})`)
      .all()
      .some((c) => c.name === column)
  if (!hasColumn('pair_codes', 'failures')) db.exec('ALTER TABLE pair_codes ADD COLUMN failures INTEGER NOT NULL DEFAULT 0')
  if (!hasColumn('pair_codes', 'scopes')) db.exec('ALTER TABLE pair_codes ADD COLUMN scopes TEXT')
  if (!hasColumn('devices', 'scopes')) db.exec('ALTER TABLE devices ADD COLUMN scopes TEXT')
  addCodeScope(db)

  const q = {
    deviceByHash: db.query<{ id: string; last_seen_at: number | null; scopes: string | null }, [string]>(
      'SELECT id, last_seen_at, scopes FROM devices WHERE token_hash = ? AND revoked = 0',
    ),
    touch: db.query('UPDATE devices SET last_seen_at = ? WHERE id = ?'),
    insertCode: db.query('INSERT INTO pair_codes (code_hash, created_at, expires_at, scopes) VALUES (?, ?, ?, ?)'),
    codeScopes: db.query<{ scopes: string | null }, [string]>('SELECT scopes FROM pair_codes WHERE code_hash = ?'),
    dropOldCodes: db.query('DELETE FROM pair_codes WHERE expires_at <= ? OR used = 1'),
    // the conditional UPDATE is the single-use check: of two racing redeems only one changes a row
    useCode: db.query(`UPDATE pair_codes SET used = 1 WHERE code_hash = ? AND used = 0 AND expires_at > ? AND failures < ${PAIR_CODE_MAX_FAILURES}`),
    // a wrong code: one more strike for every code alive now
    strikeCodes: db.query('UPDATE pair_codes SET failures = failures + 1 WHERE used = 0 AND expires_at > ?'),
    failuresSince: db.query<{ n: number }, [number]>('SELECT COUNT(*) AS n FROM redeem_failures WHERE at > ?'),
    addressFailuresSince: db.query<{ n: number }, [number, string]>('SELECT COUNT(*) AS n FROM redeem_failures WHERE at > ? AND address = ?'),
    insertFailure: db.query('INSERT INTO redeem_failures (at, address) VALUES (?, ?)'),
    dropOldFailures: db.query('DELETE FROM redeem_failures WHERE at <= ?'),
    clearAddress: db.query('DELETE FROM redeem_failures WHERE address = ?'),
    insertDevice: db.query('INSERT INTO devices (id, name, token_hash, created_at, scopes) VALUES (?, ?, ?, ?, ?)'),
    list: db.query<DeviceRow, []>('SELECT id, name, created_at, last_seen_at, scopes FROM devices WHERE revoked = 0 ORDER BY created_at, id'),
    one: db.query<DeviceRow, [string]>('SELECT id, name, created_at, last_seen_at, scopes FROM devices WHERE id = ? AND revoked = 0'),
    revoke: db.query('UPDATE devices SET revoked = 1, revoked_at = ? WHERE id = ? AND revoked = 0'),
    revokedIds: db.query<{ id: string }, []>('SELECT id FROM devices WHERE revoked = 1'),
    dataVersion: db.query<{ data_version: number }, []>('PRAGMA data_version'),
  }

  const listeners = new Set<(deviceId: string) => void>()
  // Revocations the listeners already heard about (ours and other processes').
  const announced = new Set(q.revokedIds.all().map((r) => r.id))
  let seenDataVersion = q.dataVersion.get()?.data_version ?? 0
  let closed = false
  let timer: ReturnType<typeof setInterval> | undefined

  function announce(id: string) {
    if (announced.has(id)) return
    announced.add(id)
    for (const l of [...listeners]) {
      try {
        l(id)
      } catch {
        // one failing listener must not keep the others from closing their sockets
      }
    }
  }

  /**
   * Records a wrong code: a strike against every live code, and (while under
   * the limits) a dated failure for the address. Says whether the caller is
   * over a limit. In the database, so a restart forgets nothing.
   */
  const failTx = db.transaction((address: string, now: number): boolean => {
    q.strikeCodes.run(now)
    const since = now - REDEEM_WINDOW_MS
    q.dropOldFailures.run(since)
    const limited =
      (q.addressFailuresSince.get(since, address)?.n ?? 0) >= REDEEM_MAX_FAILURES || (q.failuresSince.get(since)?.n ?? 0) >= REDEEM_GLOBAL_MAX_FAILURES
    // Refused tries do not extend the window (and a flood cannot grow the table).
    if (!limited) q.insertFailure.run(now, address)
    return limited
  })

  const redeemTx = db.transaction((codeHash: string, name: string, now: number) => {
    if (q.useCode.run(codeHash, now).changes !== 1) return undefined
    const deviceId = `dev_${randomBytes(9).toString('base64url')}`
    const token = newSecretToken()
    // the code's scopes (a code from before scopes: NULL, the default) become the device's
    q.insertDevice.run(deviceId, name, sha256Hex(token), now, q.codeScopes.get(codeHash)?.scopes ?? null)
    return { deviceId, token }
  })

  const store: SqliteAuthStore = {
    identify(token) {
      if (typeof token !== 'string' || token === '') return undefined
      // Equal-length digests, so timingSafeEqual neither throws nor leaks the admin token's length.
      const digest = createHash('sha256').update(token).digest()
      if (timingSafeEqual(digest, adminDigest)) return { kind: 'admin' } satisfies Principal
      // Looking up by hash: the index walk depends on the hash, not on how much of the secret matched.
      const row = q.deviceByHash.get(digest.toString('hex'))
      if (!row) return undefined
      const now = clock()
      if (row.last_seen_at === null || now - row.last_seen_at >= LAST_SEEN_THROTTLE_MS) {
        try {
          q.touch.run(now, row.id)
        } catch {
          // a busy database must not turn a valid token into a failed request
        }
      }
      return { kind: 'device', deviceId: row.id, scopes: parseScopes(row.scopes) }
    },

    createPairCode(scopes = DEFAULT_SCOPES): PairCode {
      const now = clock()
      q.dropOldCodes.run(now)
      const code = newPairCode()
      const expires_at = now + PAIR_CODE_TTL_MS
      const valid = scopes.filter(isScope)
      if (valid.length === 0) throw new Error('a pairing code needs at least one scope')
      q.insertCode.run(sha256Hex(code), now, expires_at, formatScopes(valid))
      return { code, expires_at }
    },

    redeem(code, deviceName, address): RedeemResult {
      const now = clock()
      // A bad name says nothing about the code, so it is refused without counting as a guess.
      if (typeof deviceName !== 'string' || deviceNameProblem(deviceName)) return { ok: false, reason: 'invalid' }
      const canonical = typeof code === 'string' ? normalizePairCode(code) : undefined
      // The right code works whatever others got wrong: guessing is bounded per code instead.
      const done = canonical ? redeemTx(sha256Hex(canonical), deviceName.trim(), now) : undefined
      if (done) {
        q.clearAddress.run(address)
        return { ok: true, device_id: done.deviceId, token: done.token }
      }
      return failTx(address, now) ? { ok: false, reason: 'rate_limited' } : { ok: false, reason: 'invalid' }
    },

    listDevices(): Device[] {
      return q.list.all().map(deviceOf)
    },

    device(deviceId) {
      const r = q.one.get(deviceId)
      return r ? deviceOf(r) : undefined
    },

    revoke(deviceId) {
      const changed = q.revoke.run(clock(), deviceId).changes === 1
      if (changed) announce(deviceId)
      return changed
    },

    onRevoke(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },

    syncExternalRevocations() {
      if (closed) return []
      // data_version moves only when another connection commits: the usual case costs one pragma.
      const v = q.dataVersion.get()?.data_version ?? 0
      if (v === seenDataVersion) return []
      seenDataVersion = v
      const fresh = q.revokedIds
        .all()
        .map((r) => r.id)
        .filter((id) => !announced.has(id))
      for (const id of fresh) announce(id)
      return fresh
    },

    close() {
      if (closed) return
      closed = true
      if (timer) clearInterval(timer)
      listeners.clear()
      db.close()
    },
  }

  if (opts.watchRevocationsMs && opts.watchRevocationsMs > 0) {
    timer = setInterval(() => {
      try {
        store.syncExternalRevocations()
      } catch {
        // busy or vanished file: try again next tick
      }
    }, opts.watchRevocationsMs)
    ;(timer as { unref?: () => void }).unref?.()
  }

  return store
}
